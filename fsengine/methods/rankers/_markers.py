"""The marker tests of single-cell and microarray tools, as rankers: Welch's t-test and the
Wilcoxon rank-sum (Mann-Whitney U) test, one class against the rest.

Both follow scanpy's ``rank_genes_groups`` (methods ``t-test`` and ``wilcoxon``): Welch's
t with ddof = 1 variances; the rank-sum test's z-score from the minority's rank sum with
average ranks for ties and no tie correction of the variance (scanpy's default
``tie_correct=False``). A ranker's score follows its ``direction`` (:data:`DIRECTIONS`):
``"up"`` (the default) is the signed statistic, so genes higher in the minority come
first, as ``rank_genes_groups`` orders a group's genes and as someone looking for a rare
type's markers wants; ``"down"`` its negative; ``"both"`` its absolute value (a gene lower
in the minority separates the classes as well as a higher one). On raw counts ``"both"``
puts first the genes the minority does not express: their variance in it is 0, so
``|t|`` is large for a tiny mean elsewhere. :func:`marker_table` gives the signed statistics,
two-sided p-values, Benjamini-Hochberg adjusted p-values and log2 fold changes, as scanpy
reports them. Welch's t is parametric (it compares means over standard errors) and
assumes normalised, log-scale values (scanpy: ``normalize_total`` then ``log1p``); the
rank-sum test only the ranks of a gene's values across the cells.

Welch's means and variances are sums over samples that do not depend on their order
(:func:`fsengine.methods.rankers._sums.column_sums`), so they are equal bit for bit under any
permutation of the samples; the rank sums are exact (sums of halves) in any order.
"""

from __future__ import annotations

import numpy as np

from fsengine._compute import kernels
from fsengine._compute.sparse import (
    by_columns,
    by_stored_blocks,
    is_backed,
    is_sparse,
)
from fsengine.errors import FSEngineError
from fsengine.methods.rankers._basic import (
    check_scoring_input,
    check_stored_input,
    checked_classes,
    checked_labels,
)
from fsengine.methods.rankers._sums import (
    LARGEST_BOUND,
    SUMS_KERNELS,
    flat_and_constant,
    group_sums,
    splits,
)
from fsengine.spec import RANKER, Choice, MethodSpec

SCANPY = (
    "as scanpy's rank_genes_groups computes it (Wolf, Angerer, Theis. SCANPY: large-scale "
    "single-cell gene expression data analysis. Genome Biology 19, 15 (2018))"
)
#: The directions a marker test ranks by, and what each puts first.
DIRECTIONS = {
    "up": "higher in the minority first (the signed statistic, as scanpy ranks a group's genes)",
    "down": "lower in the minority first (the statistic's negative)",
    "both": "either way (the statistic's absolute value)",
}
DIRECTION = Choice(
    "up",
    "which genes rank first: up in the minority, down, or both ways",
    source="scanpy's rank_genes_groups (up); both: |statistic|, fsengine 0.1",
    label="Direction",
    choices=DIRECTIONS,
)
WELCH = MethodSpec(
    "welch",
    "Welch t",
    "Welch. The generalization of Student's problem when several different population "
    "variances are involved. Biometrika 34 (1947); " + SCANPY,
    RANKER,
    "Welch's t of the minority against the rest, by direction: t (up), -t (down), |t| (both)",
    parameters={"direction": DIRECTION},
    columnwise=True,
    parametric=True,
)
WILCOXON = MethodSpec(
    "wilcoxon",
    "Wilcoxon",
    "Mann, Whitney. On a test of whether one of two random variables is stochastically "
    "larger than the other. Annals of Mathematical Statistics 18 (1947); " + SCANPY,
    RANKER,
    "z of the Wilcoxon rank-sum (Mann-Whitney) test of the minority against the rest, by "
    "direction: z (up), -z (down), |z| (both)",
    parameters={"direction": DIRECTION},
    columnwise=True,
)


def _minority(y, classes) -> np.ndarray:
    """The minority's mask: label 1 of 0/1 labels, else the first class of two."""
    if len(classes) != 2:
        raise FSEngineError(
            f"a marker test compares two groups; y has {len(classes)} classes (give the "
            "one-versus-rest labels)"
        )
    return y == (1 if 1 in classes.tolist() else classes[0])


