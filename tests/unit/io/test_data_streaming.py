"""The loader's streaming path against its whole-file path.

``load_dataset`` parses the common case (a numeric table whose only text columns are
the first and the last) a chunk of lines or a group of Parquet columns at a time into
one matrix (``fsengine.io.stream``); everything else goes to the whole-file
reader, which names the cell at fault. The whole-file reader is the independent
truth here: for any file, both paths must give the same Dataset or the same message.
"""

import gzip
import io
import tracemalloc
from unittest import mock

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import SAMPLE
from fsengine import io as readers
from fsengine.data.dataset import load_dataset
from fsengine.errors import FSEngineError
from fsengine.io import text as text_reader


def whole_file(source, **kwargs):
    """``load_dataset`` with the streaming path switched off."""
    with mock.patch.object(readers, "stream", lambda *args: None):
        return outcome(source, **kwargs)


def outcome(source, **kwargs):
    """The Dataset, or the message of the FSEngineError (no other type may escape)."""
    try:
        return load_dataset(source, **kwargs)
    except FSEngineError as exc:
        return str(exc)


def assert_same(a, b) -> None:
    """Same message, or same X (bit for bit up to the sign of zero), labels, names, notes."""
    assert type(a) is type(b), (a, b)
    if isinstance(a, str):
        assert a == b
        return
    assert a.X.shape == b.X.shape and a.X.dtype == b.X.dtype == np.float64
    assert np.array_equal(a.X, b.X)
    nonzero = a.X != 0
    assert np.array_equal(a.X[nonzero].view(np.uint64), b.X[nonzero].view(np.uint64))
    assert a.labels.dtype == b.labels.dtype and a.labels.tolist() == b.labels.tolist()
    for attribute in (
        "feature_names",
        "label_column",
        "sample_names",
        "constant_features",
        "dropped_features",
        "notes",
        "source",
    ):
        assert getattr(a, attribute) == getattr(b, attribute), attribute


def streamed(source, name="x.csv"):
    """The streaming parser's result (None when it hands over to the whole-file reader)."""
    return readers.stream(source, name)


@pytest.fixture(scope="module")
def srbct_frame():
    return pd.read_parquet(SAMPLE)


def _layouts(frame: pd.DataFrame) -> dict[str, tuple[bytes, str]]:
    ids = [f"s{i}" for i in range(len(frame))]
    with_ids = frame.copy()
    with_ids.insert(0, "sample", ids)
    r_style = frame.copy()
    r_style.index = ids
    r_style["label"] = "class_" + r_style["label"].astype(str)
    csv_text = frame.to_csv(index=False).encode()
    buffer = io.BytesIO()
    frame.to_parquet(buffer, index=False)
    middle = frame.copy()
    middle.insert(1000, "class", "c" + middle.pop("label").astype(str))
    middle.insert(5, "batch", "b1")
    return {
        "csv": (csv_text, "x.csv"),
        "text columns in the middle": (middle.to_csv(index=False).encode(), "x.csv"),
        "tsv": (frame.to_csv(index=False, sep="\t").encode(), "x.tsv"),
        "semicolon": (frame.to_csv(index=False, sep=";").encode(), "x.csv"),
        "crlf and BOM": (b"\xef\xbb\xbf" + csv_text.replace(b"\n", b"\r\n"), "x.csv"),
        "no final newline": (csv_text.rstrip(b"\n"), "x.csv"),
        "blank lines": (csv_text.replace(b"\n", b"\n\n", 3), "x.csv"),
        "gzip": (gzip.compress(csv_text), "x.csv.gz"),
        "sample ids first": (with_ids.to_csv(index=False).encode(), "x.csv"),
        "pandas index": (frame.to_csv().encode(), "x.csv"),
        # R's write.csv: quoted header, quoted row names and quoted text labels.
        "R write.csv": (r_style.to_csv(quoting=2).encode(), "x.csv"),
        "parquet": (buffer.getvalue(), "x.parquet"),
    }


@pytest.mark.parametrize(
    "layout",
    [
        "csv",
        "text columns in the middle",
        "tsv",
        "semicolon",
        "crlf and BOM",
        "no final newline",
        "blank lines",
        "gzip",
        "sample ids first",
        "pandas index",
        "R write.csv",
        "parquet",
    ],
)
def test_common_layouts_are_streamed_and_equal_the_whole_file_reader(srbct_frame, layout):
    raw, name = _layouts(srbct_frame)[layout]
    assert streamed(raw, name) is not None, "the common layout fell back to the whole-file reader"
    fast = outcome(raw, name=name, label="class" if layout.startswith("text") else None)
    assert not isinstance(fast, str) or layout.startswith("text"), fast
    if layout.startswith("text"):  # a text column that is not the label is refused
        assert fast == "feature column 'batch', row 1 (line 2 of the file): 'b1' is not a number"
        assert_same(fast, whole_file(raw, name=name, label="class"))
        raw = raw.replace(b",b1,", b",1.5,").replace(b",batch,", b",gbatch,")
        assert streamed(raw, name) is not None
        fast = outcome(raw, name=name, label="class")
        assert fast.X.shape == (83, 2309) and not fast.X.flags.owndata  # the label left out
    else:  # without a copy
        assert fast.X.shape == (83, 2308)
    assert_same(
        fast, whole_file(raw, name=name, label="class" if layout.startswith("text") else None)
    )


