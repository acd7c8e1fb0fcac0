"""One feature's neighbour relation, exactly: the K+1 nearest samples of a sample are a
window around it in the column's sorted order (ties at the window's boundary fall back to
the definition), for one K or for every K of a sweep at once."""

from __future__ import annotations

import numpy as np

from fsengine._compute.budget import use_compiled
from fsengine._compute.parallel import run_chunks
from fsengine._compute.sparse import nonzero_order
from fsengine.methods.online._roughset.kofsd.common import (
    KNN_KERNELS,
    as_ks,
    knn_kernels,
    numpy_dependencies,
    numpy_distances,
    numpy_list_stats,
    stats_arrays,
    unpack,
)
from fsengine.methods.online._roughset.kofsd.reference import (
    NeighbourStats,
)

#: Values of a block's columns sorted at once on one thread: their orders, runs and
#: non-zero values take a few MB for each group of columns, not arrays the size of the
#: whole block (1.2 times faster at 50,000 cells, the memory touched far less).
SCRATCH_VALUES = 1 << 17


def single_feature_neighbour_stats_for_ks(
    block: np.ndarray,
    y: np.ndarray,
    ks,
    weights: np.ndarray,
    variant: str = "reference",
    with_distances: bool = False,
) -> list[NeighbourStats]:
    """Neighbour statistics of every sample on each single feature, for several K at once.

    One stable sort per column serves every K: the first K+1 samples of a sample's
    stable distance order for a smaller K are a prefix of those for the largest K.
    Exact under ties (see :mod:`fsengine.methods.online._roughset.kofsd._knn_kernels`): O(N log
    N + N K) per feature, no N x N work.

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
    ks = as_ks(ks)
    columns = np.ascontiguousarray(block.T, dtype=float)  # (b, n): one row per feature
    if not use_compiled(b * n * n, KNN_KERNELS):
        return unpack(
            *numpy_list_stats(
                numpy_distances(columns, np.asarray(weights, float)),
                y,
                ks,
                variant == "paper",
                with_distances,
            ),
            with_distances,
            squeeze=False,
        )
    order = np.argsort(columns, axis=1)  # the kernel orders the ties
    same, same_d, other_d = stats_arrays(len(ks), n, b, with_distances)
    knn_kernels().single_feature_stats(
        columns,
        order.astype(np.int64, copy=False),
        np.asarray(y, dtype=np.int64),
        np.asarray(weights, dtype=float),
        ks,
        variant == "paper",
        with_distances,
        same,
        same_d,
        other_d,
    )
    return unpack(same, same_d, other_d, with_distances, squeeze=False)


def single_feature_counts(
    block: np.ndarray,
    y: np.ndarray,
    ks,
    weights: np.ndarray,
    variant: str = "reference",
    card: int | None = None,
    gamma: float = 0.0,
) -> tuple[np.ndarray, np.ndarray | None]:
    """Each sample's number of same-label neighbours on each single feature, for every K,
    and optionally each feature's dependency.

    What :func:`single_feature_neighbour_stats_for_ks` gives without distances, as one
    array: one sort per column, then an O(N) sliding window per K (see
    :mod:`fsengine.methods.online._roughset.kofsd._knn_kernels`). The columns are shared among
    the kernel threads (:func:`fsengine._compute.parallel.run_chunks`); the results do not depend on
    it.

    Parameters
    ----------
    block, y, ks, weights, variant
        As in :func:`single_feature_neighbour_stats_for_ks`.
    card : int, optional
        A card code of ``_codes.CARD_CODES``: also return the dependencies.
    gamma : float
        Card_Weight's threshold.

    Returns
    -------
    same : ndarray of int, shape (len(ks), b, n)
        ``[t, f, i]``: sample i's count on feature f for ``ks[t]``.
    deps : ndarray, shape (len(ks), b), or None
        The card values summed in sample order, divided by n (Algorithm 2).
    """
    n, b = block.shape
    ks = as_ks(ks)
    labels = np.asarray(y, dtype=np.int64)
    weights = np.asarray(weights, dtype=float)
    if not use_compiled(b * n * n, KNN_KERNELS):
        columns = np.ascontiguousarray(block.T, dtype=float)
        same = numpy_list_stats(
            numpy_distances(columns, weights), labels, ks, variant == "paper", False
        )[0]
        return same, (None if card is None else numpy_dependencies(same, labels, ks, card, gamma))
    kern = knn_kernels()
    same = stats_arrays(len(ks), n, b, False)[0]
    deps = None if card is None else np.empty((len(ks), b))

    def chunk(lo: int, hi: int) -> None:
        for start in range(lo, hi, step):  # a few columns at a time (SCRATCH_VALUES)
            stop = min(start + step, hi)
            columns = np.ascontiguousarray(block[:, start:stop].T, dtype=float)
            part = same[:, start:stop]
            copied = not part.flags.c_contiguous  # several K: the group's own, copied in
            if copied:
                part = np.empty((len(ks), stop - start, n), dtype=np.int64)
            values, rows, counts, by_value = nonzero_order(columns, axis=1)
            kern.sparse_feature_counts(
                columns, values, rows, by_value, counts, labels, weights[start:stop], ks,
                variant == "paper", part,
            )  # fmt: skip
            if copied:
                same[:, start:stop] = part
            if deps is not None:
                found = np.empty((len(ks), stop - start))
                kern.dependencies_from_counts(part, labels, ks, card, gamma, found)
                deps[:, start:stop] = found

    step = max(1, SCRATCH_VALUES // n)
    run_chunks(chunk, b, min_chunk=max(1, 20000 // n))
    return same, deps


def single_feature_neighbour_stats(
    block: np.ndarray,
    y: np.ndarray,
    k: int,
    weights: np.ndarray,
    variant: str = "reference",
    with_distances: bool = False,
) -> NeighbourStats:
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
    return single_feature_neighbour_stats_for_ks(block, y, [k], weights, variant, with_distances)[0]
