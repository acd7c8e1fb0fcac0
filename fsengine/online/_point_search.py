"""The candidates of a point's neighbour list, for the selectors that work on the distinct
points of a set (K-OFSD's set tests on counts, the order-invariant tie rule).

A point's list (its samples' nearest samples up to a cut) is sought among its nearest
points found by a k-d tree (scipy's ``cKDTree``, on the coordinates scaled by the roots
of the distance weights). The tree's distances are not the kernels' arithmetic (the
authors' ``pdist`` order of summation), so the kernels recompute every candidate's
distance exactly and check that no point left out can be as near as the cut (every
point left out is at least as far as the farthest candidate, up to rounding); where the
check fails (ties at the cut, rounding), the point is measured again among four times
as many candidates, up to every point. Few points, or a weight that is not a positive
finite number (a constant feature: NaN distances), compare every point with every other.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from scipy.spatial import cKDTree

from fsengine.parallel import kernel_threads

#: Up to this many points every point is compared with every other (no tree): on 6,400 x
#: 400 counts 256 took 2.2 s, 1,024 4.0 s; on 20,000 x 200 log-CPM 6.0 s and 5.9 s.
BRUTE_MAX_POINTS = 256
#: Points measured per kernel call: at first (a test that cannot pass stops after few),
#: and at most (each call's candidate lists take memory).
FIRST_CHUNK, MAX_CHUNK = 256, 8192


def point_members(codes: np.ndarray, n_points: int) -> tuple[np.ndarray, np.ndarray]:
    """The samples of each point, in increasing row order.

    Parameters
    ----------
    codes : ndarray of int, shape (n,)
        Each sample's point (0 .. n_points - 1).
    n_points : int

    Returns
    -------
    start : ndarray of int, shape (n_points + 1,)
    members : ndarray of int, shape (n,)
        Point a's samples are ``members[start[a]:start[a + 1]]``.
    """
    members = np.argsort(codes, kind="stable").astype(np.int64)
    start = np.zeros(n_points + 1, dtype=np.int64)
    np.cumsum(np.bincount(codes, minlength=n_points), out=start[1:])
    return start, members


class PointSearch:
    """Candidate points for the lists of a set's points.

    Parameters
    ----------
    coords : ndarray, shape (P, s)
        The points' coordinates, one column per feature.
    weights : ndarray, shape (s,)
        The features' distance weights.
    """

    def __init__(self, coords: np.ndarray, weights: np.ndarray):
        self.n_points = len(coords)
        self.tree = None
        weights = np.asarray(weights, dtype=float)
        if self.n_points > BRUTE_MAX_POINTS and np.all(np.isfinite(weights) & (weights >= 0)):
            self.tree = cKDTree(np.asarray(coords, dtype=float) * np.sqrt(weights))

    def candidates(self, points: np.ndarray, want: int) -> tuple[np.ndarray, np.ndarray]:
        """The ``want`` nearest points of each of ``points`` (every point, when the tree
        is not used or ``want`` reaches their number).

        Returns
        -------
        cand : ndarray of int, shape (len(points), m)
        far : ndarray, shape (len(points),)
            The distance of each one's farthest candidate in the tree's arithmetic (inf
            when every point is a candidate).
        """
        P = self.n_points
        if self.tree is None or want >= P:
            every = np.broadcast_to(np.arange(P, dtype=np.int64), (len(points), P))
            return np.ascontiguousarray(every), np.full(len(points), np.inf)
        workers = kernel_threads() if len(points) >= MAX_CHUNK // 4 else 1
        near, cand = self.tree.query(self.tree.data[points], k=want, workers=workers)
        return np.ascontiguousarray(cand, dtype=np.int64), np.ascontiguousarray(near[:, -1])

    def measure(
        self,
        visit: np.ndarray,
        want: int,
        measure: Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray], bool],
    ) -> bool:
        """Measure every point, in chunks in the order ``visit``.

        Parameters
        ----------
        visit : ndarray of int
            The points in the order they are measured.
        want : int
            Candidates sought at first for each.
        measure : callable
            ``measure(points, cand, far, missed)``: a kernel call; writes which points'
            candidates may not hold their list into ``missed``; False stops the test.

        Returns
        -------
        bool
            False if a call stopped the test.
        """
        lo, chunk = 0, FIRST_CHUNK
        while lo < len(visit):
            pending = visit[lo : lo + chunk]
            lo, chunk = lo + chunk, min(2 * chunk, MAX_CHUNK)
            tried = want
            while len(pending):
                cand, far = self.candidates(pending, tried)
                missed = np.zeros(len(pending), dtype=bool)
                if not measure(pending, cand, far, missed):
                    return False
                pending, tried = pending[missed], 4 * tried
        return True