def test_paths_are_streamed_from_disk_and_equal_bytes(srbct_frame, tmp_path):
    for layout, (raw, name) in _layouts(srbct_frame).items():
        path = tmp_path / name
        path.write_bytes(raw)
        assert streamed(path, name) is not None, layout
        assert_same(outcome(path), outcome(raw, name=name))


def test_streamed_matrix_is_not_copied(srbct_frame):
    raw = srbct_frame.to_csv(index=False).encode()
    parsed = streamed(raw)
    assert parsed.matrix.flags.f_contiguous
    ds = load_dataset(raw)
    assert ds.X.flags.f_contiguous and not ds.X.flags.owndata  # a view of the parsed matrix


def _genes_in_rows(frame: pd.DataFrame, label_first=True, numeric_label=False) -> str:
    turned = frame.drop(columns="label").T
    turned.columns = [f"s{i}" for i in range(len(frame))]
    labels = frame["label"] if numeric_label else "class_" + frame["label"].astype(str)
    label_row = pd.DataFrame([labels.to_numpy()], index=["label"], columns=turned.columns)
    parts = [label_row, turned] if label_first else [turned, label_row]
    return pd.concat(parts).rename_axis("gene").to_csv()


@pytest.mark.parametrize("label_first", [True, False])
@pytest.mark.parametrize("numeric_label", [True, False])
@pytest.mark.parametrize("compress", [False, True])
def test_genes_in_rows_are_streamed_and_equal_the_whole_file_reader(
    srbct_frame, label_first, numeric_label, compress
):
    raw = _genes_in_rows(srbct_frame, label_first, numeric_label).encode()
    if compress:
        raw = gzip.compress(raw)
    parsed = readers.stream(raw, "x.csv", True)
    assert parsed is not None and parsed.transposed
    fast = outcome(raw, name="x.csv", transpose=True)
    assert not isinstance(fast, str), fast
    assert fast.X.shape == (83, 2308) and fast.sample_names[:2] == ("s0", "s1")
    assert_same(fast, whole_file(raw, name="x.csv", transpose=True))
    np.testing.assert_array_equal(fast.X, srbct_frame.drop(columns="label").to_numpy())


TRANSPOSED_HANDED_OVER = {
    "NA values in three genes": "gene,s1,s2,s3\nlabel,a,b,a\ng1,1,NA,3\ng2,NA,5,6\ng3,7,8,\n",
    "duplicate genes": "gene,s1,s2,s3\nlabel,a,b,a\ng1,1,2,3\ng1,4,5,6\n",
    "duplicate samples": "gene,s1,s1,s3\nlabel,a,b,a\ng1,1,2,3\ng2,4,5,6\n",
    "three text rows": "gene,s1,s2,s3\nlabel,a,b,a\nbatch,x,y,z\nsex,m,f,m\ng1,1,2,3\n",
    "short row": "gene,s1,s2,s3\nlabel,a,b,a\ng1,1,2\ng2,4,5,6\n",
    "missing gene name": "gene,s1,s2,s3\nlabel,a,b,a\n,1,2,3\ng2,4,5,6\n",
}


def test_genes_in_rows_missing_value_is_named_by_both_readers():
    raw = b"gene,s1,s2,s3\nlabel,a,b,a\ng1,1,NA,3\ng2,4,5,6\n"
    message = (
        "feature column 'g1', row 2 (sample 's2'): missing value; fill or remove it "
        "(K-OFSD needs every value)"
    )
    assert outcome(raw, name="x.csv", transpose=True) == message
    assert whole_file(raw, name="x.csv", transpose=True) == message


def test_genes_in_rows_missing_gene_name_is_an_error():
    raw = b"gene,s1,s2,s3\nlabel,a,b,a\ng1,1,2,3\n,4,5,6\n"
    assert outcome(raw, name="x.csv", transpose=True) == (
        "row 3 of the first column has no gene name; a genes-in-rows file needs a gene name "
        "in every row"
    )


