"""The data loader: formats, orientation, label choice, classes and every input error.

Inputs are built in each test (bytes, files in ``tmp_path``, Parquet through pyarrow)
so that exact values can be asserted. Error rows are 1-based data rows; for text files
the message also gives the line of the file (the header is line 1). Errors carry the
column, row and the option they suggest as fields, and name the option as the Python API
does (``transpose=True``), never as a flag or a widget.
"""

import gzip
import io
import pickle

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from conftest import SAMPLE as SRBCT  # noqa: E402  (the bundled copy of the shared SRBCT.parquet)
from fsengine.data.dataset import Dataset, load_dataset
from fsengine.errors import FSEngineError, library_words
from fsengine.io.orientation import HintedError

# Five samples, three features, classes a:2, b:2, c:1 (written in several formats below).
BASIC_ROWS = [
    ("g1", "g2", "g3", "label"),
    ("1.5", "2", "-3", "a"),
    ("0.25", "4", "5e-1", "b"),
    ("7", "8", "9", "a"),
    ("-1", "0", "1e3", "b"),
    ("2", "2", "2", "c"),
]
BASIC_X = np.array([[1.5, 2, -3], [0.25, 4, 0.5], [7, 8, 9], [-1, 0, 1000], [2, 2, 2]])
BASIC_LABELS = ["a", "b", "a", "b", "c"]


# ---------------------------------------------------------------------------- helpers


def text(rows, sep=",") -> bytes:
    """Rows of cells -> delimited text with a trailing newline."""
    return "".join(sep.join(row) + "\n" for row in rows).encode()


def csv(*lines: str) -> bytes:
    """Lines of a CSV file -> bytes."""
    return ("\n".join(lines) + "\n").encode()


def load(data: bytes, name="x.csv", **kwargs) -> Dataset:
    return load_dataset(data, name=name, **kwargs)


def parquet(columns: dict) -> bytes:
    """A dict of name -> values (or pyarrow arrays) as Parquet bytes."""
    buffer = io.BytesIO()
    pq.write_table(pa.table(columns), buffer)
    return buffer.getvalue()


def basic_parquet() -> bytes:
    columns = {f"g{j + 1}": BASIC_X[:, j] for j in range(3)}
    return parquet({**columns, "label": BASIC_LABELS})


def error_message(source, **kwargs) -> str:
    """The message of the FSEngineError that loading ``source`` raises (and no other type),
    which names no command-line flag or widget."""
    message = str(load_error(source, **kwargs))
    assert "--" not in message and "toggle" not in message
    return message


def load_error(source, **kwargs) -> FSEngineError:
    """The FSEngineError that loading ``source`` raises (no other type may escape)."""
    with pytest.raises(Exception) as info:
        load_dataset(source, **kwargs)
    assert issubclass(info.type, FSEngineError), f"{info.type.__name__}: {info.value}"
    return info.value


def assert_same_dataset(a: Dataset, b: Dataset) -> None:
    """Same X bit for bit, same labels (values and kind), names and constant features."""
    assert a.X.shape == b.X.shape
    assert np.array_equal(a.X.view(np.uint64), b.X.view(np.uint64))
    assert a.labels.dtype.kind == b.labels.dtype.kind
    assert a.labels.tolist() == b.labels.tolist()
    assert a.feature_names == b.feature_names
    assert a.label_column == b.label_column
    assert a.constant_features == b.constant_features


def basic_checks(ds: Dataset) -> None:
    assert ds.X.dtype == np.float64
    np.testing.assert_array_equal(ds.X, BASIC_X)
    assert ds.feature_names == ("g1", "g2", "g3")
    assert ds.label_column == "label"
    assert ds.labels.tolist() == BASIC_LABELS
    assert ds.labels.dtype.kind == "U"


# ---------------------------------------------------------------------------- formats


def test_csv_bytes_are_read_exactly():
    ds = load(text(BASIC_ROWS))
    basic_checks(ds)
    assert ds.X.flags.f_contiguous
    assert (ds.n_samples, ds.n_features) == (5, 3)
    assert ds.source == "x.csv"
    assert ds.sample_names is None
    assert ds.constant_features == ()
    assert ds.dropped_features == ()
    assert "comma-separated" in ds.notes


def _write_csv(path):
    path.write_bytes(text(BASIC_ROWS))


def _write_tsv(path):
    path.write_bytes(text(BASIC_ROWS, sep="\t"))


def _write_semicolon(path):
    path.write_bytes(text(BASIC_ROWS, sep=";"))


def _write_csv_gz(path):
    path.write_bytes(gzip.compress(text(BASIC_ROWS)))


def _write_tsv_gz(path):
    path.write_bytes(gzip.compress(text(BASIC_ROWS, sep="\t")))


def _write_parquet(path):
    path.write_bytes(basic_parquet())


def _write_crlf_bom(path):
    path.write_bytes(b"\xef\xbb\xbf" + text(BASIC_ROWS).replace(b"\n", b"\r\n"))


FORMATS = {
    "data.csv": _write_csv,
    "data.tsv": _write_tsv,
    "data.txt": _write_tsv,
    "data.csv.semicolon": _write_semicolon,
    "data.csv.gz": _write_csv_gz,
    "data.tsv.gz": _write_tsv_gz,
    "data.parquet": _write_parquet,
    "crlf_bom.csv": _write_crlf_bom,
}


@pytest.mark.parametrize("filename", FORMATS)
def test_every_format_gives_the_same_dataset(tmp_path, filename):
    path = tmp_path / filename
    FORMATS[filename](path)
    ds = load_dataset(path)
    basic_checks(ds)
    assert ds.source == filename


