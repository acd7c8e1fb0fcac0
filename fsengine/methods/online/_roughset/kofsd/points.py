"""K-OFSD's set tests on the distinct points of S + f, for many samples (single-cell counts).

On sparse counts most samples share a few points of the selected set (a cell with zeros on
every selected gene is one point with thousands of samples), so the neighbours of every
sample on S + f follow from one pass over the P distinct points per point, with their
samples in row order for the ties (:mod:`._point_kernels`): O(P^2) per test where the
sample-wise kernels need up to O(N^2). The cards, the dependencies and the early
rejections are those of :class:`.set_terms.ColumnSetTerms`, which this class keeps beside
itself for what the point kernels do not compute (the neighbour statistics of
Card_Distance, a sweep over K).
"""

from __future__ import annotations

import math
from typing import ClassVar, NamedTuple

import numpy as np

from fsengine._compute import kernels
from fsengine.methods.online._codes import CARD_CODES
from fsengine.methods.online._point_search import (
    PointSearch,
    SetLists,
    every_distance_nan,
    point_members,
)
from fsengine.methods.online._roughset.kofsd.common import set_kernels
from fsengine.methods.online._roughset.kofsd.set_terms import ColumnSetTerms
from fsengine.methods.online._tie_average import (
    TERMS_MAX_POINTS,
    PointDistances,
    refine,
    tie_kernels,
)

#: The kernel family of the set tests on points.
POINT_KERNELS = "methods.online._roughset.kofsd._point_kernels"
#: From this many samples K-OFSD's stream tests sets on their distinct points (below, the
#: sample-wise kernels, tuned on microarrays, are as fast; the results are the same) when
#: its samples share values (:func:`shares_points`).
POINT_MIN_SAMPLES = 3000
#: :func:`shares_points`: at most this share of a column's values distinct (the median
#: over the columns of the stream's first block).
POINT_MAX_DISTINCT = 0.5


def shares_points(block: np.ndarray) -> bool:
    """Whether the samples share values in the columns of ``block`` (the median column
    has at most :data:`POINT_MAX_DISTINCT` of its values distinct), as on counts and on
    normalised counts' zeros: then the sets' distinct points are far fewer than the
    samples and the set tests on points are the faster. On continuous values every sample
    is a point of its own and the sample-wise tests are: 4,000 x 500 normal values took
    4.8 s on points against 1.0 s sample-wise; 12,000 x 120 integer counts 0.85 s on
    points against 13.5 s.
    """
    ordered = np.sort(np.asarray(block, dtype=float), axis=0)
    distinct = 1 + np.count_nonzero(ordered[1:] != ordered[:-1], axis=0)
    return bool(np.median(distinct) <= POINT_MAX_DISTINCT * len(ordered))


def point_kernels():
    """The set-test kernels on points (:mod:`._point_kernels`)."""
    return kernels.load(POINT_KERNELS)


class PointsWithMembers(NamedTuple):
    """The points of S + f with their samples, and K-OFSD's card, as
    :func:`~fsengine.methods.online._roughset.kofsd._point_kernels.point_set_cards` takes
    them in its first fifteen arguments (flattened by :func:`point_cards` alone)."""

    distances: PointDistances
    #: The samples of point a are ``members[start[a]:start[a + 1]]``, rows increasing.
    start: np.ndarray
    members: np.ndarray
    #: (n,) the labels (minority 1); ``m1`` (P,) each point's minority samples.
    y: np.ndarray
    m1: np.ndarray
    #: K, the printed variant (else the reference), the card's code and Card_Weight's
    #: threshold.
    k: int
    paper: bool
    card: int
    gamma: float


def point_cards(
    points: PointsWithMembers,
    candidates: tuple,
    state: np.ndarray,
    floor: float,
    cards: np.ndarray,
) -> bool:
    """The cards on S + f of the samples of some points, each point's list among its
    candidate points (the one call of
    :func:`~fsengine.methods.online._roughset.kofsd._point_kernels.point_set_cards`).

    Parameters
    ----------
    points : PointsWithMembers
    candidates : tuple
        ``(measured, cand_start, cand, far, missed)`` of a :meth:`PointSearch.measure`
        call (``missed`` written).
    state : ndarray, shape (2,)
        The cards summed so far and the samples left, carried between calls.
    floor : float
        The test stops once ``state``'s sum plus one per sample left is below it.
    cards : ndarray, shape (n,)
        Written: the cards of the samples of the points measured.

    Returns
    -------
    bool
        False when the test stopped below ``floor``.
    """
    measured, cand_start, cand, far, missed = candidates
    done = point_kernels().point_set_cards(
        *points.distances, *points[1:], measured, cand_start, cand, far, state, floor, cards, missed
    )
    return not math.isnan(done)