def test_genes_in_rows_names_and_labels_are_kept_as_written():
    # Entrez-like gene names stay text ("007" is not 7), a label row mixing numbers and
    # text keeps its text ("1", not "1.0"), by both readers.
    raw = b"gene,s1,s2,s3,s4\nlabel,1,b,b,1\n007,1,2,3,4\n102,4,5,6,7.5\n"
    assert readers.stream(raw, "x.csv", True) is not None
    ds = outcome(raw, name="x.csv", transpose=True)
    assert ds.feature_names == ("007", "102")
    assert ds.labels.tolist() == ["1", "b", "b", "1"]
    np.testing.assert_array_equal(ds.X, [[1, 4], [2, 5], [3, 6], [4, 7.5]])
    assert_same(ds, whole_file(raw, name="x.csv", transpose=True))


@pytest.mark.parametrize("case", sorted(TRANSPOSED_HANDED_OVER))
def test_irregular_genes_in_rows_files_are_handed_over(case):
    raw = TRANSPOSED_HANDED_OVER[case].encode()
    assert readers.stream(raw, "x.csv", True) is None
    assert_same(
        outcome(raw, name="x.csv", transpose=True), whole_file(raw, name="x.csv", transpose=True)
    )


# Files the streaming path must hand over, each with the whole-file reader's message.
HANDED_OVER = {
    "NaN cell": b"g1,g2,label\n1,2,a\nNaN,3,b\n4,5,a\n",
    "NA cell": b"g1,g2,label\n1,2,a\n3,NA,b\n4,5,a\n",
    "empty cell": b"g1,g2,label\n1,2,a\n3,,b\n4,5,a\n",
    "text cell in a later row": b"g1,g2,label\n1,2,a\n3,x1,b\n4,5,a\n",
    "hex number": b"g1,g2,label\n1,2,a\n3,0x10,b\n4,5,a\n",
    "underscore number": b"g1,g2,label\n1,2,a\n3,1_0,b\n4,5,a\n",
    "extra field": b"g1,g2,label\n1,2,a\n3,4,5,b\n4,5,a\n",
    "missing field": b"g1,g2,label\n1,2,a\n3,b\n4,5,a\n",
    "quoted delimiter": b'g1,g2,label\n1,2,"a,b"\n3,4,b\n4,5,a\n',
    "whitespace line": b"g1,g2,label\n1,2,a\n  \n3,4,b\n",
    "label in the middle": b"g1,label,g2\n1,a,2\n3,b,4\n4,a,5\n",
    "nine text columns": b"g1,"
    + b",".join(b"t%d" % i for i in range(9))
    + b",label\n"
    + b"".join(b"%d," % i + b"x," * 9 + b"ab"[i % 2 : i % 2 + 1] + b"\n" for i in range(4)),
    "comma decimals": b"g1;g2;label\n1,5;2;a\n3;4;b\n4;5;a\n",
    "duplicate names": b"g1,g1,label\n1,2,a\n3,4,b\n4,5,a\n",
    "lone carriage returns": b"g1,g2,label\r1,2,a\r3,4,b\r",
    "missing label": b"g1,g2,label\n1,2,a\n3,4,\n4,5,b\n",
    "infinite value": b"g1,g2,label\n1,2,a\n3,inf,b\n4,5,a\n",
    "one class": b"g1,g2,label\n1,2,a\n3,4,a\n",
    "latin-1 label": b"g1,g2,label\n1,2,a\n3,4,caf\xe9\n4,5,a\n",
}


@pytest.mark.parametrize("case", sorted(HANDED_OVER))
def test_irregular_files_give_the_whole_file_readers_outcome(case):
    raw = HANDED_OVER[case]
    assert_same(outcome(raw, name="x.csv"), whole_file(raw, name="x.csv"))


@pytest.mark.parametrize(
    "case",
    [
        "NaN cell",
        "NA cell",
        "empty cell",
        "text cell in a later row",
        "hex number",
        "underscore number",
        "extra field",
        "missing field",
        "quoted delimiter",
        "whitespace line",
        "nine text columns",
        "duplicate names",
        "lone carriage returns",
        "latin-1 label",
    ],
)
def test_irregular_files_are_handed_over(case):
    assert streamed(HANDED_OVER[case]) is None


def test_errors_found_after_streaming_name_the_same_line():
    raw = HANDED_OVER["infinite value"]
    assert streamed(raw) is not None
    message = outcome(raw)
    assert message == "feature column 'g2', row 2 (line 3 of the file): infinite value"
    with_blank = raw.replace(b"a\n3", b"a\n\n3")
    assert outcome(with_blank) == "feature column 'g2', row 2: infinite value"


