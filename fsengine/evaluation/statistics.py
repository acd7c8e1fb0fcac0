"""Comparing methods over several data sets: average ranks, the Friedman test with the
Iman-Davenport correction, the Nemenyi post-hoc test and its critical difference, and
pairwise Wilcoxon signed-rank tests with Holm's correction.

Demsar, "Statistical comparisons of classifiers over multiple data sets", JMLR 7 (2006),
Sections 3.1.3 (Wilcoxon) and 3.2.2 (Friedman, Iman-Davenport, Nemenyi); Benavoli, Corani,
Mangili, "Should we really use post-hoc tests based on mean-ranks?", JMLR 17 (2016), on why
the pairwise Wilcoxon tests (which do not depend on the other methods compared) are given
beside the Nemenyi test.

The distributions and tests come from scipy (``rankdata``, ``chi2``, ``f``,
``studentized_range``, ``wilcoxon``) and the Holm correction from statsmodels
(``multipletests``); this module arranges them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np

from fsengine.errors import FSEngineError

__all__ = [
    "PairTest",
    "RankComparison",
    "average_ranks",
    "compare_methods",
    "friedman_from_ranks",
    "nemenyi_critical_value",
]


@dataclass(frozen=True)
class PairTest:
    """One pair of methods: the Nemenyi p-value and the Wilcoxon signed-rank test.

    ``wilcoxon_statistic`` is T = min(R+, R-) (zero differences split between the two,
    Demsar's convention); ``wilcoxon_p_holm`` is Holm's adjusted p-value over all pairs.
    """

    first: str
    second: str
    rank_difference: float
    nemenyi_p: float
    wilcoxon_statistic: float
    wilcoxon_p: float
    wilcoxon_p_holm: float


@dataclass(frozen=True)
class RankComparison:
    """The comparison of k methods over N data sets on one metric.

    Attributes
    ----------
    methods, datasets : tuple of str
    values : ndarray, shape (N, k)
        The metric per data set and method (e.g. the mean over splits).
    ranks : ndarray, shape (N, k)
        Rank of each method on each data set, 1 = best, ties averaged.
    average_ranks : ndarray, shape (k,)
    friedman_chi2, friedman_p : float
        Friedman's statistic (Demsar's eq.: from the average ranks) and its chi-square
        p-value with k - 1 degrees of freedom.
    iman_davenport_f, iman_davenport_p : float
        ``(N - 1) chi2 / (N (k - 1) - chi2)`` and its F(k - 1, (k - 1)(N - 1)) p-value.
    alpha, q_alpha, critical_difference : float
        Nemenyi's critical value (studentized range / sqrt 2) and
        ``CD = q_alpha sqrt(k (k + 1) / (6 N))``.
    pairs : tuple of PairTest
    """

    metric: str
    methods: tuple[str, ...]
    datasets: tuple[str, ...]
    values: np.ndarray
    ranks: np.ndarray
    average_ranks: np.ndarray
    friedman_chi2: float
    friedman_p: float
    iman_davenport_f: float
    iman_davenport_p: float
    alpha: float
    q_alpha: float
    critical_difference: float
    pairs: tuple[PairTest, ...]

    def nemenyi_groups(self) -> list[tuple[str, ...]]:
        """The maximal groups of methods, in average-rank order, whose ranks all lie within
        less than the critical difference of each other: the bars of the CD diagram
        (Demsar 2006, Fig. 1). A method in no group differs from every other."""
        order = np.argsort(self.average_ranks, kind="stable")
        ranks = self.average_ranks[order]
        groups, furthest = [], -1
        for i in range(len(order)):
            j = i
            while j + 1 < len(order) and ranks[j + 1] - ranks[i] < self.critical_difference:
                j += 1
            if j > i and j > furthest:
                groups.append(tuple(self.methods[q] for q in order[i : j + 1]))
            furthest = max(furthest, j)
        return groups

    def rank_table(self) -> list[dict]:
        """One row per method, best average rank first: method, average rank, mean value."""
        order = np.argsort(self.average_ranks, kind="stable")
        return [
            {
                "method": self.methods[j],
                "average_rank": float(self.average_ranks[j]),
                f"mean_{self.metric}": float(np.mean(self.values[:, j])),
            }
            for j in order
        ]


def average_ranks(values: np.ndarray, higher_is_better: bool = True) -> np.ndarray:
    """Ranks of the methods (columns) on each data set (row), 1 = best, ties averaged
    (Demsar 2006, Section 3.2.2).

    Parameters
    ----------
    values : array, shape (N, k)
    higher_is_better : bool
        True for G-mean or accuracy; False for time or number of features.

    Returns
    -------
    ndarray, shape (N, k)
    """
    from scipy.stats import rankdata

    values = np.asarray(values, dtype=float)
    return rankdata(-values if higher_is_better else values, axis=1)


def friedman_from_ranks(mean_ranks: Sequence[float], n_datasets: int) -> tuple[float, float]:
    """Friedman's chi-square and the Iman-Davenport F from the average ranks of k methods
    over N data sets (Demsar 2006, the two equations of Section 3.2.2).

    Returns
    -------
    (chi2, F) : tuple of float
        F is inf when chi2 reaches N (k - 1) (every data set ranks the methods alike).
    """
    r = np.asarray(mean_ranks, dtype=float)
    k, n = len(r), n_datasets
    chi2 = 12.0 * n / (k * (k + 1)) * (float(np.sum(r**2)) - k * (k + 1) ** 2 / 4.0)
    denominator = n * (k - 1) - chi2
    f = (n - 1) * chi2 / denominator if denominator > 0 else math.inf
    return chi2, f


def nemenyi_critical_value(k: int, alpha: float = 0.05) -> float:
    """q_alpha of the Nemenyi test for k methods: the studentized range quantile over
    sqrt(2) (Demsar 2006, Table 5a: 2.569 for k = 4 at alpha 0.05)."""
    from scipy.stats import studentized_range

    return float(studentized_range.ppf(1.0 - alpha, k, np.inf) / math.sqrt(2.0))


def compare_methods(
    values,
    methods: Sequence[str],
    datasets: Sequence[str],
    *,
    metric: str = "value",
    higher_is_better: bool = True,
    alpha: float = 0.05,
) -> RankComparison:
    """Average ranks, Friedman / Iman-Davenport, Nemenyi and Wilcoxon-Holm for one metric.

    Parameters
    ----------
    values : array, shape (N data sets, k methods)
        The metric of each method on each data set (no NaN).
    methods, datasets : sequence of str
        Column and row names.
    metric : str
        Its name, for the tables.
    higher_is_better : bool
        Whether a larger value ranks first.
    alpha : float
        Significance level of the critical difference.

    Returns
    -------
    RankComparison

    Raises
    ------
    FSEngineError
        Fewer than 2 methods or 2 data sets, names that do not match the table, NaN.
    """
    from scipy.stats import chi2 as chi2_dist
    from scipy.stats import f as f_dist
    from scipy.stats import studentized_range, wilcoxon
    from statsmodels.stats.multitest import multipletests

    table = np.asarray(values, dtype=float)
    if table.ndim != 2 or table.shape != (len(datasets), len(methods)):
        raise FSEngineError(
            f"the table is {table.shape}, but {len(datasets)} data sets x {len(methods)} "
            "methods were named"
        )
    n, k = table.shape
    if k < 2 or n < 2:
        raise FSEngineError(
            f"a comparison needs at least 2 methods and 2 data sets; got {k} and {n}"
        )
    if np.isnan(table).any():
        row, col = np.argwhere(np.isnan(table))[0]
        raise FSEngineError(
            f"{metric} is missing for {methods[col]} on {datasets[row]}",
            remedy="run every method on every data set before comparing them",
        )
    if not 0 < alpha < 1:
        raise FSEngineError(f"alpha must lie between 0 and 1, got {alpha}")
    ranks = average_ranks(table, higher_is_better)
    mean_ranks = ranks.mean(axis=0)
    chi2, f = friedman_from_ranks(mean_ranks, n)
    friedman_p = float(chi2_dist.sf(chi2, k - 1))
    iman_p = 0.0 if math.isinf(f) else float(f_dist.sf(f, k - 1, (k - 1) * (n - 1)))
    q_alpha = nemenyi_critical_value(k, alpha)
    scale = math.sqrt(k * (k + 1) / (6.0 * n))
    raw = []
    for a, b in combinations(range(k), 2):
        diff = float(abs(mean_ranks[a] - mean_ranks[b]))
        nemenyi_p = float(studentized_range.sf(diff / scale * math.sqrt(2.0), k, np.inf))
        if np.all(table[:, a] == table[:, b]):
            stat, p = 0.0, 1.0  # no difference at all: nothing to test
        else:
            result = wilcoxon(table[:, a], table[:, b], zero_method="zsplit")
            stat, p = float(result.statistic), float(result.pvalue)
        raw.append((a, b, diff, nemenyi_p, stat, p))
    holm = multipletests([r[5] for r in raw], method="holm")[1] if raw else []
    pairs = tuple(
        PairTest(methods[a], methods[b], diff, nemenyi_p, stat, p, float(p_holm))
        for (a, b, diff, nemenyi_p, stat, p), p_holm in zip(raw, holm)
    )
    return RankComparison(
        metric=metric,
        methods=tuple(methods),
        datasets=tuple(datasets),
        values=table,
        ranks=ranks,
        average_ranks=mean_ranks,
        friedman_chi2=chi2,
        friedman_p=friedman_p,
        iman_davenport_f=f,
        iman_davenport_p=iman_p,
        alpha=alpha,
        q_alpha=q_alpha,
        critical_difference=q_alpha * scale,
        pairs=pairs,
    )