def test_format_notes(tmp_path):
    assert "tab-separated" in load(text(BASIC_ROWS, sep="\t"), name="x.tsv").notes
    assert "gzip-compressed" in load(gzip.compress(text(BASIC_ROWS)), name="x.csv.gz").notes
    assert "format: Parquet" in load(basic_parquet(), name="x.parquet").notes


@pytest.mark.parametrize("kind", ["str", "path", "file object"])
def test_source_kinds(tmp_path, kind):
    path = tmp_path / "data.csv"
    _write_csv(path)
    if kind == "file object":
        with open(path, "rb") as handle:
            ds = load_dataset(handle)
    else:
        ds = load_dataset(str(path) if kind == "str" else path)
    basic_checks(ds)
    assert ds.source == "data.csv"


def test_bytes_without_a_name_are_called_uploaded_data():
    assert load_dataset(text(BASIC_ROWS)).source == "uploaded data"


def test_parquet_keeps_integer_and_float32_features_exactly():
    ds = load(
        parquet(
            {
                "i": pa.array([1, -2, 3], pa.int32()),
                "f": pa.array([0.5, 0.25, -8.0], pa.float32()),
                "label": pa.array([0, 1, 1], pa.int8()),
            }
        ),
        name="x.parquet",
    )
    np.testing.assert_array_equal(ds.X, [[1, 0.5], [-2, 0.25], [3, -8]])
    assert ds.labels.tolist() == [0, 1, 1]
    assert ds.labels.dtype == np.int64


@pytest.mark.parametrize("index_name", [None, "sample"])
@pytest.mark.parametrize("as_bytes", [False, True])
def test_a_pandas_frames_index_of_sample_names_is_not_a_column(tmp_path, index_name, as_bytes):
    """``df.to_parquet`` keeps the index (sample names) as a last column named
    ``__index_level_0__`` (or the index's name): it is the samples' names, not a
    nameless column or a feature (it was refused as 'column 5 has no name')."""
    import pandas as pd

    frame = pd.DataFrame(BASIC_X, columns=["g1", "g2", "g3"])
    frame.index = pd.Index([f"s{k}" for k in range(len(frame))], name=index_name)
    frame["label"] = BASIC_LABELS
    frame.to_parquet(tmp_path / "frame.parquet")
    source = (tmp_path / "frame.parquet").read_bytes() if as_bytes else tmp_path / "frame.parquet"
    ds = load_dataset(source, name="frame.parquet")
    assert ds.feature_names == ("g1", "g2", "g3")
    np.testing.assert_array_equal(ds.X, BASIC_X)
    assert ds.sample_names == tuple(frame.index)
    assert ds.labels.tolist() == list(BASIC_LABELS)


def test_parquet_string_features_are_parsed_as_numbers():
    ds = load(
        parquet({"g1": ["1.5", " 2 ", "-3e2"], "g2": [1.0, 2.0, 3.0], "label": [0, 1, 1]}),
        name="x.parquet",
    )
    assert ds.feature_names == ("g1", "g2")
    np.testing.assert_array_equal(ds.X[:, 0], [1.5, 2.0, -300.0])


@pytest.mark.parametrize(
    "data,labels",
    [
        (b"g1,label\n1,caf\xe9\n2,b\n3,caf\xe9\n", ["café", "b", "café"]),
        # the only bad byte is in the last four bytes of the file (not a cut-off character)
        (b"g1,label\n1,b\n2,b\n3,caf\xe9", ["b", "b", "café"]),
    ],
    ids=["early", "at-the-end"],
)
def test_latin1_text_is_decoded(data, labels):
    ds = load(data)
    assert ds.labels.tolist() == labels
    assert "not UTF-8; read as Latin-1" in ds.notes


# ---------------------------------------------------------------------------- names and labels


def test_feature_names_are_kept_exactly():
    ds = load(csv(" Gene A ,1007_s_at,g-2.x,ÄÖß,label", "1,2,3,4,a", "5,6,7,8,b"))
    assert ds.feature_names == (" Gene A ", "1007_s_at", "g-2.x", "ÄÖß")
    np.testing.assert_array_equal(ds.X, [[1, 2, 3, 4], [5, 6, 7, 8]])


@pytest.mark.parametrize(
    "header,rows,kwargs,expected_label,expected_features",
    [
        ("g1,Class,g2", ["1,a,2", "3,b,4"], {}, "Class", ("g1", "g2")),
        ("TARGET,g1,g2", ["0,1,2", "1,3,4"], {}, "TARGET", ("g1", "g2")),
        ("g1,label,g2", ["1,0,2", "3,1,4"], {"label": None}, "label", ("g1", "g2")),
        ("g1,tissue,g2", ["1,a,2", "3,b,4"], {}, "tissue", ("g1", "g2")),
        ("g1,g2,y", ["1,2,0", "3,4,1"], {}, "y", ("g1", "g2")),
        ("g1,y,g2", ["1,0,2", "3,1,4"], {"label": "y"}, "y", ("g1", "g2")),
        ("g1,y,g2", ["1,0,2", "3,1,4"], {"label": "Y"}, "y", ("g1", "g2")),
        ("g1,g2,y", ["0,2,5", "1,4,5"], {"label": "g1"}, "g1", ("g2", "y")),
    ],
    ids=[
        "name-class",
        "name-target-upper",
        "name-label-not-last",
        "last-non-numeric",
        "last-column",
        "explicit",
        "explicit-any-case",
        "explicit-first-column",
    ],
)
def test_label_column_choice(header, rows, kwargs, expected_label, expected_features):
    ds = load(csv(header, *rows), **kwargs)
    assert ds.label_column == expected_label
    assert ds.feature_names == expected_features
    assert ds.X.shape == (2, len(expected_features))


