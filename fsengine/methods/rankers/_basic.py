"""Fisher score, signal-to-noise, Pearson correlation and Hellinger distance rankers.

Each scorer takes X (n_samples x n_features) and class labels y and returns one
score per feature, higher = better, never NaN: a constant feature scores 0. With
binary labels (the one-versus-rest problem) they follow Yin et al. (2013) and the
K-OFSD paper's baselines; with several classes (the decomposition-based variants'
pseudo-labels) each has a documented multi-class form.

Fisher, S2N and PCC sum over samples with :func:`fsengine.methods.rankers._sums.column_sums`,
whose result does not depend on the order of the samples: the scores are equal bit for
bit under any permutation of the rows, and two features with the same values per class
tie exactly (then the lower column index ranks first). Hellinger counts, which no order
changes.
"""

from __future__ import annotations

import numpy as np

from fsengine._compute.sparse import as_columns, by_column_blocks, is_sparse
from fsengine.errors import FSEngineError, is_integer_in
from fsengine.methods.rankers._common import BINS, SECTION_44, YIN
from fsengine.methods.rankers._sums import (
    column_sums,
    flat_and_constant,
    group_sums,
    mean_and_scatter,
)
from fsengine.spec import RANKER, MethodSpec


def check_scoring_input(X, y) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Validate X and y for a ranker; returns (X as float64, y, the sorted classes).

    Raises FSEngineError for shape mismatches, non-finite values, or fewer than two
    classes.
    """
    X = np.asarray(X, dtype=float)
    if X.ndim != 2:
        raise FSEngineError(f"X must be a 2-D matrix of samples x features, got shape {X.shape}")
    y = checked_labels(y, X.shape[0])
    if not np.isfinite(X).all():
        row, col = np.argwhere(~np.isfinite(X))[0]
        raise FSEngineError(f"feature {col} has a missing or infinite value at row {row + 1}")
    return X, y, checked_classes(y)


def check_stored_input(X, y) -> tuple:
    """A scipy sparse X as a canonical CSC array storing no zero (a stored zero counts as
    the zero it is), with y checked; returns (X, y, the sorted classes).

    Raises
    ------
    FSEngineError
        For labels of another length, or fewer than two classes.
    """
    X = as_columns(X)
    if not (X.data != 0).all():
        X = X.copy()
        X.eliminate_zeros()
    y = checked_labels(y, X.shape[0])
    return X, y, checked_classes(y)


def checked_labels(y, n_samples: int) -> np.ndarray:
    """``y`` as an array, checked to hold one label per sample.

    Raises
    ------
    FSEngineError
        For labels of another shape.
    """
    y = np.asarray(y)
    if y.ndim != 1 or len(y) != n_samples:
        raise FSEngineError(
            f"y must hold one label per sample: {n_samples} samples, labels of shape {y.shape}"
        )
    return y


def checked_classes(y: np.ndarray) -> np.ndarray:
    """The sorted classes of ``y``; FSEngineError for fewer than two."""
    classes = np.unique(y)
    if len(classes) < 2:
        raise FSEngineError("ranking needs at least two classes in y")
    return classes


def _class_stats(X: np.ndarray, y: np.ndarray, classes: np.ndarray, extremes):
    """Per-class sizes, means and sums of squared deviations (S^2 of eq. 6); ``extremes``:
    every column's (min, max)."""
    groups = [np.flatnonzero(y == c) for c in classes]
    sizes = np.array([len(g) for g in groups], dtype=float)
    stats = [mean_and_scatter(X, g, extremes) for g in groups]
    return sizes, np.stack([m for m, _ in stats]), np.stack([s for _, s in stats])


def _constant(X: np.ndarray) -> np.ndarray:
    """Features with a single value. Their class means can still differ in the last
    bit (a mean of 3.3s is not always 3.3), so scores must test the range, not the
    spread."""
    return X.max(axis=0) == X.min(axis=0)


def _flat_within_classes(X: np.ndarray, groups) -> np.ndarray:
    """Features with a single value inside every group (zero within-class spread, which
    rounding would otherwise turn into ~1e-33)."""
    return np.all([X[g].max(axis=0) == X[g].min(axis=0) for g in groups], axis=0)


def _perfect_or_constant(score: np.ndarray, X: np.ndarray, groups) -> np.ndarray:
    """0 for constant features, inf for features flat within every group but not constant."""
    constant = _constant(X)
    score[_flat_within_classes(X, groups) & ~constant] = np.inf
    score[constant] = 0.0
    return score


