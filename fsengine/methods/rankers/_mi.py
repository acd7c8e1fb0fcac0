"""Mutual information between each feature and the class.

Two estimators:

* ``estimator="knn"`` (default): the nearest-neighbour estimator of Ross (2014) for a
  continuous variable and a discrete one, the estimator of scikit-learn's
  ``mutual_info_classif``. It gives the values of scikit-learn's per-column function
  ``sklearn.feature_selection._mutual_info._compute_mi_cd`` (same number of
  neighbours; ``mutual_info_classif`` additionally rescales each column and adds
  1e-10 noise to break ties), vectorised over the features instead of building two
  trees per feature. Columns with tied values get the same kind of tiny seeded noise
  (:func:`break_ties`), because the estimator needs distinct values. To give the same
  numbers (to the rounding of the final means) it computes what scikit-learn computes:
  within a class of more than 2k + 1 samples the k-th neighbour distance is exact
  (scikit-learn uses a KD-tree there); in a smaller class scikit-learn's brute-force
  search measures squared distances as ``x_i^2 - 2 x_i x_j + x_j^2``, and so does
  this code, rounding included. Neighbour counts follow the KD-tree's test,
  ``(x_j - x_i)^2 <= r^2``.

  The order of the samples plays no part (issue 40): the estimator works on each column's
  values sorted within each class (:func:`fsengine.methods.rankers._order.sorted_within_classes`),
  which hold the same (value, label) pairs as the column. So the tie noise goes to each
  sample by its place in that order, (label, value), not by its row: samples of equal
  value and label are interchangeable for the column's estimate, so the noisy (value,
  label) pairs are the same set whatever the rows' order; and the means over samples run
  in that order too. The scores are equal bit for bit under any permutation of the rows.
  Without ties nothing is drawn, and the values are scikit-learn's ``_compute_mi_cd``
  (which breaks equal squared distances to the lower row: here the lower value).
* ``estimator="binned"``: the plug-in estimate from equal-frequency bins (default 10),
  ``sum p(v, c) log(p(v, c) / (p(v) p(c)))``. Fast and robust to tied values (integer
  data), biased upwards for few samples per bin.

Both are in nats and never negative.
"""

from __future__ import annotations

import numpy as np

from fsengine._compute import kernels
from fsengine._compute.budget import use_compiled
from fsengine._compute.discretise import BINNINGS, discretise
from fsengine.errors import FSEngineError, is_integer_in
from fsengine.methods.rankers._basic import check_scoring_input
from fsengine.methods.rankers._common import BINS, SECTION_44, YIN
from fsengine.methods.rankers._order import sorted_within_classes
from fsengine.spec import RANKER, Bool, Choice, Int, MethodSpec

#: The kernel family of the estimator's neighbour counts.
MI_KERNELS = "methods.rankers._mi_kernels"

ESTIMATORS = ("knn", "binned")


def _exact_kth_distance(values: np.ndarray, k: int) -> np.ndarray:
    """Distance from each row to its k-th nearest other row, per column, exactly (1-D).

    ``values`` has shape (m, p); in sorted order the k nearest of a point lie in a
    window around it, so the k-th distance is ``min over s of max(left_s, right_(k-s))``.
    """
    rows = np.ascontiguousarray(values.T, dtype=float)  # (p, m)
    p, m = rows.shape
    order = np.argsort(rows, axis=1).astype(np.int64, copy=False)
    if use_compiled(p * m * (k + 1), MI_KERNELS):
        return kernels.load(MI_KERNELS).kth_distances(rows, order, int(k)).T
    v = np.take_along_axis(rows, order, axis=1)
    padded = np.concatenate([np.full((p, k), -np.inf), v, np.full((p, k), np.inf)], axis=1)
    best = np.full((p, m), np.inf)
    for left in range(k + 1):
        right = k - left
        d_left = v - padded[:, k - left : k - left + m] if left else 0.0
        d_right = padded[:, k + right : k + right + m] - v if right else 0.0
        np.minimum(best, np.maximum(d_left, d_right), out=best)
    out = np.empty_like(best)
    np.put_along_axis(out, order, best, axis=1)
    return out.T


