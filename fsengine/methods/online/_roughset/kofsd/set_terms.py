"""The set terms of K-OFSD's stream: what a selected set keeps between the tests of the
features that arrive (its summed distance terms, or its columns), the neighbour lists
that settle most rows without a whole row, and the tuning constants of both (each with
the measurement that set it)."""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np

from fsengine._compute.budget import use_compiled
from fsengine._compute.parallel import kernel_threads, run_chunks
from fsengine.methods.online._codes import CARD_CODES, NO_CARD
from fsengine.methods.online._roughset.kofsd.common import (
    NO_APPROXIMATION,
    NO_PRUNE,
    SET_KERNELS,
    SetTest,
    as_ks,
    empty_lists,
    knn_kernels,
    nearer_than_other_label,
    numpy_cards,
    numpy_dependencies,
    numpy_distances,
    numpy_list_stats,
    resized_lists,
    run_set_test,
    set_kernels,
    stats_arrays,
    unpack,
    unshared,
)
from fsengine.methods.online._roughset.kofsd.reference import (
    NeighbourStats,
    distance_terms,
)

#: Up to this many samples a dense set's tests score every row whole (a vectorised row
#: costs less there than making and walking lists: 1.1x to 1.4x on the real sets).
WHOLE_ROWS_MAX = 640


#: Above, when no lists can be grown from the previous set's and the set keeps its summed
#: terms (:data:`SUMS_MAX_SAMPLES`), a set's tests score whole rows until they have scored
#: this many times N rows on it (making every list costs about N whole rows), then make
#: lists: a set that changes after each test (every tested feature added) never pays for
#: lists. A set kept as columns makes them at once.
LISTS_AFTER_ROWS = 1.0


#: Samples listed per sample for the set tests of a larger dense set: at first and at
#: least SHORTLIST_MIN (and 2 (K + 1)), at most a SHORTLIST_MAX_SHARE-th of the samples.
SHORTLIST_MIN = 192


SHORTLIST_MAX_SHARE = 8


#: When more than this fraction of rows is not settled by its list, the next lists are
#: twice as long; below a tenth of it, half as long; above USELESS_FRACTION (a set of one
#: or two features with many equal values) the set's remaining tests skip the lists.
FULL_ROW_FRACTION = 0.2


USELESS_FRACTION = 0.5


#: Samples listed per sample for a set kept as columns, and the length below which a
#: list is remade when the set grows.
COLUMN_LIST_LENGTH = 128


COLUMN_LIST_MIN = 24


#: A dense set that keeps its summed terms remakes, after an addition, the lists with fewer
#: samples than this left below their bound (kept as columns, its tests remake the lists
#: they miss).
DENSE_LIST_MIN = 16


#: Up to this many features, a set kept as columns remakes lists by pruned walks; above,
#: from approximate terms (matrix products) and exact sums for the candidates.
PRUNED_LISTS_MAX_SET = 2


#: Up to this many samples a dense set keeps its summed terms (N x N) also with lists: whole
#: rows and lists are read from them. Above, both are summed from the set's columns (no
#: N x N memory to fill on every set, and only the rows that are needed).
SUMS_MAX_SAMPLES = 1500


#: A thread of the set kernels takes at least this many row-by-sample operations.
THREAD_MIN_WORK = 250_000


def rejected_by_parts(progress: np.ndarray, n: int, reject_sum: float, n_low: int) -> bool:
    """The rules of early rejection on the final progress of a candidate's parts
    (:func:`_set_kernels.set_tests_shared`), summed in the kernel's order."""
    deficit, low = 0.0, 0.0
    for part_deficit, part_low in progress:
        deficit += float(part_deficit)
        low += float(part_low)
    return n - deficit < reject_sum or low == n_low


