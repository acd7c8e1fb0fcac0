"""What the neighbour paths share: loading their kernels, the arrays the kernels fill,
the numpy fallbacks of the kernels, and the neighbour lists' helpers."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from fsengine._compute import kernels
from fsengine.methods.online._codes import CARD_CONSISTENCY, CARD_IMBALANCED
from fsengine.methods.online._roughset.kofsd.reference import (
    KNN_KERNELS,
    SET_KERNELS,
    NeighbourStats,
)


def knn_kernels():
    """The single-feature and set-statistics kernels (:mod:`._knn_kernels`)."""
    return kernels.load(KNN_KERNELS)


def set_kernels():
    """The set-test kernels (:mod:`._set_kernels`)."""
    return kernels.load(SET_KERNELS)


def stats_arrays(n_k: int, n: int, b: int, with_distances: bool):
    """The kernels' outputs, one row per feature: shape (n_k, b, n)."""
    same = np.empty((n_k, b, n), dtype=np.int64)
    shape = (n_k, b, n) if with_distances else (1, 1, 1)
    return same, np.zeros(shape), np.zeros(shape)


def unpack(same, same_d, other_d, with_distances: bool, squeeze: bool) -> list[NeighbourStats]:
    """One NeighbourStats per K, arrays (n, b) in sample-major order, or (n,) for a set."""

    def pick(a, t):
        return a[t, 0] if squeeze else np.ascontiguousarray(a[t].T)

    return [
        NeighbourStats(
            pick(same, t),
            pick(same_d, t) if with_distances else None,
            pick(other_d, t) if with_distances else None,
        )
        for t in range(same.shape[0])
    ]


def as_ks(ks) -> np.ndarray:
    """The values of K as the kernels take them (int64, at least one). Trusted: the
    selector's start checked each against its samples (1 <= K <= n - 1,
    :class:`fsengine.spec.Int`)."""
    return np.atleast_1d(np.asarray(ks, dtype=np.int64))


def numpy_list_stats(
    dist: np.ndarray, y: np.ndarray, ks: np.ndarray, paper: bool, with_distances: bool
):
    """The kernels' outputs by the definition (numpy): each row of ``dist`` (B, n, n,
    zero diagonal) sorted stably (ties to the lower index, NaN last), its M = max(K) + 1
    first taken, and the counts and distance sums of :func:`_knn_kernels._write_stats`
    (sums added one neighbour at a time, in list order). Memory O(B N^2): for small
    inputs, before the compiled kernels are loaded (:mod:`fsengine._compute.budget`)."""
    B, n, _ = dist.shape
    y = np.asarray(y, dtype=np.int64)
    m = int(ks.max()) + 1
    order = np.argsort(dist, axis=2, kind="stable")[:, :, :m]
    lab = y[order]
    minority = (y == 1)[None, :]
    same, same_d, other_d = stats_arrays(len(ks), n, B, with_distances)
    if with_distances:
        d = np.take_along_axis(dist, order, axis=2)
        zero = np.zeros((B, n, 1))
        cum1 = np.concatenate([zero, np.cumsum(np.where(lab == 1, d, 0.0), axis=2)], axis=2)
        cum0 = np.concatenate([zero, np.cumsum(np.where(lab == 1, 0.0, d), axis=2)], axis=2)
    for t, k in enumerate(ks.tolist()):
        if not paper:
            n_min = lab[:, :, 1 : k + 1].sum(axis=2)
            end = np.full((B, n), k + 1)
        else:
            inside = (order[:, :, : k + 1] == np.arange(n)[None, :, None]).any(axis=2)
            n_min = np.where(
                inside, lab[:, :, : k + 1].sum(axis=2) - y[None, :], lab[:, :, :k].sum(axis=2)
            )
            end = np.where(inside, k + 1, k)
        same[t] = np.where(minority, n_min, k - n_min)
        if with_distances:
            at1 = np.take_along_axis(cum1, end[:, :, None], axis=2)[:, :, 0]
            at0 = np.take_along_axis(cum0, end[:, :, None], axis=2)[:, :, 0]
            same_d[t] = np.where(minority, at1, at0)
            other_d[t] = np.where(minority, at0, at1)
    return same, same_d, other_d


