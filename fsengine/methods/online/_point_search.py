"""The candidates of a point's neighbour list, for the selectors that work on the distinct
points of a set (K-OFSD's set tests on counts, the order-invariant tie rule).

A test of S + f measures every point of S + f; each one's list (the samples up to the
cut) is sought among candidate points, which the kernels check exactly in their own
arithmetic (the authors' ``pdist`` order of summation): a point's candidates either
certainly hold its list, or every point left out is at least as far as a distance
``far`` and the cut must be below it (up to rounding). Candidates come from, in turn:

1. S's lists (:class:`SetLists`, each made when a test first asks for it): each point of
   S keeps its nearest points on S with their exact terms; a point (a, v) of S + f walks
   a's list (:mod:`._search_kernels`), which holds its list unless f moves it further
   than the listed points reach; a point with v != 0 that it leaves unsettled then looks
   among the points with v != 0 (a k-d tree over them: on counts, a gene's expressing
   cells, a few of the points) and the points (b, 0) of the b in a's list, which together
   hold its list up to the tree's reach or ``sqrt(reach_S(a)^2 + (w v) v)``;
2. a k-d tree over the points of S + f (scipy's ``cKDTree``, on the coordinates scaled by
   the roots of the weights): the K + 2 nearest, then four times as many, up to every
   point, where ties at the cut or rounding leave a doubt;
3. every point, for few points or a weight that is not a positive finite number (a
   constant feature: NaN distances).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

import numpy as np

from fsengine._compute import kernels
from fsengine._compute.parallel import instance_lock, kernel_threads

#: The kernel family of the search.
SEARCH_KERNELS = "methods.online._search_kernels"
#: Up to this many points every point is compared with every other (no tree): on 6,400 x
#: 400 counts 256 took 2.2 s, 1,024 4.0 s; on 20,000 x 200 log-CPM 6.0 s and 5.9 s.
BRUTE_MAX_POINTS = 256
#: Points measured per kernel call: at first (a test that cannot pass stops after few),
#: and at most (each call's candidate lists take memory).
FIRST_CHUNK, MAX_CHUNK = 256, 8192
#: Points of S listed per point of S.
LIST_LENGTH = 48
#: Candidates of one kernel call at most, when each point has many (every point: 8
#: bytes each, 32 MB).
CANDIDATES_MAX = 1 << 22
#: Points asked of the tree over the non-zero values at once from which its query runs on
#: the kernel threads (a query costs tens of microseconds in 20-30 dimensions).
NONZERO_PARALLEL = 64
#: The stages of the candidates before the k-d tree over every point of S + f
#: (:meth:`PointSearch.measure`): S's lists, then a tree over the points whose value of f
#: is not 0.
FIRST_LISTS, NONZERO_TREE = 0, -1


def search_kernels():
    """The search kernels (:mod:`._search_kernels`)."""
    return kernels.load(SEARCH_KERNELS)


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
    codes = np.ascontiguousarray(codes, dtype=np.int64)
    return search_kernels().members_of_points(codes, int(n_points))


def every_distance_nan(weights: np.ndarray) -> bool:
    """Whether a set with these distance weights has NaN between every two samples: a
    constant feature's infinite weight (``"seuclidean"``) times its zero differences, as
    in the authors' Octave."""
    return not bool(np.all(np.isfinite(weights)))


def _usable(weights: np.ndarray) -> bool:
    return bool(np.all(np.isfinite(weights) & (weights >= 0)))


