"""OFS-A3M and OFS-Density: online streaming feature selection on a neighbourhood rough set.

Zhou, Hu, Li, Wu. "Online streaming feature selection using adapted neighborhood rough set",
Information Sciences 481 (2019) (first version ICBK 2017), and "OFS-Density: a novel online
streaming feature selection method", Pattern Recognition 86 (2019). By default
(``variant="reference"``) both are reproduced from the authors' published code
(doodzhou/OSFS: ``OFS_A3M.m`` and ``OFS-Density``), as it runs in GNU Octave; the reference
outputs are in ../shared/reference/zhou_octave. ``variant="paper"`` follows the printed
algorithms instead (A3M: Definitions 8-10, Algorithms 1-2; Density: Definition 7, eq. 15,
Algorithms 1-2), with the printed neighbourhoods of :mod:`._printed_kernels`; the
differences are listed in the classes' Notes and in docs/ALGORITHMS.md.

Both measure a feature set by its neighbourhood dependency (:mod:`._dependency_kernels`: a
standardised Euclidean distance, each sample's neighbours by a "gap" (A3M) or "density"
rule, card = share of neighbours with the sample's label, averaged over the samples) and
stream features in arrival order:

* a feature is considered if its dependency alone passes a threshold (A3M: ``> dep_set /
  |S|``; Density: ``>=`` the mean single dependency of S);
* it joins S if S's dependency rises with it; if the dependency stays equal (A3M) or within
  5% (Density), it joins and the other members are tested for deletion in a random order
  (``non_signf``): a member goes when removing it does not lower the dependency of what is
  left (A3M: exactly equal; Density: not lower). Otherwise it is rejected.

The random order is Octave's ``randperm`` after ``rand('state', rand_state)``
(:class:`._octave_rng.OctaveRandom`), so the selection depends on ``rand_state``.

The paper variant's rules (both methods): a feature is considered if its dependency alone
is not below the mean single dependency of S; it joins if S's dependency rises; if it stays
equal (A3M) or within ``tolerance`` (Density, eq. 15), it joins and every member of the
enlarged S, the new feature included, is visited once in a random order and removed when its
significance ``gamma(S) - gamma(S - f)`` is exactly 0 (A3M Definition 10, Density eq. 13).
"""

from __future__ import annotations

import dataclasses
import math
from abc import abstractmethod
from dataclasses import dataclass

import numpy as np

from fsengine._compute import kernels
from fsengine._compute.sparse import ORDER_KERNELS, nonzero_order
from fsengine.errors import FSEngineError
from fsengine.methods.online._codes import (
    ZHOU_ABOVE_THRESHOLD,
    ZHOU_BELOW_FLOOR,
    ZHOU_DENSITY,
    ZHOU_GAP,
)
from fsengine.methods.online._point_search import SEARCH_KERNELS
from fsengine.methods.online._roughset.kofsd.neighbours import feature_weights
from fsengine.methods.online._roughset.octave_rng import OctaveRandom
from fsengine.methods.online._roughset.set_dependency import (
    SetDependencyCall,
    set_dependency,
    set_dependency_without,
)
from fsengine.methods.online._stream import Selection, StreamEvent, StreamingSelector
from fsengine.methods.online._tie_average import (
    TIE_KERNELS,
    TIES_PARAMETER,
    AveragedSet,
    NeighbourRule,
    invariant_weights,
    single_dependencies,
)
from fsengine.spec import ONLINE, Choice, Int, MethodSpec, Real

#: OFS-A3M's factor of the mean gap between sorted distances (function ``card``).
GAP_FACTOR = 1.5
#: The compiled neighbourhood dependency (the authors' rules) and the printed variant's.
DEPENDENCY_KERNELS = "methods.online._roughset._dependency_kernels"
PRINTED_KERNELS = "methods.online._roughset._printed_kernels"
#: OFS-Density's relative tolerance of a lower set dependency ("fuzzy equal"); the paper
#: variant's default ``tolerance`` (lambda, section 5.2).
DENSITY_TOLERANCE = 0.05

IRRELEVANT, ADDED, TIED, TOLERATED, RESTORED, REJECTED = (
    "irrelevant",
    "added",
    "tied",
    "tolerated",
    "restored",
    "rejected",
)
#: The action codes of the reference trace files.
A3M_ACTION_CODES = {IRRELEVANT: 0, ADDED: 1, TIED: 2, REJECTED: 3}
DENSITY_ACTION_CODES = {IRRELEVANT: 0, ADDED: 1, TOLERATED: 2, REJECTED: 3, RESTORED: 4}

_RAND_STATE = Int(
    0,
    "seed of the random order in which already selected features are re-examined when a "
    "new one joins (Octave's rand('state', seed)); the selection depends on it",
    label="Random seed",
    source="the authors' code: randperm in non_signf, after rand('state', seed)",
    low=0,
    high=2**32 - 1,
)


#: The ``ties`` parameter of both methods: the authors' rule drops a sample's first sorted
#: element, the lowest row index at distance 0 (the order-invariant rule draws it).
_TIES = dataclasses.replace(TIES_PARAMETER, when=("variant", ("reference",)))