def test_label_column_by_name_wins_over_last_non_numeric():
    # 'tissue' is the last non-numeric column, but 'label' is named: 'tissue' is a bad feature
    message = error_message(csv("label,g1,tissue", "0,1,a", "1,2,b"), name="x.csv")
    assert "feature column 'tissue', row 1 (line 2 of the file): 'a' is not a number" in message


@pytest.mark.parametrize(
    "cells,expected,kind",
    [
        (["0", "1", "1"], [0, 1, 1], "i"),
        (["0.0", "2.0", "2.0"], [0, 2, 2], "i"),
        (["0.5", "1.5", "1.5"], [0.5, 1.5, 1.5], "f"),
        (["EWS", "BL", "BL"], ["EWS", "BL", "BL"], "U"),
        ([" EWS", "BL ", "BL"], ["EWS", "BL", "BL"], "U"),
    ],
    ids=["int", "integral-float", "float", "text", "text-with-spaces"],
)
def test_label_types(cells, expected, kind):
    ds = load(csv("g1,label", *(f"{i},{c}" for i, c in enumerate(cells))))
    assert ds.labels.tolist() == expected
    assert ds.labels.dtype.kind == kind


def test_parquet_float_labels_that_are_integral_become_int():
    ds = load(parquet({"g1": [1.0, 2.0, 3.0], "label": [0.0, 2.0, 2.0]}), name="x.parquet")
    assert ds.labels.dtype == np.int64
    assert ds.labels.tolist() == [0, 2, 2]


def test_parquet_numeric_labels_stored_as_text_become_numbers():
    ds = load(parquet({"g1": [1.0, 2.0, 3.0], "label": ["0", "2", "2.0"]}), name="x.parquet")
    assert ds.labels.tolist() == [0, 2, 2]


# ---------------------------------------------------------------------------- sample identifiers


def test_first_column_of_sample_ids_is_not_a_feature():
    ds = load(csv("sample,g1,g2,label", "S1,1,2,a", "S2,3,4,b", "S3,5,6,a"))
    assert ds.sample_names == ("S1", "S2", "S3")
    assert ds.feature_names == ("g1", "g2")
    np.testing.assert_array_equal(ds.X, [[1, 2], [3, 4], [5, 6]])
    assert ds.labels.tolist() == ["a", "b", "a"]


def test_sample_ids_with_an_unnamed_numeric_label_column():
    # the ids are the only non-numeric column, yet they are not the labels
    ds = load(csv("id,g1,g2,y", "GSM1,1,2,0", "GSM2,3,4,1", "GSM3,5,6,1"))
    assert ds.sample_names == ("GSM1", "GSM2", "GSM3")
    assert ds.label_column == "y"
    assert ds.feature_names == ("g1", "g2")
    assert ds.labels.tolist() == [0, 1, 1]


def test_sample_ids_in_parquet():
    ds = load(
        parquet({"id": ["a1", "a2", "a3"], "g1": [1.0, 2.0, 3.0], "label": [0, 1, 1]}),
        name="x.parquet",
    )
    assert ds.sample_names == ("a1", "a2", "a3")
    assert ds.feature_names == ("g1",)


def test_numeric_first_column_is_a_feature():
    ds = load(csv("id,g1,label", "101,1,a", "102,2,b"))
    assert ds.sample_names is None
    assert ds.feature_names == ("id", "g1")


# ---------------------------------------------------------------------------- transposed files


def _transposed_rows(rows):
    """Samples-in-rows cells (header first) -> genes in rows, sample ids as the header."""
    header, body = rows[0], rows[1:]
    out = [("gene",) + tuple(f"s{i + 1}" for i in range(len(body)))]
    for j, name in enumerate(header):
        out.append((name,) + tuple(row[j] for row in body))
    return out


@pytest.mark.parametrize("sep,name", [(",", "t.csv"), ("\t", "t.tsv")])
def test_transposed_file_gives_the_same_dataset(sep, name):
    normal = load(text(BASIC_ROWS))
    flipped = load(text(_transposed_rows(BASIC_ROWS), sep=sep), name=name, transpose=True)
    assert_same_dataset(flipped, normal)
    assert flipped.sample_names == ("s1", "s2", "s3", "s4", "s5")
    assert any("transposed" in note for note in flipped.notes)


def test_transposed_file_with_numeric_labels_and_label_row_not_last():
    rows = [("g1", "label", "g2"), ("1.5", "0", "2"), ("3", "2", "4.25"), ("5", "2", "6")]
    normal = load(text(rows))
    flipped = load(text(_transposed_rows(rows)), transpose=True)
    assert_same_dataset(flipped, normal)
    assert flipped.labels.tolist() == [0, 2, 2]
    assert flipped.labels.dtype == np.int64
    assert flipped.binarise("2").tolist() == [0, 1, 1]


@pytest.mark.parametrize("label_row", ["label,a,b,NA", "label,1,2,NA"])
def test_transposed_missing_label_is_an_error_not_a_class(label_row):
    # The numeric label row once turned a missing label into the class "nan".
    data = csv("gene,s1,s2,s3", label_row, "g1,1,2,3", "g2,4,5,6.5")
    message = error_message(data, transpose=True)
    assert message == "label column 'label', row 3 (sample 's3'): missing class label"