def _marker_input(X, y) -> tuple:
    """X checked (dense float64, or a canonical CSC array without stored zeros) and the
    minority's mask."""
    X, y, classes = (check_stored_input if is_sparse(X) else check_scoring_input)(X, y)
    return X, _minority(y, classes)


def group_moments(X, group: np.ndarray) -> dict[str, np.ndarray]:
    """Every column's mean, variance (ddof = 1; 0 for a single sample) and extremes in the
    group and in the rest (:func:`fsengine.methods.rankers._sums.group_sums`, each scatter
    over its count less one).

    Parameters
    ----------
    X : float64 array (n, p), or a canonical CSC array storing no zero
    group : bool array (n,)
        The group; it and the rest are non-empty.

    Returns
    -------
    dict of float arrays (p,)
        ``mean1``, ``var1``, ``low1``, ``high1`` of the group; ``mean0``, ``var0``,
        ``low0``, ``high0`` of the rest.
    """
    group = np.asarray(group, dtype=bool)
    sums = group_sums(X, group)
    moments = {name: sums[name] for name in ("mean1", "mean0", "low1", "high1", "low0", "high0")}
    for name, count in (("1", int(np.sum(group))), ("0", int(np.sum(~group)))):
        scatter = sums["scatter" + name]
        moments["var" + name] = scatter / (count - 1) if count > 1 else np.zeros(X.shape[1])
    return moments


def group_moments_by_rows(X, group: np.ndarray) -> dict[str, np.ndarray] | None:
    """:func:`group_moments` of a matrix on disk stored by rows (CSR; ``X.reads_rows()``),
    in three passes over its bands of rows and no column copy: each group's extremes and
    non-zero count, then the exact folds of its sum, then those of its squared deviations
    from its mean (:func:`_group_sums`' splits, from the column's extremes and the group's
    size): the same bits as by columns, since every fold's sum is exact in any order.

    Parameters
    ----------
    X : a :class:`fsengine._compute.sparse.BackedMatrix` with ``reads_rows()``
    group : bool array (n,)

    Returns
    -------
    dict of float arrays (p,), or None
        As :func:`group_moments`; None when a row of the file has its columns out of
        order or twice, or the view takes a column twice (read it by columns).
    """
    family = kernels.load(SUMS_KERNELS)
    group = np.ascontiguousarray(group, dtype=np.bool_)
    position = X.column_positions()
    if position is None:
        return None
    p = X.shape[1]
    counts = np.array([int((~group).sum()), int(group.sum())])  # the rest, the group
    low, high = np.full((2, p), np.inf), np.full((2, p), -np.inf)
    stored = np.zeros((2, p), dtype=np.int64)
    for row, data, indices, pointers in X.row_bands():
        if not family.band_group_extremes(
            data, indices, pointers, row, position, group, low, high, stored
        ):
            return None
    zeros = counts[:, None] - stored
    low = np.where(zeros > 0, np.minimum(low, 0.0), low)
    high = np.where(zeros > 0, np.maximum(high, 0.0), high)
    extremes = low.min(axis=0), high.max(axis=0)

    def folded_sums(centre: np.ndarray, square: bool) -> tuple[np.ndarray, np.ndarray]:
        reach = np.maximum(np.abs(extremes[0] - centre), np.abs(extremes[1] - centre))
        bound = reach * reach if square else reach
        huge = ~(bound < LARGEST_BOUND / counts[:, None])
        cuts = np.stack([splits(np.where(huge[g], 0.0, bound[g]), counts[g]) for g in (0, 1)])
        cuts = np.ascontiguousarray(cuts.transpose(0, 2, 1))  # (group, column, fold)
        folds = np.zeros((2, p, 3))
        for row, data, indices, pointers in X.row_bands():
            family.band_group_folds(
                data, indices, pointers, row, position, group, centre, square, cuts, folds
            )
        zero = 0.0 - centre  # the zeros' term, added once per zero (exact in each fold)
        if square:
            zero = zero * zero
        s1, s2, s3 = cuts[..., 0], cuts[..., 1], cuts[..., 2]
        first = (s1 + zero) - s1
        zero = zero - first
        second = (s2 + zero) - s2
        third = (s3 + (zero - second)) - s3
        sums = [folds[..., k] + zeros * term for k, term in enumerate((first, second, third))]
        return (sums[0] + sums[1]) + sums[2], huge.any(axis=0)

    with np.errstate(over="ignore", invalid="ignore"):  # huge columns: summed below
        total, huge = folded_sums(np.zeros((2, p)), False)
        mean = total / counts[:, None]
        scatter, huge_squares = folded_sums(np.ascontiguousarray(mean), True)
    huge = np.flatnonzero(huge | huge_squares)
    moments = {
        "mean1": mean[1], "var1": scatter[1], "mean0": mean[0], "var0": scatter[0],
        "low1": low[1], "high1": high[1], "low0": low[0], "high0": high[0],
    }  # fmt: skip
    for name, count in (("1", counts[1]), ("0", counts[0])):
        moments["var" + name] = moments["var" + name] / (count - 1) if count > 1 else np.zeros(p)
    if huge.size:  # values near the top of the double range: those columns by columns
        block = X.take(huge).stored_columns(slice(None))
        if is_sparse(block):
            block = block.copy()
            block.eliminate_zeros()
        for name, values in group_moments(block, group).items():
            moments[name][huge] = values
    return moments