def _variant(label: str) -> Choice:
    """The ``variant`` parameter of the method called ``label``."""
    return Choice(
        "reference",
        f"which {label} to run: the authors' published code or the printed Algorithm 2 "
        "(docs/ALGORITHMS.md lists the differences)",
        label="Variant",
        source="the authors' code (doodzhou/OSFS) / the paper's Algorithms 1 and 2",
        choices={
            "reference": "the authors' published code (default)",
            "paper": "the algorithm as printed in the paper",
        },
    )


@dataclass(frozen=True, slots=True)
class OFSA3MEvent(StreamEvent):
    """One OFS-A3M step (``OFS_A3M.m``, loop body).

    ``score`` is the feature's dependency alone; ``threshold`` the value it had to exceed
    (``dep_set / |S|`` before the step; paper variant: the value it had to reach, the mean
    single dependency of S). ``action``:

    * "irrelevant": dependency alone not above (paper: below) the threshold; nothing else
      computed;
    * "added": S's dependency rose with the feature (``set_score_with_feature``), so it
      joined;
    * "tied": S's dependency stayed exactly equal: the feature joined and the other members
      (paper: every member, the new one included) were re-examined in a random order
      (``visited``, with ``dependencies_without``: the dependency of what was left without
      each); those whose removal left the dependency exactly unchanged were removed
      (``removed``);
    * "rejected": S's dependency fell with the feature.

    ``selected_score`` is S's dependency after the step and ``next_threshold`` the threshold
    the next feature faces. With ``score_rejections`` off, a computation that cannot change
    the decision may stop early and report NaN.
    """

    threshold: float = math.nan
    set_score_with_feature: float = math.nan
    visited: tuple[str, ...] = ()
    dependencies_without: tuple[float, ...] = ()
    removed: tuple[str, ...] = ()
    next_threshold: float = math.nan


@dataclass(frozen=True, slots=True)
class OFSDensityEvent(StreamEvent):
    """One OFS-Density step (``OFS-Density``, loop body).

    ``score`` is the feature's dependency alone (NaN for a constant feature in the
    reference variant); ``threshold`` the value it had to reach (the mean single dependency
    of S before the step). ``action``:

    * "irrelevant": dependency alone below the threshold (or NaN);
    * "added": S's dependency rose with the feature, so it joined;
    * "tolerated": S's dependency with the feature was at most 5% (paper: ``tolerance``)
      off: the feature joined, the other members (paper: every member, the new one
      included) were re-examined in a random order (``visited``,
      ``dependencies_without``), those whose removal did not lower the dependency (paper:
      left it exactly equal) were removed (``removed``), and the dependency after the
      removals (``set_score_after_removal``) was not below the old one (paper: always
      adopted);
    * "restored" (reference variant only): as "tolerated", but the dependency after the
      removals was below the old one, so the removals were undone (``restored``); the
      feature stays and S's recorded dependency keeps its old value (as in the published
      code);
    * "rejected": S's dependency with the feature was more than 5% (paper: ``tolerance``)
      lower.

    With ``score_rejections`` off, a computation that cannot change the decision may stop
    early and report NaN.
    """

    threshold: float = math.nan
    set_score_with_feature: float = math.nan
    visited: tuple[str, ...] = ()
    dependencies_without: tuple[float, ...] = ()
    removed: tuple[str, ...] = ()
    restored: tuple[str, ...] = ()
    set_score_after_removal: float = math.nan
    next_threshold: float = math.nan


class _Member:
    """One selected feature: name, column, arrival position, values, weight, dependency."""

    __slots__ = ("name", "column", "position", "values", "weight", "dependency")

    def __init__(self, name, column, position, values, weight, dependency):
        self.name = name
        self.column = column
        self.position = position
        self.values = values
        self.weight = weight
        self.dependency = dependency


