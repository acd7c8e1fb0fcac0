"""The memory a file will take, known before it is read (fsengine.io.footprint): checked
against the matrix the loader then holds (Dataset.matrix_bytes) on every format, against
tracemalloc's peak of the read, and against hand-made tables whose lines and fields are
known; the refusal names both sizes."""

from __future__ import annotations

import gzip
import io
import tracemalloc

import anndata
import numpy as np
import pandas as pd
import pytest
from scipy import sparse

from bad_inputs import gzip_bomb
from conftest import ROOT, SAMPLE
from fsengine import FSEngineError, load_dataset
from fsengine.io.base import size_text
from fsengine.io.footprint import Footprint, check_fits, footprint

DATA = ROOT / "tests" / "data"


def _cells(tmp_path, layout: str):
    from synthetic import single_cell_anndata

    adata = single_cell_anndata(n_cells=2_000, n_genes=300, n_rare=40, n_markers=10, seed=3)
    X = adata.X.toarray() if sparse.issparse(adata.X) else np.asarray(adata.X)
    adata.X = {"csr": sparse.csr_matrix, "csc": sparse.csc_matrix, "dense": np.asarray}[layout](
        X.astype(np.float32)
    )
    path = tmp_path / f"cells-{layout}.h5ad"
    adata.write_h5ad(path)
    return path


@pytest.mark.parametrize(
    ("name", "options"),
    [
        ("SRBCT.parquet", {}),
        ("colon_alon.csv.gz", {}),
        ("brain_nine_classes_genes_in_rows.tsv.gz", {"transpose": True}),
        ("glioma_series_matrix.txt.gz", {}),
        ("GSE4107_series_matrix.txt.gz", {"label": "Gender"}),
        ("pbmc68k_reduced.h5ad", {"label": "bulk_labels"}),
    ],
)
def test_what_a_file_will_hold_is_what_the_loader_holds(name, options):
    path = SAMPLE if name == "SRBCT.parquet" else DATA / name
    found = footprint(path, name)
    held = load_dataset(path, sparse=True, **options).matrix_bytes
    # The estimate counts the text columns (sample names, the label) as values too.
    assert held <= found.held <= 1.05 * held
    assert found.form == "dense" and found.peak > found.held
    # The same from the bytes of an upload.
    assert footprint(path.read_bytes(), name) == found


@pytest.mark.parametrize("layout", ["csr", "csc", "dense"])
def test_an_anndata_files_footprint_is_its_matrixs_once_read(layout, tmp_path):
    path = _cells(tmp_path, layout)
    found = footprint(path, path.name)
    ds = load_dataset(path, label="cell_type", sparse=True, backed=False)
    assert found.shape == (ds.n_samples, ds.n_features)
    assert found.form == ("dense" if layout == "dense" else "sparse")
    assert ds.matrix_bytes <= found.held <= 1.01 * ds.matrix_bytes
    assert footprint(path.read_bytes(), path.name) == found
    backed = footprint(path, path.name, backed=True)
    assert backed.form == "backed" and backed.held <= 8 * 2_000 * 300
    # The size rule (backed=None) against a budget: a quarter of it, as the reader decides.
    assert footprint(path, path.name, backed=None, budget=10 * found.held).form == found.form
    assert footprint(path, path.name, backed=None, budget=2 * found.held).form == "backed"


def test_a_zarr_stores_footprint(tmp_path):
    from synthetic import single_cell_anndata

    adata = single_cell_anndata(n_cells=500, n_genes=120, n_rare=20, n_markers=6, seed=4)
    adata = anndata.AnnData(X=sparse.csr_matrix(adata.X), obs=adata.obs, var=adata.var)
    store = tmp_path / "cells.zarr"
    adata.write_zarr(store)
    found = footprint(store, store.name)
    ds = load_dataset(store, label="cell_type", sparse=True, backed=False)
    assert found.form == "sparse" and ds.matrix_bytes <= found.held <= 1.01 * ds.matrix_bytes