def _tree(coords: np.ndarray, weights: np.ndarray):
    """A k-d tree over the points, centred and scaled by the roots of the weights, and the
    most its distances can be below the kernels' (scipy is imported here: the dashboard's
    first page loads this module without it).

    The tree's coordinates carry a rounding error of a few units in the last place of
    their size, so two near points far from the origin (a feature on a large offset) get a
    distance off by far more than its own last place: the slack is 8 sqrt(s) eps times the
    largest centred scaled coordinate."""
    from scipy.spatial import cKDTree

    coords = np.asarray(coords, dtype=float)
    centred = coords - (coords.max(axis=0) + coords.min(axis=0)) / 2 if len(coords) else coords
    scaled = centred * np.sqrt(np.asarray(weights, dtype=float))
    largest = float(np.abs(scaled).max()) if scaled.size else 0.0
    slack = 8.0 * np.sqrt(max(1, scaled.shape[1])) * np.finfo(float).eps * largest
    # Sliding-midpoint splits, not medians: built 2-3 times faster; most trees serve a
    # few queries (one set test's points that S's lists did not settle).
    return cKDTree(scaled, balanced_tree=False, compact_nodes=False), slack


class SetLists:
    """Each point of a set S and its :data:`LIST_LENGTH` nearest points on S, with their
    summed terms, sorted (every point when S has no more); a point's list is sought when a
    test first asks for it (:meth:`ready`): a test that stops early, as most do, asks for
    few of S's points, and the same ones test after test.

    Parameters
    ----------
    coords : ndarray, shape (Q, s)
        S's points, one column per feature in the set's order.
    weights : ndarray, shape (s,)
        The features' distance weights (positive and finite).

    Attributes
    ----------
    listed : ndarray of int, shape (Q, L)
        Each point's listed points (rows not :meth:`ready` are not yet written).
    sq : ndarray, shape (Q, L)
        Their summed terms, increasing.
    far : ndarray, shape (Q,)
        A distance no point left out of the list is below (inf: none is left out).
    """

    #: A snapshot of the lists leaves out their k-d tree (:mod:`._snapshot`; built again
    #: when a list is asked).
    snapshot_reset: ClassVar[dict] = {"_tree": None}

    def __init__(self, coords: np.ndarray, weights: np.ndarray):
        self._coords = np.ascontiguousarray(coords, dtype=float)
        self._weights = np.asarray(weights, dtype=float)
        Q = len(coords)
        self._tree = None
        every = Q <= LIST_LENGTH  # every point listed: made now
        self.listed = np.empty((Q, Q if every else LIST_LENGTH), dtype=np.int64)
        self.sq = np.empty(self.listed.shape)
        self.far = np.full(Q, np.inf)
        self._done = np.full(Q, every)
        if every:
            rows = np.arange(Q, dtype=np.int64)
            self.listed[:] = rows
            search_kernels().listed_terms(self._coords, self._weights, rows, self.listed, self.sq)

    def ready(self, points: np.ndarray) -> None:
        """Make the lists of S's points ``points`` (any that are not yet made); tests on
        several threads make each list once."""
        if self._done[points].all():
            return
        with instance_lock(self):
            self._make(np.unique(points[~self._done[points]]))

    def _make(self, todo: np.ndarray) -> None:
        if not len(todo):
            return
        if self._tree is None:
            self._tree = _tree(self._coords, self._weights)
        tree, slack = self._tree
        workers = kernel_threads() if len(todo) >= MAX_CHUNK // 4 else 1
        near, listed = tree.query(tree.data[todo], k=LIST_LENGTH, workers=workers)
        listed = np.ascontiguousarray(listed, dtype=np.int64)
        sq = np.empty(listed.shape)
        search_kernels().listed_terms(self._coords, self._weights, todo, listed, sq)
        self.listed[todo], self.sq[todo] = listed, sq
        self.far[todo] = near[:, -1] - slack
        self._done[todo] = True