def _welch_t(moments: dict, n1: int, n0: int) -> np.ndarray:
    """Welch's t from :func:`group_moments`: (m1 - m0) / sqrt(v1/n1 + v0/n0); NaN where the
    feature has one value, +-inf where each group has one value and they differ."""
    with np.errstate(divide="ignore", invalid="ignore"):
        t = (moments["mean1"] - moments["mean0"]) / np.sqrt(
            moments["var1"] / n1 + moments["var0"] / n0
        )
    # Exact cases, not rounding noise over rounding noise: a feature with one value in each
    # group separates them (+-inf) unless it has one value overall (undefined, NaN).
    flat, constant = flat_and_constant(moments)
    t[flat] = np.copysign(np.inf, moments["low1"] - moments["low0"])[flat]
    t[constant] = np.nan
    return t


def welch_statistic(X, y) -> np.ndarray:
    """Welch's t of every feature, minority minus rest: (m1 - m0) / sqrt(v1/n1 + v0/n0),
    variances with ddof = 1; NaN where both groups are constant and their means equal,
    +-inf where both are constant and the means differ.

    Parameters
    ----------
    X : array (n_samples, n_features), a scipy sparse matrix (read as CSC, its
        non-zeros only), or a matrix on disk (a CSR file a band of rows at a time:
        :func:`group_moments_by_rows`; else a block of columns at a time)
    y : labels of two classes (:func:`_minority`)
    """
    if is_backed(X) and X.reads_rows():
        y = checked_labels(y, X.shape[0])
        group = _minority(y, checked_classes(y))
        moments = group_moments_by_rows(X, group)
        if moments is None:  # a file with rows out of order: by blocks of columns
            return by_stored_blocks(lambda block: welch_statistic(block, y), X)
        return _welch_t(moments, int(group.sum()), int((~group).sum()))
    X, group = _marker_input(X, y)
    return _welch_t(group_moments(X, group), int(group.sum()), int((~group).sum()))


def wilcoxon_statistic(X, y) -> np.ndarray:
    """The rank-sum test's z of every feature: (R1 - n1 (n + 1) / 2) /
    sqrt(n1 n0 (n + 1) / 12), R1 the minority's sum of average ranks over all samples;
    0 for a constant feature."""
    X, group = _marker_input(X, y)
    return _rank_sum_z(X, group)


def _rank_sum_z(X, group: np.ndarray) -> np.ndarray:
    """:func:`wilcoxon_statistic` of a checked X (:func:`_marker_input`) and the group."""
    n1, n = int(group.sum()), len(group)
    # average ranks for ties, per feature; a gene's zeros are one run (only its non-zero
    # values are sorted)
    family = kernels.load(SUMS_KERNELS)
    group = np.ascontiguousarray(group, dtype=np.bool_)
    if is_sparse(X):
        rank_sum = family.group_rank_sums_sparse(X.data, X.indices, X.indptr, group)
    else:
        rank_sum = family.group_rank_sums(np.asfortranarray(X, dtype=np.float64), group)
    return (rank_sum - n1 * (n + 1) / 2) / np.sqrt(n1 * (n - n1) * (n + 1) / 12)


