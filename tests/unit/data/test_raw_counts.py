"""Raw counts get the unlogged check's counterpart (issue 40, point 2): non-negative
integers, mostly zeros, are said to look like raw counts with their share of zeros; the
suggested step is log1p of counts per million (scanpy's normalize_total then log1p), kept
sparse for sparse input; the rankers that assume normalised values (the parametric ones)
are named, and a run of one on raw counts warns (the command line: one line on stderr).

Before, a 92 %-zero integer matrix of single-cell counts passed without a word (its
largest value is below 1,000, so it did not look unlogged)."""

import numpy as np
import pytest
from scipy import sparse

from conftest import ROOT
from fsengine import FSEngineError, load_dataset
from fsengine.adata import select
from fsengine.cli import main
from fsengine.data.dataset import Dataset
from fsengine.data.preprocess import (
    PREPROCESSING,
    counts_warning,
    looks_like_counts,
    looks_unlogged,
    parametric_rankers,
    preprocess,
    suggested_preprocessing,
)
from synthetic import RARE_TYPE, single_cell_anndata, single_cell_counts

COUNTS = [[0, 10, 90], [5, 5, 0], [100, 300, 600], [1, 1, 2]]


def _dataset(X) -> Dataset:
    return Dataset(
        X=X if sparse.issparse(X) else np.asfortranarray(np.asarray(X, dtype=float)),
        labels=np.array([1, 1, 0, 0]),
        feature_names=tuple(f"g{j}" for j in range(np.shape(X)[1])),
        label_column="label",
        sample_names=("a", "b", "c", "d"),
    )


def test_log1p_cpm_by_hand_dense_and_sparse():
    by_hand = np.log(
        1
        + np.array(
            [
                [0, 10 / 100, 90 / 100],
                [5 / 10, 5 / 10, 0],
                [100 / 1000, 300 / 1000, 600 / 1000],
                [1 / 4, 1 / 4, 2 / 4],
            ]
        )
        * 1e6
    )
    dense = preprocess(_dataset(COUNTS), {"transform": "log1p-cpm"})
    assert np.allclose(dense.X, by_hand, rtol=1e-12)
    assert dense.preprocessing == "transform=log1p-cpm"
    assert "ln(counts per million + 1)" in dense.notes
    csr = sparse.csr_array(np.array(COUNTS, dtype=float))
    kept = preprocess(_dataset(csr), {"transform": "log1p-cpm"})
    assert sparse.issparse(kept.X) and kept.X.format == "csc"  # never made dense
    assert kept.X.nnz == np.count_nonzero(COUNTS)
    assert np.allclose(kept.X.toarray(), by_hand, rtol=1e-12)
    # log2 of counts per million + 1 keeps it sparse too, and the variance filter works on it
    log2 = preprocess(_dataset(csr), {"transform": "log-cpm", "min_variance": 10.0})
    expected = np.log2(np.array(COUNTS) / np.array([100, 10, 1000, 4])[:, None] * 1e6 + 1)
    keep = expected.var(axis=0) >= 10.0
    assert sparse.issparse(log2.X)
    assert np.allclose(log2.X.toarray(), expected[:, keep])
    assert log2.feature_names == tuple(f"g{j}" for j in np.flatnonzero(keep))
    # a sample without counts: log-CPM refuses it; log1p-CPM keeps it at 0, as scanpy does
    empty = sparse.csr_array(np.array([[0.0, 0], [1, 3], [3, 1], [1, 1]]))
    with pytest.raises(FSEngineError, match="sample 'a' has no counts"):
        preprocess(_dataset(empty), {"transform": "log-cpm"})
    for X in (empty, empty.toarray()):
        done = preprocess(_dataset(X), {"transform": "log1p-cpm"})
        assert np.allclose(_dense(done.X)[0], 0) and _dense(done.X)[1, 1] == np.log(1 + 0.75e6)
        assert "1 samples without counts (the first: 'a') stay 0" in done.notes[-3]


def _dense(X):
    return X.toarray() if sparse.issparse(X) else X


