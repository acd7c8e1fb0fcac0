"""K-OFSD: online feature selection by dependency in K nearest neighbours.

Zhou, Hu, Li, Wu, "Online feature selection for high-dimensional class-imbalanced
data", Knowledge-Based Systems 136 (2017): the OFSD framework (Algorithm 1) with
the K-nearest-neighbour relation (Definition 1, Algorithm 4) and a card function
(section 3.4; Card_Imbalanced, Algorithm 3, for K-OFSD proper, Algorithm 5).
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from fsengine._compute.parallel import kernel_threads
from fsengine._compute.sparse import (
    ORDER_KERNELS,
    as_columns,
    block_width,
    by_columns,
    dense_block,
    nonzero_order,
)
from fsengine.errors import FSEngineError
from fsengine.methods.online._codes import CARD_CODES
from fsengine.methods.online._point_search import SEARCH_KERNELS
from fsengine.methods.online._roughset.kofsd import points
from fsengine.methods.online._roughset.kofsd.cards import dependency_from_cards, make_card
from fsengine.methods.online._roughset.kofsd.neighbours import (
    ColumnSetTerms,
    DenseSetTerms,
    NeighbourStats,
    feature_weights,
    set_neighbour_stats,
    single_feature_counts,
    single_feature_neighbour_stats_for_ks,
)
from fsengine.methods.online._roughset.kofsd.points import POINT_KERNELS
from fsengine.methods.online._roughset.kofsd.reference import KNN_KERNELS, SET_KERNELS
from fsengine.methods.online._stream import (
    Selection,
    StreamEvent,
    StreamingSelector,
    feature_order,
    stream_events,
)
from fsengine.methods.online._tie_average import (
    TIE_KERNELS,
    TIES_PARAMETER,
    AveragedSet,
    NeighbourRule,
    invariant_weights,
    single_dependencies,
)
from fsengine.spec import ONLINE, Choice, Int, MethodSpec, Real

DISCARDED, REPLACED, ADDED, REJECTED = "discarded", "replaced", "added", "rejected"
#: Up to this many samples the selected set keeps its N x N summed distance terms; above,
#: it keeps its columns and each set test finds neighbours without an N x N matrix.
DENSE_MAX_SAMPLES = 3000
#: From this many samples the average rule's set tests of a block run a test per kernel
#: thread at once (:meth:`fsengine.methods.online._tie_average.AveragedSet.dependencies_with`): a
#: test then takes tens of milliseconds, a thread's start tens of microseconds.
THREADED_TESTS_FROM = 5000
#: Set tests computed together against the same set (most are rejections, which leave the
#: set unchanged; after an acceptance the rest of the batch is recomputed).
FIRST_BATCH, MAX_BATCH = 4, 256
#: The action codes of the authors' trace files (0..3).
ACTION_CODES = {DISCARDED: 0, REPLACED: 1, ADDED: 2, REJECTED: 3}


@dataclass(frozen=True, slots=True)
class KOFSDEvent(StreamEvent):
    """One K-OFSD step (Algorithm 1, lines 3-16).

    ``score`` is the feature's single-feature dependency; ``action`` is
    "discarded" (alpha filter), "replaced" (the feature replaced the whole set),
    "added" or "rejected" (after the set test); ``set_score_with_feature`` is
    the dependency of S plus the feature when it was computed, else NaN;
    ``selected_score`` is the dependency of the selected set after the step.
    """

    set_score_with_feature: float = math.nan


class KOFSD(StreamingSelector):
    """K-OFSD as an online selector: one feature in, one event out.

    Parameters
    ----------
    k : int, default 7
        Number of nearest neighbours (the paper's K).
    alpha : float, default 0.5
        Relevance threshold on the single-feature dependency.
    card : {"imbalanced", "consistency", "weight", "distance"}, default "imbalanced"
        Card function (section 3.4); "imbalanced" is K-OFSD's Algorithm 3.
    variant : {"reference", "paper"}, default "reference"
        "reference" reproduces the authors' published code: the first element of
        each sample's stable distance sort is skipped (the sample itself unless it
        has an exact duplicate of lower index), a feature is kept only if its
        dependency is > alpha, and if nothing is selected at the end the top
        round(sqrt(p)) features by dependency are returned. "paper" follows the
        printed Algorithm 5: x_i itself is excluded from its neighbours, a feature
        is discarded only if its dependency is < alpha, and there is no fallback.
    metric : {"seuclidean", "euclidean"}, default "seuclidean"
        Standardised Euclidean distance (the authors' code) or plain Euclidean
        (the paper's worked example).
    gamma : float, default 0.5
        Threshold of Card_Weight.
    gamma1, gamma2 : float, default 0.75, 0.25
        Thresholds of Card_Distance.
    ties : {"index", "average"}, default "index"
        "index": samples at equal distance enter a neighbour list by row index, as in
        the authors' code (on counts the selection can then depend on the order of the
        samples); "average": every card is its expectation over every order of the
        tied samples (:mod:`fsengine.methods.online._tie_average`), so the selection is the same
        for any order of the rows.

    Notes
    -----
    The set's squared distances are kept and each candidate feature's terms are
    added to them, in arrival order; in natural order this is the same
    floating-point sum as the authors' code, which sums the set's columns in
    column order.
    """

    kernel_families = (
        KNN_KERNELS,
        SET_KERNELS,
        POINT_KERNELS,
        TIE_KERNELS,
        SEARCH_KERNELS,
        ORDER_KERNELS,
    )

    spec = MethodSpec(
        name="kofsd",
        label="K-OFSD",
        kind=ONLINE,
        citation="Zhou, Hu, Li, Wu. Online feature selection for high-dimensional "
        "class-imbalanced data. Knowledge-Based Systems 136 (2017)",
        score="the feature's dependency alone (Algorithm 4 on one feature)",
        set_score="dependency of the set",
        parameters={
            "k": Int(
                7,
                "number of nearest neighbours each sample is judged by (keep it below the "
                "minority class size)",
                label="K (neighbours)",
                source="Definition 1; Algorithm 4",
                high=lambda n: n - 1,
                high_text="the number of samples minus one",
                ui_high=15,
            ),
            "alpha": Real(
                0.5,
                "relevance threshold: a feature is discarded when its dependency alone (the "
                "card-weighted share of samples whose K neighbours share their class) is not "
                "above alpha",
                source="Algorithm 1, line 4",
                low=0.0,
                high=1.0,
                step=0.05,
            ),
            "card": Choice(
                "imbalanced",
                "card function: how a sample's K neighbours score it (the share from its own "
                "class, in K-OFSD weighted for the minority)",
                label="Card function",
                source="section 3.4; Algorithm 3",
                choices={
                    "imbalanced": "Card_Imbalanced (Algorithm 3), K-OFSD proper",
                    "consistency": "Card_Consistency: 1 when all K neighbours share the class",
                    "weight": "Card_Weight: the share of same-class neighbours above gamma",
                    "distance": "Card_Distance: graded between gamma2 and gamma1",
                },
            ),
            "variant": Choice(
                "reference",
                "which K-OFSD to run",
                label="Variant",
                source="the authors' code (kofsd.m) / Algorithm 5",
                choices={
                    "reference": "the authors' published code (default)",
                    "paper": "the printed Algorithm 5 (x_i excluded from its "
                    "neighbours, discard only if dependency < alpha, "
                    "no fallback)",
                },
            ),
            "metric": Choice(
                "seuclidean",
                "distance between samples",
                label="Distance",
                source="the authors' code (pdist 'seuclidean') / worked example",
                choices={
                    "seuclidean": "standardised Euclidean (the authors' code)",
                    "euclidean": "plain Euclidean (the paper's example)",
                },
            ),
            "gamma": Real(
                0.5,
                "threshold of the weight card",
                source="section 3.4, Card_Weight",
                low=0.0,
                high=1.0,
                step=0.05,
                when=("card", ("weight",)),
            ),
            "gamma1": Real(
                0.75,
                "upper threshold of the distance card",
                source="section 3.4, Card_Distance",
                low=0.0,
                high=1.0,
                step=0.05,
                when=("card", ("distance",)),
            ),
            "gamma2": Real(
                0.25,
                "lower threshold of the distance card (below gamma1)",
                source="section 3.4, Card_Distance",
                low=0.0,
                high=1.0,
                step=0.05,
                when=("card", ("distance",)),
            ),
            "ties": TIES_PARAMETER,
        },
        actions={
            DISCARDED: "dependency not above alpha (Algorithm 1, line 4)",
            REPLACED: "dependency above the set's: the feature replaced the whole set",
            ADDED: "the set's dependency rose with the feature",
            REJECTED: "the set's dependency did not rise with the feature",
        },
        action_codes=ACTION_CODES,
        event=KOFSDEvent,
    )

    def _start(self) -> None:
        p = self._params
        n = len(self.y)
        self.k = p["k"]
        self.alpha = p["alpha"]
        self.card = make_card(p["card"], gamma=p["gamma"], gamma1=p["gamma1"], gamma2=p["gamma2"])
        self.variant = p["variant"]
        self.metric = p["metric"]
        self.ties = p["ties"]
        self._selected: list[tuple[str, int, float]] = []
        if self.ties == "average":
            self._terms = AveragedSet(self.y, self._rule(self.k))
        elif n >= points.POINT_MIN_SAMPLES and self.card.name in CARD_CODES:
            self._terms = None  # many samples: chosen in _decide_block (_set_terms_for)
        else:
            self._terms = self._sample_terms()
        self._set_dependency = 0.0
        # Every feature seen (for the reference's fallback): names, columns, dependencies.
        self._seen_names: list[str] = []
        self._seen_columns: list[int] = []
        self._seen_deps: list[float] = []
        self._batch = FIRST_BATCH

    @classmethod
    def data_warnings(cls, params: dict, y) -> list[str]:
        """K at or above the minority class size (:func:`k_warning`)."""
        warning = k_warning(y, params["k"])
        return [warning] if warning else []

    @classmethod
    def data_defaults(
        cls, defaults: dict, y, where: str = "the minority class has", X=None
    ) -> dict[str, tuple[object, str]]:
        """The paper's K = 7 unless it is at or above the minority class size of ``y``;
        then the largest K below it (:func:`k_default`); on counts the order-invariant
        tie rule (:meth:`StreamingSelector.data_defaults`)."""
        found = super().data_defaults(defaults, y, where, X)
        k, why = k_default(y, defaults["k"], where)
        return {"k": (k, why), **found} if why else found

    @classmethod
    def merged_defaults(cls, proposals: list[dict]) -> dict[str, tuple[object, str]]:
        """The smallest K proposed (it stays below every data set's minority size), and
        the other parameters as :meth:`StreamingSelector.merged_defaults` merges them."""
        merged = super().merged_defaults(proposals)
        ks = [found["k"] for found in proposals if "k" in found]
        if ks:
            merged["k"] = min(ks, key=lambda proposal: proposal[0])
        return merged

    @classmethod
    def selections_over(cls, X, y, names, parameter: str, values, params: dict):
        """K-OFSD for several K from one sorted pass (:func:`run_kofsd_for_ks`); None
        for another parameter (the caller then runs each value)."""
        if parameter != "k":
            return None
        return run_kofsd_for_ks(X, y, values, names, **params)

    def _rule(self, k: int) -> NeighbourRule:
        """The neighbour list and card of the average rule for ``k``."""
        p = self._params
        return NeighbourRule.kofsd(
            k,
            self.variant,
            self.card.name,
            gamma=p["gamma"],
            gamma1=p["gamma1"],
            gamma2=p["gamma2"],
        )

    def tie_rule(self):
        """K-OFSD's list and card under the authors' tie rule (None with ties="average")."""
        p = self._params
        if p["ties"] != "index":
            return None
        thresholds = {name: p[name] for name in ("gamma", "gamma1", "gamma2")}
        rule = NeighbourRule.kofsd(p["k"], p["variant"], p["card"], **thresholds)
        return rule, p["metric"]

    def _weights(self, block: np.ndarray) -> np.ndarray:
        """The block's distance weights; under ``ties="average"`` the same for any order
        of the rows (:func:`invariant_weights`)."""
        if self.ties == "average":
            return invariant_weights(block, self.metric)
        return feature_weights(block, self.metric)

    @property
    def dependency(self) -> float:
        """Dependency of the currently selected set (0 for the empty set)."""
        return self._set_dependency

    def single_dependencies(self, block: np.ndarray) -> np.ndarray:
        """Dependency of each column of ``block`` alone (Algorithm 4 on one feature).

        Parameters
        ----------
        block : ndarray, shape (n_samples, b)

        Returns
        -------
        ndarray, shape (b,)
        """
        block = self._checked_block(block)
        return self._weights_and_singles(block, [self.k])[1][0]

    def _weights_and_singles(self, block: np.ndarray, ks):
        """The block's distance weights (:meth:`_weights`) and its columns alone for each
        K of ``ks`` (:meth:`_single_for_ks`); under ``ties="average"`` one extraction and
        one sort of each column's non-zero values serve both.

        Returns
        -------
        weights : ndarray, shape (b,)
        deps : ndarray, shape (len(ks), b)
        cards_of : callable
        """
        if self.ties != "average":
            weights = self._weights(block)
            return (weights, *self._single_for_ks(block, weights, ks))
        order = nonzero_order(block)
        weights = invariant_weights(block, self.metric, order)
        return (weights, *self._single_for_ks(block, weights, ks, order))

    def _single_for_ks(self, block: np.ndarray, weights: np.ndarray, ks, order=None):
        """The block's columns alone, for each K of ``ks`` (one sort per column; under
        ``ties="average"`` the block's
        :func:`~fsengine._compute.sparse.nonzero_order` when given).

        Returns
        -------
        deps : ndarray, shape (len(ks), b)
            Single-feature dependencies (Algorithm 4 on one feature).
        cards_of : callable
            ``cards_of(t, j)``: the card values (n,) of column j for ``ks[t]``.
        """
        ks = list(ks)
        y = self.y
        if self.ties == "average":
            deps = np.array(
                [single_dependencies(block, y, weights, self._rule(k), order)[0] for k in ks]
            )
            return deps, lambda t, j: None
        codes = CARD_CODES
        if self.card.name in codes:
            same, deps = single_feature_counts(
                block,
                y,
                ks,
                weights,
                self.variant,
                codes[self.card.name],
                float(getattr(self.card, "gamma", 0.0)),
            )
            return deps, lambda t, j: self.card.values(NeighbourStats(same[t, j]), y, ks[t])
        stats = single_feature_neighbour_stats_for_ks(
            block, y, ks, weights, self.variant, self.card.needs_distances
        )
        cards = [self.card.values(st, y[:, None], k) for st, k in zip(stats, ks)]
        return (
            np.array([dependency_from_cards(c) for c in cards]).reshape(len(ks), -1),
            lambda t, j: cards[t][:, j],
        )

    def _order_rows(self, cards: np.ndarray | None) -> None:
        """After S changed: the samples' card values on the new S (None: unknown), which
        order its set tests and let them reject early (:meth:`DenseSetTerms.set_cards`)."""
        if self.ties != "average":
            self._terms.set_cards(cards, self.y)

    def set_dependency(self, sq_dist: np.ndarray) -> float:
        """Dependency of a feature set from its summed distance terms (Algorithm 4)."""
        stats = set_neighbour_stats(
            sq_dist, self.y, self.k, self.variant, self.card.needs_distances
        )
        return dependency_from_cards(self.card.values(stats, self.y, self.k))

    def _dependencies_with(
        self, block: np.ndarray, weights: np.ndarray, early: bool = False, first_only: bool = False
    ) -> list[float]:
        """Dependency of S + f for each column f of ``block``, S being the current set.

        With ``early``, a candidate that cannot exceed the set's dependency is stopped
        early and gets NaN (it is rejected all the same). With ``first_only``, only the
        first candidate that would be added is needed: those after it may get NaN."""
        if self.ties == "average":
            return self._averaged_dependencies_with(block, weights, early, first_only)
        reject = None
        n = len(self.y)
        margin = 4.0 * n * n * 2.0**-53 + 1e-9  # rounding of the sums, with room
        if self.card.name in CARD_CODES:
            deps, cards = self._terms.dependencies_with(
                block,
                weights,
                self.y,
                self.k,
                self.variant,
                self.card.name,
                getattr(self.card, "gamma", 0.0),
                self._set_dependency * n - margin if early else None,
                self._set_dependency if first_only else None,
            )
            self._tested_cards = cards
            return deps.tolist()
        if early:
            reject = (
                self.card.name,
                getattr(self.card, "gamma", 0.0),
                self._set_dependency * n - margin,
            )
        all_stats, rejected = self._terms.stats_with(
            block, weights, self.y, [self.k], self.variant, self.card.needs_distances, reject
        )
        cards = self.card.values(all_stats[0], self.y[:, None], self.k)
        self._tested_cards = cards
        deps = dependency_from_cards(cards)
        deps[rejected] = math.nan
        return deps.tolist()

    def _averaged_dependencies_with(
        self, block: np.ndarray, weights: np.ndarray, early: bool, first_only: bool
    ) -> list[float]:
        """:meth:`_dependencies_with` under ``ties="average"``: each S + f exactly (with
        ``early``, NaN for a candidate that cannot exceed S, decided exactly; with
        ``first_only``, NaN after the first that would be added)."""
        threads = kernel_threads() if len(self.y) >= THREADED_TESTS_FROM else 1
        deps = self._terms.dependencies_with(
            block,
            weights,
            stop_above=self._set_dependency if first_only else None,
            threads=threads,
            above=self._set_dependency if early else None,
        )
        self._tested_cards = np.empty((0, block.shape[1]))
        return deps

    def _sample_terms(self):
        """The selected set's terms on the samples: an N x N matrix of sums, or its columns
        for many samples."""
        n = len(self.y)
        return DenseSetTerms(n) if n <= DENSE_MAX_SAMPLES else ColumnSetTerms(n)

    def _set_terms_for(self, block: np.ndarray):
        """Many samples: the set tests on the distinct points of S + f when the samples
        share values in ``block`` (the first features to pass alpha, where S's first
        feature is; :func:`.points.shares_points`: counts), else on the samples (the same
        results). Every path of the stream decides through :meth:`_decide_block`, which
        asks before the first set test."""
        if points.shares_points(block):
            return points.PointSetTerms(len(self.y))
        return self._sample_terms()

    def _step_block(
        self, block: np.ndarray, names: list[str], columns: list[int], want_events: bool = True
    ) -> list[KOFSDEvent]:
        """Single-feature dependencies of the block at once, then Algorithm 1 per feature."""
        weights, deps, cards_of = self._weights_and_singles(block, [self.k])
        return self._decide_block(
            block, weights, deps[0].tolist(), names, columns, want_events, lambda j: cards_of(0, j)
        )

    def _step_block_quiet(self, block: np.ndarray, names: list[str], columns: list[int]) -> None:
        """:meth:`_step_block` without events; set tests stop once a feature cannot be added."""
        self._step_block(block, names, columns, want_events=False)

    def _decide_block(
        self,
        block: np.ndarray,
        weights: np.ndarray,
        deps: list[float],
        names: list[str],
        columns: list[int],
        want_events: bool = True,
        cards=None,
    ) -> list[KOFSDEvent]:
        """Algorithm 1 over the block's features in order, given their dependencies.

        Features below the alpha threshold are discarded in runs; the set tests up to the
        next change of S are computed together against the current S; the decisions are
        still taken one feature at a time, in order. Without ``want_events`` the state
        is the same but no event is made (the run needs only the selection) and set tests
        stop once the feature cannot be added. ``cards(j)``, column j's card values alone,
        order the set tests' samples after a replacement (:meth:`_order_rows`).
        """
        events: list[KOFSDEvent] = []
        b = len(deps)
        dep_array = np.asarray(deps, dtype=float)
        passing_array = np.flatnonzero(self._passes_alpha_all(dep_array))
        passing_deps = dep_array[passing_array]
        passing = passing_array.tolist()
        if self._terms is None and passing:  # many samples: S's first features are here
            self._terms = self._set_terms_for(block[:, passing_array])
        q, j = 0, 0
        while j < b:
            if q < len(passing) and passing[q] < j:
                q = bisect.bisect_left(passing, j, q)
            nxt = passing[q] if q < len(passing) else b
            if nxt > j:
                self._discard(j, nxt, deps, names, columns, events if want_events else None)
                j = nxt
                continue
            # The passing features from j on, up to the batch size, until one that
            # replaces S (no test needed for it).
            window = passing_deps[q : q + self._batch]
            replacing = np.flatnonzero(window > self._set_dependency)
            pending = passing[q : q + (int(replacing[0]) if replacing.size else len(window))]
            if not pending:  # feature j replaces S
                event = self._decide(block[:, j], weights[j], deps[j], names[j], columns[j])
                if want_events:
                    events.append(event)
                self._order_rows(None if cards is None else cards(j))
                j += 1
                continue
            tested = self._dependencies_with(
                block[:, pending],
                weights[pending],
                early=not (want_events and self.score_rejections),
                first_only=not want_events,
            )
            changed = False
            if not want_events:
                # No events: the features up to the first acceptance are only recorded.
                added = next((i for i, v in enumerate(tested) if v > self._set_dependency), None)
                upto = pending[-1] + 1 if added is None else pending[added]
                self._discard(j, upto, deps, names, columns, None)
                j = upto
                if added is not None:
                    self._decide(
                        block[:, j], weights[j], deps[j], names[j], columns[j], tested[added]
                    )
                    self._order_rows(self._tested_cards[:, added])
                    changed = True
                    j += 1
                self._batch = FIRST_BATCH if changed else min(2 * self._batch, MAX_BATCH)
                continue
            for i, (pos, with_feature) in enumerate(zip(pending, tested)):
                if pos > j:
                    self._discard(j, pos, deps, names, columns, events if want_events else None)
                j = pos + 1
                event = self._decide(
                    block[:, pos], weights[pos], deps[pos], names[pos], columns[pos], with_feature
                )
                events.append(event)
                if event.action == ADDED:
                    self._order_rows(self._tested_cards[:, i])
                    changed = True
                    break
            self._batch = FIRST_BATCH if changed else min(2 * self._batch, MAX_BATCH)
        return events

    def _discard(
        self,
        lo: int,
        hi: int,
        deps: list[float],
        names: list[str],
        columns: list[int],
        events: list[KOFSDEvent] | None,
    ) -> None:
        """Features lo..hi-1 of a block fail the alpha filter (Algorithm 1, line 4)."""
        self._seen_names.extend(names[lo:hi])
        self._seen_columns.extend(columns[lo:hi])
        self._seen_deps.extend(deps[lo:hi])
        if events is not None:
            start, sel_names, sel_columns = (
                self.n_seen,
                self._selected_names,
                self._selected_columns,
            )
            events.extend(
                KOFSDEvent(
                    start + t,
                    name,
                    column,
                    dep,
                    DISCARDED,
                    sel_names,
                    sel_columns,
                    self._set_dependency,
                    math.nan,
                )
                for t, (name, column, dep) in enumerate(
                    zip(names[lo:hi], columns[lo:hi], deps[lo:hi])
                )
            )
        self.n_seen += hi - lo

    def _see(self, name: str, column: int, dep: float) -> None:
        self._seen_names.append(name)
        self._seen_columns.append(column)
        self._seen_deps.append(dep)

    def _passes_alpha(self, dep: float) -> bool:
        return dep > self.alpha if self.variant == "reference" else dep >= self.alpha

    def _passes_alpha_all(self, deps: np.ndarray) -> np.ndarray:
        """:meth:`_passes_alpha` for each of the dependencies ``deps`` (a boolean array)."""
        return deps > self.alpha if self.variant == "reference" else deps >= self.alpha

    def _decide(
        self,
        values: np.ndarray,
        weight: float,
        dep: float,
        name: str,
        column: int,
        with_feature: float | None = None,
    ) -> KOFSDEvent:
        """Algorithm 1, lines 3-16, for one feature; ``with_feature`` is dep(S + f) if
        already computed against the current S."""
        position = self.n_seen
        self.n_seen += 1
        self._see(name, column, dep)
        if not self._passes_alpha(dep):
            action, with_feature = DISCARDED, math.nan
        elif dep > self._set_dependency:
            action, with_feature = REPLACED, math.nan
            self._terms.replace(values, weight)
            self._set_dependency = dep
            self._selected = [(name, column, dep)]
        else:
            if with_feature is None:
                with_feature = self._dependencies_with(values[:, None], np.array([weight]))[0]
            if with_feature > self._set_dependency:
                action = ADDED
                self._terms.add(values, weight)
                self._set_dependency = with_feature
                self._selected.append((name, column, dep))
            else:
                action = REJECTED
        if action in (REPLACED, ADDED):
            self._set_selected([s[0] for s in self._selected], [s[1] for s in self._selected])
        return KOFSDEvent(
            position,
            name,
            column,
            dep,
            action,
            self._selected_names,
            self._selected_columns,
            self._set_dependency,
            with_feature,
        )

    def finish(self) -> Selection:
        """The final selection after the last feature.

        In the reference variant, when nothing was selected the authors' code
        returns the ``round(sqrt(p))`` features of highest single-feature
        dependency (p = features seen), in descending order, ties to the lower
        column index; the paper variant returns the empty set.

        Returns
        -------
        Selection
        """
        seen = len(self._seen_deps)
        if self._selected or self.variant == "paper" or not seen:
            return Selection(
                self.method,
                self._selected_names,
                self._selected_columns,
                tuple(s[2] for s in self._selected),
                "stream order",
            )
        top = int(math.floor(math.sqrt(seen) + 0.5))
        ranked = sorted(range(seen), key=lambda t: (-self._seen_deps[t], self._seen_columns[t]))[
            :top
        ]
        return Selection(
            self.method,
            tuple(self._seen_names[t] for t in ranked),
            tuple(self._seen_columns[t] for t in ranked),
            tuple(self._seen_deps[t] for t in ranked),
            f"fallback: no feature was selected, so the top round(sqrt({seen}))"
            f" = {top} features by dependency are returned, as in the authors' code",
            fallback=True,
        )


def k_default(y, k: int = 7, where: str = "the minority class has") -> tuple[int, str]:
    """K for labels ``y``: ``k`` (the paper's 7) when it is below the minority class size,
    else the largest K below it (1 at least), with why in a sentence ("" for ``k``).

    K at or above the minority size leaves no minority sample with only minority
    neighbours (:func:`k_warning`); this is the largest K that avoids it. ``where`` begins
    the reason's count ("a training half has").
    """
    minority = int(np.sum(np.asarray(y) == 1))
    if k < minority or minority < 2:
        return k, ""
    return minority - 1, (
        f"K is {minority - 1}, not the paper's {k}: {where} {minority} minority samples, "
        "and K must stay below that for a minority sample to have only minority neighbours."
    )


def k_warning(y, k: int) -> str | None:
    """A warning when K is at or above the minority class size, else None.

    Then no minority sample can have only minority neighbours, so every minority card
    value is below 1 and K-OFSD leans on the majority class. The paper's own protocol
    meets this (GLIOMA: 3 or 4 minority samples in a training half, K = 7), and a larger K
    may still measure better, so it is a warning stated as the rule, not advice.
    """
    minority = int(np.sum(np.asarray(y) == 1))
    if k >= minority:
        return (
            f"K = {k} is at or above the minority class size ({minority}): no minority sample "
            f"can have only minority neighbours, which takes K < {minority}; this is the "
            "method's rule, not a measurement (a K sweep measures which K selects best)"
        )
    return None


def run_kofsd(
    X,
    y,
    names: Sequence[str] | None = None,
    *,
    order: str = "natural",
    seed: int | None = None,
    **params,
) -> tuple[Selection, list[KOFSDEvent]]:
    """Stream all columns of ``X`` through K-OFSD.

    Parameters
    ----------
    X : ndarray, shape (n_samples, n_features)
    y : array of {0, 1}
        1 = minority class.
    names : sequence of str, optional
        Feature names (default: column indices as strings).
    order : {"natural", "random"}
    seed : int, optional
        Seed of the random order.
    **params
        Passed to :class:`KOFSD` (k, alpha, card, variant, metric, ...).

    Returns
    -------
    (Selection, list of KOFSDEvent)
    """
    X = np.asarray(X, dtype=float)
    names = [str(j) for j in range(X.shape[1])] if names is None else list(names)
    selector = KOFSD(**params).start(y)
    events = list(stream_events(selector, X, names, feature_order(X.shape[1], order, seed)))
    return selector.finish(), events


def run_kofsd_for_ks(
    X, y, ks: Sequence[int], names: Sequence[str] | None = None, *, chunk: int = 256, **params
) -> dict[int, Selection]:
    """K-OFSD for several K over the columns of ``X`` in natural order, sharing work.

    Each block of columns is sorted once and its single-feature dependencies for every
    K come from that one pass (the K+1 first of a sample for a smaller K are a prefix of
    those for a larger K); then each K's selector decides on the block (Algorithm 1).
    The selections equal ``run_kofsd(X, y, k=K, **params)`` for every K.

    Parameters
    ----------
    X : ndarray, shape (n_samples, n_features)
    y : array of {0, 1}
        1 = minority class.
    ks : sequence of int
        The values of K.
    names : sequence of str, optional
        Feature names (default: column indices as strings).
    chunk : int
        Columns per block, as :func:`stream_events`.
    **params
        K-OFSD's other parameters (alpha, card, variant, metric, gamma, gamma1, gamma2).

    Returns
    -------
    dict
        K -> the final :class:`Selection`.
    """
    if by_columns(X):  # a dense block of columns at a time, as stream_events reads it
        X = as_columns(X)
        chunk = min(chunk, block_width(X.shape[0]))
    else:
        X = np.asarray(X, dtype=float)
    ks = sorted({int(k) for k in ks})
    if not ks:
        raise FSEngineError("no K to run")
    if "k" in params:
        raise FSEngineError("give the values of K as ks, not k")
    names = [str(j) for j in range(X.shape[1])] if names is None else list(names)
    selectors = {k: KOFSD(k=k, **params).start(y) for k in ks}
    first = selectors[ks[0]]
    for lo in range(0, X.shape[1], chunk):
        columns = list(range(lo, min(lo + chunk, X.shape[1])))
        block_names = names[lo : lo + chunk]
        block = first._checked_block(dense_block(X, slice(lo, lo + chunk)), block_names)
        weights, deps, cards_of = first._weights_and_singles(block, ks)
        for t, k in enumerate(ks):
            selectors[k]._decide_block(
                block,
                weights,
                deps[t].tolist(),
                block_names,
                columns,
                want_events=False,
                cards=lambda j, t=t: cards_of(t, j),
            )
    return {k: selector.finish() for k, selector in selectors.items()}
