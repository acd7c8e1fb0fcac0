"""ReliefF (Kononenko 1994; Robnik-Sikonja and Kononenko 2003), as in the K-OFSD paper's
baselines (K = 7 nearest hits and misses), with neighbours at equal distance averaged so
that the order of the samples plays no part."""

from __future__ import annotations

import numpy as np

from fsengine._compute import kernels
from fsengine._compute.budget import use_compiled
from fsengine.errors import FSEngineError, is_integer_in
from fsengine.methods.rankers._basic import check_scoring_input
from fsengine.methods.rankers._common import SECTION_44
from fsengine.methods.rankers._order import canonical_row_order
from fsengine.spec import RANKER, Int, MethodSpec

#: Rows whose differences are summed together before they are added to the weights.
ROWS_SUMMED = 32


def neighbour_shares(distances: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray, float]:
    """Which of the candidates are a sample's k nearest, as the average over every order
    of the candidates at equal distance.

    Parameters
    ----------
    distances : float array (m,)
        The sample's distances to its m candidates (hits or misses of one class).
    k : int
        1 <= k <= m; the candidates at distance inf are never needed.

    Returns
    -------
    nearer : bool array (m,)
        The candidates nearer than the k-th distance: all of them are neighbours.
    tied : bool array (m,)
        The candidates at the k-th distance: ``k - nearer.sum()`` of them are.
    share : float
        The chance of each tied candidate to be one: ``(k - nearer.sum()) / tied.sum()``.
    """
    kth = np.partition(distances, k - 1)[k - 1]
    nearer = distances < kth
    tied = distances == kth
    return nearer, tied, (k - int(nearer.sum())) / int(tied.sum())


def _summed_in_order(rows: np.ndarray, p: int) -> np.ndarray:
    """The rows of a (r, p) array added one after the other from 0 (zeros when r = 0): the
    compiled kernel's order (numpy's ``sum`` may add in pairs)."""
    return np.cumsum(rows, axis=0)[-1] if len(rows) else np.zeros(p)


def relieff_score(X, y, n_neighbors: int = 7) -> np.ndarray:
    """ReliefF weight of every feature.

    Features are min-max scaled to [0, 1] (a constant feature is 0 everywhere);
    distances between samples are Manhattan distances over all scaled features. For
    every sample R (all samples are used, none drawn at random), its k nearest hits H
    (same class, R itself excluded) and, for every other class C, its k nearest misses
    M(C) are found (fewer when a class has fewer samples). Then, for each feature A,
    with diff = ``|R_A - X_A|`` on the scaled values::

        W[A] = 1/n * sum over R of ( - mean over H of diff(A, R, H)
               + sum over C != class(R) of P(C) / (1 - P(class(R)))
                 * mean over M(C) of diff(A, R, M) )

    which is Robnik-Sikonja and Kononenko's update with m = n samples, the sums over
    the k neighbours divided by the number actually found. Higher is better; the
    weight lies in [-1, 1].

    Neighbours at equal distance: when the k-th nearest distance is shared by t
    candidates of which only r < t fit in the k, the mean over the k takes every
    candidate nearer than it whole and each of the t tied ones with weight r / t
    (:func:`neighbour_shares`). That is the expectation of the mean over every order of
    the tied candidates, exactly (the mean is linear in which ones are taken), and the
    ordinary mean when there is no tie. A rule that took the first r by sample index
    would let the order of the rows decide: on counts, where whole groups of samples sit
    at one distance, the weights changed with the rows' order (issue 40). The samples are
    also visited, and their contributions added, in an order of the data's own (rows
    sorted by label and value, :func:`fsengine.methods.rankers._order.canonical_row_order`), so
    the weights are equal bit for bit under any permutation of the samples.

    Parameters
    ----------
    X : array, shape (n_samples, n_features)
    y : array of class labels
    n_neighbors : int, default 7
        k, the number of nearest hits and of nearest misses per class.

    Returns
    -------
    ndarray, shape (n_features,)
    """
    X, y, classes = check_scoring_input(X, y)
    if not is_integer_in(n_neighbors, 1):
        raise FSEngineError(
            f"ReliefF needs a positive integer number of neighbours, got {n_neighbors!r}"
        )
    order = canonical_row_order(X, y)
    X, y = X[order], y[order]
    n, p = X.shape
    low, span = X.min(axis=0), X.max(axis=0) - X.min(axis=0)
    scaled = np.where(span > 0, (X - low) / np.where(span > 0, span, 1.0), 0.0)
    compiled = use_compiled(n * n * p, "methods.rankers._relieff_kernels")
    if compiled:
        kern = kernels.load("methods.rankers._relieff_kernels")
        dist = kern.cityblock(np.ascontiguousarray(scaled.T))  # cdist(..., "cityblock")
        by_sample = np.ascontiguousarray(scaled)  # the same values, one sample a row
    else:
        dist = np.zeros((n, n))  # the same sums, feature by feature
        for column in scaled.T:
            dist += np.abs(column[:, None] - column[None, :])
    prior = {c: np.mean(y == c) for c in classes}
    weights = np.zeros(p)
    for own in classes:
        rows = np.flatnonzero(y == own)
        for other in classes:
            members = np.flatnonzero(y == other)
            members_dist = np.ascontiguousarray(dist[np.ix_(rows, members)])
            if other == own:
                members_dist[members[None, :] == rows[:, None]] = np.inf  # not itself
                k = min(n_neighbors, len(members) - 1)
                factor = -1.0
            else:
                k = min(n_neighbors, len(members))
                factor = prior[other] / (1.0 - prior[own])
            if k < 1:
                continue
            if compiled:  # the same sums in the same order, row by row
                kern.add_neighbour_diffs(
                    by_sample, rows, members, members_dist, k, factor, ROWS_SUMMED, weights
                )
                continue
            for lo in range(0, len(rows), ROWS_SUMMED):  # 32 rows summed, then added
                total = np.zeros(p)
                for b in range(lo, min(lo + ROWS_SUMMED, len(rows))):
                    nearer, tied, share = neighbour_shares(members_dist[b], k)
                    sample = scaled[rows[b]]
                    near_sum = _summed_in_order(np.abs(sample - scaled[members[nearer]]), p)
                    tied_sum = _summed_in_order(np.abs(sample - scaled[members[tied]]), p)
                    mean = (near_sum + share * tied_sum) / k
                    total = mean if b == lo else total + mean
                weights += factor * total
    return weights / n


#: ReliefF's specification (the registry: :mod:`fsengine.methods.registry`).
RELIEFF = MethodSpec(
    "relieff",
    "ReliefF",
    "Kononenko 1994; Robnik-Sikonja and Kononenko, Machine Learning 53 (2003)" + SECTION_44,
    RANKER,
    "ReliefF weight: nearer hits than misses score higher",
    parameters={
        "n_neighbors": Int(
            7,
            "nearest hits and misses per sample",
            label="Neighbours",
            low=1,
            flag="neighbors",
            ui_high=15,
            source="the K-OFSD paper's setting",
        )
    },
)
