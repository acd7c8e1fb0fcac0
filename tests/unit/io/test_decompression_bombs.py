"""A gzip-compressed file that expands past the limit is refused before anything reads
it: by the loader (the matrix, a sample sheet, a GEO series matrix), the command line
(one line, exit 2), whatever the file's members; files within the limit read as before."""

import gzip
import io
import zlib

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from bad_inputs import gzip_bomb
from fsengine import FSEngineError, load_dataset
from fsengine.cli import main
from fsengine.io.base import MAX_DECOMPRESSED_BYTES, check_expanded_size, max_decompressed_bytes

LIMIT = 2**20  # the limit the tests set: 1 MiB


@pytest.fixture
def one_mib(monkeypatch):
    monkeypatch.setenv("FSENGINE_MAX_DECOMPRESSED_BYTES", str(LIMIT))


def _table(rows: int, genes: int) -> bytes:
    """A CSV of ``rows`` samples, two classes; its text is about 6 bytes a cell."""
    rng = np.random.default_rng(0)
    header = ",".join([f"g{j}" for j in range(genes)] + ["label"])
    lines = [
        ",".join(f"{v:.2f}" for v in rng.normal(10, 1, genes)) + f",{'ab'[i % 3 == 0]}"
        for i in range(rows)
    ]
    return ("\n".join([header, *lines]) + "\n").encode()


def test_the_default_limit_is_two_gib_and_the_environment_changes_it(monkeypatch):
    monkeypatch.delenv("FSENGINE_MAX_DECOMPRESSED_BYTES", raising=False)
    assert max_decompressed_bytes() == MAX_DECOMPRESSED_BYTES == 2**31
    monkeypatch.setenv("FSENGINE_MAX_DECOMPRESSED_BYTES", "12345")
    assert max_decompressed_bytes() == 12345
    for bad in ("-1", "0", "2GB", "1e9"):
        monkeypatch.setenv("FSENGINE_MAX_DECOMPRESSED_BYTES", bad)
        with pytest.raises(FSEngineError, match="FSENGINE_MAX_DECOMPRESSED_BYTES must be"):
            max_decompressed_bytes()


@pytest.mark.parametrize("member", [2**16, 2**22])  # many members; one member
def test_a_bomb_is_refused_as_bytes_and_as_a_path(one_mib, tmp_path, member):
    bomb = gzip_bomb(4 * LIMIT, member=member)
    assert len(bomb) < LIMIT // 50
    path = tmp_path / "zeros.csv.gz"
    path.write_bytes(bomb)
    for source in (bomb, path):
        with pytest.raises(FSEngineError) as refused:
            load_dataset(source, name="zeros.csv.gz")
        assert str(refused.value).startswith(
            "zeros.csv.gz expands to more than 1.0 MB when decompressed"
        )


def test_the_limit_is_the_expanded_size_exactly(one_mib):
    at = gzip.compress(b"x" * LIMIT)
    check_expanded_size(at, "at.gz")  # exactly the limit: allowed
    with pytest.raises(FSEngineError, match="expands to more than"):
        check_expanded_size(gzip.compress(b"x" * (LIMIT + 1)), "over.gz")
    split = gzip.compress(b"x" * (LIMIT // 2)) + gzip.compress(b"x" * (LIMIT // 2 + 1))
    with pytest.raises(FSEngineError, match="expands to more than"):
        check_expanded_size(split, "two-members.gz")  # counted over the members


def test_a_table_within_the_limit_reads_as_the_plain_file(one_mib):
    text = _table(60, 200)
    assert len(text) < LIMIT
    plain = load_dataset(text, name="t.csv")
    for packed in (gzip.compress(text), gzip.compress(text[:5000]) + gzip.compress(text[5000:])):
        read = load_dataset(packed, name="t.csv.gz")
        assert np.array_equal(read.X, plain.X) and read.feature_names == plain.feature_names


def test_bytes_after_the_last_member_and_a_damaged_stream_are_left_to_the_reader(one_mib):
    text = _table(20, 10)
    check_expanded_size(gzip.compress(text) + b"\0\0\0\0", "padded.gz")  # as gzip reads it
    damaged = bytearray(gzip.compress(text))
    damaged[20:40] = b"\xff" * 20
    check_expanded_size(bytes(damaged), "damaged.gz")  # no refusal for its size
    with pytest.raises(zlib.error):
        zlib.decompress(bytes(damaged), wbits=31)
    with pytest.raises(FSEngineError, match="cannot be decompressed|damaged"):
        load_dataset(bytes(damaged), name="damaged.csv.gz")


def test_a_sample_sheet_bomb_is_refused_by_its_name(one_mib):
    text = _table(12, 5)
    with pytest.raises(FSEngineError, match=r"^sheet.tsv.gz expands to more than 1.0 MB"):
        load_dataset(text, name="t.csv", samples=gzip_bomb(4 * LIMIT), samples_name="sheet.tsv.gz")


def test_a_geo_series_matrix_bomb_is_refused(one_mib):
    head = b'!Series_title\t"x"\n!series_matrix_table_begin\n'
    bomb = gzip.compress(head + b"0\t" * LIMIT)
    with pytest.raises(FSEngineError, match=r"^GSE1_series_matrix.txt.gz expands to more"):
        load_dataset(bomb, name="GSE1_series_matrix.txt.gz")


def test_the_command_line_refuses_a_bomb_in_one_line(one_mib, tmp_path, capsys):
    path = tmp_path / "bomb.csv.gz"
    path.write_bytes(gzip_bomb(4 * LIMIT))
    assert main(["select", str(path), "--minority", "a"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    assert "bomb.csv.gz expands to more than 1.0 MB when decompressed" in err


def _parquet(rows: int) -> bytes:
    """A Parquet file of ``rows`` x (one gene of 0s and 1s, a label): dictionary and
    run-length encoded."""
    table = pa.table({"g": np.arange(rows) % 2.0, "label": pa.array(["a", "b"] * (rows // 2))})
    out = io.BytesIO()
    pq.write_table(table, out, compression="zstd")
    return out.getvalue()


def test_a_parquet_file_is_refused_by_its_decoded_size(one_mib, tmp_path):
    rows = 2**16 + 2  # x 2 columns x 8 bytes: just over 1 MiB
    bomb = _parquet(rows)
    assert len(bomb) < LIMIT // 50
    path = tmp_path / "zeros.parquet"
    path.write_bytes(bomb)
    for source in (bomb, path):
        with pytest.raises(FSEngineError) as refused:
            load_dataset(source, name="zeros.parquet")
        assert str(refused.value).startswith(
            f"zeros.parquet holds {rows:,} rows x 2 columns, 1.0 MB as float64 once decoded: "
            "more than the 1.0 MB"
        )
    within = load_dataset(_parquet(2**16 - 2), name="ok.parquet")  # just under: read
    assert within.X.shape == (2**16 - 2, 1) and within.X.sum() == 2**15 - 1
