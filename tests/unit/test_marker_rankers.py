"""Welch's t-test and the Wilcoxon rank-sum test as rankers (issue 30, point 6): checked
against scipy's tests, a definition written here, and scanpy's ``rank_genes_groups`` on
the same data (scanpy's bundled PBMC file, the rarest cell type against the rest)."""

import numpy as np
import pytest
import scanpy as sc
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from conftest import ROOT
from fsengine import load_dataset, run_selection
from fsengine._compute import kernels
from fsengine.rankers import marker_table, welch_score, wilcoxon_score
from fsengine.rankers._markers import welch_statistic, wilcoxon_statistic
from fsengine.task import Task

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
    got = kernels.load("rankers._sums_kernels").group_rank_sums(np.asfortranarray(X), group)
    assert np.array_equal(got, stats.rankdata(X, axis=0)[group].sum(axis=0))
