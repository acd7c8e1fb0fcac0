"""fsengine.evaluation.statistics against values computed by hand and Demsar's (2006)
worked example."""

import math

import numpy as np
import pytest
from scipy.stats import f as f_dist
from scipy.stats import friedmanchisquare

from fsengine.errors import FSEngineError
from fsengine.evaluation.statistics import (
    average_ranks,
    compare_methods,
    friedman_from_ranks,
    nemenyi_critical_value,
)

#: Demsar (2006), Table 6: AUC of C4.5 variants on 14 UCI data sets.
DEMSAR_METHODS = ["C4.5", "C4.5+m", "C4.5+cf", "C4.5+m+cf"]
DEMSAR_AUC = np.array(
    [
        [0.763, 0.768, 0.771, 0.798],
        [0.599, 0.591, 0.590, 0.569],
        [0.954, 0.971, 0.968, 0.967],
        [0.628, 0.661, 0.654, 0.657],
        [0.882, 0.888, 0.886, 0.898],
        [0.936, 0.931, 0.916, 0.931],
        [0.661, 0.668, 0.609, 0.685],
        [0.583, 0.583, 0.563, 0.625],
        [0.775, 0.838, 0.866, 0.875],
        [1.000, 1.000, 1.000, 1.000],
        [0.940, 0.962, 0.965, 0.962],
        [0.619, 0.666, 0.614, 0.669],
        [0.972, 0.981, 0.975, 0.975],
        [0.957, 0.978, 0.946, 0.970],
    ]
)
DEMSAR_SETS = [f"set{i}" for i in range(14)]

#: A small table worked by hand (higher is better).
SMALL = np.array([[0.9, 0.8, 0.7], [0.8, 0.9, 0.7], [0.9, 0.7, 0.8], [0.6, 0.6, 0.5]])


def test_small_table_by_hand():
    """Ranks (1.375, 1.875, 2.75); chi2 = 4 * (1.375^2 + 1.875^2 + 2.75^2 - 12) = 3.875;
    F = 3 * 3.875 / (8 - 3.875); CD = 2.343 * sqrt(3 * 4 / 24); A vs B: differences 0.1,
    -0.1, 0.2, 0 give R+ = 2.5 + 4 + 0.5 = 7, R- = 2.5 + 0.5 = 3, T = 3."""
    result = compare_methods(SMALL, ["A", "B", "C"], ["d1", "d2", "d3", "d4"], metric="gmean")
    np.testing.assert_array_equal(result.ranks[3], [1.5, 1.5, 3.0])
    np.testing.assert_allclose(result.average_ranks, [1.375, 1.875, 2.75])
    assert result.friedman_chi2 == pytest.approx(3.875)
    assert result.iman_davenport_f == pytest.approx(11.625 / 4.125)
    assert result.critical_difference == pytest.approx(2.343 * math.sqrt(0.5), abs=1e-3)
    ab = result.pairs[0]
    assert (ab.first, ab.second, ab.wilcoxon_statistic) == ("A", "B", 3.0)
    assert ab.rank_difference == pytest.approx(0.5)
    assert [r["method"] for r in result.rank_table()] == ["A", "B", "C"]


def test_lower_is_better_reverses_the_ranks():
    ranks = average_ranks(SMALL, higher_is_better=False)
    np.testing.assert_array_equal(ranks[0], [3.0, 2.0, 1.0])


def test_friedman_equals_scipy_without_ties():
    rng = np.random.default_rng(0)
    table = rng.random((9, 5))
    result = compare_methods(table, list("abcde"), [str(i) for i in range(9)])
    expected = friedmanchisquare(*(-table).T)
    assert result.friedman_chi2 == pytest.approx(expected.statistic)
    assert result.friedman_p == pytest.approx(expected.pvalue)


@pytest.mark.parametrize(
    "k,alpha,q",
    [(2, 0.05, 1.960), (3, 0.05, 2.343), (4, 0.05, 2.569), (10, 0.05, 3.164), (4, 0.10, 2.291)],
)
def test_nemenyi_critical_values_of_demsar_table_5a(k, alpha, q):
    assert nemenyi_critical_value(k, alpha) == pytest.approx(q, abs=1e-3)