class PointSetTerms:
    """The selected set S for K-OFSD's set tests on points (``ties="index"``).

    S keeps each sample's point, the points' coordinates (one column per feature in the
    order they joined) and, up to :data:`fsengine.methods.online._tie_average.TERMS_MAX_POINTS`
    points, the summed distance terms between them. :meth:`dependencies_with` is
    :meth:`ColumnSetTerms.dependencies_with`'s, value for value.

    Parameters
    ----------
    n : int
        Number of samples.
    """

    #: A snapshot of the set leaves out S's lists (:mod:`.._snapshot`; made again when a
    #: test asks).
    snapshot_reset: ClassVar[dict] = {"_lists": None}

    def __init__(self, n: int):
        self.n = n
        self._columns: ColumnSetTerms | None = None  # made when first needed
        self._set_columns: list[np.ndarray] = []
        self._weights: list[float] = []
        self.codes = np.zeros(n, dtype=np.int64)
        self.coords = np.zeros((1, 0))
        self.terms: np.ndarray | None = np.zeros((1, 1))
        self._cards: np.ndarray | None = None
        self._n_low = -1
        self._labels: np.ndarray | None = None
        self._lists: SetLists | None = None

    @property
    def weights(self) -> list[float]:
        """S's distance weights, in the order the features joined."""
        return self._weights

    def set_cards(self, cards: np.ndarray | None, y: np.ndarray) -> None:
        """The samples' card values on the current S (None: unknown), for early rejection
        (:meth:`ColumnSetTerms.set_cards`)."""
        self._labels = y
        if self._columns is not None:
            self._columns.set_cards(cards, y)
        if cards is None:
            self._cards, self._n_low = None, -1
        else:
            self._cards = np.ascontiguousarray(cards, dtype=float)
            self._n_low = int(np.count_nonzero(self._cards < 1.0))

    def replace(self, values: np.ndarray, weight: float) -> None:
        """S becomes the one feature ``values``."""
        self._columns, self._set_columns, self._weights = None, [], []
        self.codes = np.zeros(self.n, dtype=np.int64)
        self.coords = np.zeros((1, 0))
        self.terms = np.zeros((1, 1))
        self._join(values, weight)

    def add(self, values: np.ndarray, weight: float) -> None:
        """S becomes S + f."""
        self._columns = None
        self._join(values, weight)

    def _join(self, values: np.ndarray, weight: float) -> None:
        values = np.array(values, dtype=float)  # a copy: the stream reuses its blocks
        self._set_columns.append(values)
        self._weights.append(float(weight))
        codes, base_of, point_values = refine(self.codes, values)
        if self.terms is not None and len(base_of) <= TERMS_MAX_POINTS:
            self.terms = tie_kernels().point_terms(self.terms, base_of, point_values, float(weight))
        else:
            self.terms = None
        self.coords = np.ascontiguousarray(np.column_stack([self.coords[base_of], point_values]))
        self.codes = codes
        self._lists = None

    def stats_with(self, *args, **kwargs):
        """:meth:`ColumnSetTerms.stats_with` (neighbour statistics, any card), on a
        sample-wise copy of S made when first needed."""
        if self._columns is None:
            self._columns = ColumnSetTerms(self.n)
            for j, (values, weight) in enumerate(zip(self._set_columns, self._weights)):
                (self._columns.add if j else self._columns.replace)(values, weight)
            self._columns.set_cards(self._cards, self._labels)
        return self._columns.stats_with(*args, **kwargs)

    def _row_order(self, y: np.ndarray) -> np.ndarray:
        """Samples with a card below 1 on S first, minority first among them: the rows
        whose cards decide the rejection rules of the sample-wise kernels."""
        y = np.asarray(y)
        key = (y == 0).astype(np.int64)
        if self._cards is not None:
            key += 2 * (self._cards >= 1.0)
        return np.argsort(key, kind="stable").astype(np.int64)

    def dependencies_with(
        self,
        block: np.ndarray,
        weights: np.ndarray,
        y: np.ndarray,
        k: int,
        variant: str,
        card: str,
        gamma: float = 0.0,
        reject_sum: float | None = None,
        accept_above: float | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """The dependency of S + f for each column f of ``block``
        (:meth:`ColumnSetTerms.dependencies_with`: the same values and the same NaNs).

        A candidate is rejected (NaN) when its card sum is below ``reject_sum`` or, the
        cards on S being known, no sample whose card on S is below 1 gains: the rules the
        sample-wise kernels apply row by row, here on the final cards (a test that
        certainly falls below ``reject_sum`` stops early)."""
        n, c = block.shape
        deps = np.full(c, np.nan)
        cards = np.zeros((n, c))
        early = reject_sum is not None
        if early and self._n_low == 0:
            return deps, cards  # every card on S is 1: nothing can exceed it
        labels = np.ascontiguousarray(y, dtype=np.int64)
        kern, mean = point_kernels(), set_kernels().mean_in_order
        order = self._row_order(labels) if early else None
        low_rows = order[: self._n_low] if early and self._n_low > 0 else None
        floor = float(reject_sum) if early else -math.inf
        for j in range(c):
            column = np.empty(n)
            if not self._point_cards(block[:, j], float(weights[j]), labels, k, variant,
                                     CARD_CODES[card], float(gamma), floor, column):  # fmt: skip
                continue
            cards[:, j] = column
            if early and (
                kern.sum_in_order(column, order) < floor
                or (low_rows is not None and not np.any(column[low_rows] > self._cards[low_rows]))
            ):
                continue
            deps[j] = mean(column)
            if accept_above is not None and deps[j] > accept_above:
                break
        return deps, cards

    def _point_cards(self, values, weight, y, k, variant, card, gamma, floor, out) -> bool:
        """Every sample's card on S + f into ``out``; False if the test stopped below
        ``floor``, or (with a floor and S's cards) once no sample whose card on S is below
        1 can gain.

        The points are measured in chunks, those whose samples lose most on S first (a test
        that cannot reach ``floor`` stops sooner), each one's list among its K + 2 nearest
        points and more where needed (:class:`fsengine.methods.online._point_search.PointSearch`).
        """
        values = np.ascontiguousarray(values, dtype=float)
        codes, base_of, point_values = refine(self.codes, values)
        P = len(base_of)
        start, members = point_members(codes, P)
        m1 = np.bincount(codes, weights=y, minlength=P).astype(np.int64)
        if self._cards is not None and floor > -math.inf:
            lost = np.bincount(codes, weights=1.0 - self._cards, minlength=P)
            visit = np.argsort(-lost, kind="stable").astype(np.int64)
        else:
            visit = np.arange(P, dtype=np.int64)
        coords = np.column_stack([self.coords[base_of], point_values])
        all_weights = np.append(np.asarray(self.weights, dtype=float), weight)
        sizes = start[1:] - start[:-1]
        search = PointSearch(coords, all_weights)
        if search.usable:
            search.use_lists(self._set_lists(), base_of, point_values, sizes)
        from_coords = self.terms is None
        coords = np.ascontiguousarray(coords) if from_coords else np.zeros((P, 0))
        arguments = PointsWithMembers(
            PointDistances(
                self.terms if self.terms is not None else np.zeros((1, 1)),
                base_of,
                point_values,
                float(weight),
                coords,
                all_weights if from_coords else np.zeros(0),
                from_coords,
            ),
            start,
            members,
            y,
            m1,
            int(k),
            variant == "paper",
            int(card),
            float(gamma),
        )
        state = np.array([0.0, float(self.n)])
        # A rejected test: once every point holding a sample whose card on S is below 1
        # is measured (they come first) and none of those samples gains, S + f cannot
        # exceed S (the rule dependencies_with applies to the final cards).
        unchanged_stops = floor > -math.inf and self._cards is not None and self._n_low > 0
        if unchanged_stops:
            lossy = lost > 0
            lossy_left = int(np.count_nonzero(lossy))
            low_rows = np.flatnonzero(self._cards < 1.0)

        def measure(points, cand_start, cand, far, missed) -> bool:
            nonlocal lossy_left
            if not point_cards(
                arguments, (points, cand_start, cand, far, missed), state, floor, out
            ):
                return False
            if unchanged_stops and lossy_left > 0:
                lossy_left -= int(np.count_nonzero(lossy[points[~missed]]))
                if lossy_left == 0 and not np.any(out[low_rows] > self._cards[low_rows]):
                    return False
            return True

        if every_distance_nan(all_weights):
            # A constant feature (an infinite weight): every distance is NaN, and each
            # sample's list is itself and the K + 1 lowest rows (the kernel's NaN branch),
            # found among the point itself and the points of those rows.
            cand_start, cand = _points_and_lowest_rows(codes, visit, int(k) + 1)
            missed = np.zeros(P, dtype=bool)
            return measure(visit, cand_start, cand, np.full(P, np.inf), missed)
        return search.measure(visit, int(k) + 2, measure, need=int(k) + 2)

    def _set_lists(self) -> SetLists:
        """S's lists (made at the first test on S that uses them)."""
        if self._lists is None:
            self._lists = SetLists(self.coords, np.asarray(self._weights))
        return self._lists


def _points_and_lowest_rows(
    codes: np.ndarray, visit: np.ndarray, rows: int
) -> tuple[np.ndarray, np.ndarray]:
    """Candidates of each point of ``visit``: the points of the samples 0 .. rows - 1 and
    the point itself (once).

    Returns
    -------
    cand_start, cand : ndarray of int
        The candidates of ``visit[q]`` are ``cand[cand_start[q]:cand_start[q + 1]]``.
    """
    lowest = np.unique(codes[:rows]).astype(np.int64)
    own = ~np.isin(visit, lowest)
    sizes = len(lowest) + own
    cand_start = np.zeros(len(visit) + 1, dtype=np.int64)
    np.cumsum(sizes, out=cand_start[1:])
    cand = np.empty(cand_start[-1], dtype=np.int64)
    at = cand_start[:-1]
    for j, point in enumerate(lowest):
        cand[at + j] = point
    cand[at[own] + len(lowest)] = visit[own]
    return cand_start, cand
