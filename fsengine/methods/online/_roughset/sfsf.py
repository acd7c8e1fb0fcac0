"""SFSF: the rough-set streaming feature selection framework, with its four models.

Zhou, Zhang, Li, Wu, "General assembly framework for online streaming feature selection via
Rough Set models", Expert Systems with Applications 204 (2022) 117520 (RS-SFSF, Algorithm 2
and Table 3), reproduced from the authors' code (doodzhou/OSFS: ``SFSF_C.m``, ``SFSF_F.m``,
``SFSF_NK.m``, ``SFSF_NR.m``) as it runs in GNU Octave; the reference outputs are in
tests/reference/roughset_octave. One loop, four dependency models (:mod:`.roughset`):

* relevance: a feature is considered when its dependency alone passes a threshold from the
  mean single dependency of S (classical: ``> mean * 0.5``; fuzzy: ``> mean``; k-nearest and
  radius: ``>= mean``);
* significance: it joins when S's dependency rises with it (fuzzy: rounded to 4 decimals);
* redundancy: when S's dependency stays equal, every member of S + f, the new one included,
  in Octave's random order (``non_signf``), leaves when removing it does not lower the
  dependency of what is left (radius: when ``(d_B - d_F) / d_B`` is exactly 0);
* otherwise (the dependency fell) the feature is rejected.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np

from fsengine._compute.sparse import ORDER_KERNELS
from fsengine.errors import FSEngineError
from fsengine.methods.online._point_search import SEARCH_KERNELS
from fsengine.methods.online._roughset.a3m_density import DEPENDENCY_KERNELS, members_selection
from fsengine.methods.online._roughset.octave_rng import OctaveRandom
from fsengine.methods.online._roughset.roughset import (
    CLASSICAL,
    DISTANCE_MATRICES,
    FUZZY,
    K_NEAREST,
    RADIUS,
    ROUGHSET_KERNELS,
    AveragedKNearestModel,
    ClassicalModel,
    FuzzyModel,
    KNearestModel,
    Member,
    RadiusModel,
    non_signf,
    octave_round,
    selected_mean,
)
from fsengine.methods.online._stream import Selection, StreamEvent, StreamingSelector
from fsengine.methods.online._tie_average import TIE_KERNELS, TIES_PARAMETER, NeighbourRule
from fsengine.spec import ONLINE, Choice, Int, MethodSpec, Real

IRRELEVANT, ADDED, TIED, REJECTED = "irrelevant", "added", "tied", "rejected"
#: The action codes of the reference trace files.
ACTION_CODES = {IRRELEVANT: 0, ADDED: 1, TIED: 2, REJECTED: 3}
#: The fuzzy model's set dependency is rounded to this many decimals (``round(dep, 4)``).
FUZZY_DIGITS = 4

RAND_STATE = Int(
    0,
    "seed of the random order in which the redundancy check visits the selected features "
    "(Octave's rand('state', seed)); the selection can depend on it",
    label="Random seed",
    source="the authors' code: randperm in non_signf, after rand('state', seed)",
    low=0,
    high=2**32 - 1,
)


@dataclass(frozen=True, slots=True)
class SFSFEvent(StreamEvent):
    """One SFSF step (``SFSF_*.m``, loop body).

    ``score`` is the feature's dependency alone; ``threshold`` the value it had to pass
    (classical: above half the mean single dependency of S; fuzzy: above the mean;
    k-nearest and radius: at least the mean). ``action``:

    * "irrelevant": the dependency alone did not pass; nothing else computed;
    * "added": S's dependency with the feature (``set_score_with_feature``) rose, so it
      joined;
    * "tied": S's dependency stayed equal: the feature joined and every member of S + f,
      in a random order (``visited``, with ``dependencies_without``: the dependency of
      what was left without each), was removed (``removed``) when removing it did not lower
      the dependency; the new feature itself can be removed;
    * "rejected": S's dependency fell with the feature.

    ``selected_score`` is S's recorded dependency after the step (unchanged by removals, as
    in the code) and ``next_threshold`` the threshold the next feature faces (NaN once S
    is empty after removals: no feature passes again, as in the code).
    """

    threshold: float = math.nan
    set_score_with_feature: float = math.nan
    visited: tuple[str, ...] = ()
    dependencies_without: tuple[float, ...] = ()
    removed: tuple[str, ...] = ()
    next_threshold: float = math.nan


class SFSF(StreamingSelector):
    """SFSF as an online selector: one feature in, one event out.

    Parameters
    ----------
    model : {"k-nearest", "classical", "fuzzy", "radius"}, default "k-nearest"
        The rough-set model of the dependency (``SFSF_NK``, ``SFSF_C``, ``SFSF_F``,
        ``SFSF_NR``).
    k : int, default 7
        k-nearest: the samples each sample is judged by, itself included (paper,
        section 6.3: k = 7).
    radius : float, default 0.3
        radius: the neighbourhood radius R, in units of the standardised distance.
    bins : int, default 5
        classical: equal-width bins per feature (paper, section 6.2: five); 0 uses the
        values as given.
    rand_state : int, default 0
        Seed of Octave's generator for the redundancy check's random order.
    ties : {"index", "average"}, default "index"
        k-nearest: samples at equal distance enter the first K by row index, as in the
        code (on counts the selection can then depend on the order of the samples), or
        each card is its expectation over every order of the tied samples
        (:class:`.roughset.AveragedKNearestModel`: the same selection for any order).

    Notes
    -----
    The published code, reproduced exactly (docs/ALGORITHMS.md lists where it departs
    from the paper's Table 3). When the redundancy check, in its random order, finds every
    member but the last non-significant, the fuzzy, k-nearest and radius codes measure the
    empty set and stop in Octave; here the empty set is measured with every sample
    indiscernible (:meth:`.roughset.DependencyModel.dependency`) and the stream goes on.
    No ``variant="paper"`` is offered: the printed framework leaves the redundancy check's
    order and candidates open.
    """

    kernel_families = (
        ROUGHSET_KERNELS,
        DEPENDENCY_KERNELS,
        TIE_KERNELS,
        SEARCH_KERNELS,
        ORDER_KERNELS,
    )

    spec = MethodSpec(
        name="sfsf",
        label="SFSF",
        kind=ONLINE,
        citation="Zhou, Zhang, Li, Wu. General assembly framework for online streaming "
        "feature selection via Rough Set models. Expert Systems with Applications 204 (2022)",
        score="the feature's rough-set dependency alone (the model's share of samples in the "
        "positive region)",
        set_score="rough-set dependency of the set (fuzzy: rounded to 4 decimals)",
        parameters={
            "model": Choice(
                K_NEAREST,
                "the rough-set model that measures the dependency of a feature set",
                label="Rough-set model",
                source="section 5.4 and Table 3; SFSF_NK.m, SFSF_C.m, SFSF_F.m, SFSF_NR.m",
                choices={
                    K_NEAREST: "k-nearest neighbourhood, NRS-SFSF(k) (SFSF_NK.m)",
                    CLASSICAL: "classical rough set on binned values, CRS-SFSF (SFSF_C.m)",
                    FUZZY: "fuzzy rough set, FRS-SFSF (SFSF_F.m)",
                    RADIUS: "neighbourhood radius, NRS-SFSF(delta) (SFSF_NR.m)",
                },
            ),
            "k": Int(
                7,
                "samples each sample is judged by, itself included (the first K of its "
                "sorted distances)",
                label="K (neighbours)",
                source="section 6.3 (k = 7); SFSF_NK.m, card_K",
                ui_high=15,
                when=("model", (K_NEAREST,)),
            ),
            "radius": Real(
                0.3,
                "neighbourhood radius in standardised distance units (the code's "
                "R * max(d, 1) is R for distances below 1)",
                label="Radius R",
                source="section 6.3 tests 0.1..0.5 and states no default (ours: 0.3); "
                "SFSF_NR.m, card_R",
                low=0.0,
                high=1.0,
                low_open=True,
                high_open=True,
                step=0.05,
                when=("model", (RADIUS,)),
            ),
            "bins": Int(
                5,
                "equal-width bins per feature before the classical rough set (0: the values "
                "as given)",
                label="Bins",
                source="section 6.2 (five equal intervals); 0: the code on raw values",
                low=0,
                high=64,
                ui_high=10,
                when=("model", (CLASSICAL,)),
            ),
            "rand_state": RAND_STATE,
            "ties": dataclasses.replace(TIES_PARAMETER, when=("model", (K_NEAREST,))),
        },
        actions={
            IRRELEVANT: "dependency alone below the threshold from the selected features' mean",
            ADDED: "the set's dependency rose with the feature",
            TIED: "the set's dependency stayed equal: members (the feature included) whose "
            "removal did not lower it were removed",
            REJECTED: "the set's dependency fell with the feature",
        },
        action_codes=ACTION_CODES,
        event=SFSFEvent,
    )

    def _pairwise_matrices(self) -> int:
        """The k-nearest (ties="index") and radius models' N x N matrices
        (:data:`~fsengine.methods.online._roughset.roughset.DISTANCE_MATRICES`); none for the
        others."""
        p = self._params
        if p["model"] == RADIUS or (p["model"] == K_NEAREST and p["ties"] == "index"):
            return DISTANCE_MATRICES
        return 0

    def _start(self) -> None:
        p = self._params
        self.model_name = p["model"]
        label = self.spec.label
        if self.model_name == CLASSICAL:
            if p["bins"] == 1:
                raise FSEngineError(
                    "must be 0 (the values as given) or at least 2: one bin makes every "
                    "feature constant",
                    parameter="bins",
                    method=self.spec.name,
                )
            self._model = ClassicalModel(self.y, label, p["bins"])
        elif self.model_name == FUZZY:
            self._model = FuzzyModel(self.y, label)
        elif self.model_name == K_NEAREST:
            if p["k"] > len(self.y):
                raise FSEngineError(
                    f"must be at most the number of samples ({len(self.y)}), got {p['k']}",
                    parameter="k",
                    method=self.spec.name,
                )
            averaged = p["ties"] == "average"
            model = AveragedKNearestModel if averaged else KNearestModel
            self._model = model(self.y, label, p["k"])
        else:
            self._model = RadiusModel(self.y, label, p["radius"])
        self._rng = OctaveRandom(p["rand_state"])
        self._members: list[Member] = []
        self._early = False
        self.dep_set = 0.0
        self.dep_mean = 0.0

    # -------------------------------------------------------------- rules
    def _threshold(self) -> float:
        return self.dep_mean * 0.5 if self.model_name == CLASSICAL else self.dep_mean

    def _passes(self, dep: float, threshold: float) -> bool:
        if self.model_name in (CLASSICAL, FUZZY):
            return dep > threshold
        return dep >= threshold

    def _set_dependency(self, new: Member, floor: float = -math.inf) -> float:
        """S's dependency with ``new`` (fuzzy: rounded to 4 decimals)."""
        if self.model_name == FUZZY:
            return octave_round(self._model.dependency_with(new), FUZZY_DIGITS)
        return self._model.dependency_with(new, floor)

    def _removable(self, d_b: float, d_f: float) -> bool:
        if self.model_name == RADIUS:
            with np.errstate(divide="ignore", invalid="ignore"):
                return bool(np.float64(d_b - d_f) / np.float64(d_b) == 0)
        return d_b - d_f <= 0

    def tie_rule(self):
        """The k-nearest list under the authors' tie rule (None otherwise)."""
        p = self._params
        if p["model"] != K_NEAREST or p["ties"] != "index":
            return None
        return NeighbourRule.k_nearest(p["k"]), "seuclidean"

    # -------------------------------------------------------------- stream
    def _step_block(self, block, names, columns) -> list[SFSFEvent]:
        return self._run_block(block, names, columns, events=True)

    def _step_block_quiet(self, block, names, columns) -> None:
        self._run_block(block, names, columns, events=False)

    def _run_block(self, block, names, columns, events: bool):
        block = np.ascontiguousarray(block)
        datas = self._model.column_data(block)
        deps = self._model.singles(block, datas)
        self._early = not (events and self.score_rejections)
        out = []
        for j in range(block.shape[1]):
            position = self.n_seen
            self.n_seen += 1
            new = Member(names[j], columns[j], position, float(deps[j]), block[:, j].copy())
            if datas is not None:
                new.data = datas[j]
            info = self._decide(new)
            if events:
                out.append(
                    SFSFEvent(
                        position,
                        names[j],
                        columns[j],
                        float(deps[j]),
                        info.pop("action"),
                        self._selected_names,
                        self._selected_columns,
                        self.dep_set,
                        next_threshold=self._threshold(),
                        **info,
                    )
                )
        return out

    def _set_members(self, members) -> None:
        self._model.select(members)
        self._members = list(members)
        self._set_selected([m.name for m in members], [m.column for m in members])

    def _decide(self, new: Member) -> dict:
        threshold = self._threshold()
        info: dict = {"threshold": threshold}
        if not self._passes(new.dependency, threshold):
            info["action"] = IRRELEVANT
            return info
        together = self._members + [new]
        dep_new = self._set_dependency(new, self.dep_set if self._early else -math.inf)
        info["set_score_with_feature"] = dep_new if dep_new >= 0 else math.nan
        if dep_new > self.dep_set:
            self._set_members(together)
            self.dep_set = dep_new
            self.dep_mean = selected_mean(self._members)
            info["action"] = ADDED
        elif dep_new == self.dep_set:
            kept, visited, without, removed = non_signf(
                self._model, together, together, self._rng, self._removable, self._early
            )
            self._set_members(kept)
            self.dep_mean = selected_mean(self._members)
            info.update(
                action=TIED,
                visited=tuple(m.name for m in visited),
                dependencies_without=tuple(without),
                removed=tuple(m.name for m in together if m in removed),
            )
        else:
            info["action"] = REJECTED
        return info

    def finish(self) -> Selection:
        """S in arrival order (the code returns ``find(mode == 1)``); scores are the
        dependencies alone."""
        return members_selection(self.method, self._members)
