"""An expression table and a sample sheet (issue 30, point 1): GLIOMA split into a table of
numbers (samples in rows, or genes in rows) and a sheet in another order, matched by
identifier: the same matrix, labels and selection as the Parquet file; missing and
repeated identifiers named; the command line's --samples."""

import numpy as np
import pandas as pd
import pytest

from conftest import GLIOMA
from fsengine import FSEngineError, load_dataset, run_selection
from fsengine.cli import main
from fsengine.export.writers import selection_to_csv


@pytest.fixture(scope="module")
def glioma():
    return load_dataset(GLIOMA)


@pytest.fixture(scope="module")
def files(tmp_path_factory, glioma):
    """expression.csv (samples in rows), expression_genes_in_rows.tsv and sheet.tsv (the
    samples reversed, with a second annotation and an extra sample)."""
    folder = tmp_path_factory.mktemp("sheet")
    ids = [f"P{k:03d}" for k in range(glioma.n_samples)]
    table = pd.DataFrame(glioma.X, columns=list(glioma.feature_names))
    table.insert(0, "sample_id", ids)
    table.to_csv(folder / "expression.csv", index=False)
    genes = pd.DataFrame(glioma.X.T, columns=ids)
    genes.insert(0, "gene", list(glioma.feature_names))
    genes.to_csv(folder / "expression_genes_in_rows.tsv", sep="\t", index=False)
    sheet = pd.DataFrame(
        {
            "site": ["north", "south"] * (glioma.n_samples // 2),
            "patient": ids,
            "diagnosis": [f"class {v}" for v in glioma.labels],
        }
    ).iloc[::-1]
    extra = pd.DataFrame({"site": ["north"], "patient": ["P999"], "diagnosis": ["class 1"]})
    pd.concat([sheet, extra]).to_csv(folder / "sheet.tsv", sep="\t", index=False)
    return folder


@pytest.mark.parametrize(
    ("table", "transpose"), [("expression.csv", False), ("expression_genes_in_rows.tsv", True)]
)
def test_the_table_and_sheet_are_the_parquet_file(files, glioma, table, transpose):
    ds = load_dataset(
        files / table, samples=files / "sheet.tsv", label="diagnosis", transpose=transpose
    )
    assert np.array_equal(ds.X, glioma.X)
    assert ds.feature_names == glioma.feature_names
    assert [str(v) for v in ds.labels] == [f"class {v}" for v in glioma.labels]
    assert ds.sample_names[:2] == ("P000", "P001")
    assert "classes from the sample sheet sheet.tsv, matched by its column 'patient'" in ds.notes
    assert "1 samples of the sheet are not in the expression table" in ds.notes
    assert ds.label_choices == ("site", "diagnosis")
    on_sheet = run_selection(ds, "class 2", "kofsd").selection
    assert on_sheet.features == run_selection(glioma, 2, "kofsd").selection.features


def test_the_class_column_is_chosen_or_the_columns_listed(files):
    with pytest.raises(FSEngineError) as caught:
        load_dataset(files / "expression.csv", samples=files / "sheet.tsv")
    message = caught.value.describe()
    assert "keeps the class in one of its sample sheet columns:" in message
    assert (
        "'diagnosis' (4 values: class 4 (15), class 1 (14), class 3 (14), class 2 (7))" in message
    )
    assert caught.value.choices == ("site", "diagnosis")


def test_samples_missing_from_the_sheet_are_named(files, tmp_path):
    sheet = pd.read_csv(files / "sheet.tsv", sep="\t")
    sheet[~sheet["patient"].isin(["P004", "P017"])].to_csv(tmp_path / "short.csv", index=False)
    with pytest.raises(FSEngineError) as caught:
        load_dataset(files / "expression.csv", samples=tmp_path / "short.csv", label="diagnosis")
    assert caught.value.describe() == (
        "2 of the 50 samples of the expression table are not in short.csv (column "
        "'patient'): 'P004', 'P017'; its identifiers that match no sample of the table: "
        "'P999'; add them to the sheet or remove them from the table"
    )


def test_the_sheets_unmatched_identifiers_are_named_with_the_missing_samples(files, tmp_path):
    """A typo in the sheet: the table's sample it misses and the sheet's stray identifier
    are both in the one message."""
    sheet = pd.read_csv(files / "sheet.tsv", sep="\t")
    sheet.loc[sheet["patient"] == "P004", "patient"] = "P04"
    sheet.to_csv(tmp_path / "typo.csv", index=False)
    with pytest.raises(FSEngineError) as caught:
        load_dataset(files / "expression.csv", samples=tmp_path / "typo.csv", label="diagnosis")
    assert caught.value.describe() == (
        "1 of the 50 samples of the expression table are not in typo.csv (column "
        "'patient'): 'P004'; its identifiers that match no sample of the table: 'P04', "
        "'P999'; add them to the sheet or remove them from the table"
    )


def test_a_sheet_without_the_identifiers_or_with_repeats_is_refused(files, tmp_path):
    pd.DataFrame({"id": ["x", "y"], "class": ["a", "b"]}).to_csv(
        tmp_path / "other.csv", index=False
    )
    with pytest.raises(FSEngineError, match="no column of other.csv holds the expression table"):
        load_dataset(files / "expression.csv", samples=tmp_path / "other.csv", label="class")
    sheet = pd.read_csv(files / "sheet.tsv", sep="\t")
    pd.concat([sheet, sheet.iloc[:1]]).to_csv(tmp_path / "twice.csv", index=False)
    with pytest.raises(FSEngineError, match="duplicate sample identifiers in twice.csv"):
        load_dataset(files / "expression.csv", samples=tmp_path / "twice.csv", label="diagnosis")


def test_the_command_line_takes_the_sheet(files, tmp_path, capsys, glioma):
    out = tmp_path / "selected.csv"
    argv = ["select", str(files / "expression.csv"), "--samples", str(files / "sheet.tsv")]
    assert main([*argv, "--label", "diagnosis", "--minority", "class 2", "--out", str(out)]) == 0
    expected = run_selection(
        load_dataset(files / "expression.csv", samples=files / "sheet.tsv", label="diagnosis"),
        "class 2",
        "kofsd",
    ).selection
    assert out.read_text() == selection_to_csv(expected)
    capsys.readouterr()
    assert main([*argv, "--label", "grade"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "has no sample sheet column 'grade'" in err and "--label" in err


def test_the_sheet_names_the_orientation_of_the_table(files, glioma):
    """Issue 40, point 10: genes in rows with a sheet whose identifiers are the table's
    column headers was refused ("no column of sheet.tsv holds the expression table's sample
    identifiers ('g0', ...)") unless transpose was given; the sheet names the orientation."""
    turned = load_dataset(
        files / "expression_genes_in_rows.tsv", samples=files / "sheet.tsv", label="diagnosis"
    )
    given = load_dataset(
        files / "expression_genes_in_rows.tsv",
        samples=files / "sheet.tsv",
        label="diagnosis",
        transpose=True,
    )
    assert np.array_equal(turned.X, glioma.X) and turned.feature_names == glioma.feature_names
    assert list(turned.labels) == list(given.labels)
    assert turned.sample_names == given.sample_names
    note = (
        "read with genes in rows: the sample sheet sheet.tsv holds the table's column headers "
        "('P000', 'P001', 'P002' and 47 more) as sample identifiers, not its first column's "
        "values"
    )
    assert note in turned.notes and note not in given.notes
    # and the other way round: transpose given, but the sheet holds the first column's ids
    rows = load_dataset(
        files / "expression.csv", samples=files / "sheet.tsv", label="diagnosis", transpose=True
    )
    assert np.array_equal(rows.X, glioma.X)
    assert any(n.startswith("read with samples in rows: the sample sheet") for n in rows.notes)


def test_a_sheet_matching_neither_or_both_orientations(files, tmp_path):
    pd.DataFrame({"id": ["x", "y"], "class": ["a", "b"]}).to_csv(
        tmp_path / "other.csv", index=False
    )
    with pytest.raises(FSEngineError) as caught:
        load_dataset(
            files / "expression_genes_in_rows.tsv", samples=tmp_path / "other.csv", label="class"
        )
    assert caught.value.describe().startswith(
        "no column of other.csv holds the expression table's sample identifiers, neither "
        "its first column's values ('"
    )
    assert "nor its column headers ('P000', 'P001', 'P002' and 47 more)" in caught.value.describe()
    # a table whose first column and header both hold the ids: the orientation given stays
    ids = ["S0", "S1", "S2", "S3"]
    table = pd.DataFrame(np.arange(16.0).reshape(4, 4) % 5, columns=ids)
    table.insert(0, "sample", ids)
    table.to_csv(tmp_path / "square.csv", index=False)
    pd.DataFrame({"sample": ids, "class": ["a", "a", "b", "b"]}).to_csv(
        tmp_path / "square_sheet.csv", index=False
    )
    for transpose in (False, True):
        ds = load_dataset(
            tmp_path / "square.csv",
            samples=tmp_path / "square_sheet.csv",
            label="class",
            transpose=transpose,
        )
        expected = table[ids].to_numpy()
        assert np.array_equal(ds.X, expected.T if transpose else expected)
        assert not any(n.startswith("read with") for n in ds.notes)


def test_the_command_line_reads_genes_in_rows_by_the_sheet(files, tmp_path, capsys, glioma):
    out = tmp_path / "selected.csv"
    argv = ["select", str(files / "expression_genes_in_rows.tsv"), "--samples"]
    argv += [str(files / "sheet.tsv"), "--label", "diagnosis", "--minority", "class 2"]
    assert main([*argv, "--out", str(out)]) == 0
    expected = run_selection(glioma, 2, "kofsd").selection
    assert [line.split(",")[1] for line in out.read_text().splitlines()[1:]] == list(
        expected.features
    )
