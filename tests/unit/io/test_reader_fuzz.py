"""Fuzzing the readers test_data_fuzz.py does not reach, and the command line's options:
AnnData files with bytes changed (read whole and backed), Zarr stores with bytes changed
in any of their files, GEO series matrices and sample
sheets of random cells, random option values. Whatever the input: a valid Dataset (or a
selection) or the one-line FSEngineError, never another exception, never a crash.

A crash is what the AnnData fuzzing found: a file with three bytes changed
(tests/data/damaged_attribute.h5ad) ends the process in the HDF5 library, and a CSR
matrix whose row numbers were changed ends it in scipy's conversion to CSC. Both are now
refused with a message (fsengine.io.hdf5_probe; the structure checks of as_columns and of
the backed reader)."""

from __future__ import annotations

import contextlib
import io
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

import anndata
import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import sparse

from conftest import ROOT
from fsengine import Dataset, FSEngineError, load_dataset, run_selection
from fsengine.cli import main

DAMAGED = ROOT / "tests" / "data" / "damaged_attribute.h5ad"
FUZZ = settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)


def _valid(ds: Dataset) -> None:
    assert ds.X.shape == (len(ds.labels), len(ds.feature_names))
    assert len(ds.class_counts()) >= 2


def _read_or_refuse(read) -> Dataset | None:
    try:
        ds = read()
    except FSEngineError as exc:
        assert str(exc) and "\n" not in str(exc).strip()
        return None
    _valid(ds)
    return ds


def test_the_damaged_file_crashes_the_hdf5_library_and_is_refused():
    """The file really crashes a process that reads it without the probe (h5py and
    anndata alone, in a child); the loader refuses it with a message."""
    child = subprocess.run(
        [
            sys.executable,
            "-c",
            f"import anndata; anndata.read_h5ad({str(DAMAGED)!r})",
        ],
        capture_output=True,
    )
    assert child.returncode < 0, child.stderr.decode()[-500:]  # killed by a signal
    for source in (DAMAGED, DAMAGED.read_bytes()):
        with pytest.raises(FSEngineError) as refused:
            load_dataset(source, name="damaged_attribute.h5ad", label="cell_type")
        assert str(refused.value).startswith(
            "damaged_attribute.h5ad is a damaged HDF5 file: the HDF5 library crashed reading "
            "its structure (SIG"
        )


def test_a_csr_matrix_with_row_numbers_out_of_range_is_refused():
    """scipy's CSR -> CSC conversion trusts the structure; the loader checks it first."""
    X = sparse.csr_matrix(np.eye(6) + 1)
    X.indices[3] = 40  # a column number past the 6 columns
    adata = anndata.AnnData(
        X=X, obs=pd.DataFrame({"cell_type": list("aabbab")}, index=[f"c{i}" for i in range(6)])
    )
    with pytest.raises(FSEngineError, match="is a damaged sparse matrix"):
        load_dataset(_h5ad_bytes(adata), name="bad.h5ad", label="cell_type")


def _h5ad_bytes(adata) -> bytes:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "cells.h5ad"
        adata.write_h5ad(path)
        return path.read_bytes()


def _cells(layout: str) -> bytes:
    rng = np.random.default_rng(7)
    X = rng.poisson(0.6, (40, 12)).astype(np.float32)
    matrix = {"csr": sparse.csr_matrix, "csc": sparse.csc_matrix, "dense": np.asarray}[layout](X)
    obs = pd.DataFrame(
        {"cell_type": pd.Categorical(["a", "b", "c", "a"] * 10)},
        index=[f"c{i}" for i in range(40)],
    )
    var = pd.DataFrame(index=[f"g{j}" for j in range(12)])
    return _h5ad_bytes(anndata.AnnData(X=matrix, obs=obs, var=var))


CELLS = {layout: _cells(layout) for layout in ("dense", "csr", "csc")}
changes = st.lists(st.tuples(st.floats(0, 1, exclude_max=True), st.integers(0, 255)), max_size=8)


def _changed(base: bytes, edits) -> bytes:
    data = bytearray(base)
    for where, value in edits:
        data[int(where * len(data))] = value
    return bytes(data)