def numpy_distances(columns: np.ndarray, weights: np.ndarray, sq: np.ndarray | None = None):
    """``sqrt(sq + (w * d) * d)`` for every pair of samples on each row of ``columns``
    (B, n), d = x_i - x_t, with a zero diagonal: (B, n, n)."""
    d = columns[:, :, None] - columns[:, None, :]
    with np.errstate(invalid="ignore", over="ignore"):
        terms = (weights[:, None, None] * d) * d
        dist = np.sqrt(terms if sq is None else sq[None, :, :] + terms)
    idx = np.arange(columns.shape[1])
    dist[:, idx, idx] = 0.0
    return dist


def numpy_cards(same: np.ndarray, y: np.ndarray, k: int, card: int, gamma: float) -> np.ndarray:
    """The card values (code ``card``) of same-label counts ``same`` (b, n), as the kernels'
    ``card_value`` gives them."""
    fraction = same / k
    if card == CARD_IMBALANCED:
        return np.where((np.asarray(y) == 1)[None, :], fraction, (same == k).astype(float))
    if card == CARD_CONSISTENCY:
        return (same == k).astype(float)
    return np.where(fraction > gamma, fraction, 0.0)  # Card_Weight


def numpy_dependencies(same: np.ndarray, y: np.ndarray, ks, card: int, gamma: float) -> np.ndarray:
    """``_knn_kernels.dependencies_from_counts`` in numpy: the card values (code ``card``)
    summed in sample order, divided by n. Returns (len(ks), b)."""
    n_k, b, n = same.shape
    deps = np.empty((n_k, b))
    for t, k in enumerate(np.asarray(ks).tolist()):
        values = numpy_cards(same[t], y, k, card, gamma)
        total = np.zeros(b)
        for i in range(n):
            total += values[:, i]
        deps[t] = total / n
    return deps


def unshared() -> tuple:
    """:attr:`SetTest.sharing` for a test in one part: progress shared with no other
    part, part 0, no candidate order."""
    return np.zeros((1, 2)), 0, np.empty((0, 0), dtype=np.int64)


class SetTest(NamedTuple):
    """One call of the set-test kernel (:func:`_set_kernels.set_tests_shared`: Algorithm 2
    on S + f for each candidate f), its 43 arguments by name and in groups.

    :func:`run_set_test` flattens it, in the kernel's order, and is the only caller of the
    kernel. Each field is the kernel's argument of that name, or the group of arguments
    it names, documented at :func:`_set_kernels.set_tests_shared`.

    Attributes
    ----------
    set_arrays : tuple
        S: (dense, sq, cols, col_w).
    set_finite : bool
    lists : tuple
        The shortlists on S: (short_idx, short_sq, short_d, short_len, bound)
        (:func:`empty_lists`: none).
    prune : tuple
        A feature of S to walk in its order: (prune_x, prune_w, prune_order, prune_pos)
        (:data:`NO_PRUNE`: none).
    candidates, candidate_weights : ndarray
        ``cand`` (c, n), one candidate a row, and ``cand_w`` (c,).
    labels, ks : ndarray of int64
        ``lab`` and the K values.
    paper, with_distances : bool
    outputs : tuple
        (same, same_d, other_d), written (:func:`stats_arrays`).
    card : int
    gamma : float
    early : bool
    reject_sum : float
    rejected : ndarray of bool
    rows : ndarray of int64
    set_cards : ndarray
    n_low : int
    cards_out, deps_out : ndarray
    approximation : tuple
        (zt, z, znorm) (:data:`NO_APPROXIMATION`: exact terms only).
    first : int
    accept_above : float
    accepted : ndarray of int64
    whole : bool
    sharing : tuple
        (progress, part, cand_order) (:func:`unshared`: one part).
    """

    set_arrays: tuple
    set_finite: bool
    lists: tuple
    prune: tuple
    candidates: np.ndarray | None
    candidate_weights: np.ndarray
    labels: np.ndarray
    ks: np.ndarray
    paper: bool
    with_distances: bool
    outputs: tuple
    card: int
    gamma: float
    early: bool
    reject_sum: float
    rejected: np.ndarray
    rows: np.ndarray
    set_cards: np.ndarray
    n_low: int
    cards_out: np.ndarray
    deps_out: np.ndarray
    approximation: tuple
    first: int
    accept_above: float
    accepted: np.ndarray
    whole: bool
    sharing: tuple


