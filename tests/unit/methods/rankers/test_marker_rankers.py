"""Welch's t-test and the Wilcoxon rank-sum test as rankers (issue 30, point 6): checked
against scipy's tests, a definition written here, and scanpy's ``rank_genes_groups`` on
the same data (scanpy's bundled PBMC file, the rarest cell type against the rest)."""

import numpy as np
import pytest
import scanpy as sc
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import sparse, stats

from conftest import ROOT
from fsengine import load_dataset, run_selection
from fsengine._compute import kernels
from fsengine.data.task import Task
from fsengine.methods.rankers import marker_table, welch_score, wilcoxon_score
from fsengine.methods.rankers._markers import group_moments, welch_statistic, wilcoxon_statistic
from fsengine.methods.rankers._sums import mean_and_scatter

PBMC = ROOT / "tests" / "data" / "pbmc68k_reduced.h5ad"
RARE = "CD4+/CD45RA+/CD25- Naive T"


@pytest.fixture(scope="module")
def task():
    return Task.from_dataset(load_dataset(PBMC, label="bulk_labels"), RARE)


def _groups(X, y):
    return X[y == 1], X[y == 0]


def test_welch_equals_scipys_test(task):
    a, b = _groups(task.X, task.y)
    expected = stats.ttest_ind(a, b, equal_var=False, axis=0)
    table = marker_table(task.X, task.y, "welch")
    assert np.allclose(table["scores"], expected.statistic, rtol=1e-10, equal_nan=True)
    assert np.allclose(table["pvals"], expected.pvalue, rtol=1e-8, equal_nan=True)
    assert np.array_equal(welch_score(task.X, task.y, "both"), np.abs(table["scores"]))
    assert np.array_equal(welch_score(task.X, task.y), np.nan_to_num(table["scores"]))  # up


def test_the_rank_sum_z_by_its_definition_and_scipys_p_without_ties():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(30, 6))
    X[:8] += np.array([0, 0.5, 1, 2, -1, 0])
    y = np.r_[np.ones(8, int), np.zeros(22, int)]
    z = wilcoxon_statistic(X, y)
    for j in range(X.shape[1]):  # R1: the minority's ranks among all 30 values
        ranks = np.argsort(np.argsort(X[:, j])) + 1
        r1 = ranks[:8].sum()
        assert z[j] == pytest.approx((r1 - 8 * 31 / 2) / np.sqrt(8 * 22 * 31 / 12))
        mw = stats.mannwhitneyu(X[:8, j], X[8:, j], method="asymptotic", use_continuity=False)
        assert 2 * stats.norm.sf(abs(z[j])) == pytest.approx(mw.pvalue, rel=1e-10)
    assert np.array_equal(wilcoxon_score(X, y, "both"), np.abs(z))
    assert np.array_equal(wilcoxon_score(X, y), z) and np.array_equal(
        wilcoxon_score(X, y, "down"), -z
    )


def test_ties_take_average_ranks_and_a_constant_feature_scores_zero():
    X = np.array([[1.0, 5.0], [1.0, 5.0], [2.0, 5.0], [3.0, 5.0], [3.0, 5.0], [4.0, 5.0]])
    y = np.array([1, 1, 0, 0, 0, 0])
    # feature 0: ranks 1.5, 1.5 | 3, 4.5, 4.5, 6 -> R1 = 3; n1 = 2, n = 6
    z = wilcoxon_statistic(X, y)
    assert z[0] == pytest.approx((3 - 2 * 7 / 2) / np.sqrt(2 * 4 * 7 / 12))
    assert z[1] == 0.0 and wilcoxon_score(X, y)[1] == 0.0
    assert welch_score(X, y)[1] == 0.0  # t undefined (0 / 0): scored 0
    assert np.isnan(welch_statistic(X, y)[1])