def _perfect_or_constant_by_groups(score: np.ndarray, sums: dict) -> np.ndarray:
    """:func:`_perfect_or_constant` from the extremes of two groups
    (:func:`fsengine.methods.rankers._sums.flat_and_constant`)."""
    flat, constant = flat_and_constant(sums)
    score[flat] = np.inf
    score[constant] = 0.0
    return score


def _safe_ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """num / den with 0/0 = 0 and x/0 = inf for x > 0 (a perfectly separating feature)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        out = num / den
    out[(num == 0)] = 0.0
    return out


def fisher_score(X, y) -> np.ndarray:
    """Fisher score of every feature (Yin et al. 2013, eqs. 5-9).

    Two classes: ``(mean_1 - mean_0)^2 / (S_1^2 + S_0^2)`` (eq. 5), with
    ``S_k^2`` the sum of squared deviations within class k (eq. 6). More classes:
    ``S_B / S_W`` (eq. 7) with ``S_B = sum_k l_k (mean_k - mean)^2`` (eq. 8) and
    ``S_W = sum_k S_k^2`` (eq. 9). For two classes eq. 7 is eq. 5 times
    ``l_0 l_1 / n``, so both rank alike.

    A constant feature scores 0; a feature with no within-class spread but different
    class means scores ``inf`` (it separates the classes perfectly).

    ``X`` may be a scipy sparse matrix: with two classes it is read by its non-zeros alone
    (:func:`fsengine.methods.rankers._sums.group_sums`), with more a dense block of columns
    at a time; the same scores, bit for bit, as on the dense matrix.
    """
    if is_sparse(X):
        X, y, classes = check_stored_input(X, y)
        if len(classes) != 2:
            return by_column_blocks(lambda block: fisher_score(block, y), X)
        sums = group_sums(X, y == classes[1])
        between = (sums["mean1"] - sums["mean0"]) ** 2
        return _perfect_or_constant_by_groups(
            _safe_ratio(between, sums["scatter0"] + sums["scatter1"]), sums
        )
    X, y, classes = check_scoring_input(X, y)
    extremes = X.min(axis=0), X.max(axis=0)
    sizes, means, scatters = _class_stats(X, y, classes, extremes)
    within = scatters.sum(axis=0)
    if len(classes) == 2:
        between = (means[1] - means[0]) ** 2
    else:
        overall = column_sums(X, extremes=extremes) / len(y)
        between = (sizes[:, None] * (means - overall) ** 2).sum(axis=0)
    return _perfect_or_constant(_safe_ratio(between, within), X, [y == c for c in classes])


def _one_vs_rest(score_binary, X, y, classes):
    """Multi-class form: the maximum over classes of the one-versus-rest score."""
    return np.max([score_binary(X, (y == c).astype(np.int8)) for c in classes], axis=0)


def _s2n_binary(X, y01: np.ndarray) -> np.ndarray:
    group = y01 == 1
    if is_sparse(X):  # both groups' sums from the non-zeros
        sums = group_sums(X, group)
        (mean_a, scatter_a), (mean_b, scatter_b) = (
            (sums["mean" + g], sums["scatter" + g]) for g in ("1", "0")
        )
    else:
        extremes = X.min(axis=0), X.max(axis=0)
        (mean_a, scatter_a), (mean_b, scatter_b) = (
            mean_and_scatter(X, np.flatnonzero(rows), extremes) for rows in (group, ~group)
        )
    n_a, n_b = int(np.sum(group)), int(np.sum(~group))
    spread = np.sqrt(scatter_a / max(n_a - 1, 1)) + np.sqrt(scatter_b / max(n_b - 1, 1))
    score = np.abs(_safe_ratio(mean_a - mean_b, spread))
    if is_sparse(X):
        return _perfect_or_constant_by_groups(score, sums)
    return _perfect_or_constant(score, X, [group, ~group])


def s2n_score(X, y) -> np.ndarray:
    """Signal-to-noise ratio, ``|mean_1 - mean_0| / (sd_1 + sd_0)`` (ranked by absolute value).

    Class 1 is the minority; standard deviations are sample (n - 1) deviations (0 for
    a class of one sample). A feature with a single value in each class but different
    class means scores ``inf``; a constant feature 0.
    With more than two classes: the maximum over classes c of the one-versus-rest
    S2N of c. ``X`` may be a scipy sparse matrix, read by its non-zeros alone
    (:func:`fsengine.methods.rankers._sums.group_sums`): the same scores, bit for bit.
    """
    X, y, classes = (check_stored_input if is_sparse(X) else check_scoring_input)(X, y)
    if len(classes) == 2:
        return _s2n_binary(X, (y == classes[1]).astype(np.int8))
    return _one_vs_rest(_s2n_binary, X, y, classes)


def _pcc_binary(X: np.ndarray, y01: np.ndarray) -> np.ndarray:
    n = len(y01)
    extremes = X.min(axis=0), X.max(axis=0)
    mean = column_sums(X, extremes=extremes) / n
    ones, zeros = np.flatnonzero(y01 == 1), np.flatnonzero(y01 == 0)
    y_mean = len(ones) / n
    high, low = 1.0 - y_mean, 0.0 - y_mean  # the centred labels
    # sum over samples of (y - y_mean) (x - mean), class by class; per column, the same
    # for any block of columns
    num = high * column_sums(X, ones, mean, extremes=extremes) + low * column_sums(
        X, zeros, mean, extremes=extremes
    )
    spread = column_sums(X, None, mean, square=True, extremes=extremes)
    den = np.sqrt(spread * (len(ones) * high * high + len(zeros) * low * low))
    score = np.abs(_safe_ratio(num, den))
    score[_constant(X)] = 0.0
    return score


def pcc_score(X, y) -> np.ndarray:
    """Absolute Pearson correlation with the class (Yin et al. eq. 2; rho^2 ranks alike).

    With more than two classes: the maximum over classes c of ``|corr(f, [y == c])|``.
    """
    X, y, classes = check_scoring_input(X, y)
    if len(classes) == 2:
        return _pcc_binary(X, (y == classes[1]).astype(np.int8))
    return _one_vs_rest(_pcc_binary, X, y, classes)


def hellinger_score(X, y, bins: int = 10) -> np.ndarray:
    """Hellinger distance between the two class-conditional histograms (Yin et al. eq. 12).

    Each feature is cut into ``bins`` equal-width bins over its range (the paper
    does not give the number; 10 is ours): ``sqrt(sum_j (sqrt(|X+j|/|X+|) -
    sqrt(|X-j|/|X-|))^2)``, in [0, sqrt(2)]. A value on a bin edge goes to the upper
    bin, the maximum to the last bin. Binary labels only: the class prior plays no
    part, which is the point of the measure.
    """
    X, y, classes = check_scoring_input(X, y)
    if len(classes) != 2:
        raise FSEngineError("the Hellinger distance compares two classes; binarise the labels")
    if not is_integer_in(bins, 2):
        raise FSEngineError(
            f"the Hellinger distance needs an integer number of bins >= 2, got {bins!r}"
        )
    low, high = X.min(axis=0), X.max(axis=0)
    width = np.where(high > low, high - low, 1.0)
    codes = np.clip(np.floor((X - low) / width * bins), 0, bins - 1).astype(np.int64)
    pos = y == classes[1]
    hist_pos = np.stack([(codes[pos] == b).sum(axis=0) for b in range(bins)]) / pos.sum()
    hist_neg = np.stack([(codes[~pos] == b).sum(axis=0) for b in range(bins)]) / (~pos).sum()
    squares = (np.sqrt(hist_pos) - np.sqrt(hist_neg)) ** 2
    total = np.zeros(squares.shape[1])
    for row in squares:  # bin after bin: the same sum for one gene as for many
        total += row
    return np.sqrt(total)


#: The specifications of the rankers above (the registry: :mod:`fsengine.methods.registry`).
FISHER = MethodSpec(
    "fisher",
    "Fisher",
    YIN + ", eqs. 5-9" + SECTION_44,
    RANKER,
    "Fisher score: between-class over within-class scatter",
    columnwise=True,
    parametric=True,
)
S2N = MethodSpec(
    "s2n",
    "S2N",
    "Golub et al. Molecular classification of cancer. Science 286 (1999)" + SECTION_44,
    RANKER,
    "signal-to-noise ratio |mean_1 - mean_0| / (sd_1 + sd_0)",
    columnwise=True,
    parametric=True,
)
PCC = MethodSpec(
    "pcc",
    "PCC",
    YIN + ", eq. 2" + SECTION_44,
    RANKER,
    "|Pearson correlation| of the feature with the class",
    columnwise=True,
    parametric=True,
)
HELLINGER = MethodSpec(
    "hellinger",
    "Hellinger",
    YIN + ", eq. 12",
    RANKER,
    "Hellinger distance between the two classes' histograms",
    parameters={"bins": BINS},
    columnwise=True,
)
