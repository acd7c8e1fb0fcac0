"""AnnData files (issue 30, point 1): X, the genes, the cells and the class read against the
file's own HDF5 datasets (h5py, not anndata), dense and sparse, the class from a named obs
column, bad files in one message, and the same selection as on a Parquet copy.

tests/data/pbmc68k_reduced.h5ad is scanpy's bundled data set (tests/data/README.md):
700 cells x 765 genes, ``bulk_labels`` with ten cell types, the rarest of 8 cells."""

import anndata
import h5py
import numpy as np
import pandas as pd
import pytest

from conftest import ROOT
from fsengine import FSEngineError, load_dataset, run_selection
from fsengine.cli import main
from fsengine.export.writers import selection_to_csv
from fsengine.io.h5ad import check_size

PBMC = ROOT / "tests" / "data" / "pbmc68k_reduced.h5ad"
RARE = "CD4+/CD45RA+/CD25- Naive T"


@pytest.fixture(scope="module")
def truth():
    """X, the names and the labels straight from the HDF5 datasets (anndata's old layout:
    obs as a table of codes, the categories in uns)."""
    with h5py.File(PBMC, "r") as f:
        obs = f["obs"][:]
        categories = [c.decode() for c in f["uns"]["bulk_labels_categories"][:]]
        return {
            "X": f["X"][:].astype(np.float64),
            "genes": tuple(g.decode() for g in f["var"]["index"]),
            "cells": tuple(c.decode() for c in obs["index"]),
            "labels": [categories[code] for code in obs["bulk_labels"]],
        }


@pytest.fixture(scope="module")
def pbmc():
    return load_dataset(PBMC, label="bulk_labels")


def test_the_file_read_as_its_hdf5_datasets_hold_it(pbmc, truth):
    assert pbmc.X.shape == (700, 765)
    assert np.array_equal(pbmc.X, truth["X"])
    assert pbmc.feature_names == truth["genes"]
    assert pbmc.sample_names == truth["cells"]
    assert [str(v) for v in pbmc.labels] == truth["labels"]
    assert pbmc.class_counts()[RARE] == 8
    assert pbmc.default_minority() == RARE  # the smallest class the protocol can use
    assert pbmc.notes[:2] == ("AnnData (.h5ad)", "matrix: X")


def test_the_obs_columns_are_listed_when_none_is_named():
    with pytest.raises(FSEngineError) as caught:
        load_dataset(PBMC)
    message = caught.value.describe()
    assert message.startswith("pbmc68k_reduced.h5ad keeps the class in one of its obs columns:")
    assert "'bulk_labels' (10 values: Dendritic (240), CD14+ Monocyte (129)" in message
    assert "'phase' (3 values:" in message
    assert caught.value.choices == ("bulk_labels", "n_genes", "phase", "louvain")
    with pytest.raises(FSEngineError, match="has no obs column 'cell_type'; its obs columns"):
        load_dataset(PBMC, label="cell_type")


def test_a_sparse_copy_reads_the_same(tmp_path, pbmc):
    """X stored as CSR and as CSC (anndata's current layout), from the uploaded bytes too."""
    from scipy import sparse

    adata = anndata.read_h5ad(PBMC)
    for kind in (sparse.csr_matrix, sparse.csc_matrix):
        copy = anndata.AnnData(
            X=kind(adata.X), obs=adata.obs[["bulk_labels"]], var=pd.DataFrame(index=adata.var_names)
        )
        path = tmp_path / f"{kind.__name__}.h5ad"
        copy.write_h5ad(path)
        for source in (path, path.read_bytes()):
            ds = load_dataset(source, label="bulk_labels", name=path.name)
            assert np.array_equal(ds.X, pbmc.X) and ds.feature_names == pbmc.feature_names
            assert list(ds.labels) == list(pbmc.labels)
            stored = f"sparse ({kind.__name__}, {np.count_nonzero(pbmc.X):,} stored values)"
            assert stored in ds.notes and ds.notes[-1] == "made dense"
            kept = load_dataset(source, label="bulk_labels", name=path.name, sparse=True)
            assert sparse.issparse(kept.X) and kept.X.format == "csc"
            assert np.array_equal(kept.X.toarray(), pbmc.X) and "made dense" not in kept.notes
            assert list(kept.labels) == list(pbmc.labels)


def test_the_selection_equals_the_parquet_copys(tmp_path, pbmc):
    frame = pd.DataFrame(pbmc.X, columns=list(pbmc.feature_names))
    frame["label"] = [str(v) for v in pbmc.labels]
    frame.to_parquet(tmp_path / "pbmc.parquet")
    parquet = load_dataset(tmp_path / "pbmc.parquet")
    for method, top in (("kofsd", None), ("fisher", 10)):
        on_h5ad = run_selection(pbmc, RARE, method, top=top).selection
        on_parquet = run_selection(parquet, RARE, method, top=top).selection
        assert on_h5ad.features == on_parquet.features and len(on_h5ad.features) > 0


def test_a_matrix_too_large_for_memory_is_refused_from_the_header(tmp_path):
    """A file whose header announces 2,000,000 x 100,000 (1.6 TB as float64): refused
    before anything is read; and the rule on a 2 GB matrix with 3 GB free."""
    path = tmp_path / "atlas.h5ad"
    with h5py.File(path, "w") as f:
        f.create_dataset("X", shape=(2_000_000, 100_000), dtype="f4", chunks=(1000, 1000))
    assert path.stat().st_size < 1_000_000
    with pytest.raises(FSEngineError) as caught:
        load_dataset(path)
    assert caught.value.describe().startswith(
        "atlas.h5ad holds a matrix of 2,000,000 x 100,000: 1490.1 GB as a dense float64"
    )
    with pytest.raises(FSEngineError, match="2.0 GB as a dense float64 matrix"):
        check_size((16_384, 16_384), "two.h5ad", budget=3 * 2**30)
    check_size((16_384, 16_384), "two.h5ad", budget=5 * 2**30)  # fits: no error


def test_an_hdf5_file_that_is_not_anndata_is_named(tmp_path):
    path = tmp_path / "other.h5"
    with h5py.File(path, "w") as f:
        f.create_dataset("counts", data=np.ones((3, 3)))
    with pytest.raises(FSEngineError, match="other.h5 has no matrix X"):
        load_dataset(path)


def test_the_command_line_reads_it_as_the_library_does(tmp_path, capsys, pbmc):
    out = tmp_path / "selected.csv"
    argv = ["select", str(PBMC), "--label", "bulk_labels", "--minority", RARE, "--out", str(out)]
    assert main(argv) == 0
    assert out.read_text() == selection_to_csv(run_selection(pbmc, RARE, "kofsd").selection)
    capsys.readouterr()
    assert main(["select", str(PBMC), "--minority", RARE]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "obs columns" in err and "--label" in err
