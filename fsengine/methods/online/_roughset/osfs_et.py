"""OSFS-ET: online early terminated streaming feature selection on a k-nearest rough set.

Zhou, Li, Zhao, Zhang, "Online early terminated streaming feature selection based on Rough
Set theory", Applied Soft Computing 113 (2021) 107993 (Algorithm 2), reproduced from the
authors' code (doodzhou/OSFS: ``OSFS_ET_c.m``) as it runs in GNU Octave; the reference
outputs are in tests/reference/roughset_octave. Every arriving feature f is measured with
S, by the k-nearest neighbourhood dependency of :mod:`.roughset`:

* f joins when ``dep(S + f)`` is above S's recorded dependency; otherwise it is dropped,
  and every 100th consecutive drop runs the redundancy check (``non_signf``: the members of
  S in Octave's random order, each removed when removing it does not lower the dependency
  of what is left);
* once more than ``width`` features have arrived, the stream stops at the first feature
  whose ``dep(S + f)`` exceeds the one measured ``width`` features earlier by less than
  ``increase``: the redundancy check runs (the new feature, if it joined, is not a
  candidate) and later features are ignored;
* a stream that ends without stopping runs the check once more (:meth:`OSFSET.finish`; the
  last feature, if selected, is not a candidate).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from fsengine._compute.sparse import ORDER_KERNELS
from fsengine.methods.online._point_search import SEARCH_KERNELS
from fsengine.methods.online._roughset.a3m_density import DEPENDENCY_KERNELS
from fsengine.methods.online._roughset.octave_rng import OctaveRandom
from fsengine.methods.online._roughset.roughset import (
    DISTANCE_MATRICES,
    ROUGHSET_KERNELS,
    AveragedKNearestModel,
    KNearestModel,
    Member,
    non_signf,
)
from fsengine.methods.online._roughset.sfsf import RAND_STATE
from fsengine.methods.online._stream import Selection, StreamEvent, StreamingSelector
from fsengine.methods.online._tie_average import TIE_KERNELS, TIES_PARAMETER, NeighbourRule
from fsengine.spec import ONLINE, Int, MethodSpec, Real

ADDED, REJECTED, PRUNED, IGNORED = "added", "rejected", "pruned", "ignored"
#: The action codes of the reference trace (its ``action`` column; -1: not examined).
ACTION_CODES = {ADDED: 1, REJECTED: 0, PRUNED: 0, IGNORED: -1}
#: The redundancy check runs at every this many consecutive rejections (a constant of the code).
PRUNE_EVERY = 100


@dataclass(frozen=True, slots=True)
class OSFSETEvent(StreamEvent):
    """One OSFS-ET step (``OSFS_ET_c.m``, loop body).

    ``score`` is ``dep(S + f)``, the dependency of the selected set with the feature
    (``depNew``; NaN once the stream has stopped). ``action``:

    * "added": it rose above S's recorded dependency (``selected_score``), so f joined;
    * "rejected": it did not, f was dropped;
    * "pruned": dropped, and it was the 100th consecutive drop, so the redundancy check ran
      (``visited``, ``dependencies_without``, ``removed``);
    * "ignored": the stream had stopped before f arrived.

    ``compared_with`` is ``dep(S + f)`` of the feature ``width`` places earlier (NaN before
    ``width`` features); ``stopped`` marks the step that stopped the stream (its redundancy
    check in ``visited``/``removed``); ``rejections`` counts the consecutive drops.
    """

    compared_with: float = math.nan
    stopped: bool = False
    rejections: int = 0
    visited: tuple[str, ...] = ()
    dependencies_without: tuple[float, ...] = ()
    removed: tuple[str, ...] = ()


class OSFSET(StreamingSelector):
    """OSFS-ET as an online selector: one feature in, one event out.

    Parameters
    ----------
    k : int, default 9
        Samples each sample is judged by, itself included (paper, section 4.1.3: k = 9).
    width : int, default 800
        w, the features the stream is looked back over (paper, section 4.2: w = 800).
    increase : float, default 0.01
        beta, the least rise of the dependency over ``width`` features that keeps the
        stream going (paper, section 4.2).
    rand_state : int, default 0
        Seed of Octave's generator for the redundancy check's random order.
    ties : {"index", "average"}, default "index"
        Samples at equal distance enter the first K by row index, as in the code (on
        counts the selection can then depend on the order of the samples), or each card
        is its expectation over every order of the tied samples
        (:class:`.roughset.AveragedKNearestModel`: the same selection for any order).

    Notes
    -----
    The published code, reproduced exactly; beyond the paper's Algorithm 2 it runs the
    redundancy check at every 100th consecutive rejection, and measures ``dep(S + f)`` for
    every feature (the window compares those values, whether f joined or not). A check
    that finds every member but the last non-significant measures the empty set, where the
    code stops in Octave; here every sample is then indiscernible (all distances 0: each
    sample's K nearest are the K samples of lowest index) and the stream goes on.
    """

    kernel_families = (
        ROUGHSET_KERNELS,
        DEPENDENCY_KERNELS,
        TIE_KERNELS,
        SEARCH_KERNELS,
        ORDER_KERNELS,
    )

    spec = MethodSpec(
        name="osfs-et",
        label="OSFS-ET",
        kind=ONLINE,
        citation="Zhou, Li, Zhao, Zhang. Online early terminated streaming feature selection "
        "based on Rough Set theory. Applied Soft Computing 113 (2021)",
        score="dependency of the selected set with the feature (k-nearest rough set)",
        set_score="k-nearest rough-set dependency of the set (as recorded by the method)",
        parameters={
            "k": Int(
                9,
                "samples each sample is judged by, itself included (the first K of its "
                "sorted distances)",
                label="K (neighbours)",
                source="section 4.1.3 (k = 9); OSFS_ET_c.m, card_K",
                high=lambda n: n,
                high_text="the number of samples",
                ui_high=15,
            ),
            "width": Int(
                800,
                "w: the stream stops when the dependency rose by less than 'increase' over "
                "the last w features",
                label="Window w",
                source="Algorithm 2; section 4.2 (w = 800)",
                low=1,
                ui_high=2000,
            ),
            "increase": Real(
                0.01,
                "beta: the least rise of the dependency over the window that keeps the "
                "stream going",
                label="Increase beta",
                source="Algorithm 2; section 4.2 (beta = 0.01)",
                low=0.0,
                high=1.0,
                step=0.005,
            ),
            "rand_state": RAND_STATE,
            "ties": TIES_PARAMETER,
        },
        actions={
            ADDED: "the set's dependency rose with the feature",
            REJECTED: "the set's dependency did not rise; the feature was dropped",
            PRUNED: "dropped, the 100th drop in a row: redundant members were removed",
            IGNORED: "the stream had stopped early before the feature arrived",
        },
        action_codes=ACTION_CODES,
        event=OSFSETEvent,
    )

    def _pairwise_matrices(self) -> int:
        """The k-nearest model's N x N matrices under ties="index"
        (:data:`~fsengine.methods.online._roughset.roughset.DISTANCE_MATRICES`)."""
        return DISTANCE_MATRICES if self._params["ties"] == "index" else 0

    def _start(self) -> None:
        p = self._params
        model = AveragedKNearestModel if p["ties"] == "average" else KNearestModel
        self._model = model(self.y, self.spec.label, p["k"])
        self.width = p["width"]
        self.increase = p["increase"]
        self._rng = OctaveRandom(p["rand_state"])
        self._members: list[Member] = []
        self._history: list[float] = []  # depSArray
        self._count = 0
        self._last: Member | None = None
        self.stopped_at: int | None = None  # position of the feature that stopped the stream
        self._closed = False
        self.final_check: dict | None = None
        self.dep_set = 0.0

    def tie_rule(self):
        """The k-nearest list under the authors' tie rule (None otherwise)."""
        p = self._params
        if p["ties"] != "index":
            return None
        return NeighbourRule.k_nearest(p["k"]), "seuclidean"

    # -------------------------------------------------------------- stream
    def _step_block(self, block, names, columns) -> list[OSFSETEvent]:
        return self._run_block(block, names, columns, events=True)

    def _step_block_quiet(self, block, names, columns) -> None:
        self._run_block(block, names, columns, events=False)

    def _run_block(self, block, names, columns, events: bool):
        out = []
        datas = None
        for j in range(block.shape[1]):
            position = self.n_seen
            self.n_seen += 1
            if self.stopped_at is not None:
                info = {"action": IGNORED, "score": math.nan}
            else:
                if datas is None:
                    datas = self._model.column_data(block)
                new = Member(names[j], columns[j], position, math.nan, block[:, j].copy())
                new.data = datas[j]
                info = self._decide(new)
            if events:
                out.append(
                    OSFSETEvent(
                        position,
                        names[j],
                        columns[j],
                        info.pop("score"),
                        info.pop("action"),
                        self._selected_names,
                        self._selected_columns,
                        self.dep_set,
                        **info,
                    )
                )
        return out

    def _set_members(self, members) -> None:
        self._model.select(members)
        self._members = list(members)
        self._set_selected([m.name for m in members], [m.column for m in members])

    def _prune(self, candidates) -> dict:
        kept, visited, without, removed = non_signf(
            self._model, self._members, candidates, self._rng, lambda d_b, d_f: d_b - d_f <= 0
        )
        self._set_members(kept)
        return {
            "visited": tuple(m.name for m in visited),
            "dependencies_without": tuple(without),
            "removed": tuple(m.name for m in removed),
        }

    def _decide(self, new: Member) -> dict:
        together = self._members + [new]
        dep_new = self._model.dependency_with(new)
        new.dependency = dep_new
        self._history.append(dep_new)
        self._last = new
        info: dict = {"score": dep_new}
        if dep_new > self.dep_set:
            self._set_members(together)
            self.dep_set = dep_new
            self._count = 0
            info["action"] = ADDED
        else:
            self._count += 1
            info["action"] = REJECTED
            if self._count % PRUNE_EVERY == 0:
                info["action"] = PRUNED
                info.update(self._prune(list(self._members)))
        info["rejections"] = self._count
        t = len(self._history) - 1
        if t >= self.width:
            info["compared_with"] = self._history[t - self.width]
            if dep_new - self._history[t - self.width] < self.increase:
                self.stopped_at = new.position
                info["stopped"] = True
                info.update(self._prune([m for m in self._members if m is not new]))
        return info

    def finish(self) -> Selection:
        """S in arrival order (the code returns ``find(mode == 1)``), after the final
        redundancy check when the stream ended without stopping (run once; the last
        feature, if selected, is not a candidate; what it visited, measured and removed is
        kept in ``final_check``). Scores: ``dep(S + f)`` when each feature joined."""
        if self.stopped_at is None and not self._closed and self._last is not None:
            self._closed = True
            self.final_check = self._prune([m for m in self._members if m is not self._last])
        return Selection(
            self.method,
            tuple(m.name for m in self._members),
            tuple(m.column for m in self._members),
            tuple(m.dependency for m in self._members),
            "stream order",
        )