def _over_rows(function, n_rows: int, n: int, blas: bool = False) -> None:
    """``function(lo, hi)`` over contiguous chunks of ``n_rows`` rows of ``n`` samples each,
    on the kernel threads (:func:`fsengine._compute.parallel.run_chunks`; ``blas``: its kernels
    multiply matrices); each row is computed by itself, so the chunks change no result."""
    run_chunks(function, n_rows, min_chunk=max(1, THREAD_MIN_WORK // max(n, 1)), blas=blas)


def _add_terms(sq: np.ndarray, x: np.ndarray, weight: float, replace: bool) -> None:
    """The compiled add_terms over the rows of ``sq``, threaded."""
    kern = knn_kernels()
    _over_rows(lambda lo, hi: kern.add_terms(sq, x, weight, replace, lo, hi), len(x), len(x))


def _grow_lists(x: np.ndarray, weight: float, arrays: tuple) -> int:
    """The compiled grow_lists over every sample's list, threaded; the shortest length."""
    kern = set_kernels()
    shortest = []
    _over_rows(
        lambda lo, hi: shortest.append(kern.grow_lists(x, weight, *arrays, lo, hi)),
        len(x),
        arrays[0].shape[1] * 8,
    )
    return min(shortest)


def _raise_lists(x: np.ndarray, weight: float, arrays: tuple, below: np.ndarray) -> None:
    """The compiled raise_lists over every sample's list, threaded."""
    kern = set_kernels()
    idx, sq, _, length, bound = arrays
    _over_rows(
        lambda lo, hi: kern.raise_lists(x, weight, idx, sq, length, bound, below, lo, hi),
        len(x),
        idx.shape[1] * 8,
    )


def _build_dense_lists(sq: np.ndarray, rows: np.ndarray, arrays: tuple) -> None:
    """The compiled build_dense_lists for ``rows``, threaded over them."""
    kern = set_kernels()
    _over_rows(
        lambda lo, hi: kern.build_dense_lists(sq, rows[lo:hi], *arrays), len(rows), sq.shape[0]
    )


class _SetTerms(ABC):
    """What a set test needs to know of the selected set S, whatever its form: the samples'
    card values on S (for early rejection), S's weights, and one feature of S in sorted
    order for the pruned walks. Subclasses keep the terms and the shortlists.

    Parameters
    ----------
    n : int
        Number of samples.
    """

    #: Threads split a test's rows (one candidate at a time) rather than its candidates:
    #: for many samples, where one candidate is a lot of work and a run without events
    #: needs only the candidates up to the first addition.
    rows_in_parts = False
    #: A test's rows go to the kernel in parts even on one thread: the kernel then remakes
    #: the lists its rows missed (a set kept as columns, whose rows are summed anyway).
    remakes_lists = False

    def __init__(self, n: int):
        self.n = n
        self.weights: list[float] = []
        self.row_order: np.ndarray | None = None
        self._order_with_lists = False  # the row order used the shortlists
        self._cards: np.ndarray | None = None
        self._n_low = -1
        self._prune = NO_PRUNE
        self._prune_distinct = 0
        #: Diagnostics: set tests made from lists, and their rows the lists did not settle.
        self.list_tests = 0
        self.list_full_rows = 0
        #: Rows scored by the set tests of the current S.
        self.rows_tested = 0

    def set_cards(self, cards: np.ndarray | None, y: np.ndarray) -> None:
        """The card values (n,) of the samples on the current S, or None if unknown.

        Set tests then visit first the samples whose card is below 1 (minority first
        among them), where an early rejection finds its evidence, then the others, those
        with a sample of the other label near first (:meth:`_row_order`)."""
        self.row_order = None
        if cards is None:
            self._cards, self._n_low = None, -1
            return
        self._cards = np.ascontiguousarray(cards, dtype=float)
        self._n_low = int(np.count_nonzero(self._cards < 1.0))

    def _other_label_nearness(self, y: np.ndarray) -> np.ndarray:
        """Per sample, the position in its current shortlist on S of its first listed
        sample of the other label (the lists' width if none)."""
        arrays = self._current_lists()
        first = np.empty(self.n, dtype=np.int64)
        kern, labels = set_kernels(), np.asarray(y, dtype=np.int64)
        _over_rows(
            lambda lo, hi: kern.first_other_label(arrays[0], arrays[3], labels, first, lo, hi),
            self.n,
            arrays[0].shape[1],
        )
        return first

    def _current_lists(self) -> tuple | None:
        """The shortlists of the current S if there are some (they may be partly stale)."""
        return None

    def _row_order(self, y: np.ndarray) -> np.ndarray:
        """Samples in the order of the set tests. With the card values of :meth:`set_cards`:
        first those whose card is below 1, minority first; then the others, those whose
        first listed sample of the other label comes soonest in their shortlist first (the
        ones a candidate can lower, which rejects it sooner), once there are lists; on a set
        of one feature, those with fewest samples nearer than the other label on it. Without
        card values, the minority first. Any order gives the same statistics."""
        with_lists = self._cards is not None and self._current_lists() is not None
        if (
            self.row_order is not None
            and len(self.row_order) == len(y)
            and (self._order_with_lists or not with_lists)
        ):
            return self.row_order
        y = np.asarray(y)
        if self._cards is None:
            key = (y == 0).astype(np.int64)
        else:
            high = self._cards >= 1.0
            key = high.astype(np.int64) * 2 + (y == 0)
            if with_lists:
                key[high] += 2 * self._other_label_nearness(y)[high]
            elif len(self.weights) == 1 and len(self._prune[2]) == self.n:
                key[high] += 2 * nearer_than_other_label(self._prune[0], self._prune[2], y)[high]
        self.row_order = np.argsort(key, kind="stable").astype(np.int64)
        self._order_with_lists = with_lists
        return self.row_order

    @property
    def finite(self) -> bool:
        """Every weight of S is a positive finite number (no NaN distance on S)."""
        return bool(self.weights) and all(0.0 < w < np.inf for w in self.weights)

    def _offer_prune(self, values: np.ndarray, weight: float, replace: bool) -> None:
        """Keep as the pruning feature the one of S with most distinct values."""
        if replace:
            self._prune, self._prune_distinct = NO_PRUNE, 0
        if not 0.0 < weight < np.inf:
            return
        order = np.argsort(values, kind="stable").astype(np.int64)
        distinct = 1 + int(np.count_nonzero(np.diff(values[order])))
        if distinct > self._prune_distinct:
            position = np.empty(self.n, dtype=np.int64)
            position[order] = np.arange(self.n)
            self._prune = (
                np.array(values, dtype=float),  # a copy: the stream reuses its blocks
                float(weight),
                order,
                position,
            )
            self._prune_distinct = distinct

    @abstractmethod
    def _lists(self) -> tuple:
        """The shortlists of the current S for the kernel: (idx, sq, d, len, bound)."""

    @abstractmethod
    def _set_arrays(self) -> tuple:
        """(dense, sq, cols, col_w) for the kernel."""

    def _approximation(self) -> tuple:
        """(zt, z, znorm) for the kernel's approximate rows (empty: none)."""
        return NO_APPROXIMATION

    def _prune_arrays(self) -> tuple:
        """The pruning feature for the kernel (:data:`_NO_PRUNE`: none)."""
        return self._prune

    def _after_test(self, missed: int, done: int) -> None:  # noqa: B027 - optional hook
        """Adapt the lists to how often they settled rows (nothing by default)."""

    def _uses_lists(self, ks: np.ndarray) -> bool:
        return bool(self.weights)

    def stats_with(
        self,
        block: np.ndarray,
        weights: np.ndarray,
        y: np.ndarray,
        ks,
        variant: str = "reference",
        with_distances: bool = False,
        reject: tuple[str, float, float] | None = None,
    ) -> tuple[list[NeighbourStats], np.ndarray]:
        """Neighbour statistics on S + f for each column f of ``block`` (S unchanged).

        Equal to :func:`set_plus_feature_stats` on the set's summed terms, bit for bit.

        Parameters
        ----------
        block, weights, y, ks, variant, with_distances
            As in :func:`set_plus_feature_stats`.
        reject : (card name, gamma, sum), optional
            Early rejection: a candidate is dropped as soon as its card values (card
            "imbalanced", "consistency" or "weight", for the first K) can no longer add up
            to ``sum``, or can no longer exceed the set's own (:meth:`set_cards`); its
            statistics are then incomplete.

        Returns
        -------
        (list of NeighbourStats, ndarray of bool)
            One NeighbourStats per K, arrays of shape (n, c); which candidates were
            rejected early.
        """
        card, gamma, reject_sum = NO_CARD, 0.0, -np.inf
        if reject is not None and reject[0] in CARD_CODES:
            card, gamma, reject_sum = CARD_CODES[reject[0]], float(reject[1]), float(reject[2])
        stats, rejected, _, _ = self._test(
            block,
            weights,
            y,
            as_ks(ks),
            variant,
            with_distances,
            card,
            gamma,
            reject is not None,
            reject_sum,
        )
        return stats, rejected

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
        """The dependency of S + f for each column f of ``block`` (Algorithm 2 on S + f), for a
        card function the kernels compute ("imbalanced", "consistency", "weight").

        Parameters
        ----------
        block, weights, y, k, variant
            As in :meth:`stats_with` (one K).
        card, gamma
            The card function and Card_Weight's threshold.
        reject_sum : float, optional
            Early rejection below this card sum (see :meth:`stats_with`); a rejected
            candidate's dependency is NaN.
        accept_above : float, optional
            Only the first candidate whose dependency is above this value is needed: the
            candidates after it may be skipped (dependency NaN).

        Returns
        -------
        deps : ndarray, shape (c,)
            The card values summed in sample order, divided by n (NaN: rejected early).
        cards : ndarray, shape (n, c)
            Every sample's card value on S + f (incomplete for a rejected candidate).
        """
        early = reject_sum is not None
        _, _, cards, deps = self._test(
            block,
            weights,
            y,
            as_ks([k]),
            variant,
            False,
            CARD_CODES[card],
            float(gamma),
            early,
            reject_sum if early else -np.inf,
            np.inf if accept_above is None else accept_above,
        )
        return deps, cards.T

    def _test(
        self,
        block,
        weights,
        y,
        ks,
        variant,
        with_distances,
        card,
        gamma,
        early,
        reject_sum,
        accept_above=np.inf,
    ):
        """One kernel call for the candidates of ``block``: (stats, rejected, cards, deps).

        With a card, candidates after the first whose dependency is above ``accept_above``
        may be skipped (rejected, dependency NaN)."""
        n, c = block.shape
        use_lists = self._uses_lists(ks)
        lists = self._lists() if use_lists else empty_lists(n)
        same, same_d, other_d = stats_arrays(len(ks), n, c, with_distances)
        rejected = np.zeros(c, dtype=bool)
        cards_out = np.zeros((c, n)) if card != NO_CARD else np.empty((0, 0))
        deps = np.empty(c) if card != NO_CARD else np.empty(0)
        set_cards = self._cards if self._cards is not None else np.ones(n)
        n_low = self._n_low if (self._cards is not None and self.weights) else -1
        # The candidates one a row: all of them for a kernel call over candidates; one at a
        # time where the rows are split (most tests stop at the first acceptance).
        in_parts = self.rows_in_parts and (kernel_threads() > 1 or self.remakes_lists)
        candidates = None if in_parts else np.ascontiguousarray(block.T, dtype=float)
        weights = np.asarray(weights, dtype=float)
        labels = np.asarray(y, dtype=np.int64)
        set_arrays, approximation = self._set_arrays(), self._approximation()
        prune = self._prune_arrays()
        order = self._row_order(y)
        accepted = np.array([c], dtype=np.int64)  # the first acceptance, shared
        test = SetTest(
            set_arrays=set_arrays,
            set_finite=self.finite,
            lists=lists,
            prune=prune,
            candidates=candidates,
            candidate_weights=weights,
            labels=labels,
            ks=ks,
            paper=variant == "paper",
            with_distances=with_distances,
            outputs=(same, same_d, other_d),
            card=card,
            gamma=gamma,
            early=early,
            reject_sum=reject_sum,
            rejected=rejected,
            rows=order,
            set_cards=set_cards,
            n_low=n_low,
            cards_out=cards_out,
            deps_out=deps,
            approximation=approximation,
            first=0,
            accept_above=float(accept_above),
            accepted=accepted,
            whole=True,
            sharing=unshared(),
        )
        if in_parts:
            counts = self._test_in_parts(test, block)
        else:
            counts = _test_by_candidates(test)
        missed, done = (sum(values) for values in zip(*counts))
        self.rows_tested += done
        if use_lists:
            self.list_tests += 1
            self.list_full_rows += missed
            self._after_test(missed, done)
        return (
            unpack(same, same_d, other_d, with_distances, squeeze=False),
            rejected,
            cards_out,
            deps,
        )

    def _test_in_parts(self, test: SetTest, block) -> list[tuple[int, int]]:
        """The set test of ``test`` one candidate (a column of ``block``) at a time, its rows
        split into parts that threads take at once; the parts share their progress towards
        an early rejection, and the card sum is made once all are done. Most tests stop at
        the first acceptance (``test.accept_above``): the candidates after it are skipped.

        Returns
        -------
        list of (int, int)
            Each kernel call's counts (:func:`run_set_test`).
        """
        kern = set_kernels()
        n, c = block.shape
        carded = test.card != NO_CARD
        same, same_d, other_d = test.outputs
        rejected, cards_out, deps = test.rejected, test.cards_out, test.deps_out
        # Every thread takes every so many rows of the order: each part has its share of
        # the rows that reject early and of those an acceptance adds.
        parts = max(1, min(kernel_threads(), n * n // THREAD_MIN_WORK))
        part_rows = [np.ascontiguousarray(test.rows[p::parts]) for p in range(parts)]
        # A set of one feature: each candidate is sorted once for all the parts.
        by_runs = len(self.weights) == 1 and parts > 1
        no_order = np.empty((0, 0), dtype=np.int64)
        counts = []
        for j in range(c):
            outputs = stats_arrays(len(test.ks), n, 1, test.with_distances)
            progress = np.zeros((parts, 2))
            candidate = np.ascontiguousarray(block[:, j], dtype=float)[None, :]
            ordered = np.argsort(candidate[0])[None, :] if by_runs else no_order
            calls = [
                test._replace(
                    candidates=candidate,
                    candidate_weights=test.candidate_weights[j : j + 1],
                    outputs=outputs,
                    rejected=rejected[j : j + 1],
                    rows=part_rows[p],
                    cards_out=cards_out[j : j + 1] if carded else cards_out,
                    deps_out=deps[j : j + 1] if carded else deps,
                    accept_above=np.inf,
                    accepted=np.array([1]),
                    whole=False,
                    sharing=(progress, p, ordered),
                )
                for p in range(parts)
            ]

            def run_parts(lo: int, hi: int, calls=calls) -> None:
                counts.extend(run_set_test(kern, call) for call in calls[lo:hi])

            run_chunks(
                run_parts,
                parts,
                blas=test.approximation[0].size > 0,  # rows from approximate terms (BLAS)
            )
            same[:, j] = outputs[0][:, 0]
            if test.with_distances:
                same_d[:, j] = outputs[1][:, 0]
                other_d[:, j] = outputs[2][:, 0]
            if not carded:
                continue
            if test.early and not rejected[j] and parts > 1:
                rejected[j] = rejected_by_parts(progress, n, test.reject_sum, test.n_low)
            deps[j] = np.nan if rejected[j] else kern.mean_in_order(cards_out[j])
            if deps[j] > test.accept_above:  # the rest is not needed
                rejected[j + 1 :] = True
                deps[j + 1 :] = np.nan
                break
        return counts


def _test_by_candidates(test: SetTest) -> list[tuple[int, int]]:
    """The set test of ``test`` over its candidates in chunks, each chunk a kernel call of
    its own (own outputs, copied into place; its own progress: the calls may run at once).

    Returns
    -------
    list of (int, int)
        Each kernel call's counts (:func:`run_set_test`).
    """
    kern = set_kernels()
    n, c = test.labels.shape[0], test.candidates.shape[0]
    carded = test.card != NO_CARD
    same, same_d, other_d = test.outputs
    counts = []

    def candidates_from(lo: int, hi: int) -> None:
        part = stats_arrays(len(test.ks), n, hi - lo, test.with_distances)
        mine = test._replace(
            candidates=test.candidates[lo:hi],
            candidate_weights=test.candidate_weights[lo:hi],
            outputs=part,
            rejected=test.rejected[lo:hi],
            cards_out=test.cards_out[lo:hi] if carded else test.cards_out,
            deps_out=test.deps_out[lo:hi] if carded else test.deps_out,
            first=lo,
            sharing=unshared(),
        )
        counts.append(run_set_test(kern, mine))
        same[:, lo:hi] = part[0]
        if test.with_distances:
            same_d[:, lo:hi] = part[1]
            other_d[:, lo:hi] = part[2]

    # Rows from approximate terms multiply matrices (BLAS).
    _over_rows(candidates_from, c, n * 64, blas=test.approximation[0].size > 0)
    return counts


class DenseSetTerms(_SetTerms):
    """The selected set's distance terms and the shortlists of its set tests, for up to
    DENSE_MAX_SAMPLES samples (:mod:`fsengine.methods.online._roughset.kofsd.selector`).

    Up to :data:`WHOLE_ROWS_MAX` samples the set keeps its summed terms (N x N) and its
    tests score every row whole. Above, each sample keeps a shortlist on S: a set test
    (the neighbours on S + f) walks a sample's list in increasing order of its keys (lower
    bounds of the listed terms on S) and stops as soon as the next key is beyond the
    K+1-th distance found; a sample outside the list is at least as far as the list's
    bound (:mod:`fsengine.methods.online._roughset.kofsd._set_kernels`). When S grows, the
    listed terms grow by the new feature's, in place (keys and bound stay valid: terms only grow). A
    row its list does not settle is scored whole.

    Up to :data:`SUMS_MAX_SAMPLES` the set also keeps its summed terms: lists and whole
    rows are read from them, lists are made once the set's tests have scored
    :data:`LISTS_AFTER_ROWS` times N whole rows, and remade after an addition where fewer
    than :data:`DENSE_LIST_MIN` listed samples are left below the bound. Above, the set
    keeps only its columns: the lists are made at the first test of a set (their order of
    the other label's nearness orders the test's rows), and a test remakes the list of a
    row it missed from the row's terms, summed from the columns for the row anyway. The
    lists' width adapts to how often they settle rows. While S has one feature, rows are
    found by runs of its equal values (:func:`_set_kernels._row_runs`).
    """

    def __init__(self, n: int):
        super().__init__(n)
        self._whole = n <= WHOLE_ROWS_MAX
        self._keeps_sq = n <= SUMS_MAX_SAMPLES  # else the lists' rows come from the columns
        #: The summed terms (N x N): kept while rows are scored whole, or in numpy.
        self._sq: np.ndarray | None = None
        self._columns = np.empty((0, n))  # the set's features, one a row, in summation order
        self._length = SHORTLIST_MIN
        self._list_arrays: tuple | None = None  # (idx, sq, d, len, bound)
        self._stale = True  # the lists are not those of the current S
        self._single: np.ndarray | None = None  # S's feature while S has one
        self._below = np.zeros(n, np.int64)  # listed samples still below their bound
        self._raised = False  # the lists grew with the set since its last test
        self._useless = False  # the lists do not pay on the current S

    @property
    def sq(self) -> np.ndarray | None:
        """The set's summed distance terms (N x N, in the set's order; None for no set)."""
        if self._sq is not None or not self.weights:
            return self._sq
        total = distance_terms(self._columns[0], self.weights[0])
        for values, weight in zip(self._columns[1:], self.weights[1:]):
            total = total + distance_terms(values, weight)
        return total

    def replace(self, values: np.ndarray, weight: float) -> None:
        """S becomes the one feature ``values`` (distance weight ``weight``)."""
        values = np.array(values, dtype=float)  # a copy: the stream reuses its blocks
        compiled = use_compiled(self.n * self.n, SET_KERNELS)
        if compiled and not self._keeps_sq:
            self._sq = None  # the terms are summed from the columns
        elif compiled:
            if self._sq is None:
                self._sq = np.empty((self.n, self.n))
            _add_terms(self._sq, values, float(weight), True)
        else:
            self._sq = distance_terms(values, float(weight))
        self._columns = values[None, :].copy()
        self.weights = [float(weight)]
        self._single = values
        self._offer_prune(values, float(weight), replace=True)
        self._stale = True
        self.rows_tested = 0
        # A set of one feature: short lists rarely hold the neighbours on S + f (the new
        # feature moves them across the single axis).
        self._useless = True
        self._list_arrays = None

    def add(self, values: np.ndarray, weight: float) -> None:
        """Add a feature to S: its terms come after the set's (the reference's order); the
        current lists' terms grow by them."""
        values = np.ascontiguousarray(values, dtype=float)
        if not self.weights:
            self.replace(values, weight)
            return
        compiled = use_compiled(self.n * self.n, SET_KERNELS)
        if compiled and not self._keeps_sq:
            self._sq = None
        elif compiled:
            _add_terms(self._sq, values, float(weight), False)
        else:
            self._sq = self._sq + distance_terms(values, float(weight))
        arrays = self._list_arrays
        if not compiled or arrays is None or self._stale:
            self._stale = True  # remade whole when next used
        else:
            # The listed terms grow by the feature's and the bound stays valid (terms only
            # grow); lists with too few samples left below their bound are remade when next
            # used (:meth:`_lists`).
            _raise_lists(values, float(weight), arrays, self._below)
            self._raised = True
        self._columns = np.concatenate([self._columns, values[None, :]])
        self.rows_tested = 0
        self.weights.append(float(weight))
        self._single = None
        self._useless = False

    def _uses_lists(self, ks: np.ndarray) -> bool:
        fresh = self._stale or self._list_arrays is None
        # Whole rows read from the summed terms are cheap; summed from the columns they
        # cost |S| passes, and lists pay at once.
        after = LISTS_AFTER_ROWS if self._sq is not None else 0.0
        if self._whole or (fresh and self.rows_tested < after * self.n):
            return False
        self._length = max(self._length, 2 * (int(ks.max()) + 1))
        return not (
            not self.weights
            or self._useless
            or self._length > min(self.n // SHORTLIST_MAX_SHARE, self.n - 2)
        )

    def _lists(self) -> tuple:
        """The shortlists of the current S, made from the previous ones when they can serve
        (those with fewer than DENSE_LIST_MIN samples below their bound are remade)."""
        length = self._length
        arrays = self._list_arrays
        if self._stale or arrays is None:
            if arrays is None or arrays[0].shape[1] != length:
                arrays = empty_lists(self.n, length)
            # Made ahead (not where a row first needs one) for the order of the first test:
            # the other label's nearness in the lists.
            self._build_lists(np.arange(self.n, dtype=np.int64), arrays)
            self._list_arrays, self._stale = arrays, False
            self._below = arrays[3].copy()
        elif self._raised and not self.remakes_lists:
            # Once after an addition, where the tests do not remake the lists they miss:
            # lists with few samples left below their bound.
            self._raised = False
            short = np.flatnonzero(
                (self._below < min(DENSE_LIST_MIN, length)) & ~np.isnan(arrays[4])
            ).astype(np.int64)
            if len(short):
                self._build_lists(short, arrays)
                self._below[short] = arrays[3][short]
        return self._list_arrays

    def _build_lists(self, rows: np.ndarray, arrays: tuple) -> None:
        """The lists of ``rows``, from the summed terms or from the columns, threaded."""
        kern = set_kernels()
        if self._sq is not None:
            _build_dense_lists(self._sq, rows, arrays)
            return
        columns, weights = self._columns, np.asarray(self.weights)
        _over_rows(
            lambda lo, hi: kern.build_lists_from_columns(columns, weights, rows[lo:hi], *arrays),
            len(rows),
            self.n,
        )

    def _current_lists(self) -> tuple | None:
        if (
            self._stale
            or self._list_arrays is None
            or not use_compiled(self.n * self.n, SET_KERNELS)
        ):
            return None
        return self._list_arrays

    def _set_arrays(self) -> tuple:
        weights = np.asarray(self.weights, dtype=float)
        if self._sq is None and self.weights:  # lists: the terms from the columns
            return False, np.empty((0, 0)), self._columns, weights
        sq = np.zeros((self.n, self.n)) if self._sq is None else self._sq
        if self._single is not None and not self._whole:
            # A set of one feature: rows by runs of its equal values (for small N whole rows
            # cost less than ordering each candidate within the runs).
            return True, sq, self._columns, weights
        return True, sq, np.empty((0, self.n)), np.empty(0)

    @property
    def rows_in_parts(self) -> bool:
        """With lists, a set test's rejections need few rows and an acceptance needs them
        all: threads split each candidate's rows."""
        return not self._whole

    @property
    def remakes_lists(self) -> bool:
        return self._sq is None

    def _prune_arrays(self) -> tuple:
        # A walk in one feature's order pays only while S is that feature alone.
        return self._prune if len(self.weights) == 1 else NO_PRUNE

    def _test(
        self,
        block,
        weights,
        y,
        ks,
        variant,
        with_distances,
        card,
        gamma,
        early,
        reject_sum,
        accept_above=np.inf,
    ):
        n, c = block.shape
        if use_compiled(c * n * n, SET_KERNELS):
            return super()._test(
                block,
                weights,
                y,
                ks,
                variant,
                with_distances,
                card,
                gamma,
                early,
                reject_sum,
                accept_above,
            )
        dist = numpy_distances(
            np.ascontiguousarray(block.T, dtype=float),
            np.asarray(weights, dtype=float),
            None if self.sq is None else self.sq,
        )
        stats = numpy_list_stats(dist, y, ks, variant == "paper", with_distances)
        cards = deps = None
        if card != NO_CARD:  # no early rejection: small
            cards = numpy_cards(stats[0][0], y, int(ks[0]), card, gamma)
            deps = numpy_dependencies(stats[0][:1], y, ks[:1], card, gamma)[0]
        return (
            unpack(*stats, with_distances, squeeze=False),
            np.zeros(c, dtype=bool),
            cards,
            deps,
        )

    def _after_test(self, missed: int, done: int) -> None:
        if missed > USELESS_FRACTION * done:
            self._useless = True
            return
        if missed > FULL_ROW_FRACTION * done and 2 * self._length <= min(
            self.n // SHORTLIST_MAX_SHARE, self.n - 2
        ):
            self._length *= 2  # lists made from now on are longer
        elif missed < FULL_ROW_FRACTION / 10 * done and self._length // 2 >= SHORTLIST_MIN:
            self._length //= 2
        else:
            return
        if self._list_arrays is not None and not self._stale:
            self._list_arrays, self._below = resized_lists(
                self._list_arrays, self._below, self._length
            )


class ColumnSetTerms(_SetTerms):
    """The selected set kept as its columns, for many samples: no N x N matrix.

    Each sample keeps a shortlist of its :data:`COLUMN_LIST_LENGTH` nearest samples on S
    (by a pruned walk, :func:`_set_kernels.build_column_lists`) and a bound no other
    sample is below. When S grows, the listed terms grow by the new feature's and the
    bound stays valid; a list cut below :data:`COLUMN_LIST_MIN` is remade. Set tests are
    those of :class:`DenseSetTerms`, the terms summed from the columns in the set's order.
    Memory O(N (|S| + L)).
    """

    rows_in_parts = True

    def __init__(self, n: int):
        super().__init__(n)
        self._by_sample = np.empty((n, 0))  # one sample a row: a sample's terms are
        # read from one place (cache lines)
        length = min(COLUMN_LIST_LENGTH, n - 1)
        self._list_arrays = empty_lists(n, length)
        self._approx: tuple | None = None
        #: Diagnostics: rows whose lists were made.
        self.rows_listed = 0

    @property
    def columns(self) -> np.ndarray:
        """The set's columns (|S|, n), in summation order."""
        return self._by_sample.T

    def _rebuild(self, rows: np.ndarray) -> None:
        if not (self.finite and len(self._prune[2])):
            self._list_arrays[4][:] = np.nan  # NaN or odd weights: no lists
            self._list_arrays[3][:] = 0
            return
        self.rows_listed += len(rows)
        kern = set_kernels()
        columns, arrays = self.columns, self._list_arrays
        weights = np.asarray(self.weights)
        if len(self.weights) <= PRUNED_LISTS_MAX_SET:
            _over_rows(
                lambda lo, hi: kern.build_column_lists(
                    columns, weights, *self._prune, rows[lo:hi], *arrays
                ),
                len(rows),
                4 * arrays[0].shape[1],
            )
            return
        # Many dimensions: approximate terms by matrix products (BLAS), then exact sums for
        # the few samples that can be among the L first.
        zt, z, norms = self._approximation()
        _over_rows(
            lambda lo, hi: kern.lists_from_columns(
                columns, weights, zt, z, norms, rows[lo:hi], *arrays
            ),
            len(rows),
            self.n,
            blas=True,
        )

    def _push(self, values: np.ndarray, weight: float) -> None:
        size = len(self.weights)
        grown = np.empty((self.n, size + 1))
        grown[:, :size] = self._by_sample[:, :size]
        grown[:, size] = values
        self._by_sample = grown
        self.weights.append(float(weight))
        self._approx = None

    def replace(self, values: np.ndarray, weight: float) -> None:
        """S becomes the one feature ``values`` (distance weight ``weight``)."""
        values = np.array(values, dtype=float)  # a copy: the stream reuses its blocks
        self.weights = []
        self._push(values, weight)
        self._offer_prune(values, float(weight), replace=True)
        self._rebuild(np.arange(self.n, dtype=np.int64))

    def add(self, values: np.ndarray, weight: float) -> None:
        """Add a feature to S; the lists follow (grown, cut, and remade where too short)."""
        values = np.ascontiguousarray(values, dtype=float)
        if not self.weights:
            self.replace(values, weight)
            return
        was_finite = self.finite
        self._push(values, weight)
        self._offer_prune(values, float(weight), replace=False)
        if not (was_finite and self.finite):
            self._rebuild(np.arange(self.n, dtype=np.int64))
            return
        shortest = _grow_lists(values, float(weight), self._list_arrays)
        minimum = min(COLUMN_LIST_MIN, self._list_arrays[0].shape[1])
        if shortest < minimum:
            self._rebuild(np.flatnonzero(self._list_arrays[3] < minimum).astype(np.int64))

    def _lists(self) -> tuple:
        return self._list_arrays

    def _current_lists(self) -> tuple | None:
        return self._list_arrays if self.finite and use_compiled(self.n, SET_KERNELS) else None

    def _set_arrays(self) -> tuple:
        return False, np.empty((0, 0)), self.columns, np.asarray(self.weights, dtype=float)

    def _approximation(self) -> tuple:
        """The set's centred columns scaled by the roots of their weights, one sample a row
        (n, |S|) and one feature a row (|S|, n), and their squared norms: approximate terms
        by matrix products."""
        if not (self.finite and len(self.weights) > PRUNED_LISTS_MAX_SET):
            return NO_APPROXIMATION
        if self._approx is None:
            scale = np.sqrt(np.asarray(self.weights))
            z = np.ascontiguousarray(
                (self.columns - self.columns.mean(axis=1, keepdims=True)) * scale[:, None]
            )
            zt = np.ascontiguousarray(z.T)
            self._approx = (zt, z, np.einsum("nf,nf->n", zt, zt))
        return self._approx


def set_neighbour_stats_from_columns(
    columns: np.ndarray,
    weights: np.ndarray,
    y: np.ndarray,
    k: int,
    variant: str = "reference",
    with_distances: bool = False,
) -> NeighbourStats:
    """Neighbour statistics on a feature set without an N x N matrix (Algorithm 4).

    The set's last column is tested against the set of the others (:class:`ColumnSetTerms`:
    shortlists and pruned walks, exact). Memory O(N (K + |S|)).

    Parameters
    ----------
    columns : ndarray, shape (|S|, n)
        The set's features, one row each, in summation order.
    weights : ndarray, shape (|S|,)
        Their distance weights.
    y, k, variant, with_distances
        As in :func:`single_feature_neighbour_stats`.

    Returns
    -------
    NeighbourStats
        Arrays of shape (n,).
    """
    columns = np.ascontiguousarray(columns, dtype=float)
    weights = np.asarray(weights, dtype=float)
    n = columns.shape[1]
    terms = ColumnSetTerms(n)
    for j in range(columns.shape[0] - 1):
        (terms.add if j else terms.replace)(columns[j], weights[j])
    stats, _ = terms.stats_with(columns[-1][:, None], weights[-1:], y, [k], variant, with_distances)
    return NeighbourStats(
        *(
            None if a is None else a[:, 0]
            for a in (stats[0].same_count, stats[0].same_distance, stats[0].other_distance)
        )
    )