class _NeighbourhoodSelector(StreamingSelector):
    """What OFS-A3M and OFS-Density share: the dependency of sets, the selected set S with
    its prefix sums of squared distances, the random stream and the block loop; in the
    paper variant, the printed neighbourhoods and the printed redundancy loop."""

    kernel_families = (
        DEPENDENCY_KERNELS,
        PRINTED_KERNELS,
        TIE_KERNELS,
        SEARCH_KERNELS,
        ORDER_KERNELS,
    )

    rule: int  # ZHOU_GAP or ZHOU_DENSITY
    #: The paper variant's distance: "seuclidean" (A3M) or "euclidean" (Density).
    paper_metric: str

    @property
    def _kern(self):
        """The neighbourhood-dependency kernels (:mod:`._dependency_kernels`)."""
        return kernels.load(DEPENDENCY_KERNELS)

    @property
    def _pkern(self):
        """The printed neighbourhoods' kernels (:mod:`._printed_kernels`)."""
        return kernels.load(PRINTED_KERNELS)

    def _pairwise_matrices(self) -> int:
        """The set's squared distances as prefix sums: 4 N x N matrices (none with
        ties="average", which keeps the set's points)."""
        averaged = self._params["variant"] != "paper" and self._params["ties"] == "average"
        return 0 if averaged else 4

    def _start(self) -> None:
        self._paper = self._params["variant"] == "paper"
        # ties="average": each card the expectation over every order of the rows, S kept
        # as its points (:class:`fsengine.methods.online._tie_average.AveragedSet`)
        self._averaged = not self._paper and self._params["ties"] == "average"
        self._points = AveragedSet(self.y, NeighbourRule.neighbourhood(self.rule))
        kern = self._kern
        self._y64 = self.y.astype(np.int64)
        self._rng = OctaveRandom(self._params["rand_state"])
        self._members: list[_Member] = []
        self._any_zero_var = False
        n = len(self.y)
        # prefix[k]: squared distances summed over the first k members, in order (the
        # average rule keeps S's points instead)
        self._prefix = np.zeros((1, 1, 1) if self._averaged else (4, n, n))
        self._degenerate = float(kern.sum_in_order(kern.degenerate_cards(self._y64, self.rule))) / n
        self._cards = np.empty(n)
        # samples of the larger class first: their cards settle a comparison sooner
        self._single_rows = np.argsort(self._y64 != np.bincount(self._y64).argmax(), kind="stable")
        self._rows = np.arange(n)  # visiting order of the rows, losers first
        self.dep_set = 0.0
        self.dep_mean = 0.0

    def tie_rule(self):
        """The neighbourhood under the authors' tie rule (None with ties="average" and for
        the paper variant, whose printed neighbourhoods this rule does not describe)."""
        if self._params["variant"] != "reference" or self._params["ties"] != "index":
            return None
        return NeighbourRule.neighbourhood(self.rule), "seuclidean"

    # -------------------------------------------------------------- dependencies
    def single_dependencies(self, block: np.ndarray) -> np.ndarray:
        """Dependency of each column of ``block`` alone (``dep_an(col, Y)``)."""
        return self._singles(np.asarray(block, dtype=float))[0]

    def _singles(self, block: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Single dependencies and weights ``1 / var`` (inf: zero variance) of a block
        (paper variant: :func:`paper_weights`)."""
        block = np.ascontiguousarray(block)
        if self._averaged:
            order = nonzero_order(block)
            weights = invariant_weights(block, order=order)
            deps = single_dependencies(block, self._y64, weights, self._points.rule, order)[0]
            return deps, weights
        if self._paper:
            weights = paper_weights(block, self.paper_metric)
            order = np.argsort(block, axis=0, kind="stable")
            deps = np.empty(block.shape[1])
            self._pkern.single_dependencies(block, order, weights, self._y64, self.rule, deps)
            return deps, weights
        weights = feature_weights(block)
        order = np.argsort(block, axis=0, kind="stable")
        deps = np.empty(block.shape[1])
        self._kern.single_dependencies(block, order, weights, self._y64, self.rule, deps)
        return deps, weights

    def _dependency(self, members: list[_Member], floor: float = -math.inf) -> float:
        """Dependency of the set ``members`` (in arrival order; a sub-list of S, possibly
        followed by a new feature). ``floor``: only whether it reaches ``floor`` matters;
        if it cannot, a negative number (:data:`._codes.ZHOU_BELOW_FLOOR`) is returned.
        Paper variant: the printed neighbourhoods; the empty set's dependency is 0
        (Algorithm 2 starts with ``D_S = 0`` for ``S = {}``)."""
        if self._averaged:
            return self._averaged_dependency(self._points_of(members[:-1]), members[-1:], floor)
        if self._paper:
            if not members:
                return 0.0
            return set_dependency(self._pkern, self._call(self._exact_parts(members), floor))
        if any(not math.isfinite(m.weight) for m in members):
            # Octave makes every distance between two samples NaN for a set holding a
            # constant feature; for a set of constant features alone (two or more) it stops
            # ('inverse of the null matrix not defined'). That set is measured the same way:
            # a stream must not stop where a training half happens to hold such features.
            return self._degenerate
        return set_dependency(self._kern, self._call(self._exact_parts(members), floor))

    def _call(self, columns, floor, running=()) -> SetDependencyCall:
        """A set-dependency call on ``columns`` under this selector's rule
        (:class:`.set_dependency.SetDependencyCall`)."""
        outputs = (self._rows, self._cards)
        return SetDependencyCall(columns, (self._y64, self.rule), floor, outputs, running)

    def _points_of(self, members: list[_Member]) -> AveragedSet:
        """ties="average": the points of ``members`` (in arrival order), from S's when they
        start with S's members."""
        p = 0
        while p < len(members) and p < len(self._members) and members[p] is self._members[p]:
            p += 1
        if p == len(self._members):
            points = self._points.copy()
        else:
            p, points = 0, AveragedSet(self.y, self._points.rule)
        for m in members[p:]:
            points.add(m.values, m.weight)
        return points

    @staticmethod
    def _averaged_dependency(points: AveragedSet, last: list[_Member], floor: float) -> float:
        """ties="average": the dependency of ``points`` followed by the member in ``last``
        (none: of ``points`` alone); :data:`ZHOU_BELOW_FLOOR` once it cannot reach
        ``floor`` (a NaN dependency, OFS-Density's on a constant feature, is kept)."""
        if not last:
            return points.dependency()[0]
        dependency, share = points.dependency_with(last[0].values, last[0].weight, floor)
        if math.isnan(dependency) and math.isnan(share):
            return ZHOU_BELOW_FLOOR
        return dependency

    def _exact_parts(self, members: list[_Member]):
        """(base, extra, weights): the squared distances of ``members`` are the prefix sums
        ``base`` of S's members they start with, plus the terms of the columns ``extra``."""
        p = 0  # members[:p] are S's first p members: their sum is prefix[p]
        while p < len(members) and p < len(self._members) and members[p] is self._members[p]:
            p += 1
        rest = members[p:]
        extra = np.vstack([m.values for m in rest]) if rest else np.empty((0, len(self.y)))
        return self._prefix[p], extra, np.array([m.weight for m in rest])

    def _removals(self, together: list[_Member]):
        """State for measuring ``together`` (S followed by a new feature) without one
        member at a time while members are removed: its squared distances, kept up to date
        by subtraction, and how many roundings they carry. None when a member has a single
        value (those sets take the exact path)."""
        new = together[-1]
        if self._averaged or self._any_zero_var or not math.isfinite(new.weight):
            return None
        full = np.empty_like(self._prefix[0])
        self._kern.add_terms(full, self._prefix[len(self._members)], new.values, new.weight)
        return [full, len(together)]

    def _dependency_without(self, kept, f, removals, floor):
        """Dependency of ``kept`` without member ``f`` (as :meth:`_dependency`), from the
        running sums of ``kept`` (:meth:`_removals`) where they decide every card."""
        rest = [m for m in kept if m is not f]
        if removals is None:
            return self._dependency(rest, floor), rest
        full, n_ops = removals
        running = (full, f.values, f.weight, n_ops)
        call = self._call(self._exact_parts(rest), floor, running)
        return set_dependency_without(self._kern, call), rest

    def _removed(self, removals, f) -> None:
        """Member ``f`` left ``kept``: take its terms out of the running sums."""
        if removals is not None:
            self._kern.subtract_terms(removals[0], f.values, f.weight)
            removals[1] += 1

    def _dependency_with(self, new: _Member, floor: float = -math.inf) -> float:
        """Dependency of S followed by ``new`` (as :meth:`_dependency`), from S's sums."""
        if self._averaged:
            return self._averaged_dependency(self._points, [new], floor)
        if self._paper or self._any_zero_var or not math.isfinite(new.weight):
            return self._dependency(self._members + [new], floor)
        columns = (self._prefix[len(self._members)], new.values[None, :], np.array([new.weight]))
        return set_dependency(self._kern, self._call(columns, floor))

    def _set_members(self, members: list[_Member]) -> None:
        """Make ``members`` the selected set; update the prefix sums from the first change
        (ties="average": S's points)."""
        if self._averaged:
            for m in members:
                if m.dependency in (ZHOU_ABOVE_THRESHOLD, ZHOU_BELOW_FLOOR):
                    m.dependency = float(self._singles(m.values[:, None])[0][0])
            self._points = self._points_of(members)
            self._members = list(members)
            self._any_zero_var = not all(math.isfinite(m.weight) for m in members)
            self._set_selected([m.name for m in members], [m.column for m in members])
            return
        keep = 0
        while (
            keep < len(members)
            and keep < len(self._members)
            and members[keep] is self._members[keep]
        ):
            keep += 1
        if len(members) + 1 > len(self._prefix):
            grown = np.zeros((2 * len(members) + 1, *self._prefix.shape[1:]))
            grown[: keep + 1] = self._prefix[: keep + 1]
            self._prefix = grown
        for k in range(keep, len(members)):
            m = members[k]
            if m.dependency in (ZHOU_ABOVE_THRESHOLD, ZHOU_BELOW_FLOOR):
                m.dependency = float(self._singles(m.values[:, None])[0][0])
            self._kern.add_terms(self._prefix[k + 1], self._prefix[k], m.values, m.weight)
        self._members = list(members)
        self._any_zero_var = not all(math.isfinite(m.weight) for m in members)
        self._set_selected([m.name for m in members], [m.column for m in members])

    def _visit_order(self, candidates: list[_Member]) -> list[_Member]:
        """``candidates(randperm(numel(candidates)))``: one randperm per call."""
        return [candidates[k] for k in self._rng.randperm(len(candidates))]

    def _selected_singles_mean(self) -> float:
        """``sum(depArray(mode == 1)) / sum(mode)``, summed in arrival order."""
        total = 0.0
        for m in self._members:
            total += m.dependency
        return total / len(self._members)

    # -------------------------------------------------------------- stream
    def _step_block(self, block, names, columns) -> list[StreamEvent]:
        return self._run_block(block, names, columns, events=True)

    def _step_block_quiet(self, block, names, columns) -> None:
        self._run_block(block, names, columns, events=False)

    def _run_block(self, block, names, columns, events: bool):
        kern = self._kern
        block = np.ascontiguousarray(block)
        deps = None
        if self._paper or self._averaged:  # every dependency in full
            deps, weights = self._singles(block)
        else:
            weights = feature_weights(block)
            order = np.argsort(block, axis=0, kind="stable")
            # Without events, a feature's dependency alone is computed only as far as its
            # comparison with the threshold needs, and in full when it joins S.
            if events:
                deps = np.empty(block.shape[1])
                kern.single_dependencies(block, order, weights, self._y64, self.rule, deps)
        self._early = not (events and self.score_rejections)
        out = []
        for j in range(block.shape[1]):
            position = self.n_seen
            if deps is None:
                dep = kern.column_dependency(
                    block,
                    order,
                    j,
                    weights[j],
                    self._y64,
                    self.rule,
                    self.dep_mean,
                    self._single_rows,
                )
            else:
                dep = deps[j]
            new = _Member(
                names[j],
                columns[j],
                position,
                block[:, j].copy(),  # the stream reuses its blocks
                float(weights[j]),
                float(dep),
            )
            info = self._decide(new)
            self.n_seen += 1
            if events:
                out.append(
                    self.spec.event(
                        position,
                        names[j],
                        columns[j],
                        float(dep),
                        info.pop("action"),
                        self._selected_names,
                        self._selected_columns,
                        self.dep_set,
                        next_threshold=self.dep_mean,
                        **info,
                    )
                )
        return out

    def _non_signf(self, together: list[_Member], dep_with: float):
        """The random re-examination (``non_signf``) of S's members after S + new
        (``together``, dependency ``dep_with``): each member, in Octave's random order, is
        removed when :meth:`_removable` holds for the dependency of what is left without it.

        Returns (kept, dependency of kept, visited members, dependency without each; NaN
        where a computation stopped once decided)."""
        kept, dep_kept = list(together), dep_with
        visited = self._visit_order(self._members)
        removals = self._removals(together)
        without = []
        for f in visited:
            floor = dep_kept if self._early else -math.inf
            dep_f, rest = self._dependency_without(kept, f, removals, floor)
            without.append(dep_f if dep_f >= 0 else math.nan)
            if self._removable(dep_kept, dep_f):
                kept, dep_kept = rest, dep_f
                self._removed(removals, f)
        return kept, dep_kept, visited, without

    def _printed_redundancy(self, together: list[_Member], dep_with: float):
        """The paper variant's redundancy loop (A3M Algorithm 2 lines 14-21, Density lines
        15-22): S + new (``together``, dependency ``dep_with``) is visited once in a random
        order (Octave's ``randperm`` over ``together`` in arrival order), and each member
        whose significance ``gamma(S) - gamma(S - f)`` (Definition 10; Density eq. 13) is
        exactly 0 is removed, S shrinking as it goes. A removal leaves ``gamma(S)``
        unchanged, so it stays ``dep_with``.

        Returns (kept, visited members, dependency without each; NaN where a computation
        stopped once it was certainly below ``dep_with``)."""
        kept = list(together)
        visited = [together[k] for k in self._rng.randperm(len(together))]
        without = []
        for f in visited:
            rest = [m for m in kept if m is not f]
            dep_f = self._dependency(rest, dep_with if self._early else -math.inf)
            without.append(dep_f if dep_f >= 0 else math.nan)
            if dep_f >= 0 and dep_with - dep_f == 0:
                kept = rest
        return kept, visited, without

    def _decide_printed(self, new: _Member, near: str) -> dict:
        """The paper variant's Algorithm 2 for one feature: discard it if its dependency
        is below ``Mean D_S``; add it if S's dependency rises; if :meth:`_printed_near`
        holds, add it and run :meth:`_printed_redundancy` (event action ``near``); else
        reject it."""
        info = {"threshold": self.dep_mean}
        if new.dependency < self.dep_mean:
            info["action"] = IRRELEVANT
            return info
        together = self._members + [new]
        dep_new = self._dependency_with(new, self._printed_floor() if self._early else -math.inf)
        info["set_score_with_feature"] = dep_new if dep_new >= 0 else math.nan
        if dep_new < 0:  # certainly below what the other branches need
            info["action"] = REJECTED
        elif dep_new > self.dep_set:
            self._printed_update(together, dep_new)
            info["action"] = ADDED
        elif self._printed_near(dep_new):
            kept, visited, without = self._printed_redundancy(together, dep_new)
            self._printed_update(kept, dep_new)
            info.update(
                action=near,
                visited=tuple(m.name for m in visited),
                dependencies_without=tuple(without),
                removed=tuple(m.name for m in together if m not in kept),
            )
        else:
            info["action"] = REJECTED
        return info

    @abstractmethod
    def _printed_floor(self) -> float:
        """Paper variant: a value below which S + new is certainly rejected."""

    @abstractmethod
    def _printed_near(self, dep_new: float) -> bool:
        """Paper variant: whether S + new (dependency ``dep_new``, not above ``D_S``)
        takes the redundancy branch."""

    def _printed_update(self, members: list[_Member], dep_set: float) -> None:
        """S becomes ``members``; ``D_S`` its dependency and ``Mean D_S`` the mean single
        dependency of its members (A3M eq. 13, Density eq. 11; 0 for the empty set), as
        Algorithm 2's lines 2-4 define them."""
        self._set_members(members)
        self.dep_set = dep_set
        self.dep_mean = self._selected_singles_mean() if members else 0.0

    @staticmethod
    @abstractmethod
    def _removable(dep_kept: float, dep_without: float) -> bool:
        """Whether a member whose removal leaves ``dep_without`` goes (``non_signf``)."""

    @abstractmethod
    def _decide(self, new: _Member) -> dict:
        """The method's rule for a feature that passed the relevance filter: the event
        fields of its decision (S and the thresholds are updated in place)."""

    def finish(self) -> Selection:
        """S in arrival order (the code returns ``find(mode == 1)``); scores are the
        dependencies alone."""
        return members_selection(self.method, self._members)


def paper_weights(block: np.ndarray, metric: str) -> np.ndarray:
    """The paper variant's per-feature weights ``w`` of the distance
    ``sqrt(sum (w * g) * g)``.

    Parameters
    ----------
    block : ndarray, shape (n, b)
        One column per feature.
    metric : {"seuclidean", "euclidean"}
        OFS-A3M's standardised Euclidean distance (section 4.2: each difference divided by
        the feature's standard deviation, n - 1) or OFS-Density's Euclidean distance
        (section 4.2, worked example).

    Returns
    -------
    ndarray, shape (b,)
        ``1 / var`` (0 for a constant feature: its differences are all 0, so it adds
        nothing to any distance) or 1.
    """
    if metric == "euclidean":
        return np.ones(block.shape[1])
    weights = feature_weights(block)
    weights[~np.isfinite(weights)] = 0.0
    return weights


def printed_neighbourhood(distances, i: int, rule: str) -> np.ndarray:
    """The printed neighbourhood of sample ``i`` (the paper variant's).

    Parameters
    ----------
    distances : array, shape (n,)
        Distances from sample ``i`` to every sample (entry ``i`` is ignored: x_i is not its
        own neighbour, A3M Definition 8, Density Definition 6).
    i : int
        The sample.
    rule : {"gap", "density"}
        OFS-A3M's Gap neighbourhood (Definitions 8-9: ``W_gap = 1.5 * (D_max - D_min) /
        (n - 1)``; the neighbours before the first step ``>= W_gap``, a step of 0 never
        being one) or OFS-Density's (Definition 7, eq. 10: ``d(k) = D(k) / k``; the
        neighbours before the first k with ``d(k) < d(k - 1)``, with every sample at the
        last one's distance).

    Returns
    -------
    ndarray of int
        The neighbours, nearest first (ties by index).
    """
    codes = {"gap": ZHOU_GAP, "density": ZHOU_DENSITY}
    if rule not in codes:
        raise FSEngineError(f"rule must be 'gap' or 'density', got {rule!r}")
    dist = np.ascontiguousarray(distances, dtype=float)
    if dist.ndim != 1 or not 0 <= i < len(dist) or len(dist) < 2:
        raise FSEngineError(
            f"distances must be one row of at least 2 samples and i one of them, got shape "
            f"{dist.shape} and i = {i}"
        )
    out = np.empty(len(dist), dtype=np.int64)
    count = kernels.load(PRINTED_KERNELS).neighbourhood(dist, int(i), codes[rule], out)
    return out[:count]


def members_selection(method: str, members) -> Selection:
    """The selection of OFS-A3M, OFS-Density and RHOFS: the members (objects with
    ``name``, ``column`` and ``dependency``) in arrival order, scored by their
    single-feature dependencies."""
    return Selection(
        method,
        tuple(m.name for m in members),
        tuple(m.column for m in members),
        tuple(m.dependency for m in members),
        "stream order",
    )


class OFSA3M(_NeighbourhoodSelector):
    """OFS-A3M as an online selector: one feature in, one event out.

    Parameters
    ----------
    rand_state : int, default 0
        Seed of Octave's generator (``rand('state', rand_state)``) for the random order in
        which ``non_signf`` re-examines the selected features. **The selection depends on
        it** (the reference runs: 4 distinct selections in 5 seeds on SRBCT).
    variant : {"reference", "paper"}, default "reference"
        "reference" reproduces the authors' published code (below); "paper" follows the
        printed Definitions 8-10 and Algorithms 1-2 (below).

    Notes
    -----
    ``variant="reference"``: the published code (``OFS_A3M.m``), reproduced exactly:

    * neighbours by the gap rule: in each sample's sorted distances, position 2 and then
      every next position while the step ``D(j) - D(j-1)`` is below
      ``1.5 * (D(n) - D(2)) / (n - 2)``; card = share of the neighbours with the sample's
      label (no special treatment of the minority);
    * a feature is considered if its dependency alone is ``> dep_set / |S|`` (the set's
      dependency divided by its size, not a mean of single dependencies);
    * a considered feature joins if S's dependency rises; if it is exactly equal, it joins
      and each other member, in random order, is removed when ``(dep(R) - dep(R - f)) /
      dep(R)`` is exactly 0; otherwise it is rejected;
    * a set made only of constant features (two or more) stops the published code in Octave;
      here it raises :class:`FSEngineError`.

    ``variant="paper"``: the printed algorithm.

    * Gap neighbourhood (Definitions 8-9) on the standardised Euclidean distance (a
      constant feature adds nothing to it): x_i is left out of its own neighbours; with the
      others' sorted distances D(1..n-1), ``W_gap = 1.5 * G_mean``, ``G_mean = (D(n-1) -
      D(1)) / (n - 1)``; the neighbours are those before the first step ``>= W_gap``; a
      step of 0 is never a gap (Theorem 1: equal distances are taken together);
    * a feature is discarded if its dependency alone is ``< Mean D_S``, the mean single
      dependency of S (eq. 13; so an equal one passes);
    * it joins if S's dependency rises; if it is exactly equal, it joins, S (the new feature
      included) is visited once in a random order and each member whose significance
      ``gamma(S) - gamma(S - f')`` (Definition 10) is exactly 0 is removed; otherwise it is
      rejected. ``D_S`` and ``Mean D_S`` always describe the current S.

    docs/ALGORITHMS.md lists every difference and the decisions taken where the print is
    ambiguous. (The printed worked example of section 4.4 was computed with the code's gap
    divisor n - 2, not the printed n - 1.)
    """

    rule = ZHOU_GAP
    paper_metric = "seuclidean"

    spec = MethodSpec(
        name="ofs-a3m",
        label="OFS-A3M",
        kind=ONLINE,
        citation="Zhou, Hu, Li, Wu. Online streaming feature selection using adapted "
        "neighborhood rough set. Information Sciences 481 (2019)",
        score="the feature's neighbourhood dependency alone (share of samples whose "
        "gap-neighbours share their class)",
        set_score="neighbourhood dependency of the set",
        parameters={
            "rand_state": _RAND_STATE,
            "variant": _variant("OFS-A3M"),
            "ties": _TIES,
        },
        actions={
            IRRELEVANT: "dependency alone not above the set's dependency / |S| (paper: "
            "below the mean single dependency of the set)",
            ADDED: "the set's dependency rose with the feature",
            TIED: "the set's dependency stayed equal: the feature joined and members whose "
            "removal changed nothing were removed",
            REJECTED: "the set's dependency fell with the feature",
        },
        action_codes=A3M_ACTION_CODES,
        event=OFSA3MEvent,
    )

    def _printed_near(self, dep_new: float) -> bool:
        """Algorithm 2, line 13: ``gamma(S + f) == D_S``."""
        return dep_new == self.dep_set

    def _printed_floor(self) -> float:
        return self.dep_set

    def _decide(self, new: _Member) -> dict:
        if self._paper:
            return self._decide_printed(new, TIED)
        info = {"threshold": self.dep_mean}
        if not new.dependency > self.dep_mean:
            info["action"] = IRRELEVANT
            return info
        together = self._members + [new]
        dep_new = self._dependency_with(new, floor=self.dep_set if self._early else -math.inf)
        info["set_score_with_feature"] = dep_new if dep_new >= 0 else math.nan
        if dep_new > self.dep_set:
            self._set_members(together)
            self.dep_set = dep_new
            self.dep_mean = self.dep_set / len(self._members)
            info["action"] = ADDED
        elif dep_new == self.dep_set:
            kept, _, visited, without = self._non_signf(together, dep_new)
            self._set_members(kept)
            self.dep_mean = self.dep_set / len(self._members)
            info.update(
                action=TIED,
                visited=tuple(m.name for m in visited),
                dependencies_without=tuple(without),
                removed=tuple(m.name for m in together if m not in kept),
            )
        else:
            info["action"] = REJECTED
        return info

    @staticmethod
    def _removable(dep_kept: float, dep_without: float) -> bool:
        """OFS_A3M.m's non_signf: removing the member leaves the dependency exactly equal."""
        return dep_kept != 0 and (dep_kept - dep_without) / dep_kept == 0


class OFSDensity(_NeighbourhoodSelector):
    """OFS-Density as an online selector: one feature in, one event out.

    Parameters
    ----------
    rand_state : int, default 0
        Seed of Octave's generator (``rand('state', rand_state)``) for the random order in
        which ``non_signf`` re-examines the selected features. **The selection depends on
        it** (the reference runs: 5 distinct selections in 5 seeds on GLIOMA).
    variant : {"reference", "paper"}, default "reference"
        "reference" reproduces the authors' published code (below); "paper" follows the
        printed Definition 7, eq. 15 and Algorithms 1-2 (below).
    tolerance : float, default 0.05
        Paper variant only: the fuzzy-equal tolerance lambda of eq. 15 (section 5.2 studies
        0.01, 0.05 and 0.1; 0 asks for exact equality). The code fixes it at 0.05.

    Notes
    -----
    ``variant="reference"``: the published code (``OFS-Density``), reproduced exactly:

    * neighbours by the density rule: in each sample's sorted distances, positions
      j = 2, 3, ... while ``D(j) / (j - 1)`` is 0 or at most the last included density
      (starting at D(2)); a constant feature has no neighbour and a NaN dependency;
    * a feature is considered if its dependency alone is ``>=`` the mean single
      dependency of S (NaN never is);
    * it joins if S's dependency rises; if S's dependency with it is within 5% of the old
      (``abs(new - old) / old <= 0.05``), it joins, every other member, in random order, is
      removed when removing it does not lower the dependency of what is left, and if the
      dependency after the removals is below the old one the removals are undone (the
      feature stays, and S's recorded dependency and the threshold keep their old values
      although S changed); otherwise it is rejected.

    ``variant="paper"``: the printed algorithm.

    * density neighbourhood (Definition 7, eq. 10) on the Euclidean distance (the worked
      example's): x_i is left out of its own neighbours; with the others' sorted distances
      D(1..n-1) and densities ``d(k) = D(k) / k``, the first inflection point is the first
      k with ``d(k) < d(k - 1)`` and the neighbours are those before it, together with
      every sample at the same distance as the last of them (decision: equal distances
      taken together, as A3M's Theorem 1 asks of its relation); on the paper's example
      x3's neighbourhood is {x7} where the code's rule gives {x7, x2, x6, x1};
    * a feature is discarded if its dependency alone is ``< Mean Dep_S`` (eq. 11);
    * it joins if S's dependency rises; if ``|(Dep_S - gamma(S + f)) / Dep_S| <=
      tolerance`` (eq. 15; never when ``Dep_S = 0``, where the ratio is 0/0), it joins, S
      (the new feature included) is visited once in a random order and each member whose
      significance (eq. 13) is exactly 0 is removed, with no restore step; ``Dep_S`` and
      ``Mean Dep_S`` then describe the new S (decision: the print updates neither in that
      branch; its lines 3-4 define them as S's); otherwise it is rejected.

    docs/ALGORITHMS.md lists every difference and the decisions taken where the print is
    ambiguous.
    """

    rule = ZHOU_DENSITY
    paper_metric = "euclidean"

    spec = MethodSpec(
        name="ofs-density",
        label="OFS-Density",
        kind=ONLINE,
        citation="Zhou, Hu, Li, Wu. OFS-Density: a novel online streaming feature selection "
        "method. Pattern Recognition 86 (2019)",
        score="the feature's neighbourhood dependency alone (share of samples whose "
        "density-neighbours share their class; NaN for a constant feature)",
        set_score="neighbourhood dependency of the set (as recorded by the method)",
        parameters={
            "rand_state": _RAND_STATE,
            "variant": _variant("OFS-Density"),
            "ties": _TIES,
            "tolerance": Real(
                DENSITY_TOLERANCE,
                "fuzzy-equal tolerance lambda: the feature joins and the set is pruned when "
                "the set's dependency with it is at most this share below the set's",
                label="Tolerance (lambda)",
                source="eq. 15; section 5.2 (lambda = 0.05)",
                low=0.0,
                high=1.0,
                step=0.01,
                when=("variant", ("paper",)),
            ),
        },
        actions={
            IRRELEVANT: "dependency alone below the mean of the selected features'",
            ADDED: "the set's dependency rose with the feature",
            TOLERATED: "the set's dependency was within 5% (paper: the tolerance): the "
            "feature joined and members whose removal did not lower the dependency (paper: "
            "left it equal) were removed",
            RESTORED: "as tolerated, but the removals lowered the dependency and were undone "
            "(the feature stays; reference variant only)",
            REJECTED: "the set's dependency fell by more than 5% (paper: the tolerance) with "
            "the feature",
        },
        action_codes=DENSITY_ACTION_CODES,
        event=OFSDensityEvent,
    )

    @staticmethod
    def _removable(dep_kept: float, dep_without: float) -> bool:
        """OFS-Density's non_signf: removing the member does not lower the dependency."""
        return dep_kept - dep_without <= 0

    def _printed_floor(self) -> float:
        """Below ``Dep_S * (1 - lambda)`` (less the kernel's margin of 1e-9) the ratio of
        eq. 15 is certainly above lambda."""
        return self.dep_set * (1 - self._params["tolerance"])

    def _printed_near(self, dep_new: float) -> bool:
        """Algorithm 2, line 14 (eq. 15): ``|(Dep_S - gamma(S + f)) / Dep_S| <= lambda``;
        false when ``Dep_S = 0`` (0/0)."""
        return (
            self.dep_set != 0
            and abs((self.dep_set - dep_new) / self.dep_set) <= self._params["tolerance"]
        )

    def _decide(self, new: _Member) -> dict:
        if self._paper:
            info = self._decide_printed(new, TOLERATED)
            if info["action"] == TOLERATED:
                info["set_score_after_removal"] = self.dep_set
            return info
        info = {"threshold": self.dep_mean}
        if not new.dependency >= self.dep_mean:
            info["action"] = IRRELEVANT
            return info
        together = self._members + [new]
        floor = self.dep_set * (1 - DENSITY_TOLERANCE) if self._early else -math.inf
        dep_new = self._dependency_with(new, floor=floor)
        info["set_score_with_feature"] = dep_new if dep_new >= 0 else math.nan
        if dep_new > self.dep_set:
            self._set_members(together)
            self.dep_set = dep_new
            self.dep_mean = self._selected_singles_mean()
            info["action"] = ADDED
            return info
        if not (
            self.dep_set != 0 and abs(dep_new - self.dep_set) / self.dep_set <= DENSITY_TOLERANCE
        ):
            info["action"] = REJECTED
            return info
        kept, dep_kept, visited, without = self._non_signf(together, dep_new)
        removed = [m for m in together if m not in kept]
        info.update(
            visited=tuple(m.name for m in visited),
            dependencies_without=tuple(without),
            set_score_after_removal=dep_kept,
        )
        if dep_kept >= self.dep_set:
            self._set_members(kept)
            self.dep_set = dep_kept
            self.dep_mean = self._selected_singles_mean()
            info.update(action=TOLERATED, removed=tuple(m.name for m in removed))
        else:
            self._set_members(together)
            info.update(action=RESTORED, restored=tuple(m.name for m in removed))
        return info