def test_the_peak_of_reading_a_table_is_within_its_estimate(tmp_path):
    """tracemalloc sees numpy's allocations (the text reader's matrix and chunks); Arrow's
    pool has its own high-water mark. The table (46 MB) is large beside the readers'
    buffers, so the bound is the peak multiple itself."""
    import pyarrow as pa

    from fsengine.io.footprint import PARQUET_PEAK, TEXT_PEAK

    rng = np.random.default_rng(0)
    frame = pd.DataFrame(rng.normal(size=(1_000, 6_000)).round(4))
    frame.columns = [f"g{i}" for i in range(6_000)]
    frame["label"] = rng.integers(0, 3, 1_000)
    for path, multiple in ((tmp_path / "t.csv", TEXT_PEAK), (tmp_path / "t.parquet", None)):
        frame.to_csv(path, index=False) if path.suffix == ".csv" else frame.to_parquet(path)
        found = footprint(path, path.name)
        pool = pa.default_memory_pool()
        pool.release_unused()
        arrow_before = pool.max_memory()
        tracemalloc.start()
        try:
            load_dataset(path)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        arrow = max(pool.max_memory() - arrow_before, 0)
        multiple = multiple or PARQUET_PEAK
        assert found.held <= peak + arrow <= multiple * found.held, (path.name, peak, arrow)


@pytest.mark.parametrize(
    ("text", "shape"),
    [
        (b"a,b,label\n1,2,x\n3,4,y\n", (2, 3)),
        (b"a,b,label\n1,2,x\n3,4,y", (2, 3)),  # no last line break
        (b"a\tb\tlabel\r\n1\t2\tx\r\n3\t4\ty\r\n5\t6\tx\r\n", (3, 3)),
        (b",a,b,label\ns1,1,2,x\n", (1, 4)),
        (b"a,b\n" + b"1,2\n" * 1000, (1000, 2)),
        (b"a,b\n\n1,2\n\n3,4\n", (2, 2)),  # empty lines
        # a GEO series matrix: metadata lines start with "!"
        (
            b'!Series_title\t"x"\n!Sample_title\t"a"\t"b"\n!series_matrix_table_begin\n'
            b'"ID_REF"\t"GSM1"\t"GSM2"\n"g1"\t1\t2\n"g2"\t3\t4\n!series_matrix_table_end\n',
            (2, 3),
        ),
    ],
)
def test_a_tables_lines_and_fields_are_counted(text, shape):
    for source in (text, gzip.compress(text)):
        found = footprint(source, "t.tsv" if b"\t" in text else "t.csv")
        assert found.shape == shape and found.held == 8 * shape[0] * shape[1]


def test_long_lines_are_counted_a_piece_at_a_time(monkeypatch):
    from fsengine.io import footprint as footprint_module

    monkeypatch.setattr(footprint_module, "_SCAN_STEP", 64)  # every line longer than a step
    header = ",".join(f"gene{i}" for i in range(500)) + ",label\n"
    text = header.encode() + (",".join("1.5" for _ in range(500)) + ",x\n").encode() * 7
    titles = b"\t".join(b'"sample %d"' % i for i in range(300))
    geo = (
        b'!Series_title\t"x"\n!Sample_title\t'
        + titles
        + b"\n\n!series_matrix_table_begin\n"
        + b'"ID_REF"\t'
        + b"\t".join(b'"GSM%d"' % i for i in range(300))
        + b"\n"
        + (b'"g"\t' + b"\t".join(b"1" for _ in range(300)) + b"\n") * 5
        + b"!series_matrix_table_end\n"
    )
    for source, name, shape in ((text, "t.csv", (7, 501)), (geo, "s.txt", (5, 301))):
        assert footprint(source, name).shape == shape
        assert footprint(gzip.compress(source), name + ".gz").shape == shape


def test_a_damaged_anndata_file_is_left_to_the_reader(tmp_path):
    import h5py

    path = _cells(tmp_path, "csr")
    with h5py.File(path, "r+") as f:
        del f["X"].attrs["shape"]
    assert footprint(path, path.name) is None
    with pytest.raises(FSEngineError):  # the reader's message
        load_dataset(path, label="cell_type")