@FUZZ
@given(layout=st.sampled_from(sorted(CELLS)), edits=changes)
def test_an_anndata_file_with_bytes_changed_reads_or_is_refused(layout, edits):
    ds = _read_or_refuse(
        lambda: load_dataset(_changed(CELLS[layout], edits), name="x.h5ad", label="cell_type")
    )
    if ds is not None:
        assert np.isfinite(ds.X.toarray() if sparse.issparse(ds.X) else ds.X).all()


@FUZZ
@given(layout=st.sampled_from(["csr", "csc"]), edits=changes)
def test_a_backed_anndata_file_with_bytes_changed_reads_or_is_refused(
    tmp_path_factory, layout, edits
):
    path = tmp_path_factory.mktemp("backed") / "x.h5ad"
    path.write_bytes(_changed(CELLS[layout], edits))
    ds = _read_or_refuse(lambda: load_dataset(path, name="x.h5ad", label="cell_type", backed=True))
    if ds is not None:
        with contextlib.suppress(FSEngineError):  # a class too small for Welch, say
            run_selection(ds, "a", "welch")


def _zarr_files(layout: str) -> dict[str, bytes]:
    """The files of an AnnData Zarr store of the cells of :func:`_cells` (path -> bytes)."""
    adata = anndata.read_h5ad(io.BytesIO(CELLS[layout]))
    with tempfile.TemporaryDirectory() as folder, warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # zarr v2, anndata's default
        store = Path(folder) / "cells.zarr"
        adata.write_zarr(store)
        return {
            str(path.relative_to(store)): path.read_bytes()
            for path in sorted(store.rglob("*"))
            if path.is_file()
        }


ZARR = {layout: _zarr_files(layout) for layout in ("dense", "csr", "csc")}
zarr_changes = st.lists(
    st.tuples(
        st.floats(0, 1, exclude_max=True),  # which file
        st.floats(0, 1, exclude_max=True),  # where in it
        st.integers(0, 255),
    ),
    min_size=1,
    max_size=6,
)


@FUZZ
@given(layout=st.sampled_from(sorted(ZARR)), edits=zarr_changes, backed=st.booleans())
def test_a_zarr_store_with_bytes_changed_reads_or_is_refused(
    tmp_path_factory, layout, edits, backed
):
    """Bytes changed anywhere in a Zarr store's files (metadata JSON, compressed chunks,
    the consolidated metadata), read whole or backed (then a ranker reads its blocks): a
    valid data set of finite values, or the one line."""
    files = {name: bytearray(data) for name, data in ZARR[layout].items()}
    names = sorted(files)
    for which, where, value in edits:
        data = files[names[int(which * len(names))]]
        if data:
            data[int(where * len(data))] = value
    store = tmp_path_factory.mktemp("zarr") / "x.zarr"
    for name, data in files.items():
        (store / name).parent.mkdir(parents=True, exist_ok=True)
        (store / name).write_bytes(bytes(data))
    ds = _read_or_refuse(
        lambda: load_dataset(store, name="x.zarr", label="cell_type", backed=backed)
    )
    if ds is not None and backed:
        with contextlib.suppress(FSEngineError):  # a block damaged past the header
            run_selection(ds, "a", "welch")
    elif ds is not None:
        assert np.isfinite(ds.X.toarray() if sparse.issparse(ds.X) else ds.X).all()


cell = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True, width=32).map(repr),
    st.integers(-5, 5).map(str),
    st.text(alphabet='ab:"\t !=-1.\\', max_size=6),
    st.just(""),
)


def _series(data, n_samples: int, n_probes: int) -> bytes:
    quoted = lambda cells: "\t".join(f'"{c}"' for c in cells)  # noqa: E731
    lines = ['!Series_title\t"fuzz"', '!Series_geo_accession\t"GSE1"']
    for field in data.draw(
        st.lists(st.sampled_from(["title", "characteristics_ch1", "source_name_ch1"]), max_size=3)
    ):
        lines.append(
            f"!Sample_{field}\t"
            + quoted(data.draw(st.lists(cell, min_size=n_samples, max_size=n_samples)))
        )
    lines.append("!series_matrix_table_begin")
    lines.append(
        quoted(["ID_REF", *data.draw(st.lists(cell, min_size=n_samples, max_size=n_samples))])
    )
    for p in range(n_probes):
        lines.append(
            "\t".join(
                [f'"p{p}"', *data.draw(st.lists(cell, min_size=n_samples, max_size=n_samples))]
            )
        )
    if data.draw(st.booleans()):
        lines.append("!series_matrix_table_end")
    return ("\n".join(lines) + "\n").encode()