@pytest.mark.parametrize(
    ("method", "scanpy_method"), [("welch", "t-test"), ("wilcoxon", "wilcoxon")]
)
def test_the_same_as_scanpys_rank_genes_groups(task, method, scanpy_method):
    import anndata

    adata = anndata.AnnData(task.X.astype(np.float64))
    adata.var_names = list(task.names)
    adata.obs["group"] = np.where(task.y == 1, "minority", "rest")
    adata.obs["group"] = adata.obs["group"].astype("category")
    sc.tl.rank_genes_groups(
        adata,
        "group",
        groups=["minority"],
        reference="rest",
        method=scanpy_method,
        corr_method="benjamini-hochberg",
    )
    theirs = sc.get.rank_genes_groups_df(adata, group="minority").set_index("names")
    ours = marker_table(task.X, task.y, method)
    order = [task.names.index(g) for g in theirs.index]
    for column in ("scores", "pvals", "pvals_adj", "logfoldchanges"):
        # scaled data: a negative mean has no fold change on the log1p scale (NaN in both)
        assert np.allclose(
            ours[column][order], theirs[column].to_numpy(), rtol=1e-5, atol=1e-8, equal_nan=True
        ), column
    assert np.isfinite(ours["logfoldchanges"]).sum() > 100
    # scanpy's order of the group's genes is the "up" ranking (issue 40): down our signed
    # score, up to scanpy's float32 scores (near-equal ones may swap)
    along = ours["rank_scores"][order]
    assert np.all(np.diff(along) <= 1e-5 * np.abs(along).max())


def test_the_rankers_select_through_the_registry(task):
    """Both are methods like any ranker: the CLI's names, scores from the spec, the top
    genes by the statistic in the direction asked (up by default: scanpy's order; both:
    |statistic|, the ranking before issue 40), ties to the lower column."""
    for method, statistic in (("welch", welch_statistic), ("wilcoxon", wilcoxon_statistic)):
        signed = np.nan_to_num(statistic(task.X, task.y))
        for direction, score in (("up", signed), ("down", -signed), ("both", np.abs(signed))):
            result = run_selection(task, None, method, top=5, direction=direction)
            expected = np.argsort(-score, kind="stable")
            assert list(result.selection.columns) == expected[:5].tolist()
        assert run_selection(task, None, method, top=5).params["direction"] == "up"


@settings(max_examples=300, deadline=None)
@given(
    n=st.integers(1, 80),
    b=st.integers(1, 4),
    zeros=st.floats(0.0, 1.0),
    scale=st.sampled_from([1.0, 0.37, 1e6]),
    seed=st.integers(0, 10**6),
)
def test_the_group_rank_sums_are_scipy_s_average_ranks_summed(n, b, zeros, scale, seed):
    """Negative, repeated and zero values (-0.0 among them), any share of zeros: the
    kernel's rank sums (a gene's zeros one run of tied ranks, only its other values sorted)
    are scipy's rankdata summed over the group, exactly."""
    rng = np.random.default_rng(seed)
    X = rng.integers(-3, 4, size=(n, b)).astype(float) * scale
    X[rng.random((n, b)) < zeros] = 0.0
    X[rng.random((n, b)) < 0.1] = -0.0
    group = rng.random(n) < 0.3
    got = kernels.load("methods.rankers._sums_kernels").group_rank_sums(np.asfortranarray(X), group)
    assert np.array_equal(got, stats.rankdata(X, axis=0)[group].sum(axis=0))


def _sparse_with_stored_zeros(X: np.ndarray, rng) -> sparse.csc_array:
    """X as CSC with some of its zeros stored explicitly (0.0 and -0.0), as files hold them."""
    rows, cols = np.nonzero((X != 0) | (rng.random(X.shape) < 0.2))
    return sparse.csc_array((X[rows, cols], (rows, cols)), shape=X.shape)


def _welch_by_definition(X: np.ndarray, group: np.ndarray) -> np.ndarray:
    """Welch's t written out: the order-free sums' means and ddof = 1 variances of each
    group, NaN for a feature with one value, +-inf for one value in each group."""
    extremes = X.min(axis=0), X.max(axis=0)
    (m1, s1), (m0, s0) = (mean_and_scatter(X, np.flatnonzero(g), extremes) for g in (group, ~group))
    n1, n0 = group.sum(), (~group).sum()
    v1 = s1 / (n1 - 1) if n1 > 1 else np.zeros(X.shape[1])
    v0 = s0 / (n0 - 1) if n0 > 1 else np.zeros(X.shape[1])
    with np.errstate(divide="ignore", invalid="ignore"):
        t = (m1 - m0) / np.sqrt(v1 / n1 + v0 / n0)
    a, b = X[group], X[~group]
    constant = extremes[1] == extremes[0]
    flat = (a.max(axis=0) == a.min(axis=0)) & (b.max(axis=0) == b.min(axis=0)) & ~constant
    t[flat] = np.copysign(np.inf, a[0] - b[0])[flat]
    t[constant] = np.nan
    return t