def test_transposed_parquet(tmp_path):
    data = parquet(
        {
            "gene": ["g1", "g2", "label"],
            "s1": [1.0, 2.0, 0.0],
            "s2": [3.0, 4.0, 1.0],
            "s3": [5.0, 6.0, 1.0],
        }
    )
    ds = load(data, name="t.parquet", transpose=True)
    np.testing.assert_array_equal(ds.X, [[1, 2], [3, 4], [5, 6]])
    assert ds.labels.tolist() == [0, 1, 1]
    assert ds.sample_names == ("s1", "s2", "s3")


# ---------------------------------------------------------------------------- classes


def test_class_counts_largest_first_ties_by_label():
    ds = load(text(BASIC_ROWS))
    counts = ds.class_counts()
    assert counts == {"a": 2, "b": 2, "c": 1}
    assert list(counts) == ["a", "b", "c"]
    numeric = load(csv("g1,label", "1,3", "2,1", "3,1", "4,0", "5,3", "6,1"))
    assert list(numeric.class_counts().items()) == [(1, 3), (3, 2), (0, 1)]


def _numeric_dataset() -> Dataset:
    """Classes 0:3, 1:2, 2:2 (a small SRBCT-like coding)."""
    return load(csv("g1,g2,label", "1,9,0", "2,8,0", "3,7,0", "4,6,1", "5,5,1", "6,4,2", "7,3,2"))


def test_imbalance_ratio_defaults_to_the_default_class_versus_rest():
    # classes 0:3, 1:2, 2:2 -> default minority 1 (first of the smallest), rest 5
    assert _numeric_dataset().default_minority() == 1
    assert _numeric_dataset().imbalance_ratio() == 5 / 2
    rows = load(text(BASIC_ROWS))
    # classes a:2, b:2, c:1 -> c cannot be selected for (1 sample): a, the first of the
    # smallest that can, is the default, and the data set says why
    assert rows.class_counts() == {"a": 2, "b": 2, "c": 1}
    assert rows.default_minority() == "a"
    assert rows.imbalance_ratio() == 3 / 2
    assert "the smallest class c has only 1 sample; the default is class a" in (
        rows.default_minority_reason()
    )


def test_imbalance_ratio_is_majority_over_minority_of_the_binary_problem():
    # class 0 (3 of 7) chosen: the rest (4) is the majority -> 4 / 3, never below 1
    assert _numeric_dataset().imbalance_ratio(0) == 4 / 3
    big = load(csv("g1,label", "1,2", "2,2", "3,2", "4,2", "5,1", "6,1"))
    assert big.imbalance_ratio(2) == 4 / 2  # the chosen class is the larger side
    assert not big.is_smallest_class(2) and big.is_smallest_class(1)


@pytest.mark.parametrize("minority", [2, "2", " 2 ", 2.0, "2.0", np.int64(2)])
def test_imbalance_ratio_rest_over_minority(minority):
    assert _numeric_dataset().imbalance_ratio(minority) == 5 / 2


def test_imbalance_ratio_text_labels():
    assert load(text(BASIC_ROWS)).imbalance_ratio("b") == 3 / 2


@pytest.mark.parametrize("minority", [2, "2", 2.0, "2.0"])
def test_binarise_numeric_labels(minority):
    y = _numeric_dataset().binarise(minority)
    assert y.dtype == np.int8
    assert y.tolist() == [0, 0, 0, 0, 0, 1, 1]


def test_binarise_text_labels():
    ds = load(text(BASIC_ROWS))
    assert ds.binarise("a").tolist() == [1, 0, 1, 0, 0]
    assert ds.binarise("b").tolist() == [0, 1, 0, 1, 0]


@pytest.mark.parametrize(
    "data,name",
    [
        (csv("g1,label", "1,0.0", "2,2.0", "3,2.0", "4,1.0"), "x.csv"),
        (parquet({"g1": [1.0, 2.0, 3.0, 4.0], "label": [0.0, 2.0, 2.0, 1.0]}), "x.parquet"),
    ],
    ids=["csv", "parquet"],
)
def test_string_minority_matches_float_labels_in_the_file(data, name):
    ds = load(data, name=name)
    assert ds.binarise("2").tolist() == [0, 1, 1, 0]
    assert ds.imbalance_ratio("2") == 2 / 2
    assert ds.resolve_class("2") == 2


def test_string_minority_matches_non_integral_float_labels():
    ds = load(csv("g1,label", "1,0.5", "2,1.5", "3,1.5"))
    assert ds.binarise("1.5").tolist() == [0, 1, 1]


def test_mixed_text_labels_match_a_typed_number():
    ds = load(csv("g1,label", "1,2", "2,2", "3,other"))
    assert ds.labels.tolist() == ["2", "2", "other"]
    assert ds.binarise(2).tolist() == [1, 1, 0]


@pytest.mark.parametrize(
    "minority,fragments",
    [
        ("7", ["'7'", "not a class of column 'label'", "0 (n=3), 1 (n=2), 2 (n=2)"]),
        ("BL", ["'BL'", "not a class"]),
        (True, ["True", "not a class"]),
    ],
    ids=["unknown-number", "unknown-text", "bool"],
)
def test_unknown_minority_is_an_error(minority, fragments):
    ds = _numeric_dataset()
    for call in (ds.binarise, ds.imbalance_ratio, ds.resolve_class):
        with pytest.raises(FSEngineError) as info:
            call(minority)
        for fragment in fragments:
            assert fragment in str(info.value)