@FUZZ
@given(
    data=st.data(), n_samples=st.integers(1, 6), n_probes=st.integers(0, 4), label=st.none() | cell
)
def test_a_geo_series_matrix_of_random_cells_reads_or_is_refused(data, n_samples, n_probes, label):
    text = _series(data, n_samples, n_probes)
    _read_or_refuse(lambda: load_dataset(text, name="GSE1_series_matrix.txt", label=label))


TABLE = (
    pd.DataFrame(
        {"id": [f"s{i}" for i in range(8)], "g1": np.arange(8.0), "g2": np.arange(8.0) % 3}
    )
    .to_csv(index=False)
    .encode()
)


@FUZZ
@given(
    rows=st.lists(st.lists(cell, min_size=2, max_size=3), max_size=10),
    ids=st.booleans(),
    delimiter=st.sampled_from([",", "\t", ";"]),
    label=st.none() | st.sampled_from(["c1", "c2", "id"]),
)
def test_a_sample_sheet_of_random_cells_reads_or_is_refused(rows, ids, delimiter, label):
    lines = [delimiter.join(["id", "c1", "c2"])]
    for k, row in enumerate(rows):
        lines.append(delimiter.join(([f"s{k}"] if ids else []) + row))
    sheet = ("\n".join(lines) + "\n").encode()
    _read_or_refuse(
        lambda: load_dataset(
            TABLE, name="t.csv", samples=sheet, samples_name="sheet.csv", label=label
        )
    )


#: The options of ``fsengine select`` a fuzzed command line draws from (files, workers
#: and schedulers left out: they write, spawn or connect).
OPTIONS = [
    "--label", "--floor", "--ceiling", "--transform", "--offset", "--min-variance",
    "--sample-groups", "--layer", "--gene-names", "--order", "--seed", "--top",
    "--minority", "--method", "--k", "--alpha", "--card", "--variant", "--metric",
    "--gamma", "--ties", "--bins", "--binning", "--significance", "--neighbors",
    "--direction", "--clusters", "--relevance", "--test",
]  # fmt: skip
SWITCHES = ["--transpose", "--drop-constant", "--no-backed", "--standardise", "--tie-noise"]
value = st.one_of(
    st.sampled_from(
        [
            "0",
            "1",
            "-1",
            "2",
            "3",
            "0.5",
            "nan",
            "inf",
            "-inf",
            "1e309",
            "",
            " ",
            "a",
            "b",
            "label",
            "kofsd",
            "ofs-fpd",
            "welch",
            "fisher",
            "random",
            "average",
            "log2",
            "=1+1",
        ]
    ),  # fmt: skip
    st.text(max_size=6),
)


@pytest.fixture(scope="module")
def small_table(tmp_path_factory):
    rng = np.random.default_rng(3)
    frame = pd.DataFrame(rng.normal(size=(14, 6)), columns=[f"g{j}" for j in range(6)])
    frame["label"] = ["a"] * 5 + ["b"] * 9
    path = tmp_path_factory.mktemp("cli") / "t.csv"
    frame.to_csv(path, index=False)
    return path


@settings(FUZZ, max_examples=200)
@given(
    options=st.lists(st.tuples(st.sampled_from(OPTIONS), value), max_size=4),
    switches=st.lists(st.sampled_from(SWITCHES), max_size=2),
)
def test_random_options_give_a_selection_or_one_line_and_exit_2(small_table, options, switches):
    argv = ["select", str(small_table), "--out", "-", *switches]
    for flag, given_value in options:
        argv += [flag, given_value]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exit_:  # argparse's own exit
            code = exit_.code
    assert code in (0, 2), (argv, err.getvalue())
    if code == 2:
        lines = err.getvalue().strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("fsengine: "), (argv, err.getvalue())
    else:
        assert out.getvalue().startswith("rank,feature,column_index,score,method,status\n")
