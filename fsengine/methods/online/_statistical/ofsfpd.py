"""OFS-FPD: online streaming feature selection by fuzzy Pareto dominance.

Hashemi, Pajoohan, Dowlatshahi, "Online streaming feature selection using fuzzy
Pareto dominance" (Algorithm 1). A feature that arrives joins the candidate set S
if its Pearson correlation with the class is positive; whenever S holds more than
the capacity i_t (t = features arrived so far), every feature of S is scored by
fuzzy Pareto dominance (Koeppen et al. 2005) over three minimisation objectives and
only the i_t best are kept.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from fsengine._compute import kernels
from fsengine.errors import FSEngineError
from fsengine.methods.online._columns import TIE_TOLERANCE, pearson_with, sequential_sum, tie_key
from fsengine.methods.online._stream import Selection, StreamEvent, StreamingSelector
from fsengine.spec import ONLINE, Choice, MethodSpec

RELEVANCE = ("positive", "absolute")
IRRELEVANT, ADDED, REJECTED = "irrelevant", "added", "rejected"

#: The compiled kernels of the ranking step.
FPD_KERNELS = "methods.online._statistical._fpd_kernels"


class FPDBlock(NamedTuple):
    """One call of OFS-FPD's kernel (:func:`_fpd_kernels.stream_block`: Algorithm 1 for a
    block of arriving features), its 17 arguments by name and in groups;
    :func:`run_fpd_block` flattens them, the kernel's one caller.

    Attributes
    ----------
    arriving : tuple
        (units, e2_new, e3_new): the block's unit centred columns (b, n) and their
        objectives E2 and E3.
    relevant : ndarray of bool
        Whether each enters S.
    first_position : int
        The arrival position of the block's first feature.
    tolerance : float
        Objectives and scores within this are equal.
    selected : tuple
        S, updated in place: (mem_units, mem_abs, mem_e2, mem_e3, mem_pos, state).
    outputs : tuple
        (out_dropped, out_n_dropped, out_dominance, out_members, out_n_members), written
        per feature.
    """

    arriving: tuple
    relevant: np.ndarray
    first_position: int
    tolerance: float
    selected: tuple
    outputs: tuple


def run_fpd_block(family, call: FPDBlock) -> None:
    """Call ``family``'s :func:`_fpd_kernels.stream_block` on ``call``: the one place its
    arguments are flattened."""
    family.stream_block(
        *call.arriving,
        call.relevant,
        call.first_position,
        call.tolerance,
        *call.selected,
        *call.outputs,
    )


@dataclass(frozen=True, slots=True)
class OFSFPDEvent(StreamEvent):
    """One OFS-FPD step.

    ``score`` is the feature's Pearson correlation with the class (its relevance);
    ``action`` is "irrelevant" (did not enter S), "added" (entered S and was kept)
    or "rejected" (entered S and was dropped by the ranking at the same step);
    ``selected_score`` is the mean relevance of S.
    """

    entered: bool = False
    dropped: tuple[str, ...] = ()
    dominance: tuple[float, ...] = ()
    capacity: int = 1


def capacity(t: int) -> int:
    """Capacity of S after t features have arrived: ``i_t = max(1, ceil(log2 t))``.

    The paper writes ``i = log2 t`` and, in its complexity section, log(1000) = 10,
    which is the ceiling (log2 1000 = 9.97). The ceiling never drops below 1 for
    t >= 2, and t = 1 is raised to 1 so that S can always hold a feature.
    """
    if t < 1:
        raise FSEngineError(f"the number of arrived features must be >= 1, got {t}")
    return max(1, (t - 1).bit_length())  # == ceil(log2 t), exact for integers


def dominance_degree(u, v) -> float:
    """Degree to which objective vector u dominates v (minimisation; Koeppen et al. 2005).

    ``prod_i min(u_i, v_i) / prod_i u_i``, computed factor by factor as
    ``min(1, v_i / u_i)`` with a factor of 1 wherever ``u_i <= v_i`` (within 1e-12,
    :data:`TIE_TOLERANCE`, so that equal objectives are equal whatever the rounding). For positive
    objectives this is the printed formula; it also covers zeros without dividing by
    zero (u_i = 0 is never worse than v_i, so its factor is 1). Negative inputs are
    clipped to 0: every objective here is a distance, >= 0 up to rounding.
    """
    return float(dominance_matrix(np.vstack([u, v]))[0, 1])


def dominance_matrix(objectives: np.ndarray) -> np.ndarray:
    """All pairwise dominance degrees: ``D[a, b]`` = degree to which row a dominates row b.

    Parameters
    ----------
    objectives : ndarray, shape (m, n_objectives)

    Returns
    -------
    ndarray, shape (m, m)
    """
    m = np.clip(np.asarray(objectives, dtype=float), 0.0, None)
    u = m[:, None, :]
    v = m[None, :, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        factors = np.where(u <= v + TIE_TOLERANCE, 1.0, v / u)
    return factors.prod(axis=2)


def dominance_scores(objectives: np.ndarray) -> np.ndarray:
    """Each row's largest degree of being dominated by any other row (lower is better).

    A single row scores 0 (nothing dominates it).
    """
    degrees = dominance_matrix(objectives)
    np.fill_diagonal(degrees, 0.0)
    return degrees.max(axis=0) if len(degrees) else degrees.sum(axis=0)


class OFSFPD(StreamingSelector):
    """OFS-FPD as an online selector: one feature in, one event out.

    Parameters
    ----------
    relevance : {"positive", "absolute"}, default "positive"
        "positive" admits a feature to S when corr(f, class) > 0, as printed.
        "absolute" admits it when ``|corr|`` > 0: a gene under-expressed in the
        minority class is as informative as an over-expressed one; the relevance
        objectives then use ``|corr|`` and ``|cos|`` as well.

    Notes
    -----
    Objectives, all minimised, for each feature f of S:

    * E1 = min over the other features g of S of ``|corr(f, g)|`` (the redundancy
      objective as printed: the minimum of the row of the correlation matrix,
      diagonal excluded);
    * E2 = 1 - corr(f, class);
    * E3 = 1 - cos(f, class), the cosine distance of the raw feature vector to the
      0/1 class vector (an all-zero feature has cosine 0).

    Each feature's score is the largest degree to which another feature of S
    dominates it (:func:`dominance_scores`); the ``capacity(t)`` features with the
    lowest scores are kept, ties going to the feature that arrived first.
    """

    kernel_families = (FPD_KERNELS,)

    spec = MethodSpec(
        name="ofs-fpd",
        label="OFS-FPD",
        kind=ONLINE,
        citation="Hashemi, Pajoohan, Dowlatshahi. Online streaming feature selection using "
        "fuzzy Pareto dominance",
        score="Pearson correlation of the feature with the class (its relevance)",
        set_score="mean correlation of S",
        parameters={
            "relevance": Choice(
                "positive",
                "which features enter the candidate set",
                label="Relevance",
                source="Algorithm 1, line 3",
                choices={
                    "positive": "corr(f, class) > 0, as printed",
                    "absolute": "|corr(f, class)| > 0 (under-expressed genes count too)",
                },
            ),
        },
        actions={
            IRRELEVANT: "did not enter S (not relevant)",
            ADDED: "entered S and was kept",
            REJECTED: "entered S and was dropped by the ranking at the same step",
        },
        event=OFSFPDEvent,
    )

    def _start(self) -> None:
        self.relevance = self._params["relevance"]
        self._y_norm = float(np.sqrt(self.y.sum()))
        # The members of S, in their current order, in arrays the compiled step updates:
        # unit columns, |corr| between them (diagonal inf; one product per pair, so exactly
        # symmetric), objectives E2 and E3, arrival positions; ``_state[0]`` = |S|.
        rows = 32
        self._mem_units = np.empty((rows, len(self.y)))
        self._mem_abs = np.empty((rows, rows))
        self._mem_e2, self._mem_e3 = np.empty(rows), np.empty(rows)
        self._mem_pos = np.empty(rows, dtype=np.int64)
        self._state = np.zeros(1, dtype=np.int64)
        self._info: dict[int, tuple[str, int, float]] = {}  # position -> name, column, corr
        self._mean_relevance = 0.0  # of S, recomputed when S changes

    def relevances(self, block: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Correlation with the class, cosine with the class, unit centred columns of a block."""
        corr, units = pearson_with(block, self.y)
        norms = np.sqrt(sequential_sum(block**2))
        dots = sequential_sum(block * self.y[:, None])
        with np.errstate(invalid="ignore", divide="ignore"):
            cos = np.where(norms > 0, dots / (norms * self._y_norm), 0.0)
        return corr, cos, units

    def _step_block(self, block, names, columns) -> list[OFSFPDEvent]:
        corr, relevant, first, lost_of, dominance, members, n_members = self._run_block(block)
        b = block.shape[1]
        events = []
        for j in range(b):
            position = first + j
            entered = bool(relevant[j])
            if entered:
                self._info[position] = (names[j], columns[j], float(corr[j]))
            lost = lost_of[j]
            kept_scores = () if lost is None else tuple(dominance[j, : n_members[j]].tolist())
            lost = lost or ()
            dropped = tuple(self._info[q][0] for q in lost)
            if entered or dropped:
                current = [self._info[q] for q in members[j, : n_members[j]].tolist()]
                self._set_selected([c[0] for c in current], [c[1] for c in current])
                self._mean_relevance = float(np.mean([c[2] for c in current])) if current else 0.0
            for q in lost:
                del self._info[q]
            action = IRRELEVANT if not entered else REJECTED if position in lost else ADDED
            events.append(
                OFSFPDEvent(
                    position,
                    names[j],
                    columns[j],
                    float(corr[j]),
                    action,
                    self._selected_names,
                    self._selected_columns,
                    self._mean_relevance,
                    entered,
                    dropped,
                    kept_scores,
                    capacity(position + 1),
                )
            )
        self.n_seen = first + b
        return events

    def _step_block_quiet(self, block, names, columns) -> None:
        """:meth:`_step_block` without events: the same S, its bookkeeping once per block."""
        corr, relevant, first, lost_of, _, _, _ = self._run_block(block)
        for j in np.flatnonzero(relevant).tolist():
            self._info[first + j] = (names[j], columns[j], float(corr[j]))
        for lost in lost_of:
            for q in lost or ():
                del self._info[q]
        self.n_seen = first + block.shape[1]
        current = [self._info[q] for q in self._mem_pos[: int(self._state[0])].tolist()]
        self._set_selected([c[0] for c in current], [c[1] for c in current])
        self._mean_relevance = float(np.mean([c[2] for c in current])) if current else 0.0

    def _run_block(self, block):
        """The compiled decisions on a block (Algorithm 1 per feature, in order).

        Returns the correlations, which features entered S, the first arrival position, per
        feature the positions it made S drop (None: S was not ranked at that step), the
        dominance scores and members of S after each step (rows), and the members' counts.
        """
        family = kernels.load(FPD_KERNELS)

        corr, cos, units = self.relevances(block)
        b = block.shape[1]
        if self.relevance == "positive":
            relevant, strength, cos_strength = corr > 0, corr, cos  # NaN: not relevant
        else:
            relevant, strength, cos_strength = np.abs(corr) > 0, np.abs(corr), np.abs(cos)
        first = self.n_seen
        self._reserve(capacity(first + b) + 1)
        rows = len(self._mem_pos)
        dropped_pos = np.empty((b, rows), dtype=np.int64)
        n_dropped = np.empty(b, dtype=np.int64)
        dominance = np.empty((b, rows))
        members = np.empty((b, rows), dtype=np.int64)
        n_members = np.empty(b, dtype=np.int64)
        run_fpd_block(
            family,
            FPDBlock(
                arriving=(np.ascontiguousarray(units.T), 1.0 - strength, 1.0 - cos_strength),
                relevant=relevant,
                first_position=first,
                tolerance=TIE_TOLERANCE,
                selected=(
                    self._mem_units,
                    self._mem_abs,
                    self._mem_e2,
                    self._mem_e3,
                    self._mem_pos,
                    self._state,
                ),
                outputs=(dropped_pos, n_dropped, dominance, members, n_members),
            ),
        )
        lost_of: list[tuple[int, ...] | None] = [None] * b
        for j in np.flatnonzero(n_dropped >= 0).tolist():
            lost_of[j] = tuple(dropped_pos[j, : n_dropped[j]].tolist())
        return corr, relevant, first, lost_of, dominance, members, n_members

    def _reserve(self, rows: int) -> None:
        """Room for ``rows`` members in the state arrays (S never exceeds capacity + 1)."""
        old = len(self._mem_pos)
        if rows <= old:
            return
        rows = max(rows, 2 * old)
        units, abs_corr = np.empty((rows, len(self.y))), np.empty((rows, rows))
        units[:old], abs_corr[:old, :old] = self._mem_units, self._mem_abs
        self._mem_units, self._mem_abs = units, abs_corr
        for name in ("_mem_e2", "_mem_e3", "_mem_pos"):
            grown = np.empty(rows, dtype=getattr(self, name).dtype)
            grown[:old] = getattr(self, name)
            setattr(self, name, grown)

    def objectives(self) -> np.ndarray:
        """The decision matrix M = [E1, E2, E3] of the current S, one row per feature."""
        m = int(self._state[0])
        if m == 0:
            return np.empty((0, 3))
        e1 = self._mem_abs[:m, :m].min(axis=1) if m > 1 else np.zeros(1)
        return np.column_stack([np.minimum(e1, 1.0), self._mem_e2[:m], self._mem_e3[:m]])

    def _ranking(self) -> tuple[np.ndarray, np.ndarray]:
        """Order of S by dominance score (ascending, ties to earlier arrival) and the scores."""
        dominance_scores = kernels.load(FPD_KERNELS).dominance_scores

        scores = dominance_scores(self.objectives(), TIE_TOLERANCE)
        arrival = self._mem_pos[: int(self._state[0])]
        return np.lexsort((arrival, tie_key(scores))), scores

    def finish(self) -> Selection:
        """S ranked by fuzzy Pareto dominance (best first); scores are the correlations."""
        m = int(self._state[0])
        order = self._ranking()[0] if m > 1 else np.arange(m)
        members = [self._info[int(self._mem_pos[i])] for i in order]
        return Selection(
            self.method,
            tuple(c[0] for c in members),
            tuple(c[1] for c in members),
            tuple(c[2] for c in members),
            "ranked by fuzzy Pareto dominance",
        )
