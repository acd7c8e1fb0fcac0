"""SAOLA and group SAOLA: online feature selection by pairwise comparisons.

Yu, Wu, Ding, Pei, "Scalable and accurate online feature selection for big data", ACM
TKDD 11(2) (2016), as run by the LOFS toolbox (kuiy/LOFS, ``saola_z_test.m``,
``saloa_group_z_test.m``, ``group_f.m``) with Fisher's z test. A feature that depends on
the class (:mod:`fsengine.methods.online._statistical.fisher_z`, S = {}) joins the selected set; it
is then compared with each feature selected before it: of a dependent pair, the one less
correlated with the class goes when the pair's correlation exceeds that feature's
correlation with the class. Reference: ../shared/reference/lofs_octave/README.md,
"SAOLA" and "group SAOLA".
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from fsengine.errors import FSEngineError
from fsengine.methods.online._columns import TIE_TOLERANCE, pearson_with, sequential_sum
from fsengine.methods.online._statistical.fisher_z import (
    fisher_z_cutoff,
    fisher_z_statistic,
    independent,
)
from fsengine.methods.online._stream import Selection, StreamEvent, StreamingSelector
from fsengine.spec import ONLINE, Int, MethodSpec, Real

ZERO_SUM, IRRELEVANT, ADDED, REDUNDANT = "zero-sum", "irrelevant", "added", "redundant"
#: The action codes of the reference traces (``<set>_saola_trace.csv``).
ACTION_CODES = {ZERO_SUM: 0, IRRELEVANT: 1, ADDED: 2, REDUNDANT: 3}
#: |W| this close to the cutoff (relative) is recomputed by the scalar test.
_RECHECK = 1e-9


@dataclass(frozen=True, slots=True)
class SAOLAEvent(StreamEvent):
    """One SAOLA step.

    ``action``: "zero-sum" (skipped untested: the column sums to exactly 0, the code's
    sparse-data check), "irrelevant" (independent of the class by Fisher's z test, or
    its correlation is undefined: a constant column), "added" (in the selected set after
    the step) or "redundant" (added, then removed at the same step by a feature selected
    earlier). ``score`` is ``|corr(feature, class)|`` (NaN when skipped or undefined);
    ``selected_score`` is the mean ``|corr(., class)|`` of the selected set.

    Attributes
    ----------
    statistic : float
        Fisher's z statistic W of the feature against the class (NaN when skipped).
    removed : tuple of str
        Features removed from the selected set at this step, in order (the feature
        itself last when it is redundant).
    removed_by : str
        The feature whose pair made this one redundant ("" otherwise).
    pair_correlation : float
        ``|corr|`` of this feature with ``removed_by`` (NaN otherwise).
    """

    statistic: float = math.nan
    removed: tuple[str, ...] = ()
    removed_by: str = ""
    pair_correlation: float = math.nan


@dataclass(frozen=True, slots=True)
class GroupSAOLAEvent(SAOLAEvent):
    """One group SAOLA step: a SAOLA event, plus the feature's group.

    ``removed`` also lists what the comparison with the earlier groups removed when the
    feature closes its group (members of this group and of earlier ones).

    Attributes
    ----------
    group : int
        0-based index of the feature's group of consecutive arrivals.
    closes_group : bool
        The feature is its group's last: the group was then compared with the earlier ones.
    """

    group: int = 0
    closes_group: bool = False


def _independent_many(r: np.ndarray, n_samples: int, cutoff: float) -> np.ndarray:
    """:func:`fisher_z_cutoff`'s decision (S = {}) for many correlations at once: ``|W|`` < cutoff
    or W NaN. Values of ``|W|`` near the cutoff are decided by the scalar
    :func:`fisher_z_statistic`, so the result is that function's to the last bit."""
    df = n_samples - 3
    if df <= 0:
        return np.ones(len(r), dtype=bool)
    with np.errstate(divide="ignore", invalid="ignore"):
        w = math.sqrt(df) * 0.5 * np.log((1.0 + r) / (1.0 - r))
    w = np.where(np.abs(r) >= 1.0, np.inf, np.abs(w))
    close = np.flatnonzero(np.abs(w - cutoff) <= _RECHECK * cutoff)
    for j in close.tolist():
        w[j] = abs(fisher_z_statistic(float(r[j]), n_samples, 0))
    return ~(w >= cutoff)  # NaN: independent


