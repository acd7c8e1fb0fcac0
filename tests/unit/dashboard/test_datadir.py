"""dashboard.datadir: what the data directory lists, the names it refuses, references that
find their file again or say it has gone or changed, and when a file is read backed."""

import os

import pytest

from dashboard import datadir
from fsengine import FSEngineError
from fsengine.io.base import size_text


@pytest.fixture
def folder(tmp_path, monkeypatch):
    root = tmp_path / "data"
    root.mkdir()
    (root / "a.csv").write_text("a,label\n1,x\n")
    (root / "b.h5ad").write_bytes(b"\x89HDF\r\n\x1a\n" + b"\0" * 100)
    store = root / "c.zarr"
    store.mkdir()
    (store / ".zgroup").write_text("{}")
    (root / "notes.md").write_text("no")
    (root / ".hidden.csv").write_text("a\n1\n")
    (root / "folder.csv").mkdir()  # a folder named like a table
    outside = tmp_path / "outside.csv"
    outside.write_text("a,label\n1,x\n")
    (root / "link.csv").symlink_to(outside)
    (root / "inner.csv").symlink_to(root / "a.csv")  # a link inside the folder: listed
    monkeypatch.setenv(datadir.DATA_DIR, str(root))
    return root


def test_listing_has_the_data_files_only(folder):
    names = [f.name for f in datadir.listing()]
    assert names == ["a.csv", "b.h5ad", "c.zarr", "inner.csv"]
    sizes = {f.name: f.size for f in datadir.listing()}
    assert sizes["c.zarr"] == 2 and sizes["b.h5ad"] == 108


@pytest.mark.parametrize(
    "name",
    ["link.csv", "../outside.csv", "notes.md", ".hidden.csv", "folder.csv", "/etc/passwd", ""],
)
def test_other_names_are_refused(folder, name):
    with pytest.raises(FSEngineError, match="is not a data file of the data directory"):
        datadir.resolve(name)


def test_a_reference_finds_its_file_or_says_what_happened(folder):
    path, entry = datadir.resolve("a.csv")
    raw = datadir.reference(entry)
    assert datadir.is_reference(raw) and not datadir.is_reference(b"a,label\n")
    assert datadir.source(raw) == path and datadir.source(b"x") == b"x"
    os.utime(path, ns=(entry.mtime_ns, entry.mtime_ns + 10**9))
    with pytest.raises(FSEngineError, match="a.csv in the data directory has changed"):
        datadir.referenced(raw)
    path.unlink()
    with pytest.raises(FSEngineError, match="a.csv is no longer in the data directory$"):
        datadir.referenced(raw)


def test_without_the_folder_the_messages_say_why(folder, monkeypatch):
    monkeypatch.delenv(datadir.DATA_DIR)
    assert datadir.data_dir() is None
    with pytest.raises(FSEngineError, match="FSENGINE_DATA_DIR is not set"):
        datadir.listing()
    monkeypatch.setenv(datadir.DATA_DIR, str(folder / "nowhere"))
    with pytest.raises(FSEngineError, match="does not exist or is not a folder"):
        datadir.resolve("a.csv")


def test_large_anndata_files_are_read_backed(monkeypatch):
    big = datadir.DataFile("x.h5ad", 300 * 2**20, 0)
    assert datadir.backed_option(big) is True
    assert datadir.backed_option(datadir.DataFile("x.h5ad", 2**20, 0)) is None
    assert datadir.backed_option(datadir.DataFile("x.csv", 300 * 2**20, 0)) is False
    monkeypatch.setenv(datadir.BACKED_FROM_MB, "0")
    assert datadir.backed_option(datadir.DataFile("s.zarr", 10, 0)) is True
    assert size_text(512) == "512 B" and size_text(3 * 2**30) == "3.0 GB"
