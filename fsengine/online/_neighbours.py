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


def _kernels():
    """The compiled kernels, imported on first use (numba loads in about 0.4 s)."""
    from fsengine.online import _knn_kernels
    return _knn_kernels


def _stats_arrays(n_k: int, n: int, b: int, with_distances: bool):
    """The kernels' outputs, one row per feature: shape (n_k, b, n)."""
    same = np.empty((n_k, b, n), dtype=np.int64)
    shape = (n_k, b, n) if with_distances else (1, 1, 1)
    return same, np.zeros(shape), np.zeros(shape)


def _unpack(same, same_d, other_d, with_distances: bool, squeeze: bool) -> list[NeighbourStats]:
    """One NeighbourStats per K, arrays (n, b) in sample-major order, or (n,) for a set."""
    def pick(a, t):
        return a[t, 0] if squeeze else np.ascontiguousarray(a[t].T)

    return [NeighbourStats(pick(same, t), pick(same_d, t) if with_distances else None,
                           pick(other_d, t) if with_distances else None)
            for t in range(same.shape[0])]


def _checked_ks(ks, n: int) -> np.ndarray:
    ks = np.atleast_1d(np.asarray(ks, dtype=np.int64))
    if ks.size == 0 or ks.min() < 1 or ks.max() > n - 1:
        raise ValueError(f"every K must be in 1..{n - 1}, got {ks.tolist()}")
    return ks


def single_feature_neighbour_stats_for_ks(block: np.ndarray, y: np.ndarray, ks, weights: np.ndarray,
                                          variant: str = "reference",
                                          with_distances: bool = False) -> list[NeighbourStats]:
    """Neighbour statistics of every sample on each single feature, for several K at once.

    One stable sort per column serves every K: the first K+1 samples of a sample's
    stable distance order for a smaller K are a prefix of those for the largest K.
    Exact under ties (see :mod:`fsengine.online._knn_kernels`): O(N log N + N K) per
    feature, no N x N work.

    Parameters
    ----------
    block : ndarray, shape (n, b)
        b features (columns) of n finite sample values.
    y : ndarray of int, shape (n,)
        Binary labels, minority = 1.
    ks : sequence of int
        Values of K, each 1 <= K <= n - 1.
    weights : ndarray, shape (b,)
        From :func:`feature_weights`.
    variant : {"reference", "paper"}
    with_distances : bool
        Also return same-/other-label distance sums (Card_Distance).

    Returns
    -------
    list of NeighbourStats
        One per K, arrays of shape (n, b), samples in their original order.
    """
    n, b = block.shape
    ks = _checked_ks(ks, n)
    columns = np.ascontiguousarray(block.T, dtype=float)     # (b, n): one row per feature
    order = np.argsort(columns, axis=1)                      # the kernel orders the ties
    same, same_d, other_d = _stats_arrays(len(ks), n, b, with_distances)
    _kernels().single_feature_stats(columns, order.astype(np.int64, copy=False),
                                    np.asarray(y, dtype=np.int64),
                                    np.asarray(weights, dtype=float), ks, variant == "paper",
                                    with_distances, same, same_d, other_d)
    return _unpack(same, same_d, other_d, with_distances, squeeze=False)


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
    return single_feature_neighbour_stats_for_ks(block, y, [k], weights, variant,
                                                 with_distances)[0]