def group_bounds(n_features: int, groups: int) -> list[tuple[int, int]]:
    """The groups of ``group_f(1:p, groups)``: ``groups`` runs of floor(p / groups)
    consecutive positions, the last one taking the rest (0-based, end exclusive).

    With fewer features than groups the first groups are empty and the last takes all.
    """
    size = n_features // groups
    bounds = [(g * size, (g + 1) * size) for g in range(groups - 1)]
    return bounds + [((groups - 1) * size, n_features)]


class SAOLA(StreamingSelector):
    """SAOLA with Fisher's z test as an online selector: one feature in, one event out.

    Parameters
    ----------
    alpha : float, default 0.01
        Significance level of Fisher's z test (``saola_z_test(data, 0.01)``).

    Notes
    -----
    As the authors' code (``saola_z_test.m``), and unlike the paper's description:

    * a column that sums to exactly 0 (Octave's in-order sum) is skipped untested, even
      when informative;
    * relevance is Fisher's z test of corr(f, class) (strict: ``|W|`` = cutoff is
      dependent), and an undefined correlation (a constant column) counts as independent;
    * the new feature i is compared with each feature t selected before it, in selection
      order; a pair judged independent by the same test is skipped; otherwise, with
      ``c = |corr(i, t)|``, i is removed (and the comparisons stop) if
      ``dep(t) >= dep(i)`` and ``c > dep(i)``, and t is removed (and they go on) if
      ``dep(i) > dep(t)`` and ``c > dep(t)``. Ties go to the older feature, so an exact
      copy is always dropped; removals made before i itself is removed stay made.

    Correlations closer than 1e-12 (:data:`fsengine.methods.online._columns.TIE_TOLERANCE`)
    are equal in those comparisons, so that a tie in exact arithmetic (a copy, a
    rescaled copy) is decided by arrival order, not by rounding.
    """

    spec = MethodSpec(
        name="saola",
        label="SAOLA",
        kind=ONLINE,
        citation="Yu, Wu, Ding, Pei. Scalable and accurate online feature selection for big "
        "data. ACM Transactions on Knowledge Discovery from Data 11(2) (2016); code: LOFS "
        "toolbox (kuiy/LOFS), saola_z_test.m",
        score="|correlation of the feature with the class|",
        set_score="mean |correlation with the class| of S",
        parameters={
            "alpha": Real(
                0.01,
                "significance level of the correlation tests: a smaller alpha asks for "
                "stronger evidence that a gene is related to the class (or to another gene)",
                label="Significance level",
                source="saola_z_test.m (alpha = 0.01 in the manual); TKDD 2016, Algorithm 1",
                low=0.0,
                high=1.0,
                low_open=True,
                high_open=True,
                step=0.005,
            ),
        },
        actions={
            ZERO_SUM: "skipped untested: the values sum to exactly 0 (the code's sparse-data "
            "check)",
            IRRELEVANT: "not significantly correlated with the class (or constant)",
            ADDED: "selected (it may have removed weaker, redundant features)",
            REDUNDANT: "selected, then removed by a stronger feature it is correlated with",
        },
        action_codes=ACTION_CODES,
        event=SAOLAEvent,
    )

    #: Group SAOLA compares a pair against the smaller of the two dependencies.
    _pair_rule_min = False

    def _start(self) -> None:
        self.alpha = self._params["alpha"]
        self.cutoff = fisher_z_cutoff(self.alpha)
        self._n = len(self.y)
        self._dep: dict[int, float] = {}  # arrival position -> |corr(f, class)|
        self._units: dict[int, np.ndarray] = {}  # position -> unit centred column
        self._info: dict[int, tuple[str, int]] = {}  # position -> name, column
        self._current: list[int] = []  # selected positions (SAOLA: the set; group: this group)
        self._closed: list[list[int]] = []  # group SAOLA: the earlier groups' selections
        self._stack = np.empty((0, self._n))  # rows: unit columns of self._current, in order
        self._set_score = 0.0

    # ------------------------------------------------------------------ the rule
    def _relevance(self, block: np.ndarray):
        """Per column: skipped (sum exactly 0), corr with the class, relevant, unit columns."""
        corr, units = pearson_with(block, self.y)
        zero_sum = sequential_sum(block) == 0
        relevant = ~zero_sum & ~_independent_many(corr, self._n, self.cutoff)
        return zero_sum, corr, relevant, units

    def _compare(self, position: int) -> tuple[list[int], int, float]:
        """Compare the new selected feature with the ones selected before it (a snapshot).

        Returns the removed earlier features, in order, then the feature that removes the new
        one (-1: kept) and their ``|corr|``.
        """
        earlier = self._current[:-1]
        if not earlier:
            return [], -1, math.nan
        # corr of the new feature with every earlier one: one product with their stacked columns
        correlations = (self._stack[: len(earlier)] @ self._units[position]).tolist()
        dep_i = self._dep[position]
        removed = []
        for t, r in zip(earlier, correlations):
            if independent(r, self._n, 0, self.cutoff):
                continue
            dep_t, pair = self._dep[t], abs(r)
            if dep_t >= dep_i - TIE_TOLERANCE:  # the older feature is at least as relevant
                bar = min(dep_i, dep_t) if self._pair_rule_min else dep_i
                if pair > bar + TIE_TOLERANCE:
                    return removed, t, pair
            else:
                bar = min(dep_i, dep_t) if self._pair_rule_min else dep_t
                if pair > bar + TIE_TOLERANCE:
                    removed.append(t)
        return removed, -1, math.nan

    def _push(self, position: int) -> None:
        """Append a feature to the current selection (and its column to the stack)."""
        m = len(self._current)
        if m == len(self._stack):
            grown = np.empty((max(8, 2 * m), self._n))
            grown[:m] = self._stack[:m]
            self._stack = grown
        self._stack[m] = self._units[position]
        self._current.append(position)

    def _drop(self, position: int) -> None:
        """Remove a feature from the current selection (and its column from the stack)."""
        k = self._current.index(position)
        m = len(self._current)
        self._stack[k : m - 1] = self._stack[k + 1 : m]
        del self._current[k]

    def _after(self, position: int) -> tuple[list[int], int, float] | None:
        """Group SAOLA: the comparison with the earlier groups when ``position`` closes its
        group (removed features, the one that removed ``position``, their ``|corr|``)."""
        return None

    def _steps_to_visit(self, relevant: np.ndarray, first: int) -> list[int]:
        """Block indices where something can happen: the relevant features (and, in group
        SAOLA, the last feature of each group)."""
        return np.flatnonzero(relevant).tolist()

    def _run(self, block, names, columns):
        """Apply the rule to a block, in arrival order.

        Returns the zero-sum mask, ``|corr|`` with the class, and per visited block index:
        (relevant, removed positions, position that removed it or -1, their ``|corr|``,
        closes its group, the selected positions after the step).
        """
        first = self.n_seen
        zero_sum, corr, relevant, units = self._relevance(block)
        dep = np.abs(corr)
        steps: dict[int, tuple] = {}
        for j in self._steps_to_visit(relevant, first):
            position = first + j
            removed, by, pair = [], -1, math.nan
            if relevant[j]:
                self._dep[position] = float(dep[j])
                self._units[position] = units[:, j].copy()
                self._info[position] = (names[j], columns[j])
                self._push(position)
                removed, by, pair = self._compare(position)
                for t in removed:
                    self._drop(t)
                if by >= 0:
                    self._drop(position)
                    removed.append(position)
            closing = self._after(position)
            if closing is not None:
                removed = removed + [t for t in closing[0] if t not in removed]
                if closing[1] >= 0 and by < 0:
                    by, pair = closing[1], closing[2]
            steps[j] = (bool(relevant[j]), removed, by, pair, closing is not None, self._members())
        self.n_seen = first + block.shape[1]
        self._forget()
        return zero_sum, corr, steps

    # ------------------------------------------------------------------ stream
    def _step_block(self, block, names, columns) -> list[SAOLAEvent]:
        first = self.n_seen
        zero_sum, corr, steps = self._run(block, names, columns)
        events = []
        for j in range(block.shape[1]):
            position = first + j
            relevant, removed, by, pair, closes, members = steps.get(
                j, (False, [], -1, math.nan, False, None)
            )
            if members is not None:
                self._publish(members)
            if zero_sum[j]:
                action, score, statistic = ZERO_SUM, math.nan, math.nan
            else:
                score = abs(float(corr[j]))
                statistic = fisher_z_statistic(float(corr[j]), self._n, 0)
                action = IRRELEVANT if not relevant else ADDED if position in members else REDUNDANT
            events.append(
                self._event(
                    position,
                    names[j],
                    columns[j],
                    score,
                    action,
                    statistic,
                    tuple(self._info[p][0] for p in removed),
                    self._info[by][0] if by >= 0 else "",
                    pair,
                    closes,
                )
            )
        return events

    def _step_block_quiet(self, block, names, columns) -> None:
        self._run(block, names, columns)
        self._publish(self._members())

    def _publish(self, members: list[int]) -> None:
        """Make ``members`` the selected set (names, columns, mean dependency)."""
        self._set_selected([self._info[p][0] for p in members], [self._info[p][1] for p in members])
        self._set_score = float(np.mean([self._dep[p] for p in members])) if members else 0.0

    def _members(self) -> list[int]:
        """The selected positions, in group order then stream order."""
        return [t for group in self._closed for t in group] + self._current

    def _forget(self) -> None:
        """Drop the columns of features that can no longer be compared with anything."""
        keep = set(self._members())
        for position in [p for p in self._units if p not in keep]:
            del self._units[position]

    def _event(self, position, name, column, score, action, stat, removed, by, pair, closing):
        return SAOLAEvent(
            position,
            name,
            column,
            score,
            action,
            self._selected_names,
            self._selected_columns,
            self._set_score,
            stat,
            removed,
            by,
            pair,
        )

    def finish(self) -> Selection:
        """The selected features in stream order; scores are ``|corr(f, class)|``."""
        members = self._members()
        return Selection(
            self.method,
            tuple(self._info[p][0] for p in members),
            tuple(self._info[p][1] for p in members),
            tuple(self._dep[p] for p in members),
            "stream order",
        )


