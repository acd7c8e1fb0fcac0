"""The order-invariant neighbour rule of the nearest-neighbour selectors (``ties="average"``).

K-OFSD (Zhou et al. 2017), SFSF's k-nearest model and OSFS-ET judge a sample by the first
samples of its list sorted by distance. The authors' code sorts stably, so among samples
at the same distance the lower row index comes first (``ties="index"``): on counts, where
a gene's zeros hold most samples, which of them are a sample's "nearest" is decided by the
order of the rows, and so is the selection. The average rule keeps the authors' method and
removes the order: a sample's card is its expectation over every order of the rows, which
depends only on how many samples of each label lie nearer than the distance t where the
list is cut, how many lie at t, and (K-OFSD's reference drops the list's first element)
at distance 0. docs/ALGORITHMS.md derives it; the compiled kernels are in
:mod:`._tie_kernels`.

The average rule works on the distinct points of a set (samples with equal values on it)
and their label counts, never on sample indices, so every quantity here, the feature
weights included, is the same for any permutation of the rows, bit for bit.
"""

from __future__ import annotations

import math
import struct
import weakref
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import ClassVar, NamedTuple

import numpy as np

from fsengine._compute import kernels
from fsengine._compute.budget import use_compiled
from fsengine._compute.parallel import instance_lock
from fsengine._compute.sparse import (
    as_columns,
    block_width,
    by_columns,
    dense_columns,
    is_backed,
    is_sparse,
    nonzero_order,
)
from fsengine.methods.online._codes import (
    MAX_PARTIALS,
    TIE_CARD_CODES,
    TIE_DENSITY,
    TIE_FIRST_K,
    TIE_GAP,
    ZHOU_GAP,
)
from fsengine.methods.online._point_search import (
    PointSearch,
    SetLists,
    every_distance_nan,
    search_kernels,
)
from fsengine.spec import Choice

#: The tie rules: the authors' (lower row index first) and the expectation over orders.
TIES = ("index", "average")
#: The kernel family of the average rule.
TIE_KERNELS = "methods.online._tie_kernels"

#: Up to this many distinct points a set keeps the P x P summed terms between them (32 MB);
#: above, each test sums the terms from the points' coordinates.
TERMS_MAX_POINTS = 2048
#: Tests of S + f measured whole whose cards :meth:`AveragedSet.add` may reuse (the tests
#: run at once, and one more).
MEASURED_KEPT = 4
#: Points of each point's ball a set keeps (:class:`PointCards`); a point whose ball holds
#: more is measured in every test.
BALL_WIDTH = 16


def tie_kernels():
    """The average rule's kernels (:mod:`._tie_kernels`)."""
    return kernels.load(TIE_KERNELS)


@dataclass(frozen=True, eq=False)
class PointCards:
    """A set's cards per distinct point.

    Attributes
    ----------
    expected : ndarray, shape (P, 2)
        The expected card of a majority (0) and a minority (1) sample at each point.
    varies : ndarray of bool, shape (P, 2)
        Whether that card differs between orders of the rows.
    balls : ndarray of int32, shape (P, BALL_WIDTH), or None
        Each point's ball: the other points at distance at most its cut (-1 after the
        last; -2 first: more than fit, or unknown). None when not every ball is known. A
        point of S whose samples and ball points all have the value 0 on f keeps its
        distances to them, and every other point stays beyond its cut, so its cards on
        S + f are its cards on S.
    """

    expected: np.ndarray
    varies: np.ndarray
    balls: np.ndarray | None