@settings(max_examples=300, deadline=None)
@given(
    n=st.integers(2, 80),
    b=st.integers(1, 5),
    zeros=st.floats(0.0, 1.0),
    scale=st.sampled_from([1.0, 0.37, 1e6, 1e150]),
    seed=st.integers(0, 10**6),
)
def test_the_one_pass_moments_are_the_order_free_sums_bit_for_bit(n, b, zeros, scale, seed):
    """The kernel's means and variances from a gene's non-zeros (its zeros added as one
    folded value times their count) are those of the order-free sums over every sample,
    bit for bit: dense or CSC with stored zeros, in any order of the rows, and near the
    top of the double range (the sums' sorted fallback)."""
    rng = np.random.default_rng(seed)
    X = rng.integers(-3, 4, size=(n, b)).astype(float) * scale * rng.random((n, b)).round(2)
    X[rng.random((n, b)) < zeros] = 0.0
    X[rng.random((n, b)) < 0.1] = -0.0
    y = np.zeros(n, dtype=int)
    y[rng.choice(n, int(rng.integers(1, n)), replace=False)] = 1
    expected = _welch_by_definition(X, y == 1)
    permutation = rng.permutation(n)
    for matrix, labels in (
        (X, y),
        (_sparse_with_stored_zeros(X, rng), y),
        (_sparse_with_stored_zeros(X[permutation], rng), y[permutation]),
    ):
        assert np.array_equal(welch_statistic(matrix, labels), expected, equal_nan=True)
    moments = group_moments(X, y == 1)
    extremes = X.min(axis=0), X.max(axis=0)
    mean, scatter = mean_and_scatter(X, np.flatnonzero(y == 1), extremes)
    assert np.array_equal(moments["mean1"], mean)
    if (y == 1).sum() > 1:
        assert np.array_equal(moments["var1"], scatter / ((y == 1).sum() - 1))


@settings(max_examples=200, deadline=None)
@given(n=st.integers(2, 60), b=st.integers(1, 4), seed=st.integers(0, 10**6))
def test_the_rank_sums_of_a_csc_matrix_with_stored_zeros_are_scipy_s(n, b, seed):
    """Stored zeros (0.0 and -0.0) rank with the other zeros: the z of a CSC matrix is the
    dense matrix's, which is scipy's average ranks summed."""
    rng = np.random.default_rng(seed)
    X = rng.integers(-2, 3, size=(n, b)).astype(float)
    X[rng.random((n, b)) < 0.1] = -0.0
    y = (rng.random(n) < 0.3).astype(int)
    y[0], y[-1] = 1, 0
    assert np.array_equal(
        wilcoxon_statistic(_sparse_with_stored_zeros(X, rng), y), wilcoxon_statistic(X, y)
    )
    n1 = y.sum()
    rank_sum = stats.rankdata(X, axis=0)[y == 1].sum(axis=0)
    z = (rank_sum - n1 * (n + 1) / 2) / np.sqrt(n1 * (n - n1) * (n + 1) / 12)
    assert np.array_equal(wilcoxon_statistic(X, y), z)


def test_the_marker_table_of_a_sparse_matrix_is_the_dense_one(task):
    """marker_table scores a CSC matrix as stored, with the dense matrix's values."""
    counts = np.where(task.X > 0.5, task.X, 0.0)
    for method in ("welch", "wilcoxon"):
        dense = marker_table(counts, task.y, method)
        stored = marker_table(sparse.csr_matrix(counts), task.y, method)
        for key, values in dense.items():
            assert np.array_equal(stored[key], values, equal_nan=True), (method, key)