def test_minority_with_one_sample_is_an_error():
    ds = load(text(BASIC_ROWS))
    with pytest.raises(
        FSEngineError,
        match=r"minority 'c' names a class of only 1 sample; at "
        r"least 2",
    ) as caught:
        ds.binarise("c")
    assert caught.value.parameter == "minority"


def test_summary():
    summary = _numeric_dataset().summary()
    assert summary == {
        "source": "x.csv",
        "samples": 7,
        "features": 2,
        "label_column": "label",
        "class_counts": {0: 3, 1: 2, 2: 2},
        "default_minority": 1,
        "imbalance_ratio": 2.5,
        "constant_features": 0,
        "dropped_features": 0,
    }


# ---------------------------------------------------------------------------- constant features

CONSTANT = csv("g1,c1,g2,c2,label", "1,5,2,0,a", "3,5,4,0,b", "5,5,6,0,a")


def test_constant_features_are_reported_and_kept():
    ds = load(CONSTANT)
    assert ds.constant_features == ("c1", "c2")
    assert ds.dropped_features == ()
    assert ds.feature_names == ("g1", "c1", "g2", "c2")
    np.testing.assert_array_equal(ds.X, [[1, 5, 2, 0], [3, 5, 4, 0], [5, 5, 6, 0]])


def test_drop_constant_removes_them():
    ds = load(CONSTANT, drop_constant=True)
    assert ds.feature_names == ("g1", "g2")
    assert ds.dropped_features == ("c1", "c2")
    assert ds.constant_features == ()
    np.testing.assert_array_equal(ds.X, [[1, 2], [3, 4], [5, 6]])
    assert ds.X.flags.f_contiguous
    assert ds.summary()["dropped_features"] == 2


def test_drop_constant_without_constant_features_changes_nothing():
    basic_checks(load(text(BASIC_ROWS), drop_constant=True))


# ---------------------------------------------------------------------------- errors

# (id, source bytes, file name, load options, fragments the message must contain)
TEXT_ERRORS = [
    (
        "not-a-number",
        csv("g1,g2,label", "1,2,a", "3,4,b", "5,abc,a"),
        {},
        ["feature column 'g2'", "row 3 (line 4 of the file)", "'abc' is not a number"],
    ),
    (
        "not-a-number-first-column",
        csv("g1,g2,label", "1,2,a", "x1,4,b", "5,6,a"),
        {},
        ["feature column 'g1'", "row 2 (line 3 of the file)", "'x1' is not a number"],
    ),
    (
        "not-a-number-only-column",
        csv("g1,label", "1,a", "2,b", "oops,a"),
        {},
        ["feature column 'g1'", "row 3 (line 4 of the file)", "'oops' is not a number"],
    ),
    (
        "comma-decimal",
        csv("g1;g2;label", "1;2,5;a", "3;4,5;b"),
        {},
        [
            "feature column 'g2'",
            "row 1 (line 2 of the file)",
            "'2,5' is not a number",
            "comma decimal separator",
        ],
    ),
    (
        "empty-cell",
        csv("g1,g2,label", "1,2,a", "3,,b"),
        {},
        ["feature column 'g2'", "row 2 (line 3 of the file)", "missing value"],
    ),
    (
        "NA-cell",
        csv("g1,g2,label", "1,2,a", "3,4,b", "NA,6,a"),
        {},
        ["feature column 'g1'", "row 3 (line 4 of the file)", "missing value"],
    ),
    (
        "nan-cell",
        csv("g1,g2,label", "1,nan,a", "3,4,b"),
        {},
        ["feature column 'g2'", "row 1 (line 2 of the file)", "missing value"],
    ),
    (
        "inf",
        csv("g1,g2,label", "1,2,a", "3,inf,b"),
        {},
        ["feature column 'g2'", "row 2 (line 3 of the file)", "infinite value"],
    ),
    (
        "minus-inf",
        csv("g1,g2,label", "1,2,a", "3,4,b", "-inf,6,a"),
        {},
        ["feature column 'g1'", "row 3 (line 4 of the file)", "infinite value"],
    ),
    (
        "missing-label",
        csv("g1,label", "1,a", "2,b", "3,", "4,a"),
        {},
        ["label column 'label'", "row 3 (line 4 of the file)", "missing class label"],
    ),
    (
        "one-class",
        csv("g1,label", "1,a", "2,a", "3,a"),
        {},
        ["label column 'label'", "single class ('a')", "at least two classes"],
    ),
    (
        "one-numeric-class",
        csv("g1,label", "1,2", "2,2"),
        {},
        ["label column 'label'", "single class (2)"],
    ),
    (
        "duplicate-columns",
        csv("g1,g2,g1,label", "1,2,3,a", "4,5,6,b"),
        {},
        ["duplicate column names", "'g1'"],
    ),
    ("empty-file", b"", {}, ["x.csv is empty"]),
    ("blank-file", b" \n\n", {}, ["x.csv is empty"]),
    ("empty-gzip", gzip.compress(b""), {}, ["x.csv is empty after decompression"]),
    ("header-only", csv("g1,g2,label"), {}, ["x.csv has a header but no data rows"]),
    ("header-only-no-newline", b"g1,g2,label", {}, ["x.csv has a header but no data rows"]),
    (
        "no-features",
        csv("label", "a", "b"),
        {},
        ["no feature columns besides the label column 'label'"],
    ),
    (
        "only-ids-and-label",
        csv("id,label", "s1,a", "s2,b"),
        {},
        ["no feature columns besides the label column 'label'"],
    ),
    (
        "ragged-row",
        csv("g1,g2,label", "1,2,a", "3,b"),
        {},
        ["cannot be parsed as a table", "as many fields as the header"],
    ),
    (
        "label-not-found",
        csv("g1,g2,y", "1,2,a", "3,4,b"),
        {"label": "tissue"},
        ["label column 'tissue' not found", "'g1', 'g2', 'y'"],
    ),
    (
        "all-constant-dropped",
        csv("g1,g2,label", "1,2,a", "1,2,b"),
        {"drop_constant": True},
        ["every feature is constant"],
    ),
    ("excel", b"PK\x03\x04\x14\x00rest-of-a-zip", {}, ["Excel workbook", "save the sheet as CSV"]),
    ("binary", b"g1,label\n\x00\x01\x02", {}, ["not a text table"]),
    ("bad-gzip", b"\x1f\x8b\x08\x00broken", {}, ["gzip-compressed but cannot be decompressed"]),
    (
        "transposed-bad-cell",
        csv("gene,s1,s2,s3", "g1,1,2,3", "g2,4,x,6", "label,a,b,a"),
        {"transpose": True},
        ["feature column 'g2'", "sample 's2'", "'x' is not a number"],
    ),
    (
        "transposed-missing-cell",
        csv("gene,s1,s2,s3", "g1,1,2,3", "g2,4,5,", "label,0,1,0"),
        {"transpose": True},
        ["feature column 'g2'", "sample 's3'", "missing value"],
    ),
    (
        "transposed-duplicate-genes",
        csv("gene,s1,s2", "g1,1,2", "g1,3,4", "label,a,b"),
        {"transpose": True},
        ["duplicate gene names in the first column", "'g1'"],
    ),
    (
        "transposed-duplicate-samples",
        csv("gene,s1,s1", "g1,1,2", "label,a,b"),
        {"transpose": True},
        ["duplicate column names", "'s1'"],
    ),
    (
        "transposed-one-column",
        csv("gene", "g1", "label"),
        {"transpose": True},
        ["first column of gene names and one column per sample"],
    ),
]