@dataclass(frozen=True)
class NeighbourRule:
    """Which list a sample is judged by, and its card function.

    Attributes
    ----------
    k : int
        The card's K.
    need : int
        The list's length: K + 1 for K-OFSD's reference (its first element is dropped),
        K otherwise.
    with_self : bool
        The sample is in its own list, at distance 0 (K-OFSD's reference, the rough-set
        k-nearest model); K-OFSD's paper variant lists the other samples only.
    skip_first : bool
        The list's first element is dropped (K-OFSD's reference).
    card : str
        "imbalanced", "consistency", "weight", "distance" (K-OFSD's cards) or "share"
        (the rough-set card: the share of the K listed samples that share the label).
    gamma, gamma1, gamma2 : float
        The card's thresholds.
    """

    k: int
    need: int
    with_self: bool
    skip_first: bool
    card: str
    gamma: float = 0.5
    gamma1: float = 0.75
    gamma2: float = 0.25
    kind: int = TIE_FIRST_K

    @classmethod
    def kofsd(cls, k: int, variant: str, card, **thresholds) -> NeighbourRule:
        """K-OFSD's list (Definition 1; the reference skips the first sorted element, the
        paper's Algorithm 4 excludes the sample itself) with its card function."""
        reference = variant == "reference"
        return cls(k, k + 1 if reference else k, reference, reference, card, **thresholds)

    @classmethod
    def neighbourhood(cls, rule: int) -> NeighbourRule:
        """OFS-A3M's gap rule (:data:`~fsengine.methods.online._codes.ZHOU_GAP`) or OFS-Density's
        density rule: a neighbourhood whose length the sorted distances decide, the
        list's first element dropped, the card the share of same-label neighbours."""
        return cls(0, 0, True, True, "share", kind=TIE_GAP if rule == ZHOU_GAP else TIE_DENSITY)

    @classmethod
    def k_nearest(cls, k: int) -> NeighbourRule:
        """The rough-set k-nearest model (``dep_K``): the first K of the list, the sample
        included, scored by the share that shares its label."""
        return cls(k, k, True, False, "share")

    def arguments(self) -> tuple:
        """The kernels' arguments after the points (:class:`PointsOfSet`): k, need,
        with_self, skip_first, card's code, gamma, gamma1, gamma2, the neighbourhood's
        kind."""
        return (
            int(self.k),
            int(self.need),
            bool(self.with_self),
            bool(self.skip_first),
            TIE_CARD_CODES[self.card],
            float(self.gamma),
            float(self.gamma1),
            float(self.gamma2),
            int(self.kind),
        )


class PointDistances(NamedTuple):
    """Where the distances between the points of S + f come from (samples equal on every
    feature of it are one point), as the point kernels take it in their first seven
    arguments: S's summed terms and f, or the points' values."""

    #: (Q, Q) S's summed terms between its points ((1, 1) zeros when the distances come
    #: from ``coords``).
    base: np.ndarray
    #: (P,) each point's point on S (its row of ``base``).
    base_of: np.ndarray
    #: (P,) each point's value on f.
    values: np.ndarray
    #: f's weight.
    weight: float
    #: (P, |S| + 1) the points' values, when the distances come from them; else (P, 0).
    coords: np.ndarray
    #: (|S| + 1,) the features' weights with ``coords``; else empty.
    weights: np.ndarray
    #: Whether the distances come from ``coords`` and ``weights``.
    from_coords: bool


class PointsOfSet(NamedTuple):
    """The points of S + f as the average rule's kernels take them: the first nine
    arguments of :func:`~fsengine.methods.online._tie_kernels.set_dependency` and
    :func:`~fsengine.methods.online._tie_kernels.points_expected_cards`, flattened by
    :func:`expected_dependency` and :func:`expected_cards` alone."""

    distances: PointDistances
    #: (P,) each point's samples of the minority class, and of the rest.
    m1: np.ndarray
    m0: np.ndarray

    def flat(self) -> tuple:
        """The nine arguments, in the kernels' order."""
        return (*self.distances, self.m1, self.m0)


def expected_dependency(
    points: PointsOfSet,
    rule: NeighbourRule,
    visit: np.ndarray,
    floor: float,
    expected: np.ndarray,
    varies: np.ndarray,
) -> tuple[float, float]:
    """S + f's dependency under the average rule: every point against every other
    (:func:`~fsengine.methods.online._tie_kernels.set_dependency`).

    Parameters
    ----------
    points : PointsOfSet
    rule : NeighbourRule
    visit : ndarray of int
        The points in the order they are measured.
    floor : float
        The cards' sum below which the test stops (-inf: never).
    expected, varies : ndarray, shape (P, 2)
        Outputs: each point's expected card per label, and whether it varies with the
        row order.

    Returns
    -------
    (dependency, share)
        NaNs once the sum cannot reach ``floor``.
    """
    return tie_kernels().set_dependency(
        *points.flat(), *rule.arguments(), visit, float(floor), expected, varies
    )


def expected_cards(
    points: PointsOfSet,
    rule: NeighbourRule,
    candidates: tuple,
    floor: float,
    outputs: tuple,
) -> bool:
    """The expected cards of some points of S + f, each among its candidate points
    (:func:`~fsengine.methods.online._tie_kernels.points_expected_cards`: the first-K
    rule only).

    Parameters
    ----------
    points : PointsOfSet
    rule : NeighbourRule
        Of kind ``TIE_FIRST_K``.
    candidates : tuple
        ``(points, cand_start, cand, far)`` of a :meth:`PointSearch.measure` call.
    floor : float
        The cards' sum below which the test stops.
    outputs : tuple
        ``(expected, varies, partials, state, missed, balls)``, written in place.

    Returns
    -------
    bool
        False once the sum cannot reach ``floor``.
    """
    measured, cand_start, cand, far = candidates
    expected, varies, partials, state, missed, balls = outputs
    done = tie_kernels().points_expected_cards(
        *points.flat(), *rule.arguments()[:-1], measured, cand_start, cand, far, float(floor),
        expected, varies, partials, state, missed, balls,
    )  # fmt: skip
    return not math.isnan(done)


