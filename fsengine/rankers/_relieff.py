"""ReliefF (Kononenko 1994; Robnik-Sikonja and Kononenko 2003), as in the K-OFSD paper's
baselines (K = 7 nearest hits and misses)."""

from __future__ import annotations

import numpy as np

from fsengine._compute import kernels
from fsengine._compute.budget import use_compiled
from fsengine.errors import FSEngineError, is_integer_in
from fsengine.rankers._basic import check_scoring_input
from fsengine.rankers._common import SECTION_44
from fsengine.spec import RANKER, Int, MethodSpec

#: Rows whose differences are summed together before they are added to the weights.
ROWS_SUMMED = 32


def relieff_score(X, y, n_neighbors: int = 7) -> np.ndarray:
    """ReliefF weight of every feature.

    Features are min-max scaled to [0, 1] (a constant feature is 0 everywhere);
    distances between samples are Manhattan distances over all scaled features. For
    every sample R (all samples are used, none drawn at random), its k nearest hits H
    (same class) and, for every other class C, its k nearest misses M(C) are found
    (ties to the lower sample index; fewer when a class has fewer samples). Then, for
    each feature A, with diff = |R_A - X_A| on the scaled values::

        W[A] = 1/n * sum over R of ( - mean over H of diff(A, R, H)
               + sum over C != class(R) of P(C) / (1 - P(class(R)))
                 * mean over M(C) of diff(A, R, M) )

    which is Robnik-Sikonja and Kononenko's update with m = n samples, the sums over
    the k neighbours divided by the number actually found. Higher is better; the
    weight lies in [-1, 1].

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
    n, p = X.shape
    low, span = X.min(axis=0), X.max(axis=0) - X.min(axis=0)
    scaled = np.where(span > 0, (X - low) / np.where(span > 0, span, 1.0), 0.0)
    compiled = use_compiled(n * n * p, "rankers._relieff_kernels")
    if compiled:
        kern = kernels.load("rankers._relieff_kernels")
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
            if other == own:
                members_dist = dist[np.ix_(rows, members)]
                members_dist[members[None, :] == rows[:, None]] = np.inf  # not itself
                k = min(n_neighbors, len(members) - 1)
                factor = -1.0
            else:
                members_dist = dist[np.ix_(rows, members)]
                k = min(n_neighbors, len(members))
                factor = prior[other] / (1.0 - prior[own])
            if k < 1:
                continue
            nearest = members[np.argsort(members_dist, axis=1, kind="stable")[:, :k]]
            if compiled:  # the same sums in the same order, without the (32, k, p) arrays
                kern.add_neighbour_diffs(by_sample, rows, nearest, factor, ROWS_SUMMED, weights)
                continue
            for lo in range(0, len(rows), ROWS_SUMMED):  # bounded memory: 32 x k x p
                block = slice(lo, lo + ROWS_SUMMED)
                diffs = np.abs(scaled[rows[block]][:, None, :] - scaled[nearest[block]])
                weights += factor * diffs.mean(axis=1).sum(axis=0)
    return weights / n


#: ReliefF's specification (the registry: :mod:`fsengine.methods`).
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