@pytest.mark.parametrize(
    "data,kwargs,fragments",
    [case[1:] for case in TEXT_ERRORS],
    ids=[case[0] for case in TEXT_ERRORS],
)
def test_text_input_errors(data, kwargs, fragments):
    message = error_message(data, name="x.csv", **kwargs)
    for fragment in fragments:
        assert fragment in message
    assert "np." not in message


PARQUET_ERRORS = [
    (
        "nan",
        {"g1": [1.0, float("nan"), 3.0], "label": [0, 1, 1]},
        ["feature column 'g1'", "row 2", "missing value (NaN)"],
    ),
    (
        "null",
        {"g1": [1.0, 2.0, 3.0], "g2": [1.0, 2.0, None], "label": [0, 1, 1]},
        ["feature column 'g2'", "row 3", "missing value"],
    ),
    (
        "inf",
        {"g1": [1.0, 2.0, float("-inf")], "label": [0, 1, 1]},
        ["feature column 'g1'", "row 3", "infinite value"],
    ),
    (
        "text-cell",
        {"g1": [1.0, 2.0, 3.0], "g2": ["1", "oops", "3"], "label": [0, 1, 1]},
        ["feature column 'g2'", "row 2", "'oops' is not a number"],
    ),
    (
        "text-cell-first-column",
        {"g1": ["1", "oops", "3"], "g2": [1.0, 2.0, 3.0], "label": [0, 1, 1]},
        ["feature column 'g1'", "row 2", "'oops' is not a number"],
    ),
    (
        "bool-feature",
        {"g1": [True, False, True], "g2": [1.0, 2.0, 3.0], "label": [0, 1, 1]},
        ["feature column 'g1'", "true/false"],
    ),
    (
        "all-null-feature",
        {"g1": pa.nulls(3), "g2": [1.0, 2.0, 3.0], "label": [0, 1, 1]},
        ["feature column 'g1' is empty"],
    ),
    (
        "null-label",
        {"g1": [1.0, 2.0, 3.0], "label": [0, None, 1]},
        ["label column 'label'", "row 2", "missing class label"],
    ),
    (
        "nan-label",
        {"g1": [1.0, 2.0, 3.0], "label": [0.0, 1.0, float("nan")]},
        ["label column 'label'", "row 3", "missing or infinite class label"],
    ),
    ("one-class", {"g1": [1.0, 2.0], "label": [3, 3]}, ["single class (3)"]),
    (
        "no-rows",
        {"g1": pa.array([], pa.float64()), "label": pa.array([], pa.int64())},
        ["has a header but no data rows"],
    ),
    ("no-features", {"label": [0, 1]}, ["no feature columns"]),
]


@pytest.mark.parametrize(
    "columns,fragments",
    [case[1:] for case in PARQUET_ERRORS],
    ids=[case[0] for case in PARQUET_ERRORS],
)
def test_parquet_input_errors(columns, fragments):
    message = error_message(parquet(columns), name="x.parquet")
    for fragment in fragments:
        assert fragment in message
    assert "line" not in message  # no file line numbers for Parquet
    assert "np." not in message


def test_parquet_duplicate_column_names():
    table = pa.Table.from_arrays(
        [pa.array([1.0, 2.0]), pa.array([3.0, 4.0]), pa.array([0, 1])], names=["g1", "g1", "label"]
    )
    buffer = io.BytesIO()
    pq.write_table(table, buffer)
    message = error_message(buffer.getvalue(), name="x.parquet")
    assert "duplicate column names: 'g1'" in message


