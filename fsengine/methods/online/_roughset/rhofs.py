"""RHOFS: online streaming feature selection with a rough hypercuboid measure.

The sequential version of RHDOFS (SCU-Cloud/RHDOFS, ``RHOFS/RHOFS.m``), reproduced exactly
as it runs in GNU Octave (reference outputs in ../shared/reference/rhofs_octave).

For one feature, each class has the interval [min, max] of the feature over its samples; a
sample lies in a class's hypercuboid on a feature set when it lies in that class's interval
on every feature of the set. With two classes a sample is always in its own class's box, so
the dependency of a set is the share of samples outside the other class's box (``dep``: a
sample counts when exactly one class's box holds it). Features arrive in order:

* relevance: a feature is considered when its dependency alone is ``> dep_set / |S|``;
* significance: it joins when S's dependency rises with it (it can never fall: adding a
  feature only shrinks the boxes);
* redundancy: when S's dependency stays equal, three random greedy passes look for members
  whose removal leaves the dependency unchanged (``non_signf``); the largest such set B is
  kept (ties: the earliest pass). |B| = 0: the feature is dropped; |B| > 1: B is dropped;
  |B| = 1: the feature and the member of B are compared by the boundary-region separability
  ``info_BN`` (at dependency 1: single dependency + separability of each alone), the lower
  one is dropped, an exact tie (or NaN) is decided by a coin ``rand > 0.5``.

The random picks are Octave's (``A = randperm(Num)``, pick ``A(1)``: Num numbers drawn per
pick; ``rand`` for the coin) after ``rand('state', rand_state)``: the selection depends on
the seed in principle (it did not on the reference data sets with seeds 0, 1, 2).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from fsengine.methods.online._columns import sequential_sum
from fsengine.methods.online._roughset.a3m_density import members_selection
from fsengine.methods.online._roughset.octave_rng import OctaveRandom
from fsengine.methods.online._stream import Selection, StreamEvent, StreamingSelector
from fsengine.spec import ONLINE, Int, MethodSpec

#: Greedy passes of ``non_signf`` and the coin's threshold (constants of the code).
GREEDY_PASSES, COIN = 3, 0.5

IRRELEVANT, ADDED, REPLACED, REJECTED = "irrelevant", "added", "replaced", "rejected"
#: The action codes of the reference trace (2 = the redundancy stage ran, either outcome).
ACTION_CODES = {IRRELEVANT: 0, ADDED: 1, REPLACED: 2, REJECTED: 2}


@dataclass(frozen=True, slots=True)
class RHOFSEvent(StreamEvent):
    """One RHOFS step (``RHOFS.m``, loop body).

    ``score`` is the feature's dependency alone; ``threshold`` the value it had to exceed
    (``dep_set / |S|`` before the step); ``set_score_with_feature`` S's dependency with it
    (NaN if not computed). ``action``:

    * "irrelevant": dependency alone not above the threshold;
    * "added": S's dependency rose with the feature;
    * "replaced": S's dependency stayed equal and the feature stayed: the members in
      ``removed`` were dropped (``redundant``: the members whose removal changed nothing,
      found by three random greedy passes);
    * "rejected": S's dependency stayed equal and the feature was dropped (no redundant
      member, or it lost the comparison with the single redundant member).

    With one redundant member, ``value_other`` and ``value_new`` are the two numbers
    compared (for keeping that member / for keeping the new feature: ``info_BN`` of S
    without the other one, or at dependency 1 single dependency + ``info_BN`` alone);
    ``coin`` tells whether an exact tie was decided by a coin.
    """

    threshold: float = math.nan
    set_score_with_feature: float = math.nan
    redundant: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    value_other: float = math.nan
    value_new: float = math.nan
    coin: bool = False


class _Member:
    __slots__ = ("name", "column", "position", "values", "in_other", "centres", "dependency")

    def __init__(self, name, column, position, values, in_other, centres, dependency):
        self.name = name
        self.column = column
        self.position = position
        self.values = values
        self.in_other = in_other  # sample inside the other class's interval
        self.centres = centres  # (mean of class 0, mean of class 1)
        self.dependency = dependency


class RHOFS(StreamingSelector):
    """RHOFS as an online selector: one feature in, one event out.

    Parameters
    ----------
    rand_state : int, default 0
        Seed of Octave's generator (``rand('state', rand_state)``) for the greedy passes'
        random picks and the tie coin. The selection can depend on it (only when a member's
        removability depends on earlier removals, or on an exact tie).

    Notes
    -----
    The published code (``RHOFS.m``), reproduced exactly, with two details the repository's
    description does not state: the relevance threshold is ``dep_set / |S|`` with a strict
    ``>`` (an exact copy of a selected feature is dropped there), and at dependency 1 the
    single-member comparison uses single dependency + ``info_BN`` of each feature alone. No
    printed algorithm is public (the RHDOFS paper, IEEE TPDS, is known only by its abstract;
    SCU-Cloud/RHDOFS holds code and a README), so the code's behaviour is its only variant.
    """

    spec = MethodSpec(
        name="rhofs",
        label="RHOFS",
        kind=ONLINE,
        citation="Sequential version of RHDOFS (rough hypercuboid online streaming feature "
        "selection), SCU-Cloud/RHDOFS, RHOFS.m",
        score="the feature's rough-hypercuboid dependency alone (share of samples outside "
        "the other class's value range)",
        set_score="rough-hypercuboid dependency of the set",
        parameters={
            "rand_state": Int(
                0,
                "seed of the random order of the redundancy passes and of the tie coin "
                "(Octave's rand('state', seed)); the selection can depend on it",
                label="Random seed",
                source="the authors' code: randperm and rand, after rand('state', seed)",
                low=0,
                high=2**32 - 1,
            )
        },
        actions={
            IRRELEVANT: "dependency alone not above the set's dependency / |S|",
            ADDED: "the set's dependency rose with the feature",
            REPLACED: "the set's dependency stayed equal: redundant members were dropped, "
            "the feature stayed",
            REJECTED: "the set's dependency stayed equal and the feature was dropped",
        },
        action_codes=ACTION_CODES,
        event=RHOFSEvent,
    )

    def _start(self) -> None:
        self._rng = OctaveRandom(self._params["rand_state"])
        self._members: list[_Member] = []
        self._minority = self.y == 1
        self._counts = (int(np.sum(~self._minority)), int(np.sum(self._minority)))
        self._joint = np.ones(len(self.y), dtype=bool)  # in the other class's box on all of S
        self.dep_set = 0.0
        self.dep_mean = 0.0

    # -------------------------------------------------------------- measures
    def _block_measures(self, block: np.ndarray):
        """Per column: in-other-class-interval flags (n, b), dependency alone, class means."""
        y1 = self._minority
        x0, x1 = block[~y1], block[y1]
        lo0, hi0 = x0.min(axis=0), x0.max(axis=0)
        lo1, hi1 = x1.min(axis=0), x1.max(axis=0)
        in_other = np.where(
            y1[:, None], (lo0 <= block) & (block <= hi0), (lo1 <= block) & (block <= hi1)
        )
        n = len(self.y)
        deps = (n - in_other.sum(axis=0)) / n  # card_Pos / card_U (exact integers)
        centres = (sequential_sum(x0) / self._counts[0], sequential_sum(x1) / self._counts[1])
        return in_other, deps, centres

    def _dependency(self, joint: np.ndarray) -> float:
        """``dep``: share of samples in exactly one class's box (own class always)."""
        n = len(self.y)
        return (n - int(np.count_nonzero(joint))) / n

    def _joint_of(self, members) -> np.ndarray:
        joint = np.ones(len(self.y), dtype=bool)
        for m in members:
            joint &= m.in_other
        return joint

    def _info_bn(self, members) -> float:
        """``info_BN``: over the boundary samples (in both boxes on ``members``), in sample
        order, the fuzzy membership to the own class ``1 / (sum_c 1/d_c * d_own)``, d_c =
        squared distance to class c's mean vector (summed over ``members`` in order);
        divided by n."""
        boundary = np.flatnonzero(self._joint_of(members))
        info = 0.0
        with np.errstate(divide="ignore", invalid="ignore"):
            for u in boundary.tolist():
                dists = []
                for c in (0, 1):
                    total = 0.0
                    for m in members:
                        g = m.values[u] - m.centres[c]
                        total += g * g
                    dists.append(total)
                inv = np.float64(0.0)
                for d in dists:
                    inv = inv + np.float64(1.0) / np.float64(d)
                own = dists[int(self.y[u])]
                info += float(np.float64(1.0) / (inv * np.float64(own)))
        return info / len(self.y)

    # -------------------------------------------------------------- stream
    def _step_block(self, block, names, columns) -> list[RHOFSEvent]:
        return self._run_block(block, names, columns, events=True)

    def _step_block_quiet(self, block, names, columns) -> None:
        self._run_block(block, names, columns, events=False)

    def _run_block(self, block, names, columns, events: bool):
        in_other, deps, centres = self._block_measures(block)
        out = []
        for j in range(block.shape[1]):
            position = self.n_seen
            self.n_seen += 1
            info = {"threshold": self.dep_mean}
            if deps[j] > self.dep_mean:
                new = _Member(
                    names[j],
                    columns[j],
                    position,
                    block[:, j].copy(),
                    in_other[:, j].copy(),
                    (float(centres[0][j]), float(centres[1][j])),
                    float(deps[j]),
                )
                info.update(self._decide(new))
            else:
                info["action"] = IRRELEVANT
            if events:
                out.append(
                    RHOFSEvent(
                        position,
                        names[j],
                        columns[j],
                        float(deps[j]),
                        info.pop("action"),
                        self._selected_names,
                        self._selected_columns,
                        self.dep_set,
                        **info,
                    )
                )
        return out

    def _set_members(self, members: list[_Member]) -> None:
        self._members = members
        self._joint = self._joint_of(members)
        self._set_selected([m.name for m in members], [m.column for m in members])

    def _decide(self, new: _Member) -> dict:
        together = self._members + [new]
        joint = self._joint & new.in_other
        dep_new = self._dependency(joint)
        info: dict = {"set_score_with_feature": dep_new}
        if dep_new > self.dep_set:
            self._set_members(together)
            self.dep_set = dep_new
            self.dep_mean = self.dep_set / len(together)
            info["action"] = ADDED
            return info
        # dep_new == dep_set: the dependency never falls (a smaller box holds fewer samples)
        redundant = self._non_signf(together, new)
        redundant.sort(key=lambda m: m.position)
        info["redundant"] = tuple(m.name for m in redundant)
        drop_new = False
        dropped: list[_Member] = []
        if not redundant:
            drop_new = True
        elif len(redundant) > 1:
            dropped = redundant
        else:
            other = redundant[0]
            if dep_new < 1:
                keep_other = self._info_bn([m for m in together if m is not new])
                keep_new = self._info_bn([m for m in together if m is not other])
            else:
                keep_other = other.dependency + self._info_bn([other])
                keep_new = new.dependency + self._info_bn([new])
            info.update(value_other=keep_other, value_new=keep_new)
            if keep_other > keep_new:
                drop_new = True
            elif keep_other < keep_new:
                dropped = [other]
            else:  # an exact tie, or NaN on either side
                info["coin"] = True
                if self._rng.rand(1)[0] > COIN:
                    drop_new = True
                else:
                    dropped = [other]
        if drop_new:
            info["action"] = REJECTED
        else:
            self._set_members([m for m in together if not any(m is d for d in dropped)])
            info.update(action=REPLACED, removed=tuple(m.name for m in dropped))
        self.dep_mean = self.dep_set / len(self._members)
        return info

    def _non_signf(self, together: list[_Member], new: _Member) -> list[_Member]:
        """The largest set of members whose removal, one after another in a random order,
        leaves the dependency unchanged; the best of three passes (ties: the earliest)."""
        best: list[_Member] = []
        for _ in range(GREEDY_PASSES):
            removable: list[_Member] = []
            rest = list(together)
            left = [m for m in together if m is not new]  # ascending arrival
            while left:
                # A = randperm(Num) draws Num numbers; A(1) = 1 + floor(u_1 * Num)
                u = self._rng.rand(len(left))[0]
                f = left.pop(int(u * len(left)))
                without = [m for m in rest if m is not f]
                joint_without = self._joint_of(without)
                d_without = self._dependency(joint_without)
                d_with = self._dependency(joint_without & f.in_other)
                if d_with - d_without == 0:
                    removable.append(f)
                    rest = without
            if len(removable) > len(best):
                best = removable
        return best

    def finish(self) -> Selection:
        """S in arrival order (the code returns ``find(mode == 1)``); scores are the
        dependencies alone."""
        return members_selection(self.method, self._members)