class PointSearch:
    """Candidate points for the lists of the points of S + f.

    Parameters
    ----------
    coords : ndarray, shape (P, s)
        The points of S + f, one column per feature (f last).
    weights : ndarray, shape (s,)
        The features' distance weights.
    """

    def __init__(self, coords: np.ndarray, weights: np.ndarray):
        self.coords = coords
        self.weights = np.asarray(weights, dtype=float)
        self.n_points = len(coords)
        self._tree = None
        #: Candidates are sought (else every point is compared with every other).
        self.usable = self.n_points > BRUTE_MAX_POINTS and _usable(self.weights)
        self.lists: SetLists | None = None
        self._nonzero = None

    def use_lists(
        self, lists: SetLists, base_of: np.ndarray, values: np.ndarray, sizes: np.ndarray
    ) -> None:
        """Seek candidates in S's lists first.

        Parameters
        ----------
        lists : SetLists
            S's lists.
        base_of : ndarray of int, shape (P,)
            Each point's point on S.
        values : ndarray, shape (P,)
            Its value of f.
        sizes : ndarray of int, shape (P,)
            Its number of samples.
        """
        self.lists = lists
        self._base_of = np.ascontiguousarray(base_of, dtype=np.int64)
        self._values = np.ascontiguousarray(values, dtype=float)
        self._sizes = np.ascontiguousarray(sizes, dtype=np.int64)
        n_set_points = len(lists.listed)
        self._sub_start = np.zeros(n_set_points + 1, dtype=np.int64)
        np.cumsum(np.bincount(self._base_of, minlength=n_set_points), out=self._sub_start[1:])

    def candidates(
        self, points: np.ndarray, want: int
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Candidates for ``points``: ``want`` from the tree (or every point), or with
        ``want`` 0 from S's lists.

        Returns
        -------
        cand_start, cand : ndarray of int
            The candidates of ``points[q]`` are ``cand[cand_start[q]:cand_start[q + 1]]``.
        far : ndarray, shape (len(points),)
            Every other point is at this distance or more, the tree's rounding deducted
            (inf: they hold the list; -1: S's list did not reach far enough).
        """
        P, c = self.n_points, len(points)
        if want == NONZERO_TREE:
            return self._nonzero_candidates(points)
        if want == FIRST_LISTS:
            self.lists.ready(self._base_of[points])
            cand_start = np.empty(c + 1, dtype=np.int64)
            far = np.empty(c)
            cand = np.empty(max(16, c * 8 * LIST_LENGTH), dtype=np.int64)
            while True:
                count = search_kernels().candidates_from_lists(
                    points, self._base_of, self._values, float(self.weights[-1]),
                    self._sub_start, self._sizes, self.lists.listed, self.lists.sq,
                    self.lists.far, int(self._need), cand_start, cand, far,
                )  # fmt: skip
                if count >= 0:
                    return cand_start, cand[:count], far
                cand = np.empty(2 * len(cand), dtype=np.int64)
        if not self.usable or want >= P:
            cand = np.tile(np.arange(P, dtype=np.int64), c)
            return np.arange(c + 1, dtype=np.int64) * P, cand, np.full(c, np.inf)
        if self._tree is None:
            self._tree = _tree(self.coords, self.weights)
        tree, slack = self._tree
        workers = kernel_threads() if c >= MAX_CHUNK // 4 else 1
        near, cand = tree.query(tree.data[points], k=want, workers=workers)
        cand_start = np.arange(c + 1, dtype=np.int64) * want
        return (
            cand_start,
            np.ascontiguousarray(cand, dtype=np.int64).ravel(),
            np.ascontiguousarray(near[:, -1] - slack),
        )

    def _nonzero_candidates(self, points: np.ndarray):
        """:meth:`candidates` of ``points`` among the points whose value of f is not 0, from
        a k-d tree over those alone (on counts, a gene's expressing cells: the points that
        S's lists leave unsettled, whose nearest points are others with a value near theirs),
        and the points of value 0 on the points of S in their point's list on S.

        A point (a, v) is at distance ``sqrt(sq_S(a, b) + (w v) v)`` from a point (b, 0),
        hence at ``sqrt(far_S(a)^2 + (w v) v)`` or more from every point of value 0 whose b
        is not in a's list on S (``far_S``: the list's reach); the candidates therefore hold
        its list up to the lesser of that and the tree's reach. A point of value 0 gets
        none (``far`` -1: the full tree then)."""
        if self._nonzero is None:
            nonzero = np.flatnonzero(self._values != 0)
            tree = _tree(self.coords[nonzero], self.weights) if len(nonzero) else None
            zeros = np.flatnonzero(self._values == 0)
            zero_of = np.full(len(self.lists.listed), -1, dtype=np.int64)
            zero_of[self._base_of[zeros]] = zeros
            self._nonzero = nonzero, tree, zero_of
        nonzero, tree, zero_of = self._nonzero
        values = self._values[points]
        on = values != 0
        far = np.full(len(points), -1.0)
        if not on.any():
            return np.zeros(len(points) + 1, dtype=np.int64), np.empty(0, dtype=np.int64), far
        k = min(self._want, len(nonzero))
        (tree, slack), asked = tree, np.searchsorted(nonzero, points[on])
        workers = kernel_threads() if len(asked) >= NONZERO_PARALLEL else 1
        near, found = tree.query(tree.data[asked], k=k, workers=workers)
        near, found = near.reshape(len(asked), k), found.reshape(len(asked), k)
        reach = near[:, -1] - slack if k < len(nonzero) else np.full(len(asked), np.inf)
        bases = self._base_of[points[on]]
        self.lists.ready(bases)
        listed_zeros = zero_of[self.lists.listed[bases]]
        has = listed_zeros >= 0
        counts = np.zeros(len(points), dtype=np.int64)
        counts[on] = k + has.sum(axis=1)
        cand_start = np.zeros(len(points) + 1, dtype=np.int64)
        np.cumsum(counts, out=cand_start[1:])
        cand = np.empty(cand_start[-1], dtype=np.int64)
        starts = cand_start[:-1][on]
        # Each asked point's k nearest non-zero points, then its listed zeros.
        cand[(starts[:, None] + np.arange(k)).ravel()] = nonzero[found].ravel()
        slots = starts[:, None] + k + np.cumsum(has, axis=1) - 1
        cand[slots[has]] = listed_zeros[has]
        weight, v = float(self.weights[-1]), values[on]
        listed_far = np.maximum(self.lists.far[bases], 0.0)
        far[on] = np.minimum(reach, np.sqrt(listed_far * listed_far + (weight * v) * v))
        return cand_start, cand, far

    def measure(
        self,
        visit: np.ndarray,
        want: int,
        measure: Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray], bool],
        need: int | None = None,
    ) -> bool:
        """Measure every point, in chunks in the order ``visit``.

        Parameters
        ----------
        visit : ndarray of int
            The points in the order they are measured.
        want : int
            Candidates sought at first for each from the tree.
        measure : callable
            ``measure(points, cand_start, cand, far, missed)``: a kernel call; writes which
            points' candidates may not hold their list into ``missed``; False stops the
            test.
        need : int, optional
            With S's lists: the cut is certainly within the distance at which this many
            samples are found.

        Returns
        -------
        bool
            False if a call stopped the test.
        """
        self._need = need if need is not None else want
        self._want = want
        lo, chunk = 0, FIRST_CHUNK
        while lo < len(visit):
            pending = visit[lo : lo + chunk]
            lo, chunk = lo + chunk, min(2 * chunk, MAX_CHUNK)
            tried = FIRST_LISTS if self.lists is not None else want
            while len(pending):
                # Every point's candidates (or its tree's) at most CANDIDATES_MAX in a call.
                if tried == NONZERO_TREE:
                    width = want
                elif not self.usable or tried >= self.n_points:
                    width = self.n_points
                else:
                    width = tried
                step = max(1, CANDIDATES_MAX // max(1, width)) if tried else len(pending)
                missed_parts = []
                for part in (pending[i : i + step] for i in range(0, len(pending), step)):
                    cand_start, cand, far = self.candidates(part, tried)
                    missed = np.zeros(len(part), dtype=bool)
                    if not measure(part, cand_start, cand, far, missed):
                        return False
                    missed_parts.append(part[missed])
                pending = np.concatenate(missed_parts)
                if tried == FIRST_LISTS:
                    tried = NONZERO_TREE
                else:
                    tried = want if tried == NONZERO_TREE else 4 * tried
        return True