def test_truncated_parquet():
    message = error_message(basic_parquet()[:60], name="x.parquet")
    assert message.startswith("x.parquet is a damaged or unreadable Parquet file (pyarrow: ")
    assert "\n" not in message  # pyarrow's several lines: its first sentence only


@pytest.mark.parametrize(
    "make", [lambda p: p / "missing.csv", lambda p: p], ids=["missing-file", "directory"]
)
def test_bad_paths(tmp_path, make):
    message = error_message(make(tmp_path))
    assert str(tmp_path) in message


def test_sample_ids_name_the_sample_in_errors():
    message = error_message(csv("id,g1,label", "S1,1,a", "S2,inf,b"), name="x.csv")
    assert "feature column 'g1'" in message
    assert "sample 'S2'" in message


# ---------------------------------------------------------------------------- real data


@pytest.fixture(scope="module")
def shared_srbct():
    return load_dataset(SRBCT)


def test_srbct(shared_srbct):
    assert shared_srbct.X.shape == (83, 2308)
    assert shared_srbct.label_column == "label"
    assert shared_srbct.feature_names[0] == "g0" and shared_srbct.feature_names[-1] == "g2307"
    assert list(shared_srbct.class_counts().items()) == [(0, 29), (1, 25), (3, 18), (2, 11)]
    assert shared_srbct.imbalance_ratio(2) == 72 / 11
    assert shared_srbct.imbalance_ratio("2") == 72 / 11
    assert round(shared_srbct.imbalance_ratio(2), 3) == 6.545
    assert shared_srbct.default_minority() == 2
    assert shared_srbct.imbalance_ratio() == 72 / 11
    assert shared_srbct.binarise("2").sum() == 11
    frame = pd.read_parquet(SRBCT)
    np.testing.assert_array_equal(shared_srbct.X, frame.drop(columns="label").to_numpy(np.float64))


def test_srbct_csv_round_trip_is_bit_identical(shared_srbct, tmp_path):
    path = tmp_path / "SRBCT.csv"
    pd.read_parquet(SRBCT).to_csv(path, index=False)
    assert_same_dataset(load_dataset(path), shared_srbct)


def test_srbct_transposed_csv_is_the_same(shared_srbct, tmp_path):
    path = tmp_path / "SRBCT_genes_in_rows.tsv.gz"
    frame = pd.read_parquet(SRBCT)
    frame.index = [f"sample{i}" for i in range(len(frame))]
    with gzip.open(path, "wt") as handle:
        frame.T.to_csv(handle, sep="\t", index_label="gene")
    flipped = load_dataset(path, transpose=True)
    assert_same_dataset(flipped, shared_srbct)
    assert flipped.sample_names[:2] == ("sample0", "sample1")


def test_resolve_class_returns_the_stored_label():
    ds = load_dataset(b"g1,label\n1,2\n2,2\n3,5\n4,5\n", name="x.csv")
    for value in (2, 2.0, "2", "2.0", np.int64(2)):
        resolved = ds.resolve_class(value)
        assert resolved == 2 and type(resolved) is int


def test_class_counts_ties_are_in_numeric_order():
    ds = load_dataset(b"g1,label\n1,10\n2,9\n3,10\n4,9\n5,1\n", name="x.csv")
    assert list(ds.class_counts().items()) == [(9, 2), (10, 2), (1, 1)]


def test_line_numbers_are_only_claimed_when_reliable():
    with pytest.raises(FSEngineError) as excinfo:
        load_dataset(b"g1,label\n1,a\n\n2,b\nx,a\n", name="blank.csv")
    assert "row 3" in str(excinfo.value) and "line" not in str(excinfo.value)


def test_error_with_sample_names_gives_row_and_sample():
    with pytest.raises(FSEngineError) as excinfo:
        load_dataset(b"id,g1,label\ns1,1,a\ns2,oops,b\ns3,2,a\n", name="ids.csv")
    assert "row 2 (sample 's2')" in str(excinfo.value)


# ---------------------------------------------------------------------------- error fields

FIELD_CASES = [
    (
        "feature-cell",
        csv("g1,g2,label", "1,2,a", "3,4,b", "5,abc,a"),
        {},
        {"column": "g2", "row": 3},
    ),
    ("missing-value", csv("g1,g2,label", "1,2,a", "3,,b"), {}, {"column": "g2", "row": 2}),
    (
        "missing-label",
        csv("g1,label", "1,a", "2,b", "3,", "4,a"),
        {},
        {"column": "label", "row": 3},
    ),
    ("one-class", csv("g1,label", "1,a", "2,a", "3,a"), {}, {"column": "label", "row": None}),
    ("no-features", csv("label", "a", "b"), {}, {"column": "label", "row": None}),
    ("unnamed-column", csv("g1,,label", "1,2,a", "3,4,b"), {}, {"column": "", "row": None}),
    (
        "transposed-cell",
        csv("gene,s1,s2,s3", "g1,1,2,3", "g2,4,x,6", "label,a,b,a"),
        {"transpose": True},
        {"column": "g2", "row": 2},
    ),
    (
        "transposed-gene-name",
        csv("gene,s1,s2,s3", "label,a,b,a", "g1,1,2,3", ",4,5,6"),
        {"transpose": True},
        {"column": "gene", "row": 3},
    ),
    ("empty-file", b"", {}, {"column": None, "row": None}),
]