def run_set_test(kernels, test: SetTest) -> tuple[int, int]:
    """Call the set-test kernel of ``kernels`` (the loaded family) on ``test``: the one
    place its arguments are flattened.

    Returns
    -------
    (int, int)
        The kernel's counts: rows its shortlists did not settle, rows tested.
    """
    return kernels.set_tests_shared(
        *test.set_arrays,
        test.set_finite,
        *test.lists,
        *test.prune,
        test.candidates,
        test.candidate_weights,
        test.labels,
        test.ks,
        test.paper,
        test.with_distances,
        *test.outputs,
        test.card,
        test.gamma,
        test.early,
        test.reject_sum,
        test.rejected,
        test.rows,
        test.set_cards,
        test.n_low,
        test.cards_out,
        test.deps_out,
        *test.approximation,
        test.first,
        test.accept_above,
        test.accepted,
        test.whole,
        *test.sharing,
    )


def empty_lists(n: int, length: int = 0) -> tuple:
    """Shortlists of ``length`` for ``n`` samples, none made yet: (idx, sq, d, len, bound),
    every bound NaN (no sample is settled from a list)."""
    return (
        np.empty((n, length), dtype=np.int64),
        np.empty((n, length)),
        np.empty((n, length)),
        np.zeros(n, np.int64),
        np.full(n, np.nan),
    )


def resized_lists(arrays: tuple, below: np.ndarray, length: int) -> tuple:
    """Shortlists of another width holding the same lists, cut to ``length`` where longer
    (a cut list's bound becomes at most the first dropped sample's key: keys never exceed
    terms and grow along a list), and the counts of listed samples below their bounds."""
    idx, sq, d, lengths, bound = arrays
    n, width = idx.shape
    new = empty_lists(n, length)
    keep = min(width, length)
    for old_part, new_part in zip((idx, sq, d), new[:3]):
        new_part[:, :keep] = old_part[:, :keep]
    new[3][:] = np.minimum(lengths, length)
    new[4][:] = bound
    cut = lengths > length
    if not cut.any():
        return new, below
    root = d[cut, length]  # the first dropped key's root: its square may round up
    safe = (root > 1e-140) & (root < 1e150)
    edge = np.where(safe, root * root * (1.0 - 1e-14), 0.0)
    new[4][cut] = np.minimum(bound[cut], edge)
    below = below.copy()
    listed = np.arange(length)[None, :] < new[3][cut][:, None]
    below[cut] = ((new[1][cut] < new[4][cut][:, None]) & listed).sum(axis=1)
    return new, below


def nearer_than_other_label(values: np.ndarray, order: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Per sample, how many samples are strictly nearer to it on one feature (``values``,
    ascending ``order``) than its nearest sample of the other label (n if none)."""
    n = len(values)
    v = values[order]
    labels = np.asarray(y)[order]
    positions = np.arange(n)
    gap = np.full(n, np.inf)
    for label in (0, 1):
        other = labels != label
        # The nearest sample of the other label on each side of every sorted position.
        left = np.maximum.accumulate(np.where(other, positions, -1))
        right = np.minimum.accumulate(np.where(other, positions, n)[::-1])[::-1]
        mine = labels == label
        below = np.where(left >= 0, v - v[np.maximum(left, 0)], np.inf)
        above = np.where(right < n, v[np.minimum(right, n - 1)] - v, np.inf)
        gap[mine] = np.minimum(below, above)[mine]
    inside = np.searchsorted(v, v + gap, "left") - np.searchsorted(v, v - gap, "right")
    counts = np.empty(n, dtype=np.int64)
    counts[order] = np.where(np.isfinite(gap), np.maximum(inside - 1, 0), n)
    return counts


NO_PRUNE = (np.zeros(1), 0.0, np.zeros(0, np.int64), np.zeros(0, np.int64))


NO_APPROXIMATION = (np.empty((0, 0)), np.empty((0, 0)), np.empty(0))
