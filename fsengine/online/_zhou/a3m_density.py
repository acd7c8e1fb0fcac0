"""OFS-A3M and OFS-Density: online streaming feature selection on a neighbourhood rough set.

Zhou, Hu, Li, Wu. "Online streaming feature selection using adapted neighborhood rough set",
Information Sciences 481 (2019) (first version ICBK 2017), and "OFS-Density: a novel online
streaming feature selection method", Pattern Recognition 86 (2019). Both are reproduced
from the authors' published code (doodzhou/OSFS: ``OFS_A3M.m`` and ``OFS-Density``), as it
runs in GNU Octave; the reference outputs are in ../shared/reference/zhou_octave.

Both measure a feature set by its neighbourhood dependency (:mod:`._zhou_kernels`: a
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
"""

from __future__ import annotations

import math
from abc import abstractmethod
from dataclasses import dataclass

import numpy as np

from fsengine._compute import kernels
from fsengine.errors import FSEngineError
from fsengine.online._codes import ZHOU_ABOVE_THRESHOLD, ZHOU_BELOW_FLOOR, ZHOU_DENSITY, ZHOU_GAP
from fsengine.online._kofsd.neighbours import feature_weights
from fsengine.online._stream import Selection, StreamEvent, StreamingSelector
from fsengine.online._zhou.octave_rng import OctaveRandom
from fsengine.spec import ONLINE, Int, MethodSpec

#: OFS-A3M's factor of the mean gap between sorted distances (function ``card``).
GAP_FACTOR = 1.5
#: OFS-Density's relative tolerance of a lower set dependency ("fuzzy equal").
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