def invariant_weights(
    block: np.ndarray, metric: str = "seuclidean", order: tuple | None = None
) -> np.ndarray:
    """The features' distance weights ``1 / var`` (n - 1) computed whatever the row order.

    As :func:`fsengine.methods.online._roughset.kofsd.neighbours.feature_weights`, but each sum
    is taken over the column's values in ascending order, so that a permutation of the rows gives
    the same weights bit for bit (the authors' code sums in row order, which rounds
    differently for different orders).

    Parameters
    ----------
    block : ndarray, shape (n, b)
    metric : {"seuclidean", "euclidean"}
    order : tuple, optional
        The block's :func:`~fsengine._compute.sparse.nonzero_order`, when it is at hand.

    Returns
    -------
    ndarray, shape (b,)
        ``inf`` for a constant feature under "seuclidean"; 1 under "euclidean".
    """
    block = np.asarray(block, dtype=float)
    n, b = block.shape
    if metric == "euclidean":
        return np.ones(b)
    if use_compiled(n * b, TIE_KERNELS):
        values, _, counts, by_value = nonzero_order(block) if order is None else order
        weights = np.empty(b)
        tie_kernels().invariant_weights(values, by_value, counts, n, weights)
        return weights
    variances = np.empty(b)
    for j in range(b):
        column = block[:, j]
        nonzero = column[column != 0]
        mean = _ascending_sum(nonzero, 0.0, n - len(nonzero)) / n
        squares = (nonzero - mean) ** 2
        variances[j] = _ascending_sum(squares, mean * mean, n - len(nonzero)) / (n - 1)
    with np.errstate(divide="ignore"):
        return 1.0 / variances


def _ascending_sum(values: np.ndarray, fill: float, count: int) -> float:
    """``values`` and ``count`` copies of ``fill`` added one at a time in ascending order:
    the sum over the sorted column that :func:`invariant_weights` takes, with a gene's
    zeros (``count`` of them, each adding ``fill``) as one run, so only its non-zero
    values are sorted."""
    ordered = np.sort(values)
    at = int(np.searchsorted(ordered, fill))
    if count and fill != 0.0:
        ordered = np.concatenate([ordered[:at], np.full(count, fill), ordered[at:]])
    elif count:  # adding +0.0 changes no sum but -0.0 + 0.0
        ordered = np.concatenate([ordered[:at], np.zeros(1), ordered[at:]])
    return float(np.cumsum(ordered)[-1]) if len(ordered) else 0.0


