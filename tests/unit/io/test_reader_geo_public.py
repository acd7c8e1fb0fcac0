"""Two GEO series matrices as GEO serves them (tests/data/README.md has their provenance):
GSE14520-GPL571 (liver cancer, 43 samples x 22,268 probes, log2 values, the class in a
characteristics line, two samples with empty cells, a characteristics line empty in every
sample, one platform of a two-platform series) and GSE4107 (early-onset colorectal cancer,
22 x 54,675, raw MAS5 values, the class only in the title and source lines, one of them
misspelt). The reader is checked against an independent parse of the same bytes (gzip +
the csv module), and its messages against what the files hold."""

import csv
import gzip
from collections import Counter

import numpy as np
import pandas as pd
import pytest

from conftest import ROOT
from fsengine import FSEngineError, load_dataset, run_selection
from fsengine.cli import main
from fsengine.data.preprocess import looks_unlogged, suggested_preprocessing
from fsengine.evaluation import stratified_splits

DATA = ROOT / "tests" / "data"
LIVER = DATA / "GSE14520-GPL571_series_matrix.txt.gz"
COLON = DATA / "GSE4107_series_matrix.txt.gz"


def independent_parse(path):
    """(probes, samples, values probes x samples, sample lines as lists of cells) read with
    gzip and the csv module, nothing of fsengine."""
    sample_lines, rows, header, inside = [], [], None, False
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        for cells in csv.reader(handle, delimiter="\t"):
            if not cells:
                continue
            if cells[0] == "!series_matrix_table_begin":
                inside = True
            elif cells[0] == "!series_matrix_table_end":
                inside = False
            elif inside and header is None:
                header = cells
            elif inside:
                rows.append(cells)
            elif cells[0].startswith("!Sample_"):
                sample_lines.append(cells)
    probes = [r[0] for r in rows]
    values = np.array([[float(v) for v in r[1:]] for r in rows])
    return probes, header[1:], values, sample_lines


@pytest.fixture(scope="module")
def liver_truth():
    return independent_parse(LIVER)


@pytest.fixture(scope="module")
def liver():
    return load_dataset(LIVER, label="Tissue")


def test_the_liver_series_is_read_value_for_value(liver, liver_truth):
    probes, samples, values, _ = liver_truth
    assert liver.X.shape == (43, 22268) == values.T.shape
    assert np.array_equal(liver.X, values.T)
    assert list(liver.feature_names) == probes
    assert list(liver.sample_names) == samples
    assert samples[0] == "GSM362947" and samples[-1] == "GSM363451"


def test_the_class_is_the_tissue_line(liver, liver_truth):
    *_, lines = liver_truth
    tissue = next(line for line in lines if line[1].startswith("Tissue: "))
    expected = [cell.removeprefix("Tissue: ") for cell in tissue[1:]]
    assert [str(v) for v in liver.labels] == expected
    assert Counter(expected) == {
        "Liver Tumor Tissue": 22,
        "Liver Non-Tumor Tissue": 19,
        "Liver tissue of six healthy donors": 1,
        "Liver tissue of six healthy liver donors": 1,
    }


def test_without_a_label_every_line_is_listed_with_its_empty_cells():
    with pytest.raises(FSEngineError) as caught:
        load_dataset(LIVER)
    text = caught.value.describe()
    assert "'Disease state' (1 value: Hepatocellular carcinoma (HCC) (41); 2 empty)" in text
    assert "'characteristics_ch1' (empty in every sample)" in text
    assert "'Individual' (41 values, one per sample; 2 empty)" in text
    assert text.endswith("name the sample line that holds the class with label")
    assert "Tissue" in caught.value.choices


def test_a_class_line_with_empty_cells_names_the_first_sample_without_one():
    with pytest.raises(FSEngineError) as caught:
        load_dataset(LIVER, label="disease state")  # case does not matter
    assert caught.value.describe() == (
        "label column 'Disease state', row 42 (sample 'GSM363450'): missing class label"
    )


def test_samples_without_a_group_are_groups_of_their_own(liver_truth):
    ds = load_dataset(LIVER, label="Tissue", sample_groups="Individual")
    *_, lines = liver_truth
    individual = next(line for line in lines if line[1].startswith("Individual: "))
    cells = [c.removeprefix("Individual: ") for c in individual[1:]]
    empty = [k for k, c in enumerate(cells) if c == ""]
    assert [ds.sample_names[k] for k in empty] == ["GSM363450", "GSM363451"]
    assert len(set(ds.groups)) == 43  # 41 named individuals, 2 alone
    assert all(ds.groups[k] == cells[k] for k in range(43) if k not in empty)
    assert (
        "2 samples without a group in 'Individual' ('GSM363450', 'GSM363451'): each is a "
        "group of its own"
    ) in ds.notes
    y = (ds.labels == "Liver Non-Tumor Tissue").astype(int)
    for train, test in stratified_splits(y, 5, 0, ds.groups):
        assert not set(ds.groups[train]) & set(ds.groups[test])


def test_the_selection_equals_the_one_on_a_parquet_copy(liver, liver_truth, tmp_path):
    probes, samples, values, _ = liver_truth
    frame = pd.DataFrame(values.T, columns=probes, index=samples)
    frame["label"] = [str(v) for v in liver.labels]
    frame.to_parquet(tmp_path / "liver.parquet")
    copy = load_dataset(tmp_path / "liver.parquet")
    for method in ("kofsd", "fisher"):
        on_geo = run_selection(liver, "Liver Non-Tumor Tissue", method).selection
        on_copy = run_selection(copy, "Liver Non-Tumor Tissue", method).selection
        assert on_geo.features == on_copy.features and on_geo.scores == on_copy.scores


def test_the_command_line_lists_the_lines_in_one_line_and_exits_2(capsys):
    assert main(["info", str(LIVER)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("fsengine: error: ")
    assert main(["info", str(LIVER), "--label", "Tissue"]) == 0
    out = capsys.readouterr().out
    assert "samples: 43" in out and "features: 22268" in out


def test_the_raw_colon_series_is_read_and_called_unlogged():
    probes, samples, values, lines = independent_parse(COLON)
    ds = load_dataset(COLON, label="Gender")
    assert ds.X.shape == (22, 54675)
    assert np.array_equal(ds.X, values.T) and list(ds.feature_names) == probes
    assert list(ds.sample_names) == samples
    assert values.min() == pytest.approx(0.3) and values.max() == pytest.approx(358599.5)
    assert looks_unlogged(ds.X) is not None
    assert suggested_preprocessing(ds.X) == {"transform": "log2"}


def test_the_colon_class_lines_are_listed_as_they_are_spelt():
    """The class is only in the title and source lines; the source line has three values
    because one cell reads 'sugery': the list shows it, the user decides."""
    with pytest.raises(FSEngineError) as caught:
        load_dataset(COLON)
    text = caught.value.describe()
    assert "'title' (22 values, one per sample)" in text
    assert "'source_name_ch1' (3 values: " in text and "after sugery (1)" in text