def directed(statistic: np.ndarray, direction: str = "up") -> np.ndarray:
    """A signed statistic as a ranker's score for ``direction`` (:data:`DIRECTIONS`):
    itself (up), its negative (down) or its absolute value (both); an undefined (NaN)
    statistic scores 0, as scanpy scores it.

    Raises
    ------
    FSEngineError
        For a direction not in :data:`DIRECTIONS`.
    """
    if direction not in DIRECTIONS:
        raise FSEngineError(
            f"must be one of {', '.join(DIRECTIONS)}, got {direction!r}", parameter="direction"
        )
    statistic = np.nan_to_num(statistic, nan=0.0, posinf=np.inf, neginf=-np.inf)
    if direction == "both":
        return np.abs(statistic)
    return statistic if direction == "up" else -statistic


def welch_score(X, y, direction: str = "up") -> np.ndarray:
    """Welch's t (:func:`welch_statistic`) for ``direction`` (:func:`directed`): t, -t or
    ``|t|``; 0 for an undefined t."""
    return directed(welch_statistic(X, y), direction)


def wilcoxon_score(X, y, direction: str = "up") -> np.ndarray:
    """The rank-sum test's z (:func:`wilcoxon_statistic`) for ``direction``
    (:func:`directed`): z, -z or ``|z|``."""
    return directed(wilcoxon_statistic(X, y), direction)


def marker_table(X, y, method: str, direction: str = "up") -> dict[str, np.ndarray]:
    """A marker test's results per feature, as scanpy's ``rank_genes_groups`` reports them.

    Parameters
    ----------
    X : array (n_samples, n_features)
        Expression values; the fold change assumes scanpy's log1p scale.
    y : array of 0/1
        1 = the minority (the group), 0 = the rest (the reference).
    method : {"welch", "wilcoxon"}
    direction : {"up", "down", "both"}
        Which genes rank first (:data:`DIRECTIONS`): ``rank_scores`` follows it.

    Returns
    -------
    dict of ndarray
        ``scores`` (signed t or z), ``pvals`` (two-sided: Student's t with Welch's degrees
        of freedom, or the normal for z, whatever the direction, as scanpy's),
        ``pvals_adj`` (Benjamini-Hochberg over the features, scipy's
        ``false_discovery_control``), ``logfoldchanges`` (log2((expm1(mean1) + 1e-9) /
        (expm1(mean0) + 1e-9)), scanpy's formula) and ``rank_scores`` (the ranker's score
        for ``direction``, :func:`directed`: sort by it, descending, for the ranking).
    """
    from scipy import stats

    if method not in ("welch", "wilcoxon"):
        raise FSEngineError(f"unknown marker test {method!r}: welch or wilcoxon")
    directed(np.zeros(0), direction)  # a bad direction: before any work
    if by_columns(X):  # sparse, or on disk: as stored, a block of columns at a time
        columns = by_stored_blocks(lambda block: _marker_columns(block, y, method), X)
    else:
        columns = _marker_columns(X, y, method)
    pvals = columns["pvals"]
    tested = np.isfinite(pvals)
    adjusted = np.full(len(pvals), np.nan)
    if tested.any():
        adjusted[tested] = stats.false_discovery_control(pvals[tested], method="bh")
    return {
        **columns,
        "pvals_adj": adjusted,
        "rank_scores": directed(columns["scores"], direction),
    }


def _marker_columns(X, y, method: str) -> dict[str, np.ndarray]:
    """:func:`marker_table`'s values that each feature has on its own: ``scores``,
    ``pvals`` and ``logfoldchanges``."""
    from scipy import stats

    X, group = _marker_input(X, y)
    n1, n0 = int(group.sum()), int((~group).sum())
    moments = group_moments(X, group)
    if method == "welch":
        scores = _welch_t(moments, n1, n0)
        v1, v0 = moments["var1"] / n1, moments["var0"] / n0
        with np.errstate(divide="ignore", invalid="ignore"):
            dof = (v1 + v0) ** 2 / (v1**2 / (n1 - 1) + v0**2 / (n0 - 1))
        pvals = 2 * stats.t.sf(np.abs(scores), dof)
    else:
        scores = _rank_sum_z(X, group)
        pvals = 2 * stats.norm.sf(np.abs(scores))
    mean1, mean0 = moments["mean1"], moments["mean0"]
    with np.errstate(invalid="ignore", divide="ignore"):  # a negative mean: NaN, as scanpy
        fold = np.log2((np.expm1(mean1) + 1e-9) / (np.expm1(mean0) + 1e-9))
    return {"scores": scores, "pvals": pvals, "logfoldchanges": fold}