def test_the_synthetic_counts_look_like_raw_counts_and_real_sets_do_not(srbct):
    X, _, _ = single_cell_counts(n_cells=3000, n_genes=300)
    zeros = 1 - X.count_nonzero() / (X.shape[0] * X.shape[1])
    assert zeros > 0.85
    assert looks_unlogged(X) is None  # its largest count is below 1,000
    said = looks_like_counts(X)
    assert said.startswith(
        f"the values are non-negative integers, {zeros:.0%} of them zeros: they look like "
        "raw counts"
    )
    assert "fisher, s2n, pcc, welch" in said and "wilcoxon" not in said.split("assume")[0]
    assert looks_like_counts(X.toarray()) == said  # dense: the same words
    assert suggested_preprocessing(X) == {"transform": "log1p-cpm"}
    assert suggested_preprocessing(X.toarray()) == {"transform": "log1p-cpm"}
    logged = preprocess(_dataset(X[:4]), {"transform": "log1p-cpm"}).X
    assert looks_like_counts(logged) is None
    assert looks_like_counts(srbct.X) is None  # microarray values
    glioma = load_dataset(ROOT / "tests" / "data" / "glioma_series_matrix.txt.gz")
    assert looks_like_counts(glioma.X) is None
    assert looks_like_counts(np.array([[0, 1], [2, 0], [0, 0]])) is None  # 0..2: levels
    assert looks_like_counts(np.array([[0, 1.5], [7, 0], [0, 0]])) is None  # not integers
    assert looks_like_counts(np.array([[0, -1], [7, 0], [0, 0]])) is None


def test_the_parametric_rankers_are_declared_in_their_specs():
    assert parametric_rankers() == ["fisher", "s2n", "pcc", "welch", "d-fisher", "d-pcc", "d-s2n"]
    X, _, _ = single_cell_counts(n_cells=2000, n_genes=100)
    warned = counts_warning(X, ["kofsd", "welch", "wilcoxon", "fisher"])
    assert warned.startswith(
        "welch and fisher assume normalised values, and the values look like raw counts ("
    )
    assert "transform log1p-cpm" in warned
    assert counts_warning(X, ["kofsd", "wilcoxon", "mi"]) is None
    assert counts_warning(np.log1p(X.toarray()), ["welch"]) is None


@pytest.fixture(scope="module")
def counts_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("counts") / "sc.h5ad"
    single_cell_anndata(n_cells=2000, n_genes=100).write_h5ad(path)
    return path


def test_the_command_line_notes_raw_counts_and_warns_for_parametric_rankers(counts_file, capsys):
    argv = ["select", str(counts_file), "--label", "cell_type", "--minority", RARE_TYPE]
    out = ["--out", "-"]

    def checks(err):  # the lines of the data checks (the command's own summary aside)
        return [line for line in err.splitlines() if "raw counts" in line]

    assert main([*argv, "--method", "wilcoxon", "--top", "3", *out]) == 0
    [line] = checks(capsys.readouterr().err)
    assert line.startswith("fsengine: note: the values are non-negative integers")
    assert main([*argv, "--method", "welch", "--top", "3", *out]) == 0
    [line] = checks(capsys.readouterr().err)
    assert line.startswith(
        "fsengine: warning: welch assumes normalised values, and the values look like raw counts"
    )
    assert main([*argv, "--method", "welch", "--top", "3", "--transform", "log1p-cpm", *out]) == 0
    assert checks(capsys.readouterr().err) == []
    argv = ["evaluate", str(counts_file), "--label", "cell_type", "--minority", RARE_TYPE]
    argv += ["--methods", "fisher,wilcoxon", "--top", "3", "--splits", "2", "--jobs", "1"]
    assert main(argv) == 0
    [line] = checks(capsys.readouterr().err)
    assert line.startswith("fsengine: warning: fisher assumes normalised values")


def test_the_anndata_face_warns_too():
    adata = single_cell_anndata(n_cells=2000, n_genes=100)
    result = select(adata, "cell_type", RARE_TYPE, "welch", top=5)
    assert any("welch assumes normalised values" in w for w in result.warnings)
    result = select(adata, "cell_type", RARE_TYPE, "wilcoxon", top=5)
    assert not any("raw counts" in w for w in result.warnings)


def test_the_transform_is_in_the_specification():
    assert "log1p-cpm" in PREPROCESSING.parameters["transform"].choices