def test_a_bomb_is_refused_by_the_footprint_too(monkeypatch):
    monkeypatch.setenv("FSENGINE_MAX_DECOMPRESSED_BYTES", str(2**20))
    with pytest.raises(FSEngineError, match="expands to more than 1.0 MB"):
        footprint(gzip_bomb(2**22, member=2**20), "bomb.csv.gz")


def test_formats_of_unknown_size_give_none():
    assert footprint(b"PK\x03\x04" + b"\x00" * 100, "book.xlsx") is None
    assert footprint(ROOT / "no-such-file.csv", "no-such-file.csv") is None


def test_a_file_that_does_not_fit_is_refused_with_both_sizes():
    found = Footprint((20_000, 3_000), "dense", 480_000_000, 600_000_000)
    check_fits(found, "big.csv", budget=2 * 600_000_000)  # half of it: fits
    check_fits(None, "unknown.xlsx", budget=1)
    with pytest.raises(FSEngineError) as refused:
        check_fits(found, "big.csv", budget=1_000_000_000, way_out="use fewer genes")
    message = str(refused.value)
    assert message.startswith("big.csv would take about 457.8 MB in memory")
    assert "a dense 20,000 x 3,000 matrix" in message and "572.2 MB at the peak" in message
    assert f"may take {size_text(500_000_000)} here" in message
    assert f"half the {size_text(1_000_000_000)}" in message
    assert message.endswith("use fewer genes")


def test_an_upload_of_bytes_is_never_read_backed():
    raw = (DATA / "pbmc68k_reduced.h5ad").read_bytes()
    assert footprint(raw, "pbmc.h5ad", backed=None, budget=1).form == "dense"
    assert footprint(io.BytesIO(raw).getvalue(), "pbmc.h5ad").shape == (700, 765)


MEMINFO = "MemTotal: 24000000 kB\nMemFree: 1000000 kB\nMemAvailable: 20000000 kB\n"


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        # the page cache counts as available (MemFree alone would say 1 GB)
        ({"/proc/self/cgroup": "0::/\n"}, 20_000_000 * 1024),
        # a container's cgroup v2 limit: 4 GB, 1 GB used
        (
            {
                "/proc/self/cgroup": "0::/box\n",
                "/sys/fs/cgroup/box/memory.max": "4294967296\n",
                "/sys/fs/cgroup/box/memory.current": "1073741824\n",
            },
            3 * 2**30,
        ),
        # the group's usage counts its page cache: the inactive part is not in use
        (
            {
                "/proc/self/cgroup": "0::/box\n",
                "/sys/fs/cgroup/box/memory.max": "4294967296\n",
                "/sys/fs/cgroup/box/memory.current": "4000000000\n",
                "/sys/fs/cgroup/box/memory.stat": "anon 100\ninactive_file 2926258176\n",
            },
            4294967296 - (4000000000 - 2926258176),
        ),
        # cgroup v1, its folder mounted as the container's root; no limit, then 2 GB
        (
            {
                "/proc/self/cgroup": "4:memory:/docker/abc\n1:cpu:/\n",
                "/sys/fs/cgroup/memory/memory.limit_in_bytes": "9223372036854771712\n",
                "/sys/fs/cgroup/memory/memory.usage_in_bytes": "5\n",
            },
            20_000_000 * 1024,
        ),
        (
            {
                "/proc/self/cgroup": "4:memory:/docker/abc\n",
                "/sys/fs/cgroup/memory/memory.limit_in_bytes": str(2 * 2**30),
                "/sys/fs/cgroup/memory/memory.usage_in_bytes": str(2**30),
            },
            2**30,
        ),
    ],
)
def test_the_available_memory_is_linuxs_estimate_within_the_cgroups_limit(
    files, expected, monkeypatch
):
    import builtins

    from fsengine._compute import sparse as sparse_blocks

    real_open = builtins.open
    files = {"/proc/meminfo": MEMINFO, **files}

    def fake_open(path, mode="r", *args, **kwargs):
        path = str(path)
        if path.startswith(("/proc/", "/sys/fs/cgroup")):
            if path not in files:
                raise FileNotFoundError(path)
            data = files[path]
            return io.BytesIO(data.encode()) if "b" in mode else io.StringIO(data)
        return real_open(path, mode, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", fake_open)
    assert sparse_blocks.available_memory() == expected