def single_dependencies(
    block: np.ndarray,
    y: np.ndarray,
    weights: np.ndarray,
    rule: NeighbourRule,
    order: tuple | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """The dependency of each column of ``block`` alone under the average rule.

    Parameters
    ----------
    block : ndarray, shape (n, b)
    y : ndarray of {0, 1}, shape (n,)
    weights : ndarray, shape (b,)
        From :func:`invariant_weights`.
    rule : NeighbourRule
    order : tuple, optional
        The block's :func:`~fsengine._compute.sparse.nonzero_order`, when it is at hand.

    Returns
    -------
    deps : ndarray, shape (b,)
        The mean over the samples of their expected cards.
    shares : ndarray, shape (b,)
        The share of the samples whose card under the authors' rule depends on the order
        of the rows (:func:`order_dependence` reports it).
    """
    # a feature's points: its zeros one, its non-zero values sorted (numpy's sort)
    values, rows, counts, by_value = nonzero_order(block) if order is None else order
    b = len(counts)
    deps, shares = np.empty(b), np.empty(b)
    y = np.ascontiguousarray(y, dtype=np.int64)
    weights = np.ascontiguousarray(weights, dtype=float)
    tie_kernels().nonzero_feature_dependencies(
        values, rows, by_value, counts, y, weights, *rule.arguments(), deps, shares
    )
    return deps, shares


def refine(codes: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The points of a set once a feature joins it: samples that share a point and a value.

    Parameters
    ----------
    codes : ndarray of int, shape (n,)
        Each sample's point on the set (0 .. P - 1).
    values : ndarray, shape (n,)
        The new feature.

    Returns
    -------
    new_codes : ndarray of int, shape (n,)
        Each sample's point on the set with the feature, numbered in the order of
        (old point, value): the same numbering for any order of the rows.
    base_of : ndarray of int, shape (P',)
        Each new point's old point.
    point_values : ndarray, shape (P',)
        Each new point's value of the feature.

    O(n + z log z) for z non-zero values (:func:`._search_kernels.refine_points`).
    """
    codes = np.ascontiguousarray(codes, dtype=np.int64)
    n_points = int(codes.max()) + 1 if len(codes) else 0
    return search_kernels().refine_points(
        codes, np.ascontiguousarray(values, dtype=float), n_points
    )


def exceeding_sum(above: float, n: int) -> float:
    """The least sum of n samples' cards whose dependency exceeds ``above``.

    The dependency of an exact sum T is ``round(round(T) / n)``, which never decreases
    with T; a set whose cards can sum to at most T therefore cannot exceed ``above`` if and
    only if ``round(T)`` is below the double returned (-inf when ``above`` is NaN or
    -inf: nothing stops; +inf when no sum exceeds it).

    Parameters
    ----------
    above : float
        A dependency (the current set's).
    n : int
        The number of samples.

    Returns
    -------
    float
    """
    if not above > -math.inf or n <= 0:
        return -math.inf
    if not math.inf / n > above:
        return math.inf
    # Bisection over the doubles in their order (as integers): 64 steps at most.
    low, high = _double_rank(-math.inf), _double_rank(math.inf)  # low never exceeds
    while high - low > 1:
        middle = (low + high) // 2
        if _ranked_double(middle) / n > above:
            high = middle
        else:
            low = middle
    return _ranked_double(high)


def _double_rank(x: float) -> int:
    """The position of a double among all doubles in increasing order (-0.0 as 0.0)."""
    bits = struct.unpack("<q", struct.pack("<d", x))[0]
    return bits if bits >= 0 else -(bits & 0x7FFF_FFFF_FFFF_FFFF)


def _ranked_double(rank: int) -> float:
    """The double at ``rank`` (:func:`_double_rank`)."""
    bits = rank if rank >= 0 else -rank | -0x8000_0000_0000_0000
    return struct.unpack("<d", struct.pack("<q", bits))[0]


class AveragedSet:
    """A feature set S under the average rule: its points, and what a test of S + f needs.

    S keeps each sample's point, the points' coordinates (one column per feature, in the
    order they joined), their expected cards and, while there are at most
    :data:`TERMS_MAX_POINTS` points, the summed distance terms between them;
    ``dependency_with(f)`` then costs one feature's terms and one pass over the points of
    S + f, measuring first the points whose samples lose most on S, so that a test that
    cannot reach a floor stops early.

    Parameters
    ----------
    y : ndarray of {0, 1}
    rule : NeighbourRule
    """

    #: Caches a snapshot of the set leaves out (:mod:`._snapshot`): S's lists (with their
    #: k-d tree, made again when a test asks) and the last tests' cards (:meth:`add` then
    #: measures S + f again).
    snapshot_reset: ClassVar[dict] = {"_lists": None, "_measured": []}

    def __init__(self, y: np.ndarray, rule: NeighbourRule):
        self.y = np.ascontiguousarray(y, dtype=np.int64)
        self.rule = rule
        self.clear()

    def clear(self) -> None:
        """Make S empty."""
        n = len(self.y)
        self.codes = np.zeros(n, dtype=np.int64)
        self.coords = np.zeros((1, 0))
        self.weights = np.zeros(0)
        self.terms: np.ndarray | None = np.zeros((1, 1))
        self._cards: PointCards | None = None  # S's cards per point
        # (values, weight, cards) of the last tests of S + f measured whole
        self._measured: list[tuple[np.ndarray, float, PointCards]] = []
        self._lists: SetLists | None = None

    @property
    def size(self) -> int:
        """Features in S."""
        return len(self.weights)

    def _points(self, values: np.ndarray):
        values = np.ascontiguousarray(values, dtype=float)
        codes, base_of, point_values = refine(self.codes, values)
        P = len(base_of)
        m1 = np.bincount(codes, weights=self.y, minlength=P).astype(np.int64)
        m0 = np.bincount(codes, minlength=P).astype(np.int64) - m1
        return codes, base_of, point_values, m1, m0

    def _measure(self, values, weight, floor=-math.inf):
        """(dependency, share, :class:`PointCards`) of S + f; NaNs once the sum of the
        cards cannot reach ``floor``.

        With many points (the k-d tree and S's lists), the points of S whose cards f
        cannot change (:meth:`_known`) are not measured: their cards are S's."""
        codes, base_of, point_values, m1, m0 = self._points(values)
        P = len(base_of)
        all_weights = np.append(self.weights, float(weight))
        if every_distance_nan(all_weights):
            return self._measure_all_tied(P, int(m1.sum()), int(m0.sum()), floor)
        expected = np.zeros((P, 2))
        varies = np.zeros((P, 2), dtype=bool)
        if floor > -math.inf and self._cards is not None:
            set_cards = self._cards.expected[base_of]
            lost = m1 * (1.0 - set_cards[:, 1]) + m0 * (1.0 - set_cards[:, 0])
            visit = np.argsort(-lost, kind="stable").astype(np.int64)
        else:
            visit = np.arange(P, dtype=np.int64)
        from_coords = self.terms is None
        all_coords = np.column_stack([self.coords[base_of], point_values])
        if from_coords:
            coords, weights = np.ascontiguousarray(all_coords, dtype=float), all_weights
        else:
            coords, weights = np.zeros((P, 0)), np.zeros(0)
        distances = PointDistances(
            self.terms if self.terms is not None else np.zeros((1, 1)),
            base_of,
            point_values,
            float(weight),
            coords,
            weights,
            from_coords,
        )
        points = PointsOfSet(distances, m1, m0)
        kern = tie_kernels()
        search = PointSearch(all_coords, all_weights)
        if self.rule.kind != TIE_FIRST_K or not search.usable:
            dependency, share = expected_dependency(
                points, self.rule, visit, floor, expected, varies
            )
            return dependency, share, PointCards(expected, varies, None)
        search.use_lists(self._set_lists(), base_of, point_values, m1 + m0)
        # Many points: each point's list among candidates (S's lists, a k-d tree).
        partials = np.zeros(MAX_PARTIALS)
        state = np.array([0, 0, len(self.y)], dtype=np.int64)
        balls = np.empty((P, BALL_WIDTH), dtype=np.int32)
        cards = PointCards(expected, varies, balls)
        stopped = PointCards(expected, varies, None)  # some balls not written
        known = self._known(base_of, point_values)
        if len(known):
            was = base_of[known]
            expected[known], varies[known] = self._cards.expected[was], self._cards.varies[was]
            # Their ball points keep the value 0 on f: each is now the first point on its
            # point of S (base_of increases; first_on[Q], first_on[Q + 1]: -2, -1).
            first_on = np.empty(len(self._cards.balls) + 2, dtype=np.int32)
            first_on[-2:] = -2, -1
            first_on[:-2] = np.flatnonzero(np.diff(base_of, prepend=-1))
            balls[known] = first_on[self._cards.balls[was]]
            added = kern.add_known_cards(
                known, m1, m0, expected, varies, partials, state, float(floor)
            )
            if math.isnan(added):
                return math.nan, math.nan, stopped
            unknown = np.ones(P, dtype=bool)
            unknown[known] = False
            visit = visit[unknown[visit]]

        def measure(measured, cand_start, cand, far, missed) -> bool:
            return expected_cards(
                points,
                self.rule,
                (measured, cand_start, cand, far),
                floor,
                (expected, varies, partials, state, missed, balls),
            )

        need = self.rule.need + 1
        if not search.measure(visit, need, measure, need=need):
            return math.nan, math.nan, stopped
        n = len(self.y)
        return kern.rounded_total(partials, int(state[0])) / n, int(state[1]) / n, cards

    def _known(self, base_of: np.ndarray, point_values: np.ndarray) -> np.ndarray:
        """The points of S + f whose cards are S's: those on a point of S whose samples and
        ball points all have the value 0 on f (:class:`PointCards`).

        Parameters
        ----------
        base_of : ndarray of int, shape (P,)
            Each point's point on S (non-decreasing).
        point_values : ndarray, shape (P,)
            Its value of f.

        Returns
        -------
        ndarray of int
            The points, increasing (none when S's balls are not known).
        """
        set_balls = None if self._cards is None else self._cards.balls
        if set_balls is None or set_balls.shape[1] == 0:  # no ball can be told clean
            return np.empty(0, dtype=np.int64)
        Q = len(set_balls)
        # One entry per point of S, then -2 (measured in every test), then -1 (padding).
        changed = np.zeros(Q + 2, dtype=bool)
        changed[base_of[point_values != 0]] = True
        changed[Q] = True
        changed[:Q] |= changed[set_balls].any(axis=1)
        return np.flatnonzero(~changed[base_of]).astype(np.int64)

    def _measure_all_tied(self, P: int, m1: int, m0: int, floor: float):
        """:meth:`_measure` when S + f holds a constant feature (an infinite weight): every
        distance between two samples is NaN, so every sample's other samples are tied, as
        are those of one point holding them all. Its expected cards, per label, are every
        point's: O(1) instead of every point against every other.

        Returns
        -------
        (dependency, share, :class:`PointCards`) as :meth:`_measure`; NaNs when the
        cards' sum is below ``floor``.
        """
        expected = np.zeros((1, 2))
        varies = np.zeros((1, 2), dtype=bool)
        one = np.zeros(1, dtype=np.int64)
        alone = PointDistances(
            np.zeros((1, 1)), one, np.zeros(1), math.inf, np.zeros((1, 0)), np.zeros(0), False
        )
        points = PointsOfSet(alone, np.array([m1], dtype=np.int64), np.array([m0], dtype=np.int64))
        dependency, share = expected_dependency(points, self.rule, one, -math.inf, expected, varies)
        cards = PointCards(np.repeat(expected, P, axis=0), np.repeat(varies, P, axis=0), None)
        if dependency * (m1 + m0) < floor:
            return math.nan, math.nan, cards
        return dependency, share, cards

    def _set_lists(self) -> SetLists:
        """S's lists (made at the first test on S that uses them)."""
        with instance_lock(self):  # tests on several threads
            if self._lists is None:
                self._lists = SetLists(self.coords, self.weights)
            return self._lists

    def dependency_with(
        self,
        values: np.ndarray,
        weight: float,
        floor: float = -math.inf,
        above: float | None = None,
    ) -> tuple[float, float]:
        """The dependency of S + f under the average rule, S unchanged.

        Parameters
        ----------
        values : ndarray, shape (n,)
            The feature f.
        weight : float
            Its distance weight.
        floor : float
            Only whether the dependency reaches ``floor`` matters: once it certainly
            cannot (by more than a rounding margin), the test stops and gives NaN.
        above : float, optional
            Instead of ``floor``: only whether the dependency exceeds ``above`` matters
            (K-OFSD's test, Algorithm 1 line 9). Once it certainly cannot, exactly (the
            cards so far plus 1 for each sample left, summed exactly and divided by n as
            the dependency is, do not exceed ``above``), the test stops and gives NaN: a
            test of a feature that changes no card stops once the points that lose on S
            are measured.

        Returns
        -------
        (dependency, share of the samples whose card depends on the row order), or
        (NaN, NaN) below the floor or not above ``above``
        """
        n = len(self.y)
        if above is not None:
            total_floor = exceeding_sum(above, n)
        elif floor > -math.inf:
            total_floor = floor * n - (1e-9 * n + 1e-9)
        else:
            total_floor = -math.inf
        dependency, share, cards = self._measure(values, weight, total_floor)
        if above is not None and not dependency > above:  # measured whole, not above
            return math.nan, math.nan
        if not math.isnan(dependency):  # S + f measured whole: add() may reuse its cards
            with instance_lock(self):  # tests on several threads
                self._measured = [
                    *self._measured[-MEASURED_KEPT + 1 :],
                    (values, float(weight), cards),
                ]
        return dependency, share

    def dependencies_with(
        self,
        block: np.ndarray,
        weights: np.ndarray,
        floor: float = -math.inf,
        stop_above: float | None = None,
        threads: int = 1,
        above: float | None = None,
    ) -> list[float]:
        """:meth:`dependency_with` of each column of ``block`` in turn, S unchanged.

        Parameters
        ----------
        block : ndarray, shape (n, b)
            The features f, in stream order.
        weights : ndarray, shape (b,)
            Their distance weights.
        floor, above : float
            As :meth:`dependency_with`.
        stop_above : float, optional
            Only the columns up to the first whose dependency exceeds this are needed
            (the first that would join S): those after it get NaN.
        threads : int
            Tests measured at once, each on a thread (its kernels release the GIL): the
            next columns' tests run while a column's does, and those after a column that
            exceeds ``stop_above`` are dropped. The same dependencies as one at a time.

        Returns
        -------
        list of float
            Each column's dependency (NaN below the floor or not needed).
        """
        b = block.shape[1]
        deps = [math.nan] * b
        if threads <= 1 or b == 1:
            for j in range(b):
                deps[j] = self.dependency_with(block[:, j], weights[j], floor, above)[0]
                if stop_above is not None and deps[j] > stop_above:
                    break
            return deps
        with ThreadPoolExecutor(threads, thread_name_prefix="fsengine-set-test") as pool:
            running = {}
            for j in range(b):
                for ahead in range(j + len(running), min(b, j + threads)):
                    running[ahead] = pool.submit(
                        self.dependency_with, block[:, ahead], weights[ahead], floor, above
                    )
                deps[j] = running.pop(j).result()[0]
                if stop_above is not None and deps[j] > stop_above:
                    for test in running.values():
                        test.cancel()
                    break  # the pool waits for the tests already running: S is unchanged
        return deps

    def _join(self, values: np.ndarray, weight: float) -> None:
        """S's points, terms and coordinates become S + f's (S's cards and the last tests'
        are left to the caller)."""
        codes, base_of, point_values, _, _ = self._points(values)
        if self.terms is not None and len(base_of) <= TERMS_MAX_POINTS:
            self.terms = tie_kernels().point_terms(self.terms, base_of, point_values, float(weight))
        else:
            self.terms = None
        self.coords = np.column_stack([self.coords[base_of], point_values])
        self.weights = np.append(self.weights, float(weight))
        self._lists = None
        self.codes = codes

    @classmethod
    def of_columns(
        cls, y: np.ndarray, rule: NeighbourRule, block: np.ndarray, weights: np.ndarray
    ) -> AveragedSet:
        """The set of ``block``'s columns (in order, with their distance ``weights``),
        for tests on it alone: unlike :meth:`add`, which measures S's cards after each
        feature for the next test's sake, it measures nothing (the same dependencies)."""
        points = cls(y, rule)
        for j in range(block.shape[1]):
            points._join(block[:, j], weights[j])
        return points

    def add(self, values: np.ndarray, weight: float) -> None:
        """S becomes S + f."""
        self._join(values, weight)
        measured, self._measured = self._measured, []
        for last in reversed(measured):
            if last[1] == float(weight) and np.array_equal(last[0], values):
                cards = last[2]  # the test that admitted f measured S + f whole
                break
        else:
            self._cards = cards = None  # S's cards are the old points': measured anew
        self._cards = cards if cards is not None else self._measure(np.zeros(len(self.y)), 0.0)[2]

    def replace(self, values: np.ndarray, weight: float) -> None:
        """S becomes {f}."""
        self.clear()
        self.add(values, weight)

    def dependency(self) -> tuple[float, float]:
        """The dependency of S itself (the empty set: every sample at distance 0 from
        every other), and the share of the samples whose card depends on the row order.

        Measured as S + a feature of zeros with weight 0, whose terms are 0: the same
        points and the same distances as S's."""
        return self.dependency_with(np.zeros(len(self.y)), 0.0)

    def copy(self) -> AveragedSet:
        """An independent copy of S (adding to it leaves this one unchanged)."""
        twin = AveragedSet.__new__(AveragedSet)
        twin.__dict__.update(self.__dict__)
        return twin


#: The ``ties`` parameter of every selector that judges a sample by its first K neighbours.
TIES_PARAMETER = Choice(
    "index",
    "how samples at equal distance are ordered when a neighbour list is cut: by row "
    "index (the authors' code; on counts the selection can then depend on the order of "
    "the samples) or averaged over every order (the same selection for any order)",
    label="Tied distances",
    source="the authors' code (stable sort) / docs/ALGORITHMS.md (expectation over orders)",
    choices={
        "index": "the lower row index first, as the authors' code (default)",
        "average": "the expected card over every order of the tied samples (order-invariant)",
    },
)


def _column_blocks(X):
    """``X``'s columns as dense float64 blocks of about a million values (sparse input, or
    a matrix on disk, a block at a time, never whole)."""
    n, p = X.shape
    width = block_width(n)
    sparse = by_columns(X)
    columns = as_columns(X) if sparse else X
    for lo in range(0, p, width):
        hi = min(lo + width, p)
        if sparse:
            yield dense_columns(columns, slice(lo, hi))
        else:
            yield np.asarray(columns[:, lo:hi], dtype=float)


#: :func:`ties_default`'s judgement of each matrix still alive: id -> (a weak reference
#: to it, (rule, reason)). A page asks once for each selector with a ``ties`` parameter.
_JUDGED: dict[int, tuple[weakref.ref, tuple[str, str]]] = {}


def ties_default(X) -> tuple[str, str]:
    """The tie rule that suits the matrix ``X``, and why in a sentence.

    Judged once per matrix object (one pass over it; a data set's matrix is not changed
    in place); asked again, the judgement is given back.

    "average" when ties are the rule rather than the exception: a sparse matrix, values
    that are all integers (counts), or mostly zeros (normalised counts); there the
    authors' rule decides many neighbourhoods by the order of the rows. Else "index", the
    authors' rule, with no reason.

    Parameters
    ----------
    X : ndarray, scipy sparse matrix or matrix on disk, shape (n_samples, n_features)
        A matrix on disk stored sparse counts as sparse; one stored dense is judged by its
        values' profile (:meth:`fsengine._compute.sparse.BackedMatrix.profile`).

    Returns
    -------
    (rule, reason)
    """
    key = id(X)
    found = _JUDGED.get(key)
    if found is not None and found[0]() is X:
        return found[1]
    judged = _judge_ties(X)
    try:
        _JUDGED[key] = (weakref.ref(X, lambda _, key=key: _JUDGED.pop(key, None)), judged)
    except TypeError:  # an object without weak references: judged again when asked
        pass
    return judged


def _judge_ties(X) -> tuple[str, str]:
    """:func:`ties_default`, one pass over ``X``."""
    if is_sparse(X) or (is_backed(X) and X.sparse):
        return "average", (
            "the matrix is sparse (counts): most of a gene's samples share the value 0, and "
            "under the authors' rule the order of the rows decides which of them are a "
            "sample's neighbours"
        )
    if is_backed(X):  # stored dense: its profile, one pass over the file
        profile = X.profile()
        total, integers = X.shape[0] * X.shape[1], profile.integers
        zeros = profile.zeros(X.shape[0])
    else:
        total, integers, zeros = 0, True, 0
        for block in _column_blocks(X):
            total += block.size
            zeros += int(np.count_nonzero(block == 0))
            integers = integers and bool(np.all(block == np.round(block)))
    if integers:
        return "average", (
            "every value is an integer (counts): tied values are common, and under the "
            "authors' rule the order of the rows decides which tied samples are neighbours"
        )
    if total and zeros >= total / 2:
        return "average", (
            f"{100 * zeros / total:.0f} % of the values are 0: under the authors' rule the "
            "order of the rows decides which of a gene's zeros are a sample's neighbours"
        )
    return "index", ""


#: The share of the samples on a gene alone (mean over the genes) from which the front ends
#: say that the row order decided cards, when none on the selected set depends on it.
NOTE_SHARE = 0.01


@dataclass(frozen=True)
class OrderDependence:
    """How much a run under the authors' tie rule was decided by the order of the rows.

    Attributes
    ----------
    label : str
        The method ("K-OFSD").
    genes : float
        The share of the samples whose card on a feature alone depends on the row order,
        the mean over the features.
    selected : float
        The same on the selected set (NaN when nothing was selected).
    n_features : int
        Features measured.
    """

    label: str
    genes: float
    selected: float
    n_features: int

    @property
    def depends(self) -> bool:
        """Whether the row order decided enough cards to say so: any sample's on the
        selected set, or at least :data:`NOTE_SHARE` of the samples on a gene alone (on
        continuous values a few ties remain: SRBCT 0.2 %, with the same selection for any
        order)."""
        return self.selected > 0 or self.genes >= NOTE_SHARE

    def sentence(self, switch: str = "--ties average") -> str:
        """The note every front end shows (``switch``: how to choose the other rule)."""
        on_set = (
            ""
            if math.isnan(self.selected)
            else f", and {100 * self.selected:.1f} % on the selected set"
        )
        return (
            f"under the authors' tie rule, the card of {100 * self.genes:.1f} % of the samples on "
            f"a gene alone (mean over {self.n_features} genes){on_set} depends on which of "
            f"several equally distant samples comes first in the file: {self.label}'s "
            f"selection can depend on the order of the samples; {switch} gives the same "
            "selection for any order"
        )


def order_dependence(
    X, y, rule: NeighbourRule, metric: str, selected_columns, label: str
) -> OrderDependence:
    """The shares of :class:`OrderDependence` for a run under the authors' tie rule.

    Parameters
    ----------
    X : ndarray or scipy sparse matrix, shape (n_samples, n_features)
        The streamed features (sparse input is read a block of columns at a time).
    y : ndarray of {0, 1}
    rule : NeighbourRule
        The run's list and card.
    metric : {"seuclidean", "euclidean"}
    selected_columns : sequence of int
        The selected set, in its order.
    label : str

    Returns
    -------
    OrderDependence
    """
    y = np.ascontiguousarray(y, dtype=np.int64)
    total, count = 0.0, 0
    for block in _column_blocks(X):
        _, shares = single_dependencies(block, y, invariant_weights(block, metric), rule)
        total += float(np.sum(shares))
        count += len(shares)
    selected = math.nan
    columns = list(selected_columns)
    if columns:
        if by_columns(X):
            block = dense_columns(as_columns(X), columns)
        else:
            block = np.asarray(X[:, columns], dtype=float)
        weights = invariant_weights(block, metric)
        points = AveragedSet.of_columns(y, rule, block[:, :-1], weights[:-1])
        selected = points.dependency_with(block[:, -1], weights[-1])[1]
    return OrderDependence(label, total / max(count, 1), selected, count)
