"""GEO series matrices (issue 30, point 1): read against the same matrix from Parquet, the
class from a named sample line, the choices listed when it is missing or wrong, bad files
in one message, and the same selection as on the Parquet copy, in the library and the CLI.

tests/data/glioma_series_matrix.txt.gz is GLIOMA (tests/reference/datasets/GLIOMA.parquet)
written in GEO's series-matrix layout (tests/data/README.md); the small files here are
written by the tests in the same layout."""

import gzip

import numpy as np
import pytest

from conftest import GLIOMA, ROOT
from fsengine import FSEngineError, load_dataset, run_selection
from fsengine.cli import main
from fsengine.export.writers import selection_to_csv

SERIES = ROOT / "tests" / "data" / "glioma_series_matrix.txt.gz"


@pytest.fixture(scope="module")
def parquet():
    return load_dataset(GLIOMA)


@pytest.fixture(scope="module")
def series():
    return load_dataset(SERIES, label="glioma class")


def _series_text(values, probes, samples, sample_lines, table=True) -> str:
    """A series matrix in GEO's layout: quoted cells, tab-separated, the table last."""
    quoted = lambda cells: "\t".join(f'"{c}"' for c in cells)  # noqa: E731
    lines = ['!Series_title\t"a test series"', '!Series_geo_accession\t"GSE1"', ""]
    lines += [f"!Sample_{field}\t{quoted(cells)}" for field, cells in sample_lines]
    if table:
        lines += ["!series_matrix_table_begin", quoted(["ID_REF", *samples])]
        lines += ["\t".join([f'"{p}"', *[str(v) for v in row]]) for p, row in zip(probes, values)]
        lines.append("!series_matrix_table_end")
    return "\n".join(lines) + "\n"


def _small(**changes) -> bytes:
    samples = [f"GSM{k}" for k in range(1, 9)]
    values = np.arange(24, dtype=float).reshape(3, 8) + 1  # 3 probes x 8 samples
    sample_lines = [
        ("title", [f"patient {k}" for k in range(1, 9)]),
        ("geo_accession", samples),
        ("characteristics_ch1", ["disease state: tumour"] * 3 + ["disease state: normal"] * 5),
        ("characteristics_ch1", ["batch: a", "batch: b"] * 4),
    ]
    spec = {
        "values": values,
        "probes": ["p1", "p2", "p3"],
        "samples": samples,
        "sample_lines": sample_lines,
    }
    spec.update(changes)
    return _series_text(**spec).encode()


def test_the_series_matrix_is_the_parquet_matrix(series, parquet):
    assert series.X.shape == (50, 4434)
    assert np.array_equal(series.X, parquet.X)  # every value, exactly
    assert series.feature_names == parquet.feature_names
    assert [str(v) for v in series.labels] == [str(v) for v in parquet.labels]
    assert series.sample_names[:2] == ("GSM900001", "GSM900002")
    assert series.label_column == "glioma class"
    assert series.notes[:2] == ("GEO series matrix", "gzip-compressed")


def test_the_selection_equals_the_parquet_copys(series, parquet):
    on_series = run_selection(series, 2, "kofsd").selection
    on_parquet = run_selection(parquet, 2, "kofsd").selection
    assert on_series.features == on_parquet.features
    assert on_series.scores == on_parquet.scores


def test_the_only_sample_line_with_classes_is_taken_and_noted():
    ds = load_dataset(SERIES)  # tissue (one value) and title (one per sample) are not classes
    assert ds.label_column == "glioma class"
    assert "the only sample line with classes holds them" in ds.notes


def test_two_candidate_lines_are_listed_with_their_values():
    with pytest.raises(FSEngineError) as caught:
        load_dataset(_small(), name="GSE1_series_matrix.txt")
    message = caught.value.describe()
    assert message.startswith("GSE1_series_matrix.txt keeps the class in one of its sample lines:")
    assert "'disease state' (2 values: normal (5), tumour (3))" in message
    assert "'batch' (2 values: a (4), b (4))" in message
    assert "'title' (8 values, one per sample)" in message
    assert message.endswith("name the sample line that holds the class with label")
    assert caught.value.choices == ("title", "disease state", "batch")
    ds = load_dataset(_small(), label="Disease State")  # case aside
    assert ds.class_counts() == {"normal": 5, "tumour": 3}
    assert ds.X[:, 0].tolist() == list(range(1, 9))  # probe p1 over the 8 samples
    assert load_dataset(_small(), label="!Sample_title").label_column == "title"


def test_a_wrong_name_lists_the_sample_lines():
    with pytest.raises(FSEngineError) as caught:
        load_dataset(_small(), label="diagnosis", name="s.txt")
    assert caught.value.describe().startswith("s.txt has no sample line 'diagnosis'; its sample")


def test_samples_are_matched_by_accession_when_the_lines_are_in_another_order():
    samples = [f"GSM{k}" for k in range(1, 9)]
    lines = [
        ("geo_accession", samples[::-1]),  # the header lists them backwards
        ("characteristics_ch1", ["group: x"] * 2 + ["group: y"] * 6),
    ]
    ds = load_dataset(_small(sample_lines=lines))
    assert ds.sample_names == tuple(samples)
    assert [str(v) for v in ds.labels] == ["y"] * 6 + ["x"] * 2


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({"table": False}, "is a GEO series matrix without its table"),
        ({"values": [[1, 2, "null", 4, 5, 6, 7, 8]] * 3}, "sample 'GSM3', probe 'p1': missing"),
        ({"values": [[1, 2, 3, "n/d", 5, 6, 7, 8]] * 3}, "sample 'GSM4', probe 'p1': 'n/d' is not"),
        ({"probes": ["p1", "p1", "p3"]}, "duplicate probe IDs"),
    ],
)
def test_bad_series_matrices_get_one_message(changes, expected):
    samples = [f"GSM{k}" for k in range(1, 9)]
    spec = {
        "values": np.ones((3, 8)),
        "probes": ["p1", "p2", "p3"],
        "samples": samples,
        "sample_lines": [("characteristics_ch1", ["c: a"] * 4 + ["c: b"] * 4)],
        **changes,
    }
    text = _series_text(**spec).encode()
    for data in (text, gzip.compress(text, mtime=0)):
        with pytest.raises(FSEngineError) as caught:
            load_dataset(data, name="bad.txt")
        assert expected in caught.value.describe()


def test_the_command_line_reads_it_as_the_library_does(tmp_path, capsys, series):
    out = tmp_path / "selected.csv"
    code = main(
        ["select", str(SERIES), "--label", "glioma class", "--minority", "2", "--out", str(out)]
    )
    assert code == 0
    expected = run_selection(series, 2, "kofsd").selection
    assert out.read_text() == selection_to_csv(expected)
    capsys.readouterr()
    code = main(["select", str(SERIES), "--label", "grade", "--minority", "2"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    assert "has no sample line 'grade'" in err and "--label" in err