def _brute_kth_distance(values: np.ndarray, k: int) -> np.ndarray:
    """scikit-learn's brute-force k-th neighbour distance (training points queried on themselves).

    Squared distances are ``(x_i^2 + (-2 x_i x_j)) + x_j^2`` (its GEMM expansion); the
    k + 1 smallest are kept (ties to the lower index), the point itself is removed (or,
    if absent, the first), and the k-th remaining is returned as ``sqrt(max(d2, 0))``.
    """
    m, p = values.shape
    x = values.T[:, :, None]  # (p, m, 1)
    xt = values.T[:, None, :]  # (p, 1, m)
    squared = (x * x + (-2.0 * (x * xt))) + xt * xt  # (p, m, m)
    order = np.argsort(squared, axis=2, kind="stable")[:, :, : k + 1]
    is_self = order == np.arange(m)[None, :, None]
    drop = np.where(is_self.any(axis=2), is_self.argmax(axis=2), 0)
    kept = np.take_along_axis(squared, order, axis=2)
    keep_mask = np.ones_like(order, dtype=bool)
    np.put_along_axis(keep_mask, drop[:, :, None], False, axis=2)
    kth = kept[keep_mask].reshape(p, m, k)[:, :, -1]
    return np.sqrt(np.maximum(kth, 0.0)).T


def _count_within(values: np.ndarray, radius: np.ndarray) -> np.ndarray:
    """For each point and column, how many points lie within its radius (itself included).

    The test is scikit-learn's KD-tree test ``(x_j - x_i)^2 <= r^2``; the points that
    pass form a contiguous run in sorted order, whose ends a compiled pass finds with the
    test itself (:func:`fsengine.methods.rankers._mi_kernels.count_within`).
    """
    rows = np.ascontiguousarray(values.T, dtype=float)  # (p, m): one feature a row
    rad = np.ascontiguousarray(radius.T, dtype=float)
    p, m = rows.shape
    if not use_compiled(p * m * m, MI_KERNELS):  # small: every pair
        g = rows[:, None, :] - rows[:, :, None]  # [f, i, j] = x_j - x_i
        return ((g * g) <= (rad * rad)[:, :, None]).sum(axis=2).T

    order = np.argsort(rows, axis=1).astype(np.int64, copy=False)
    return kernels.load(MI_KERNELS).count_within(rows, order, rad * rad).T


