"""A feature set's neighbour relation, exactly: the set's squared distances grow by one
feature's terms (the reference's floating-point sum when features arrive in column
order), and the K+1 nearest are found with a partition; ties at the boundary fall back
to the definition."""

from __future__ import annotations

import numpy as np

from fsengine._compute.budget import use_compiled
from fsengine.methods.online._codes import NO_CARD
from fsengine.methods.online._roughset.kofsd.common import (
    KNN_KERNELS,
    NO_APPROXIMATION,
    NO_PRUNE,
    SetTest,
    as_ks,
    empty_lists,
    knn_kernels,
    numpy_list_stats,
    run_set_test,
    set_kernels,
    stats_arrays,
    unpack,
    unshared,
)
from fsengine.methods.online._roughset.kofsd.reference import (
    NeighbourStats,
)


def set_neighbour_stats(
    sq_dist: np.ndarray,
    y: np.ndarray,
    k: int,
    variant: str = "reference",
    with_distances: bool = False,
) -> NeighbourStats:
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
    ks = as_ks([k])
    with np.errstate(invalid="ignore"):
        dist = np.sqrt(sq_dist)
    np.fill_diagonal(dist, 0.0)
    if not use_compiled(n * n, KNN_KERNELS):
        return unpack(
            *numpy_list_stats(dist[None], y, ks, variant == "paper", with_distances),
            with_distances,
            squeeze=True,
        )[0]
    same, same_d, other_d = stats_arrays(1, n, 1, with_distances)
    knn_kernels().set_stats_dense(
        dist,
        np.asarray(y, dtype=np.int64),
        ks,
        variant == "paper",
        with_distances,
        same,
        same_d,
        other_d,
    )
    return unpack(same, same_d, other_d, with_distances, squeeze=True)[0]


def set_plus_feature_stats(
    sq_dist: np.ndarray | None,
    block: np.ndarray,
    weights: np.ndarray,
    y: np.ndarray,
    ks,
    variant: str = "reference",
    with_distances: bool = False,
) -> list[NeighbourStats]:
    """Neighbour statistics on S + f for each column f of ``block`` (S unchanged), every
    distance computed: the plain definition the faster set paths are checked against.

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
    ks = as_ks(ks)
    sq = np.zeros((n, n)) if sq_dist is None else np.ascontiguousarray(sq_dist, dtype=float)
    same, same_d, other_d = stats_arrays(len(ks), n, c, with_distances)
    test = SetTest(
        set_arrays=(True, sq, np.empty((0, n)), np.empty(0)),
        set_finite=False,
        lists=empty_lists(n),
        prune=NO_PRUNE,
        candidates=np.ascontiguousarray(block.T, dtype=float),
        candidate_weights=np.asarray(weights, dtype=float),
        labels=np.asarray(y, dtype=np.int64),
        ks=ks,
        paper=variant == "paper",
        with_distances=with_distances,
        outputs=(same, same_d, other_d),
        card=NO_CARD,
        gamma=0.0,
        early=False,
        reject_sum=-np.inf,
        rejected=np.zeros(c, bool),
        rows=np.arange(n),
        set_cards=np.ones(n),
        n_low=-1,
        cards_out=np.empty((0, 0)),
        deps_out=np.empty(0),
        approximation=NO_APPROXIMATION,
        first=0,
        accept_above=np.inf,
        accepted=np.array([c]),
        whole=True,
        sharing=unshared(),
    )
    run_set_test(set_kernels(), test)
    return unpack(same, same_d, other_d, with_distances, squeeze=False)