class GroupSAOLA(SAOLA):
    """Group SAOLA with Fisher's z test as an online selector: one feature in, one event out.

    Parameters
    ----------
    alpha : float, default 0.01
        Significance level of Fisher's z test.
    groups : int, default 5
        Number of groups of consecutive features (``group_f(1:p, 5)`` in the manual).

    Notes
    -----
    As the authors' code (``saloa_group_z_test.m`` with ``group_f(1:p, groups)``):

    * The stream is cut into ``groups`` runs of floor(p / groups) consecutive features, the
      last run taking the rest (:func:`group_bounds`). The selector needs p for that: a
      stream over a matrix announces it (``start(y, n_features=p)``, as every front end
      does). A stream started without it is one open group, which is SAOLA.
    * Within a group, SAOLA's rule (:class:`SAOLA`) from an empty set; the printed pair
      test ``c > min(dep(i), dep(t))`` is the same rule.
    * When a group's last feature has arrived, the group is compared with each earlier
      group in turn: for each of its members c (the group as it was before this step) and
      each member g of the earlier group (as it was when that group's turn began), a pair
      dependent by Fisher's z test with ``|corr(c, g)| > min(dep(c), dep(g))`` loses its
      weaker member: c leaves its group if ``dep(g) > dep(c)`` (and c's comparisons with
      that group stop), g leaves its group if ``dep(c) >= dep(g)`` (ties go to the newer
      feature here). A member already removed still takes part in the comparisons that
      follow in the same step, as in the code.
    * The Octave port crashes when an emptied group is asked to remove a member again
      (``g(1): out of bound 0``, GLIOMA); the MATLAB copy's ``setdiff(g, t, 'stable')``
      makes that a no-op, which is what is done here.
    * The selection is the groups' members, group after group, each in stream order.
    """

    spec = MethodSpec(
        name="group-saola",
        label="Group SAOLA",
        kind=ONLINE,
        citation="Yu, Wu, Ding, Pei. Scalable and accurate online feature selection for big "
        "data. ACM Transactions on Knowledge Discovery from Data 11(2) (2016), group SAOLA; "
        "code: LOFS toolbox (kuiy/LOFS), saloa_group_z_test.m, group_f.m",
        score="|correlation of the feature with the class|",
        set_score="mean |correlation with the class| of S",
        parameters={
            "alpha": SAOLA.spec.parameters["alpha"],
            "groups": Int(
                5,
                "number of groups of consecutive genes the stream is cut into; each group is "
                "pruned on its own, then against the earlier groups",
                label="Groups",
                source="group_f(1:p, 5) in the LOFS manual; saloa_group_z_test.m",
                low=1,
                ui_high=50,
            ),
        },
        actions=SAOLA.spec.actions,
        action_codes=ACTION_CODES,
        event=GroupSAOLAEvent,
    )

    _pair_rule_min = True

    def _start(self) -> None:
        super()._start()
        groups = self._params["groups"]
        if self.n_features is None:
            self._ends: list[int] = []  # one open group
        else:
            self._ends = [end - 1 for lo, end in group_bounds(self.n_features, groups) if end > lo]

    def group_of(self, position: int) -> int:
        """0-based group of the feature at arrival ``position`` (0 when p is unknown)."""
        if self.n_features is None:
            return 0
        size = self.n_features // self._params["groups"]
        return (
            min(position // size, self._params["groups"] - 1)
            if size
            else self._params["groups"] - 1
        )

    def _steps_to_visit(self, relevant: np.ndarray, first: int) -> list[int]:
        b = len(relevant)
        if self.n_features is not None and first + b > self.n_features:
            raise FSEngineError(
                f"the stream was announced with {self.n_features} features; "
                f"feature {first + b} is one too many for its groups"
            )
        closing = [end - first for end in self._ends if first <= end < first + b]
        return sorted(set(np.flatnonzero(relevant).tolist()) | set(closing))

    def _after(self, position: int) -> tuple[list[int], int, float] | None:
        if position not in self._ends:
            return None
        current = list(self._current)
        group = list(current)  # this group's members as the comparisons remove them
        removed: list[int] = []
        by, by_pair = -1, math.nan
        if current:
            units = np.array([self._units[c] for c in current])
            dep_c = [self._dep[c] for c in current]
            for earlier in self._closed:
                snapshot = list(earlier)
                if not snapshot:
                    continue
                r = units @ np.array([self._units[g] for g in snapshot]).T
                dependent = ~_independent_many(r.ravel(), self._n, self.cutoff).reshape(r.shape)
                pair = np.abs(r)
                for a, c in enumerate(current):
                    for k, g in enumerate(snapshot):
                        if not dependent[a, k]:
                            continue
                        dep_g = self._dep[g]
                        bar = min(dep_g, dep_c[a]) + TIE_TOLERANCE
                        if dep_g > dep_c[a] + TIE_TOLERANCE and pair[a, k] > bar:
                            if c in group:
                                group.remove(c)
                                removed.append(c)
                                if c == position:
                                    by, by_pair = g, float(pair[a, k])
                            break
                        if pair[a, k] > bar and g in earlier:  # dep(c) >= dep(g)
                            earlier.remove(g)
                            removed.append(g)
        self._closed.append(group)
        self._current = []
        return removed, by, by_pair

    def _event(self, position, name, column, score, action, stat, removed, by, pair, closing):
        return GroupSAOLAEvent(
            position,
            name,
            column,
            score,
            action,
            self._selected_names,
            self._selected_columns,
            self._set_score,
            stat,
            removed,
            by,
            pair,
            self.group_of(position),
            closing,
        )

    def finish(self) -> Selection:
        """The groups' members, group after group, each in stream order."""
        selection = super().finish()
        return Selection(
            selection.method,
            selection.features,
            selection.columns,
            selection.scores,
            "group order, stream order within a group",
        )