@dataclass(frozen=True, slots=True)
class OFSA3MEvent(StreamEvent):
    """One OFS-A3M step (``OFS_A3M.m``, loop body).

    ``score`` is the feature's dependency alone; ``threshold`` the value it had to exceed
    (``dep_set / |S|`` before the step). ``action``:

    * "irrelevant": dependency alone not above the threshold; nothing else computed;
    * "added": S's dependency rose with the feature (``set_score_with_feature``), so it
      joined;
    * "tied": S's dependency stayed exactly equal: the feature joined and the other members
      were re-examined in a random order (``visited``, with ``dependencies_without``: the
      dependency of what was left without each); those whose removal left the dependency
      exactly unchanged were removed (``removed``);
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

    ``score`` is the feature's dependency alone (NaN for a constant feature); ``threshold``
    the value it had to reach (the mean single dependency of S before the step).
    ``action``:

    * "irrelevant": dependency alone below the threshold (or NaN);
    * "added": S's dependency rose with the feature, so it joined;
    * "tolerated": S's dependency with the feature was at most 5% off: the feature joined,
      the other members were re-examined in a random order (``visited``,
      ``dependencies_without``), those whose removal did not lower the dependency were
      removed (``removed``), and the dependency after the removals
      (``set_score_after_removal``) was not below the old one;
    * "restored": as "tolerated", but the dependency after the removals was below the old
      one, so the removals were undone (``restored``); the feature stays and S's recorded
      dependency keeps its old value (as in the published code);
    * "rejected": S's dependency with the feature was more than 5% lower.

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
    its prefix sums of squared distances, the random stream and the block loop."""

    rule: int  # ZHOU_GAP or ZHOU_DENSITY

    @property
    def _kern(self):
        """The neighbourhood-dependency kernels (:mod:`._zhou_kernels`)."""
        return kernels.load("online._zhou._zhou_kernels")

    def _start(self) -> None:
        kern = self._kern
        self._y64 = self.y.astype(np.int64)
        self._rng = OctaveRandom(self._params["rand_state"])
        self._members: list[_Member] = []
        self._any_zero_var = False
        n = len(self.y)
        # prefix[k]: squared distances summed over the first k members, in order
        self._prefix = np.zeros((4, n, n))
        self._degenerate = float(kern.sum_in_order(kern.degenerate_cards(self._y64, self.rule))) / n
        self._cards = np.empty(n)
        # samples of the larger class first: their cards settle a comparison sooner
        self._single_rows = np.argsort(self._y64 != np.bincount(self._y64).argmax(), kind="stable")
        self._rows = np.arange(n)  # visiting order of the rows, losers first
        self.dep_set = 0.0
        self.dep_mean = 0.0

    # -------------------------------------------------------------- dependencies
    def single_dependencies(self, block: np.ndarray) -> np.ndarray:
        """Dependency of each column of ``block`` alone (``dep_an(col, Y)``)."""
        return self._singles(np.asarray(block, dtype=float))[0]

    def _singles(self, block: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Single dependencies and weights ``1 / var`` (inf: zero variance) of a block."""
        block = np.ascontiguousarray(block)
        weights = feature_weights(block)
        order = np.argsort(block, axis=0, kind="stable")
        deps = np.empty(block.shape[1])
        self._kern.single_dependencies(block, order, weights, self._y64, self.rule, deps)
        return deps, weights

    def _dependency(self, members: list[_Member], floor: float = -math.inf) -> float:
        """Dependency of the set ``members`` (in arrival order; a sub-list of S, possibly
        followed by a new feature). ``floor``: only whether it reaches ``floor`` matters;
        if it cannot, a negative number (:data:`._codes.ZHOU_BELOW_FLOOR`) is returned."""
        zero_var = [not math.isfinite(m.weight) for m in members]
        if any(zero_var):
            if all(zero_var) and len(members) > 1:
                raise FSEngineError(
                    f"{self.spec.label}: the set to measure holds only features with a single "
                    f"value ({', '.join(m.name for m in members)}); the published code stops "
                    "here in Octave ('inverse of the null matrix not defined')",
                    remedy="drop constant features before selecting (--drop-constant), or "
                    "try another random seed",
                )
            return self._degenerate
        base, extra, weights = self._exact_parts(members)
        return float(
            self._kern.set_dependency(
                base, extra, weights, self._y64, self.rule, floor, self._rows, self._cards
            )
        )

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
        if self._any_zero_var or not math.isfinite(new.weight):
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
        base, extra, weights = self._exact_parts(rest)
        full, n_ops = removals
        dep = self._kern.set_dependency_without(
            full,
            f.values,
            f.weight,
            n_ops,
            base,
            extra,
            weights,
            self._y64,
            self.rule,
            floor,
            self._rows,
            self._cards,
        )
        return float(dep), rest

    def _removed(self, removals, f) -> None:
        """Member ``f`` left ``kept``: take its terms out of the running sums."""
        if removals is not None:
            self._kern.subtract_terms(removals[0], f.values, f.weight)
            removals[1] += 1

    def _dependency_with(self, new: _Member, floor: float = -math.inf) -> float:
        """Dependency of S followed by ``new`` (as :meth:`_dependency`), from S's sums."""
        if self._any_zero_var or not math.isfinite(new.weight):
            return self._dependency(self._members + [new], floor)
        return float(
            self._kern.set_dependency(
                self._prefix[len(self._members)],
                new.values[None, :],
                np.array([new.weight]),
                self._y64,
                self.rule,
                floor,
                self._rows,
                self._cards,
            )
        )

    def _set_members(self, members: list[_Member]) -> None:
        """Make ``members`` the selected set; update the prefix sums from the first change."""
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
        weights = feature_weights(block)
        order = np.argsort(block, axis=0, kind="stable")
        # Without events, a feature's dependency alone is computed only as far as its
        # comparison with the threshold needs, and in full when it joins S.
        deps = None
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
                np.ascontiguousarray(block[:, j]),
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

    Notes
    -----
    The published code (``OFS_A3M.m``), reproduced exactly:

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

    No ``variant="paper"`` is offered: the printed rules could not be checked against the
    paper here; docs/ALGORITHMS.md lists what the code does.
    """

    rule = ZHOU_GAP

    spec = MethodSpec(
        name="ofs-a3m",
        label="OFS-A3M",
        kind=ONLINE,
        citation="Zhou, Hu, Li, Wu. Online streaming feature selection using adapted "
        "neighborhood rough set. Information Sciences 481 (2019)",
        score="the feature's neighbourhood dependency alone (share of samples whose "
        "gap-neighbours share their class)",
        set_score="neighbourhood dependency of the set",
        parameters={"rand_state": _RAND_STATE},
        actions={
            IRRELEVANT: "dependency alone not above the set's dependency / |S|",
            ADDED: "the set's dependency rose with the feature",
            TIED: "the set's dependency stayed equal: the feature joined and members whose "
            "removal changed nothing were removed",
            REJECTED: "the set's dependency fell with the feature",
        },
        action_codes=A3M_ACTION_CODES,
        event=OFSA3MEvent,
    )

    def _decide(self, new: _Member) -> dict:
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

    Notes
    -----
    The published code (``OFS-Density``), reproduced exactly:

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

    No ``variant="paper"`` is offered: the printed rules could not be checked against the
    paper here; docs/ALGORITHMS.md lists what the code does.
    """

    rule = ZHOU_DENSITY

    spec = MethodSpec(
        name="ofs-density",
        label="OFS-Density",
        kind=ONLINE,
        citation="Zhou, Hu, Li, Wu. OFS-Density: a novel online streaming feature selection "
        "method. Pattern Recognition 86 (2019)",
        score="the feature's neighbourhood dependency alone (share of samples whose "
        "density-neighbours share their class; NaN for a constant feature)",
        set_score="neighbourhood dependency of the set (as recorded by the method)",
        parameters={"rand_state": _RAND_STATE},
        actions={
            IRRELEVANT: "dependency alone below the mean of the selected features'",
            ADDED: "the set's dependency rose with the feature",
            TOLERATED: "the set's dependency was within 5%: the feature joined and members "
            "whose removal did not lower the dependency were removed",
            RESTORED: "as tolerated, but the removals lowered the dependency and were undone "
            "(the feature stays)",
            REJECTED: "the set's dependency fell by more than 5% with the feature",
        },
        action_codes=DENSITY_ACTION_CODES,
        event=OFSDensityEvent,
    )

    @staticmethod
    def _removable(dep_kept: float, dep_without: float) -> bool:
        """OFS-Density's non_signf: removing the member does not lower the dependency."""
        return dep_kept - dep_without <= 0

    def _decide(self, new: _Member) -> dict:
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