def set_neighbour_stats(sq_dist: np.ndarray, y: np.ndarray, k: int,
                        variant: str = "reference",
                        with_distances: bool = False) -> NeighbourStats:
    """Neighbour statistics of every sample on a feature set (Algorithm 4), from its
    summed distance terms.

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
    ks = _checked_ks([k], n)
    with np.errstate(invalid="ignore"):
        dist = np.sqrt(sq_dist)
    np.fill_diagonal(dist, 0.0)
    same, same_d, other_d = _stats_arrays(1, n, 1, with_distances)
    _kernels().set_stats_dense(dist, np.asarray(y, dtype=np.int64), ks, variant == "paper",
                               with_distances, same, same_d, other_d)
    return _unpack(same, same_d, other_d, with_distances, squeeze=True)[0]


def set_plus_feature_stats(sq_dist: np.ndarray | None, block: np.ndarray, weights: np.ndarray,
                           y: np.ndarray, ks, variant: str = "reference",
                           with_distances: bool = False) -> list[NeighbourStats]:
    """Neighbour statistics on S + f for each column f of ``block`` (S unchanged).

    The distance on S + f is ``sqrt(sq_dist + (w * d) * d)``: the set's summed terms, then
    the candidate's, as the reference sums a set's columns in order.

    Parameters
    ----------
    sq_dist : ndarray, shape (n, n), or None
        Summed distance terms of S (None: S is empty).
    block : ndarray, shape (n, c)
        Candidate features.
    weights : ndarray, shape (c,)
        Their distance weights.
    y, ks, variant, with_distances
        As in :func:`single_feature_neighbour_stats_for_ks`.

    Returns
    -------
    list of NeighbourStats
        One per K, arrays of shape (n, c).
    """
    n, c = block.shape
    ks = _checked_ks(ks, n)
    sq = np.zeros((n, n)) if sq_dist is None else np.ascontiguousarray(sq_dist, dtype=float)
    same, same_d, other_d = _stats_arrays(len(ks), n, c, with_distances)
    _kernels().set_plus_feature_stats_dense(
        sq, np.ascontiguousarray(block.T, dtype=float), np.asarray(weights, dtype=float),
        np.asarray(y, dtype=np.int64), ks, variant == "paper", with_distances, same, same_d,
        other_d)
    return _unpack(same, same_d, other_d, with_distances, squeeze=False)


#: Samples listed per sample for the set tests (see :class:`DenseSetTerms`): at first,
#: and at least 2 (K + 1); at most a SHORTLIST_MAX_SHARE-th of the samples (else the
#: set tests score whole rows).
SHORTLIST_MIN = 48
SHORTLIST_MAX_SHARE = 8
#: When more than this fraction of rows needs a full scan (about 2600 times the cost of
#: one listed sample), the next lists are twice as long; below a tenth of it, half as long; above USELESS_FRACTION (a set of one or two features
#: with many equal values) the set's remaining tests skip the lists.
FULL_ROW_FRACTION = 0.2
USELESS_FRACTION = 0.5


class DenseSetTerms:
    """The selected set's summed distance terms (N x N) and the shortlists of its set tests.

    A set test (the neighbours on S + f) scores, for each sample, only a short list of
    samples of small summed terms on S; every other sample is at least as far as the
    smallest value left out, so when that bound is beyond the K+1-th distance found the
    result is exact, else the whole row is scored
    (:func:`_knn_kernels.set_plus_feature_stats_short`). The lists are made at the first
    test after a change of S, from the previous ones when S grew; their length adapts to
    how often a row needs the full scan (few distinct distances, as on a set of one or two integer-valued features,
    need long lists).

    Parameters
    ----------
    n : int
        Number of samples.
    """

    def __init__(self, n: int):
        self.n = n
        self.sq: np.ndarray | None = None
        self._length = SHORTLIST_MIN
        self._lists: tuple | None = None     # (short_idx, short_sq, bound)
        self._stale = True                   # the lists are not those of the current S
        self._useless = False                # the lists do not pay on the current S
        self.row_order: np.ndarray | None = None
        #: Diagnostics: set tests made from lists, and their rows scored in full.
        self.list_tests = 0
        self.list_full_rows = 0

    def replace(self, values: np.ndarray, weight: float) -> None:
        """S becomes the one feature ``values`` (distance weight ``weight``)."""
        if self.sq is None:
            self.sq = np.empty((self.n, self.n))
        _kernels().add_terms(self.sq, np.ascontiguousarray(values, dtype=float), float(weight), True)
        self._lists, self._stale, self._useless = None, True, False

    def add(self, values: np.ndarray, weight: float) -> None:
        """Add a feature to S: its terms are added to the set's sums (the reference's order).

        Current lists are remade in the same pass (S only grew, so they are good hints)."""
        values = np.ascontiguousarray(values, dtype=float)
        if self.sq is None:
            self.replace(values, weight)
        elif (self._lists is not None and not self._stale
              and self._lists[0].shape[1] == self._length):
            _kernels().build_shortlists(self.sq, True, *self._lists, values, float(weight))
        else:
            _kernels().add_terms(self.sq, values, float(weight), False)
            self._stale = True               # the lists stay as hints: S only grew
        self._useless = False

    def _row_order(self, y: np.ndarray) -> np.ndarray:
        """Samples in the order of the set tests: ``row_order`` if the caller set one, else
        the minority first (their cards are the likeliest to be below 1, which lets an
        early rejection come sooner). Any order gives the same statistics."""
        if self.row_order is None or len(self.row_order) != len(y):
            self.row_order = np.argsort(-np.asarray(y), kind="stable").astype(np.int64)
        return self.row_order

    def _current_lists(self):
        """The shortlists of the current S, made from the previous ones when they can serve."""
        length = self._length
        if self._stale or self._lists is None or self._lists[0].shape[1] != length:
            hints = self._lists is not None and self._lists[0].shape[1] == length
            if not hints:
                self._lists = (np.empty((self.n, length), dtype=np.int64),
                               np.empty((self.n, length)), np.empty(self.n))
            _kernels().build_shortlists(self.sq, hints, *self._lists, np.zeros(0), 0.0)
            self._stale = False
        return self._lists

    def stats_with(self, block: np.ndarray, weights: np.ndarray, y: np.ndarray, ks,
                   variant: str = "reference", with_distances: bool = False,
                   reject: tuple[str, float, float] | None = None
                   ) -> tuple[list[NeighbourStats], np.ndarray]:
        """Neighbour statistics on S + f for each column f of ``block`` (S unchanged).

        Equal to :func:`set_plus_feature_stats` on ``self.sq``, bit for bit.

        Parameters
        ----------
        block, weights, y, ks, variant, with_distances
            As in :func:`set_plus_feature_stats`.
        reject : (card name, gamma, sum), optional
            Early rejection: a candidate is dropped as soon as its card values (card
            "imbalanced", "consistency" or "weight", for the first K) can no longer add up
            to ``sum``; its statistics are then incomplete.

        Returns
        -------
        (list of NeighbourStats, ndarray of bool)
            One NeighbourStats per K, arrays of shape (n, c); which candidates were
            rejected early.
        """
        n, c = block.shape
        ks = _checked_ks(ks, n)
        kern = _kernels()
        card, gamma, reject_sum = kern.NO_CARD, 0.0, -np.inf
        if reject is not None and reject[0] in kern.CARD_CODES:
            card, gamma, reject_sum = kern.CARD_CODES[reject[0]], float(reject[1]), float(reject[2])
        self._length = max(self._length, 2 * (int(ks.max()) + 1))
        use_lists = not (self.sq is None or self._useless
                         or self._length > min(n // SHORTLIST_MAX_SHARE, n - 2))
        lists = (self._current_lists() if use_lists
                 else (np.empty((n, 0), np.int64), np.empty((n, 0)), np.full(n, np.nan)))
        sq = np.zeros((n, n)) if self.sq is None else self.sq
        same, same_d, other_d = _stats_arrays(len(ks), n, c, with_distances)
        rejected = np.zeros(c, dtype=bool)
        full, done = kern.set_plus_feature_stats_short(
            sq, *lists, np.ascontiguousarray(block.T, dtype=float),
            np.asarray(weights, dtype=float), np.asarray(y, dtype=np.int64), ks,
            variant == "paper", with_distances, same, same_d, other_d, card, gamma, reject_sum,
            rejected, self._row_order(y))
        if use_lists:
            self.list_tests += 1
            self.list_full_rows += full
            if full > USELESS_FRACTION * done:
                self._useless = True
            elif (full > FULL_ROW_FRACTION * done
                  and 2 * self._length <= min(n // SHORTLIST_MAX_SHARE, n - 2)):
                self._length *= 2                      # longer lists from the next change on
            elif full < FULL_ROW_FRACTION / 10 * done and self._length // 2 >= SHORTLIST_MIN:
                self._length //= 2
        return _unpack(same, same_d, other_d, with_distances, squeeze=False), rejected


def set_neighbour_stats_from_columns(columns: np.ndarray, weights: np.ndarray, y: np.ndarray,
                                     k: int, variant: str = "reference",
                                     with_distances: bool = False,
                                     rows_per_chunk: int = 256) -> NeighbourStats:
    """Neighbour statistics on a feature set without an N x N matrix (Algorithm 4).

    The set's distances are computed as the reference does (terms ``(w * d) * d`` added
    in the set's order); each sample's K+1 first are found by an exact pruned scan in
    the sorted order of one of the set's features (the one with most distinct values):
    a set distance is never below one of its feature's distances, in floating point too.
    Memory O(N (K + |S|)).

    Parameters
    ----------
    columns : ndarray, shape (|S|, n)
        The set's features, one row each, in summation order.
    weights : ndarray, shape (|S|,)
        Their distance weights.
    y, k, variant, with_distances
        As in :func:`single_feature_neighbour_stats`.
    rows_per_chunk : int
        Query rows per kernel call where every distance must be computed (a set with a
        weight that is not a positive finite number).

    Returns
    -------
    NeighbourStats
        Arrays of shape (n,).
    """
    kern = _kernels()
    columns = np.ascontiguousarray(columns, dtype=float)
    weights = np.asarray(weights, dtype=float)
    labels = np.asarray(y, dtype=np.int64)
    n = columns.shape[1]
    ks = _checked_ks([k], n)
    paper = variant == "paper"
    same, same_d, other_d = _stats_arrays(1, n, 1, with_distances)
    usable = (weights > 0) & (weights < np.inf)
    constant = np.ptp(columns, axis=1) == 0
    if (constant & (weights == np.inf)).any():
        # A constant feature under 'seuclidean' makes every distance NaN, as for that
        # feature alone: the neighbours are the lowest sample indices.
        j = int(np.flatnonzero(constant & (weights == np.inf))[0])
        alone = single_feature_neighbour_stats(columns[j][:, None], y, k, weights[j:j + 1],
                                               variant, with_distances)
        return NeighbourStats(*(None if a is None else a[:, 0] for a in
                                (alone.same_count, alone.same_distance, alone.other_distance)))
    if usable.all():
        distinct = [np.count_nonzero(np.diff(np.sort(c))) for c in columns]
        prune = int(np.argmax(distinct))
        sorted_idx = np.argsort(columns[prune], kind="stable")
        position = np.empty(n, dtype=np.int64)
        position[sorted_idx] = np.arange(n)
        kern.set_stats_scan(columns, weights, labels, prune, sorted_idx.astype(np.int64),
                            position, np.arange(n, dtype=np.int64), ks, paper, with_distances,
                            same, same_d, other_d)
    else:
        # Weights of 0 or infinity (variance overflow or underflow): every distance.
        everyone = np.arange(n, dtype=np.int64)
        for lo in range(0, n, rows_per_chunk):
            rows = everyone[lo:lo + rows_per_chunk]
            cand = np.broadcast_to(everyone, (len(rows), n))
            kern.set_stats_candidates(columns, weights, labels, rows, np.ascontiguousarray(cand),
                                      np.full(len(rows), n, dtype=np.int64), ks, paper,
                                      with_distances, same, same_d, other_d)
    return _unpack(same, same_d, other_d, with_distances, squeeze=True)[0]


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