def test_streaming_holds_the_matrix_about_once():
    """Peak = the matrix once + a few chunks of text. tracemalloc sees numpy's buffers and
    Python's bytes, not Arrow's; the streaming path gives Arrow only two columns. The
    chunk is made small against this 9.6 MB matrix, as 1 MB is against a 200 MB one
    (``make bench`` measures that case by peak RSS)."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((300, 4000)).round(5)
    frame = pd.DataFrame(X, columns=[f"g{j}" for j in range(4000)])
    frame["label"] = rng.integers(0, 2, 300)
    raw = frame.to_csv(index=False).encode()
    matrix_bytes = X.nbytes
    tracemalloc.start()
    try:
        chunk = mock.patch.object(text_reader, "_CHUNK", 1 << 18)
        chunk.start()
        tracemalloc.reset_peak()
        before = tracemalloc.get_traced_memory()[0]
        ds = load_dataset(raw)
        peak = tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()
        chunk.stop()
    np.testing.assert_array_equal(ds.X, X)
    assert peak < 1.5 * matrix_bytes, f"peak {peak / matrix_bytes:.2f}x the matrix"


# ---------------------------------------------------------------- fuzz: both paths agree

number_cells = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False, width=64).map(repr),
    st.integers(-(10**20), 10**20).map(str),
    st.sampled_from(
        [
            "1e5",
            "1E+05",
            ".5",
            "5.",
            "+1.5",
            "-0",
            "0.0",
            " 1.5 ",
            '"2.5"',
            "007",
            "1e400",
            "4.9e-325",
            "inf",
            "-Infinity",
            "nan",
            "NA",
            "",
            "1_0",
            "0x1",
            "1.5e",
            "1,5",
            "x",
            '"a,b"',
            '""',
            "true",
            "\t3",
        ]
    ),
)
label_cells = st.one_of(
    st.sampled_from(["a", "b", "c", " a", '"b"', "1", "2", "2.0", "NA", "", "caf\u00e9", "x y"]),
    st.integers(0, 3).map(str),
)


@settings(max_examples=1000, deadline=4000, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.data(),
    rows=st.integers(1, 8),
    columns=st.integers(1, 4),
    separator=st.sampled_from([",", "\t", ";"]),
    ids=st.booleans(),
    newline=st.sampled_from(["\n", "\r\n"]),
    final_newline=st.booleans(),
    blank_after=st.sets(st.integers(0, 8), max_size=2),
    compress=st.booleans(),
    regular=st.booleans(),
)
def test_fuzz_streaming_equals_whole_file_reader(
    data, rows, columns, separator, ids, newline, final_newline, blank_after, compress, regular
):
    cell = (
        st.floats(-1e6, 1e6, allow_nan=False).map(lambda v: f"{v:.6g}") if regular else number_cells
    )
    header = (
        ([data.draw(st.sampled_from(["id", "", '"sample"']))] if ids else [])
        + [f"g{j}" for j in range(columns)]
        + ["label"]
    )
    lines = [separator.join(header)]
    for i in range(rows):
        row = (
            ([f"s{i}"] if ids else [])
            + [data.draw(cell) for _ in range(columns)]
            + [data.draw(label_cells)]
        )
        lines.append(separator.join(row))
        if i in blank_after:
            lines.append("")
    text = newline.join(lines) + (newline if final_newline else "")
    raw = text.encode("utf-8")
    if compress:
        raw = gzip.compress(raw)
    streamed(raw)  # hands over or parses; never raises
    assert_same(outcome(raw, name="x.csv"), whole_file(raw, name="x.csv"))


@settings(max_examples=600, deadline=4000, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.data(),
    genes=st.integers(1, 6),
    samples=st.integers(1, 6),
    separator=st.sampled_from([",", "\t"]),
    label_at=st.integers(0, 6),
    newline=st.sampled_from(["\n", "\r\n"]),
    regular=st.booleans(),
)
def test_fuzz_genes_in_rows_streaming_equals_whole_file_reader(
    data, genes, samples, separator, label_at, newline, regular
):
    cell = (
        st.floats(-1e6, 1e6, allow_nan=False).map(lambda v: f"{v:.6g}") if regular else number_cells
    )
    names = [
        data.draw(st.sampled_from([f"g{j}", f"g{j}", "label", "7", ""])) if not regular else f"g{j}"
        for j in range(genes)
    ]
    lines = [separator.join(["gene"] + [f"s{i}" for i in range(samples)])]
    for j, name in enumerate(names):
        if j == label_at:
            lines.append(
                separator.join(["label"] + [data.draw(label_cells) for _ in range(samples)])
            )
        lines.append(separator.join([name] + [data.draw(cell) for _ in range(samples)]))
    raw = (newline.join(lines) + newline).encode("utf-8")
    readers.stream(raw, "x.csv", True)  # hands over or parses; never raises
    assert_same(
        outcome(raw, name="x.csv", transpose=True), whole_file(raw, name="x.csv", transpose=True)
    )