def _mi_knn(X: np.ndarray, y: np.ndarray, classes: np.ndarray, n_neighbors: int) -> np.ndarray:
    n, p = X.shape
    radius = np.zeros((n, p))
    label_counts = np.empty(n)
    k_all = np.zeros(n)
    for c in classes:
        mask = y == c
        count = int(mask.sum())
        if count > 1:
            k = min(n_neighbors, count - 1)
            kth = (_brute_kth_distance if k >= count // 2 else _exact_kth_distance)(X[mask], k)
            radius[mask] = np.nextafter(kth, 0)
            k_all[mask] = k
        label_counts[mask] = count
    keep = label_counts > 1
    if keep.sum() < 2:
        raise FSEngineError("mutual information needs a class with at least 2 samples")
    counts = _count_within(X[keep], radius[keep])
    from scipy.special import digamma

    table = digamma(np.arange(n + 2))
    mi = (
        table[keep.sum()]
        + np.mean(table[k_all[keep].astype(int)])
        - np.mean(table[label_counts[keep].astype(int)])
        - table[counts].mean(axis=0)
    )
    return np.maximum(mi, 0.0)


def _mi_binned(
    X: np.ndarray, y: np.ndarray, classes: np.ndarray, bins: int, binning: str
) -> np.ndarray:
    n, p = X.shape
    codes = discretise(X, bins, binning)
    mi = np.zeros(p)
    p_class = {c: np.mean(y == c) for c in classes}
    for v in range(bins):
        in_bin = codes == v
        p_bin = in_bin.mean(axis=0)
        for c in classes:
            joint = (in_bin & (y == c)[:, None]).mean(axis=0)
            with np.errstate(divide="ignore", invalid="ignore"):
                term = joint * np.log(joint / (p_bin * p_class[c]))
            mi += np.where(joint > 0, term, 0.0)
    return np.maximum(mi, 0.0)


def break_ties(X: np.ndarray, seed: int = 0) -> np.ndarray:
    """X with tiny seeded noise added to the columns that contain tied values.

    The kNN estimator needs distinct values: with ties, many k-th neighbour distances
    are 0 and an informative feature of rounded or integer values can score 0. Like
    scikit-learn's ``mutual_info_classif``, the noise is ``1e-10 * max(sd, mean |x|)``
    times a standard normal draw (scikit-learn adds ``1e-10 * max(1, mean |x|)`` after
    scaling each column to unit sd: the same amplitude). Columns without ties are
    returned unchanged, and so are constant columns (their MI stays 0).

    The i-th draw of a column goes to its i-th row, so :func:`mi_score` passes the
    columns sorted within each class: the noise then follows the samples' (label, value)
    order, not the order in which they came.
    """
    ordered = np.sort(X, axis=0)
    has_ties = (ordered[1:] == ordered[:-1]).any(axis=0)
    constant = ordered[0] == ordered[-1]  # carries no information: left as is
    tied = np.flatnonzero(has_ties & ~constant)
    if len(tied) == 0:
        return X
    X = X.copy()
    part = X[:, tied]
    amplitude = 1e-10 * np.maximum(part.std(axis=0), np.abs(part).mean(axis=0))
    noise = np.random.default_rng(seed).standard_normal(part.shape)
    X[:, tied] = part + amplitude * noise
    return X


def mi_score(
    X,
    y,
    estimator: str = "knn",
    n_neighbors: int = 3,
    bins: int = 10,
    binning: str = "quantile",
    tie_noise: bool = True,
) -> np.ndarray:
    """Mutual information (nats) between every feature and the class labels.

    Parameters
    ----------
    X : array, shape (n_samples, n_features)
    y : array of class labels (two or more classes)
    estimator : {"knn", "binned"}
        See the module docstring.
    n_neighbors : int, default 3
        Neighbours of the kNN estimator (scikit-learn's default).
    bins : int, default 10
        Bins of the binned estimator.
    binning : {"quantile", "uniform"}
        Bins of the binned estimator: equal-frequency or equal-width.
    tie_noise : bool, default True
        kNN estimator: break tied values with tiny seeded noise (:func:`break_ties`),
        only in the columns that have ties, each draw going to a sample by its place in
        the column's (label, value) order; columns without ties give scikit-learn's
        ``_compute_mi_cd``. False estimates on the raw values.

    Returns
    -------
    ndarray, shape (n_features,)
        Equal bit for bit under any permutation of the samples (rows of X with y).
    """
    X, y, classes = check_scoring_input(X, y)
    if estimator == "knn":
        if not is_integer_in(n_neighbors, 1):
            raise FSEngineError(f"n_neighbors must be a positive integer, got {n_neighbors!r}")
        X, y = sorted_within_classes(X, y)  # noise and sums by (label, value), not by row
        return _mi_knn(break_ties(X) if tie_noise else X, y, classes, int(n_neighbors))
    if estimator == "binned":
        if not is_integer_in(bins, 2):
            raise FSEngineError(f"bins must be an integer >= 2, got {bins!r}")
        if binning not in BINNINGS:
            raise FSEngineError(f"unknown binning {binning!r}; choose one of {', '.join(BINNINGS)}")
        return _mi_binned(X, y, classes, int(bins), binning)
    raise FSEngineError(
        f"unknown MI estimator {estimator!r}; choose one of {', '.join(ESTIMATORS)}"
    )


MI_PARAMETERS = {
    "estimator": Choice(
        "knn",
        "MI estimator",
        label="Estimator",
        source="ours (the paper does not say)",
        choices={
            "knn": "Ross's nearest-neighbour estimator (scikit-learn's)",
            "binned": "plug-in estimate on binned values",
        },
    ),
    "n_neighbors": Int(
        3,
        "neighbours of the kNN estimator",
        label="Neighbours",
        low=1,
        flag="neighbors",
        ui_high=15,
        source="scikit-learn's default",
    ),
    "bins": BINS,
    "binning": Choice(
        "quantile",
        "bins of the binned estimator",
        label="Binning",
        source="ours",
        choices={"quantile": "equal-frequency bins", "uniform": "equal-width bins"},
    ),
    "tie_noise": Bool(
        True,
        "add scikit-learn's tiny noise to break ties (kNN estimator)",
        label="Tie noise",
        source="scikit-learn mutual_info_classif",
    ),
}

#: MI's specification (the registry: :mod:`fsengine.methods.registry`).
MI = MethodSpec(
    "mi",
    "MI",
    YIN + ", section 2" + SECTION_44,
    RANKER,
    "mutual information of the feature and the class, nats",
    parameters=MI_PARAMETERS,
)
