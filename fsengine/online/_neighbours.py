"""K-nearest-neighbour relation of K-OFSD, computed exactly as the authors' code does.

The authors' MATLAB code (``K_OFSD.m``, run in GNU Octave) measures distances with
``pdist(X_S, 'seuclidean')``, which in the Octave statistics package evaluates, for
samples ``i < j``::

    d_ij = sqrt( sum_f ( (w_f * (x_if - x_jf)) * (x_if - x_jf) ) ),   w_f = 1 / var_f

with ``var_f`` the sample variance (n - 1) of column f and the sum taken
sequentially over the columns of ``X_S``. Each sample's distances are then sorted
with a stable sort (ties go to the lower sample index, NaN last) and sorted
positions 2..K+1 are its neighbours: the first sorted element is skipped, and it
is the sample itself only when the sample has no exact duplicate
(``variant="reference"``). The printed Algorithm 4 instead excludes x_i itself
(``variant="paper"``).

Two exact fast paths replace the N x N sort:

* one feature (:func:`single_feature_neighbour_stats`): the K+1 nearest samples of
  a sample are a window around it in the column's sorted order; the window is
  found with K vectorised comparisons, the labels inside it are counted with
  prefix sums, and any sample whose window boundary is a distance tie is
  recomputed by the definition (full stable sort of its distance row);
* a feature set (:func:`set_neighbour_stats`): the squared distances of the
  selected set are kept and one feature's terms are added to them (the same
  floating-point sum as the reference when features arrive in column order); the
  K+1 nearest are found with a partition, ties at the boundary again fall back to
  the definition.

Both return, for every sample, the number of its K neighbours that share its
label and, when asked, the summed distances to same-label and other-label
neighbours (for Card_Distance).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fsengine.online._columns import sequential_sum

VARIANTS = ("reference", "paper")
METRICS = ("seuclidean", "euclidean")


@dataclass(frozen=True)
class NeighbourStats:
    """Per-sample summary of the K nearest neighbours.

    Attributes
    ----------
    same_count : ndarray of int, shape (..., n)
        Number of the K neighbours whose label equals the sample's label.
    same_distance : ndarray of float or None
        Sum of distances to those same-label neighbours (only when requested).
    other_distance : ndarray of float or None
        Sum of distances to the other-label neighbours (only when requested).
    """

    same_count: np.ndarray
    same_distance: np.ndarray | None = None
    other_distance: np.ndarray | None = None


def feature_weights(block: np.ndarray, metric: str = "seuclidean") -> np.ndarray:
    """Per-feature weights of the distance: ``1 / var`` (n - 1) or 1.

    Parameters
    ----------
    block : ndarray, shape (n, b)
        One column per feature, one row per sample.
    metric : {"seuclidean", "euclidean"}
        Standardised Euclidean (the authors' code) or plain Euclidean (the
        paper's worked example).

    Returns
    -------
    ndarray, shape (b,)
        The weight ``w_f``; ``inf`` for a constant feature under "seuclidean"
        (the reference's ``inv(diag(var))``), which makes its distances NaN.
    """
    n, b = block.shape
    if metric == "euclidean":
        return np.ones(b)
    mean = sequential_sum(block) / n
    var = sequential_sum((block - mean) ** 2) / (n - 1)
    with np.errstate(divide="ignore"):
        return 1.0 / var


def distance_terms(values: np.ndarray, weight: float) -> np.ndarray:
    """One feature's contribution ``(w * d) * d`` to every squared pair distance.

    Returns an (n, n) matrix with ``d = x_i - x_j``; the diagonal is 0 (NaN for a
    constant feature under "seuclidean", as in the reference).
    """
    diff = values[:, None] - values[None, :]
    with np.errstate(invalid="ignore"):
        return (weight * diff) * diff


def _distance_from_gap(gap: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """Exact reference distance ``sqrt((w * g) * g)`` of a single-feature gap."""
    with np.errstate(invalid="ignore", over="ignore"):
        return np.sqrt((weight * gap) * gap)


def _exact_row_neighbours(dist_rows: np.ndarray, row_samples: np.ndarray, k: int,
                          variant: str) -> np.ndarray:
    """Neighbour indices by the definition: stable sort of each distance row.

    Parameters
    ----------
    dist_rows : ndarray, shape (m, n)
        Distances from each of m samples to all n samples (self distance 0).
    row_samples : ndarray of int, shape (m,)
        The sample each row belongs to.
    k : int
        Number of neighbours.
    variant : {"reference", "paper"}
        "reference" skips the first sorted element; "paper" skips the sample.

    Returns
    -------
    ndarray of int, shape (m, k)
    """
    order = np.argsort(dist_rows, axis=1, kind="stable")  # NaN sort last
    if variant == "reference":
        return order[:, 1:k + 1]
    first = order[:, :k + 1]
    is_self = first == row_samples[:, None]
    has_self = is_self.any(axis=1)
    # Drop the sample itself; where it is not among the first k+1, drop the last.
    drop = np.where(has_self, is_self.argmax(axis=1), k)
    keep = np.ones_like(first, dtype=bool)
    keep[np.arange(len(first)), drop] = False
    return first[keep].reshape(len(first), k)


def _stats_from_neighbours(neigh: np.ndarray, dist_rows: np.ndarray | None,
                           row_labels: np.ndarray, y: np.ndarray,
                           with_distances: bool):
    """Same-label counts (and distance sums) from explicit neighbour indices."""
    same = y[neigh] == row_labels[:, None]
    count = same.sum(axis=1)
    if not with_distances:
        return count, None, None
    d = np.take_along_axis(dist_rows, neigh, axis=1)
    return count, np.where(same, d, 0.0).sum(axis=1), np.where(same, 0.0, d).sum(axis=1)


def single_feature_neighbour_stats(block: np.ndarray, y: np.ndarray, k: int,
                                   weights: np.ndarray, variant: str = "reference",
                                   with_distances: bool = False) -> NeighbourStats:
    """Neighbour statistics of every sample on each single feature (Algorithm 4, line 5).

    Parameters
    ----------
    block : ndarray, shape (n, b)
        b features (columns) of n finite sample values.
    y : ndarray of int, shape (n,)
        Binary labels, minority = 1.
    k : int
        Number of neighbours, 1 <= k <= n - 1.
    weights : ndarray, shape (b,)
        From :func:`feature_weights`.
    variant : {"reference", "paper"}
        Neighbour rule (see the module docstring).
    with_distances : bool
        Also return same-/other-label distance sums (Card_Distance).

    Returns
    -------
    NeighbourStats
        Arrays of shape (n, b), samples in their original order.
    """
    n, b = block.shape
    columns = np.ascontiguousarray(block.T)               # (b, n): one row per feature
    order = np.argsort(columns, axis=1)
    v = np.take_along_axis(columns, order, axis=1)
    equal_next = v[:, 1:] == v[:, :-1]
    has_dup = equal_next.any(axis=1)
    if has_dup.any():
        # Ties between equal values must go to the lower sample index.
        order[has_dup] = np.argsort(columns[has_dup], axis=1, kind="stable")
        v[has_dup] = np.take_along_axis(columns[has_dup], order[has_dup], axis=1)

    # Features handled wholly by the definition: constant columns (NaN or all-zero
    # distances) and columns whose smallest gap underflows to distance 0.
    gaps = np.diff(v, axis=1)
    min_gap = np.where(gaps > 0, gaps, np.inf).min(axis=1)
    slow_feature = ~np.isfinite(weights) | (weights == 0) | (min_gap == np.inf)
    slow_feature |= _distance_from_gap(min_gap, weights) == 0

    pad = k + 1
    width = n + 2 * pad
    vp = np.concatenate([np.full((b, pad), -np.inf), v, np.full((b, pad), np.inf)], axis=1)
    # How many of the K nearest lie to the left in sorted order: the merge of two
    # sorted distance lists (exact whenever the window boundary is not a tie).
    # (Comparing 2v < a + c instead of v - a < c - v only picks the window; the
    # exact boundary test below decides whether it is right.)
    left_count = np.zeros((b, n), dtype=np.int8)
    twice = 2.0 * v
    for step in range(1, k + 1):
        left_count += twice < vp[:, pad - step:pad - step + n] + vp[:, pad + k + 1 - step:pad + k + 1 - step + n]
    pos = np.arange(n)
    start = pos - left_count                               # window [start, start + k]
    flat_vp = vp.ravel()
    at = start + (pad + width * np.arange(b))[:, None]     # flat index of the window start
    in_gap = np.maximum(v - flat_vp.take(at), flat_vp.take(at + k) - v)
    out_gap = np.minimum(v - flat_vp.take(at - 1), flat_vp.take(at + k + 1) - v)
    w = weights[:, None]
    exact = _distance_from_gap(in_gap, w) < _distance_from_gap(out_gap, w)
    exact &= ~slow_feature[:, None]

    labels_sorted = y[order]
    prefix = np.zeros((b, n + 1), dtype=np.intp)
    np.cumsum(labels_sorted, axis=1, out=prefix[:, 1:])
    at_prefix = start + ((n + 1) * np.arange(b))[:, None]
    flat_prefix = prefix.ravel()
    minority_in_window = flat_prefix.take(at_prefix + k + 1) - flat_prefix.take(at_prefix)
    row_base = (n * np.arange(b))[:, None]
    if variant == "reference":
        # The skipped element: the lowest-index sample equal to x_i, i.e. the first
        # of its run of equal values in stable sorted order.
        run_start = np.where(np.concatenate([np.ones((b, 1), bool), ~equal_next], axis=1), pos, 0)
        np.maximum.accumulate(run_start, axis=1, out=run_start)
        minority_neighbours = minority_in_window - labels_sorted.ravel().take(run_start + row_base)
        dropped = run_start
    else:
        minority_neighbours = minority_in_window - labels_sorted
        dropped = pos
    same_sorted = np.where(labels_sorted == 1, minority_neighbours, k - minority_neighbours)

    # Back to sample order, in the (n, b) layout: sample order[f, q] of feature f.
    to_sample = (order * b + np.arange(b)[:, None]).ravel()

    def to_sample_order(sorted_values, dtype):
        out = np.empty((n, b), dtype=dtype)
        out.ravel()[to_sample] = sorted_values.ravel()
        return out

    same = to_sample_order(same_sorted, np.intp)
    same_dist = other_dist = None
    if with_distances:
        same_dist_sorted = np.zeros((b, n))
        other_dist_sorted = np.zeros((b, n))
        for offset in range(k + 1):
            p = start + offset
            d = _distance_from_gap(np.abs(v.ravel().take(p + row_base) - v), w)
            counted = p != dropped
            is_same = labels_sorted.ravel().take(p + row_base) == labels_sorted
            same_dist_sorted += np.where(counted & is_same, d, 0.0)
            other_dist_sorted += np.where(counted & ~is_same, d, 0.0)
        same_dist = to_sample_order(same_dist_sorted, float)
        other_dist = to_sample_order(other_dist_sorted, float)

    sample_idx, feat_idx = np.nonzero(to_sample_order(~exact, bool))
    for lo in range(0, len(feat_idx), 4096):
        fi, si = feat_idx[lo:lo + 4096], sample_idx[lo:lo + 4096]
        gap = columns[fi] - columns[fi, si][:, None]
        dist = _distance_from_gap(gap, weights[fi][:, None])
        dist[np.arange(len(si)), si] = 0.0
        neigh = _exact_row_neighbours(dist, si, k, variant)
        cnt, sd, od = _stats_from_neighbours(neigh, dist, y[si], y, with_distances)
        same[si, fi] = cnt
        if with_distances:
            same_dist[si, fi] = sd
            other_dist[si, fi] = od
    return NeighbourStats(same, same_dist, other_dist)


def set_neighbour_stats(sq_dist: np.ndarray, y: np.ndarray, k: int,
                        variant: str = "reference",
                        with_distances: bool = False) -> NeighbourStats:
    """Neighbour statistics of every sample on a feature set (Algorithm 4).

    Parameters
    ----------
    sq_dist : ndarray, shape (n, n)
        Summed distance terms of the set (see :func:`distance_terms`).
    y, k, variant, with_distances
        As in :func:`single_feature_neighbour_stats`.

    Returns
    -------
    NeighbourStats
        Arrays of shape (n,).
    """
    n = len(y)
    dist = np.sqrt(sq_dist)
    np.fill_diagonal(dist, 0.0)
    if k + 1 < n:
        part = np.partition(dist, [k, k + 1], axis=1)
        radius, next_dist = part[:, k], part[:, k + 1]
    else:
        part = np.partition(dist, k, axis=1)
        radius, next_dist = part[:, k], np.full(n, np.inf)
    exact = radius < next_dist                          # False on NaN
    in_window = dist <= radius[:, None]
    yf = y.astype(float)
    minority_in_window = np.rint(in_window @ yf).astype(np.intp)
    if variant == "reference":
        dropped = np.argmax(dist == 0.0, axis=1)         # lowest-index zero distance
    else:
        dropped = np.arange(n)
    minority_neighbours = minority_in_window - y[dropped]
    same = np.where(y == 1, minority_neighbours, k - minority_neighbours)
    same_dist = other_dist = None
    if with_distances:
        counted = in_window.copy()
        counted[np.arange(n), dropped] = False
        is_same = y[None, :] == y[:, None]
        d = np.where(counted, dist, 0.0)
        same_dist = np.where(is_same, d, 0.0).sum(axis=1)
        other_dist = np.where(is_same, 0.0, d).sum(axis=1)
    slow = np.nonzero(~exact)[0]
    if len(slow):
        neigh = _exact_row_neighbours(dist[slow], slow, k, variant)
        cnt, sd, od = _stats_from_neighbours(neigh, dist[slow], y[slow], y, with_distances)
        same[slow] = cnt
        if with_distances:
            same_dist[slow] = sd
            other_dist[slow] = od
    return NeighbourStats(same, same_dist, other_dist)


def pairwise_distances(X_S, metric: str = "seuclidean") -> np.ndarray:
    """Distance matrix of the samples on the feature set ``X_S``, as the reference computes it.

    Parameters
    ----------
    X_S : array, shape (n, |S|)
        The samples' values on the set's features, columns in summation order.
    metric : {"seuclidean", "euclidean"}

    Returns
    -------
    ndarray, shape (n, n)
        Zero diagonal; NaN off the diagonal if a column is constant under
        "seuclidean".
    """
    X_S = np.asarray(X_S, dtype=float)
    if X_S.ndim == 1:
        X_S = X_S[:, None]
    weights = feature_weights(X_S, metric)
    sq = np.zeros((X_S.shape[0], X_S.shape[0]))
    for j in range(X_S.shape[1]):
        sq = sq + distance_terms(X_S[:, j], weights[j])
    with np.errstate(invalid="ignore"):
        dist = np.sqrt(sq)
    np.fill_diagonal(dist, 0.0)
    return dist


def nearest_neighbours(X_S, k: int, variant: str = "reference",
                       metric: str = "seuclidean") -> np.ndarray:
    """The K nearest neighbours of every sample on the feature set ``X_S`` (Definition 1).

    Parameters
    ----------
    X_S : array, shape (n, |S|)
    k : int
    variant : {"reference", "paper"}
        "reference": sorted positions 2..K+1 of each sample's stable distance
        sort; "paper": the K nearest samples other than x_i.
    metric : {"seuclidean", "euclidean"}

    Returns
    -------
    ndarray of int, shape (n, k)
        Neighbour indices, nearest first (ties to the lower index).
    """
    dist = pairwise_distances(X_S, metric)
    return _exact_row_neighbours(dist, np.arange(len(dist)), k, variant)
