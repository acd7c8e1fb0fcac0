"""SFS-FI: streaming feature selection considering feature interaction.

Zhou, Li, Zhao, Wu, "Feature Interaction for Streaming Feature Selection", IEEE TNNLS
32(10), 2021 (Algorithm 1), as the authors' code runs it (doodzhou/OSFS,
``OFSS_FI_mi.m``, the file's name for the method; reference outputs in
``tests/reference/infotheo_octave``). Information is MIToolbox's on the states
``floor(x)`` (:mod:`.mitoolbox`); "SU" is ``mi/SU.m``, ``2 I(X; Y) / (H(X) + H(Y))``.

For each arriving feature f (the code's Algorithm 1):

* ``dep = SU(f, Y)``; ``dep == 0``: skipped (a constant, say);
* the first feature with ``dep != 0`` is selected;
* otherwise the interaction gain ``IG = (1/``|S|``) sum_{s in S} [I(s; Y | f) - SU(s, Y)]``
  (members in arrival order, the sum run term by term: ``(IG + I) - SU``);
* ``IG >= gamma``: f is selected; ``IG <= 0``: discarded;
* ``0 < IG < gamma``: f is selected, then the redundancy stage: for j = 1 .. ``|S|`` - 1 (S
  with f, in arrival order), with ``m`` the j-th member and ``X_j`` **the j-th feature of
  the stream** (the code's ``X(:, j)``, whatever it is), ``su = SU(f, X_j)``:
  if ``SU(m) > dep`` and ``su > dep``, f is dropped and the stage ends; if ``dep > SU(m)``
  and ``su > SU(m)``, m is dropped.

``variant="paper"`` runs the printed Algorithm 1 instead: the relevance ``dep = I(f; Y)``
(mutual information, bits); ``IG = sum_{s in S} [I(s; Y | f) - I(s; Y)]`` (eq. 3 by
Theorem 4, a sum); no step skips a feature before IG; in the weak branch each member s of S
(before f joins) is compared with f itself: ``I(s; Y) > dep`` and ``I(f; s) >= dep`` drop f,
``dep > I(s; Y)`` and ``I(f; s) >= I(s; Y)`` drop s. The printed IG is not defined for an
empty S; the one rule taken from the code: while S is empty, a feature with ``dep > 0``
starts it (else it is skipped).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from fsengine.methods.online._information import mitoolbox
from fsengine.methods.online._information._features import (
    MITOOLBOX_KERNELS,
    Labels,
    Measured,
    Store,
    conditional_mi,
    pair_mi,
    pair_su,
)
from fsengine.methods.online._stream import Selection, StreamEvent, StreamingSelector
from fsengine.spec import ONLINE, Choice, MethodSpec, Real

IRRELEVANT, FIRST, STRONG, WEAK, REDUNDANT, NEGATIVE = (
    "irrelevant",
    "first",
    "strong",
    "weak",
    "redundant",
    "negative",
)
#: The action codes of the reference trace (3 = the redundancy stage ran, either outcome).
ACTION_CODES = {IRRELEVANT: 0, FIRST: 1, STRONG: 2, WEAK: 3, REDUNDANT: 3, NEGATIVE: 4}


@dataclass(frozen=True, slots=True)
class SFSFIEvent(StreamEvent):
    """One SFS-FI step (``OFSS_FI_mi.m``, loop body).

    ``score`` is SU(f, class) (``variant="paper"``: I(f; class)). ``interaction_gain`` is
    IG (NaN when not computed: a skipped or first feature). ``removed`` are the members the
    redundancy stage dropped; ``dropped_at`` the comparison (1-based j) that dropped the
    feature itself, 0 if none.
    """

    interaction_gain: float = math.nan
    removed: tuple[str, ...] = ()
    dropped_at: int = 0


class _Member:
    __slots__ = ("name", "column", "position", "score")

    def __init__(self, name, column, position, score):
        self.name = name
        self.column = column
        self.position = position
        self.score = score  # SU(f, Y); variant paper: I(f; Y)


class SFSFI(StreamingSelector):
    """SFS-FI as an online selector: one feature in, one event out.

    Parameters
    ----------
    gamma : float, default 0.01
        Threshold of the interaction gain: at or above it a feature is selected at once,
        between 0 and it the redundancy stage decides.
    variant : {"reference", "paper"}, default "reference"
        The authors' code, or the printed Algorithm 1 (with the code's start).

    Notes
    -----
    The published code (``OFSS_FI_mi.m``), reproduced exactly, departs from the printed
    Algorithm 1 (docs/ALGORITHMS.md lists every difference): IG is a mean, not a sum, and
    subtracts SU(s, Y) from a conditional mutual information in bits; a feature with SU 0
    is skipped and the first other feature is selected unconditionally (the printed IG is
    not defined for an empty S); the redundancy stage compares f with the stream's j-th
    feature instead of the j-th member, with SU and a strict ``>`` for the printed ``>=``;
    its test ``Int_Array(ind, j) > 0`` never holds (the entry it reads is never written),
    so no member is skipped. The method keeps the states of every arrived feature (the
    comparisons read the stream's first ``|S|`` - 1 features): n x p integers.
    """

    kernel_families = (MITOOLBOX_KERNELS,)

    spec = MethodSpec(
        name="sfs-fi",
        label="SFS-FI",
        kind=ONLINE,
        citation="Zhou, Li, Zhao, Wu. Feature Interaction for Streaming Feature Selection. "
        "IEEE TNNLS 32(10), 2021 (code: doodzhou/OSFS, OFSS_FI_mi.m)",
        score="symmetric uncertainty SU(f, class) = 2 I / (H(f) + H(class)) (variant paper: "
        "mutual information I(f; class), bits), on MIToolbox's states floor(x)",
        set_score="mean score of the selected set",
        parameters={
            "gamma": Real(
                0.01,
                "interaction-gain threshold: at or above it a feature joins at once; between "
                "0 and it, a redundancy check decides",
                label="Gamma (interaction gain)",
                source="paper section V-B/C: gamma = 0.01 in the experiments (0.01-0.09 studied)",
                low=0.0,
                high=1.0,
            ),
            "variant": Choice(
                "reference",
                "which SFS-FI to run",
                label="Variant",
                source="the authors' code (OFSS_FI_mi.m) / Algorithm 1",
                choices={
                    "reference": "the authors' published code (default)",
                    "paper": "the printed Algorithm 1: IG a sum of I(s; class | f) - "
                    "I(s; class), mutual information throughout, the redundancy test "
                    "against each member with >= (S started as in the code)",
                },
            ),
        },
        actions={
            IRRELEVANT: "SU with the class is 0: skipped",
            FIRST: "the first feature with SU != 0: selected",
            STRONG: "interaction gain >= gamma: selected",
            WEAK: "0 < interaction gain < gamma: selected after the redundancy check, which "
            "may drop members",
            REDUNDANT: "0 < interaction gain < gamma: dropped by the redundancy check",
            NEGATIVE: "interaction gain <= 0: discarded",
        },
        action_codes=ACTION_CODES,
        event=SFSFIEvent,
    )

    def _start(self) -> None:
        self._labels = Labels(self.y)
        self._gamma = self._params["gamma"]
        self._paper = self._params["variant"] == "paper"
        self._members: list[_Member] = []
        self._member_states = Store(len(self.y))
        # every feature by arrival (the code's X(:, j)), with its entropy H(X_j)
        self._arrived = Store(len(self.y))

    # -------------------------------------------------------------- stream
    def _step_block(self, block, names, columns) -> list[SFSFIEvent]:
        return self._run_block(block, names, columns, events=True)

    def _step_block_quiet(self, block, names, columns) -> None:
        self._run_block(block, names, columns, events=False)

    def _run_block(self, block, names, columns, events: bool):
        mitoolbox.check_range(block, names, self.spec.label)
        measured = Measured(block, self._labels)
        out = []
        for j in range(block.shape[1]):
            position = self.n_seen
            self.n_seen += 1
            states = measured.states[:, j]
            score = float(measured.mi[j] if self._paper else measured.su[j])
            member = _Member(names[j], columns[j], position, score)
            if self._paper:
                info = self._decide_paper(member, states, int(measured.n_states[j]))
            else:
                self._arrived.append(states, int(measured.n_states[j]), float(measured.entropy[j]))
                info = self._decide(
                    member, states, int(measured.n_states[j]), float(measured.entropy[j])
                )
            if events:
                self._publish()
                scores = self._member_states.value
                out.append(
                    SFSFIEvent(
                        position,
                        names[j],
                        columns[j],
                        score,
                        info.pop("action"),
                        self._selected_names,
                        self._selected_columns,
                        float(np.mean(scores)) if len(scores) else math.nan,
                        **info,
                    )
                )
        self._publish()  # without events, once a block: S can hold thousands of features
        return out

    def _add(self, member: _Member, states, n_states) -> None:
        self._members.append(member)
        self._member_states.append(states, n_states, member.score)

    def _publish(self) -> None:
        self._set_selected([m.name for m in self._members], [m.column for m in self._members])

    def _gain_sum(self, states) -> float:
        """``sum_{s in S} (I(s; Y | f) - score(s))``, members in arrival order, one term after
        another as the code's loop (``val = val + cmi - mi``; ``cumsum`` adds in order)."""
        cmi = conditional_mi(self._member_states, states, self._labels)
        terms = np.empty(2 * len(cmi))
        terms[0::2] = cmi
        terms[1::2] = -self._member_states.value
        return float(np.cumsum(terms)[-1])

    def _decide(self, new: _Member, states, n_states: int, entropy: float) -> dict:
        dep = new.score
        if dep == 0:
            return {"action": IRRELEVANT}
        if not self._members:
            self._add(new, states, n_states)
            return {"action": FIRST}
        gain = self._gain_sum(states) / len(self._members)  # the code's mean
        info: dict = {"interaction_gain": gain}
        if gain >= self._gamma:
            self._add(new, states, n_states)
            info["action"] = STRONG
        elif gain > 0:
            self._add(new, states, n_states)
            info.update(self._redundancy(new, states, n_states, entropy))
        else:
            info["action"] = NEGATIVE
        return info

    def _decide_paper(self, new: _Member, states, n_states: int) -> dict:
        """Algorithm 1 as printed (``dep`` = I(f; Y)), S started by the code's rule."""
        dep = new.score
        if not self._members:
            if dep > 0:
                self._add(new, states, n_states)
                return {"action": FIRST}
            return {"action": IRRELEVANT}
        gain = self._gain_sum(states)  # eq. 3: a sum
        info: dict = {"interaction_gain": gain}
        if gain >= self._gamma:
            self._add(new, states, n_states)
            info["action"] = STRONG
        elif gain <= 0:
            info["action"] = NEGATIVE
        else:
            keep = [True] * len(self._members)
            removed: list[str] = []
            info["action"] = WEAK
            for j, m in enumerate(self._members):
                both = pair_mi(states, n_states, self._member_states.column(j),
                               int(self._member_states.n_states[j]))  # fmt: skip
                if m.score > dep and both >= dep:
                    info.update(action=REDUNDANT, dropped_at=j + 1)
                    break
                if dep > m.score and both >= m.score:
                    keep[j] = False
                    removed.append(m.name)
            if not all(keep):
                self._members = [m for m, k in zip(self._members, keep) if k]
                self._member_states.keep(keep)
            if info["action"] == WEAK:
                self._add(new, states, n_states)
            info["removed"] = tuple(removed)
        return info

    def _redundancy(self, new: _Member, states, n_states: int, entropy: float) -> dict:
        """The weak branch's loop over j = 1 .. ``|S|`` - 1 (S with the new feature last, as it
        was before the loop: a member dropped on the way keeps its place)."""
        dep = new.score
        members = self._members
        keep = [True] * len(members)
        removed: list[str] = []
        info: dict = {"action": WEAK}
        for j in range(len(members) - 1):
            m = members[j]
            # the code's SU(X(:, i), X(:, j)): the stream's j-th feature, not the member
            su = pair_su(
                states,
                n_states,
                entropy,
                self._arrived.column(j),
                int(self._arrived.n_states[j]),
                float(self._arrived.value[j]),
            )
            if m.score > dep and su > dep:
                keep[-1] = False
                info = {"action": REDUNDANT, "dropped_at": j + 1}
                break
            if dep > m.score and su > m.score:
                keep[j] = False
                removed.append(m.name)
        if not all(keep):
            self._members = [m for m, k in zip(members, keep) if k]
            self._member_states.keep(keep)
        info["removed"] = tuple(removed)
        return info

    def finish(self) -> Selection:
        """S in arrival order (the code returns ``find(Mode == 1)``); scores are SU(f,
        class) (``variant="paper"``: I(f; class))."""
        return Selection(
            self.method,
            tuple(m.name for m in self._members),
            tuple(m.column for m in self._members),
            tuple(m.score for m in self._members),
            "stream order",
        )