@pytest.mark.parametrize(
    "data,kwargs,fields", [case[1:] for case in FIELD_CASES], ids=[case[0] for case in FIELD_CASES]
)
def test_errors_carry_the_column_and_row(data, kwargs, fields):
    exc = load_error(data, name="x.csv", **kwargs)
    assert {"column": exc.column, "row": exc.row} == fields
    assert exc.remedy_option is None and exc.parameter is None


def test_parquet_errors_carry_the_column_and_row():
    exc = load_error(
        parquet({"g1": [1.0, float("nan"), 3.0], "label": [0, 1, 1]}), name="x.parquet"
    )
    assert (exc.column, exc.row) == ("g1", 2)


def _not_a_class(column):
    rows = [("g1", "y")] + [(f"{0.5 * i}", column[i]) for i in range(len(column))]
    return text(rows)


@pytest.mark.parametrize(
    "column,problem",
    [
        (
            [str(i) for i in range(12)],
            "label column 'y' holds 0..11, one number per row: it is the row index, not a class",
        ),
        (
            [f"{i}.5" for i in range(30)],
            "label column 'y' has 30 distinct numeric values: it looks "
            "like a measurement, not a class",
        ),
        (
            [f"s{i}" for i in range(12)],
            "label column 'y' has a different value in every row (12): "
            "it looks like sample identifiers, not a class",
        ),
    ],
    ids=["row-index", "measurement", "identifiers"],
)
def test_a_label_column_that_is_not_a_class_suggests_the_label_option(column, problem):
    exc = load_error(_not_a_class(column), name="x.csv", label="y")
    assert (exc.problem, exc.column) == (problem, "y")
    assert (exc.remedy, exc.remedy_option) == ("choose the class column with", "label")
    assert str(exc) == f"{problem}; choose the class column with {library_words('label')}"
    assert exc.describe({"label": "LABEL"}.get).endswith("choose the class column with LABEL")


def _genes_in_rows(label_row=None, last_sample="s6", n_genes=60):
    """Genes in rows (n_genes x 6 samples), with a label row at the end if given."""
    rng = np.random.default_rng(4)
    samples = ["s1", "s2", "s3", "s4", "s5", last_sample]
    rows = [("gene", *samples)]
    rows += [(f"g{i}", *(f"{v:.4f}" for v in rng.normal(size=6))) for i in range(n_genes)]
    if label_row:
        rows.append((label_row, "a", "b", "a", "b", "a", "b"))
    return text(rows)


def test_a_genes_in_rows_file_suggests_transpose():
    exc = load_error(_genes_in_rows(label_row="class"), name="g.csv")
    problem = (
        "g.csv looks like genes in rows and samples in columns (row 61 of the first "
        "column is named 'class'; 61 rows x 7 columns)"
    )
    assert exc.problem == problem
    assert (exc.row, exc.column) == (61, "gene")
    assert (exc.remedy, exc.remedy_option) == ("load it with", "transpose")
    assert str(exc) == f"{problem}; load it with transpose=True"
    assert not isinstance(exc, HintedError)
    assert load_dataset(_genes_in_rows(label_row="class"), transpose=True).X.shape == (6, 60)


def test_the_genes_in_rows_hint_follows_the_files_own_error():
    # No label row: the last sample's column is taken as the label, a measurement.
    exc = load_error(_genes_in_rows(), name="g.csv")
    assert isinstance(exc, HintedError)
    own = (
        "label column 's6' has 60 distinct numeric values: it looks like a measurement, not a class"
    )
    assert (exc.problem, exc.column, exc.remedy_option) == (own, "s6", "label")
    hint = exc.hint
    assert (hint.problem, hint.remedy, hint.remedy_option) == (
        "the file looks like genes in rows (60 rows x 7 columns)",
        "load it with",
        "transpose",
    )
    assert str(exc) == (
        f"{own}; choose the class column with {library_words('label')}; "
        "the file looks like genes in rows (60 rows x 7 columns); load it with "
        "transpose=True"
    )
    words = {"label": "<label>", "transpose": "<transpose>"}.get
    assert exc.describe(words) == (
        f"{own}; choose the class column with <label>; the file "
        "looks like genes in rows (60 rows x 7 columns); load it "
        "with <transpose>"
    )
    copy = pickle.loads(pickle.dumps(exc))
    assert type(copy) is HintedError and str(copy) == str(exc)
    assert (copy.column, copy.remedy_option, copy.hint.remedy_option) == (
        "s6",
        "label",
        "transpose",
    )


def test_the_hint_does_not_depend_on_the_messages_text():
    # A column named like the command line's flag once made the loader drop the hint.
    exc = load_error(_genes_in_rows(last_sample="--transpose"), name="g.csv")
    assert isinstance(exc, HintedError) and exc.column == "--transpose"
    assert exc.hint.remedy_option == "transpose"


def test_corrupt_gzip_stream_is_a_clear_error():
    raw = gzip.compress(b"g1,label\n1,a\n2,b\n" * 50)
    corrupt = raw[:20] + bytes(b ^ 0xFF for b in raw[20:40]) + raw[40:]
    with pytest.raises(FSEngineError, match="gzip"):
        load_dataset(corrupt, name="x.csv.gz")


def test_huge_integral_float_labels_stay_exact_floats():
    ds = load_dataset(b"g1,label\n1,9.3e18\n2,9.3e18\n3,1\n4,1\n", name="x.csv")
    assert ds.labels.dtype == np.float64
    assert ds.class_counts() == {1.0: 2, 9.3e18: 2}