def test_demsar_worked_example():
    """Section 3.2.2: CD = 1.25 at 0.05 (no pair differs), 1.12 at 0.10 (C4.5 is worse than
    C4.5+m and C4.5+m+cf). The printed average ranks (3.143, 2.000, 2.893, 1.964) give
    chi2_F = 9.28 and F_F = 3.69 against F(3, 39) = 2.85. Section 3.1.3: C4.5 against
    C4.5+m, T = min(R+, R-) = 12, significant at 0.05 (critical value 21)."""
    assert friedman_from_ranks([3.143, 2.000, 2.893, 1.964], 14) == pytest.approx(
        (9.28, 3.69), abs=5e-3
    )
    assert f_dist.ppf(0.95, 3, 39) == pytest.approx(2.85, abs=5e-3)
    at_05 = compare_methods(DEMSAR_AUC, DEMSAR_METHODS, DEMSAR_SETS, metric="auc")
    # The table as published ranks C4.5 and C4.5+m as printed; C4.5+cf and C4.5+m+cf come
    # out 2.929 and 1.929 (one data set's tie differs from the printed ranks).
    assert at_05.average_ranks[:2] == pytest.approx([3.143, 2.000], abs=1e-3)
    assert at_05.critical_difference == pytest.approx(1.25, abs=5e-3)
    assert all(p.rank_difference < at_05.critical_difference for p in at_05.pairs)
    at_10 = compare_methods(DEMSAR_AUC, DEMSAR_METHODS, DEMSAR_SETS, metric="auc", alpha=0.10)
    assert at_10.critical_difference == pytest.approx(1.12, abs=5e-3)
    differ = {(p.first, p.second) for p in at_10.pairs if p.nemenyi_p < 0.10}
    assert differ == {("C4.5", "C4.5+m"), ("C4.5", "C4.5+m+cf")}
    pair = next(p for p in at_05.pairs if (p.first, p.second) == ("C4.5", "C4.5+m"))
    assert pair.wilcoxon_statistic == 12.0
    assert pair.wilcoxon_p < 0.05
    # Holm: the adjusted p-values are at least the raw ones and keep their order
    raw = np.array([p.wilcoxon_p for p in at_05.pairs])
    holm = np.array([p.wilcoxon_p_holm for p in at_05.pairs])
    assert np.all(holm >= raw - 1e-15)
    smallest = np.argmin(raw)
    assert holm[smallest] == pytest.approx(min(1.0, raw[smallest] * len(raw)))


def test_nemenyi_p_agrees_with_the_critical_difference():
    result = compare_methods(DEMSAR_AUC, DEMSAR_METHODS, DEMSAR_SETS, alpha=0.10)
    for pair in result.pairs:
        assert (pair.nemenyi_p < 0.10) == (pair.rank_difference > result.critical_difference)


@pytest.mark.parametrize(
    "table,methods,sets,match",
    [
        (np.ones((3, 1)), ["a"], ["x", "y", "z"], "at least 2 methods"),
        (np.ones((2, 2)), ["a", "b", "c"], ["x", "y"], "were named"),
        (np.array([[1.0, np.nan], [1.0, 2.0]]), ["a", "b"], ["x", "y"], "missing for b on x"),
    ],
)
def test_bad_tables_name_the_problem(table, methods, sets, match):
    with pytest.raises(FSEngineError, match=match):
        compare_methods(table, methods, sets)


def test_nemenyi_groups_of_demsar_figure_1():
    """At 0.05 no pair differs (one group); at 0.10 C4.5+cf belongs to both groups."""
    at_05 = compare_methods(DEMSAR_AUC, DEMSAR_METHODS, DEMSAR_SETS)
    assert at_05.nemenyi_groups() == [("C4.5+m+cf", "C4.5+m", "C4.5+cf", "C4.5")]
    at_10 = compare_methods(DEMSAR_AUC, DEMSAR_METHODS, DEMSAR_SETS, alpha=0.10)
    assert at_10.nemenyi_groups() == [("C4.5+m+cf", "C4.5+m", "C4.5+cf"), ("C4.5+cf", "C4.5")]
    separated = compare_methods(np.tile([3.0, 2.0, 1.0], (40, 1)), list("abc"), list(range(40)))
    assert separated.nemenyi_groups() == []


def test_critical_difference_figure_draws_the_groups_and_the_cd():
    from fsengine.pl.figures import critical_difference_figure, metric_heatmap_figure

    result = compare_methods(DEMSAR_AUC, DEMSAR_METHODS, DEMSAR_SETS, metric="auc", alpha=0.10)
    fig = critical_difference_figure(result)
    bars = [t for t in fig.data if t.line.width == 5]
    assert [t.name for t in bars] == ["C4.5+m+cf, C4.5+m, C4.5+cf", "C4.5+cf, C4.5"]
    assert bars[0].x[0] == pytest.approx(result.average_ranks[3] - 0.03)
    assert bars[1].x[1] == pytest.approx(result.average_ranks[0] + 0.03)
    cd = next(t for t in fig.data if t.mode == "lines+text")
    assert cd.x[1] - cd.x[0] == pytest.approx(result.critical_difference)
    assert list(fig.layout.xaxis.tickvals) == [1, 2, 3, 4]  # the possible ranks only
    labels = {a.text for a in fig.layout.annotations}
    assert "C4.5 (3.14)" in labels and "C4.5+m+cf (1.93)" in labels
    # margins wide enough for the longest label on either side, at any width
    assert fig.layout.margin.l == fig.layout.margin.r >= 7 * len("C4.5+m+cf (1.93)")
    heatmap = metric_heatmap_figure(result)
    heat = heatmap.data[0]
    np.testing.assert_array_equal(np.array(heat.z), DEMSAR_AUC)
    assert list(heat.y) == list(DEMSAR_SETS) and heatmap.layout.yaxis.autorange == "reversed"
    assert heat.text[9][0] == "1.000 (#2.5)"  # four-way tie: rank 2.5
