"""OFS-FPD: online streaming feature selection by fuzzy Pareto dominance.

Hashemi, Pajoohan, Dowlatshahi, "Online streaming feature selection using fuzzy
Pareto dominance" (Algorithm 1). A feature that arrives joins the candidate set S
if its Pearson correlation with the class is positive; whenever S holds more than
the capacity i_t (t = features arrived so far), every feature of S is scored by
fuzzy Pareto dominance (Koeppen et al. 2005) over three minimisation objectives and
only the i_t best are kept.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from fsengine.errors import FSEngineError
from fsengine.online._columns import TIE_TOLERANCE, pearson_with, sequential_sum, tie_key
from fsengine.online._stream import Selection, StreamEvent, StreamingSelector

RELEVANCE = ("positive", "absolute")
IRRELEVANT, ADDED, REJECTED = "irrelevant", "added", "rejected"


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
    return max(1, (t - 1).bit_length())                # == ceil(log2 t), exact for integers


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
    y : array of {0, 1}, shape (n_samples,)
        Class labels, 1 = the minority class.
    relevance : {"positive", "absolute"}, default "positive"
        "positive" admits a feature to S when corr(f, class) > 0, as printed.
        "absolute" admits it when |corr| > 0: a gene under-expressed in the
        minority class is as informative as an over-expressed one; the relevance
        objectives then use |corr| and |cos| as well.

    Notes
    -----
    Objectives, all minimised, for each feature f of S:

    * E1 = min over the other features g of S of |corr(f, g)| (the redundancy
      objective as printed: the minimum of the row of the correlation matrix,
      diagonal excluded);
    * E2 = 1 - corr(f, class);
    * E3 = 1 - cos(f, class), the cosine distance of the raw feature vector to the
      0/1 class vector (an all-zero feature has cosine 0).

    Each feature's score is the largest degree to which another feature of S
    dominates it (:func:`dominance_scores`); the ``capacity(t)`` features with the
    lowest scores are kept, ties going to the feature that arrived first.
    """

    method = "ofs-fpd"

    def __init__(self, y, *, relevance: str = "positive"):
        super().__init__(y)
        if relevance not in RELEVANCE:
            raise FSEngineError(f"unknown relevance rule {relevance!r}; choose one of "
                                f"{', '.join(RELEVANCE)}")
        self.relevance = relevance
        self._y_norm = float(np.sqrt(self.y.sum()))
        self._members: list[tuple[str, int, int, float, float, float]] = []  # name, column, arrival, corr, e2, e3
        self._units = np.empty((len(self.y), 0))
        # |corr| between the members (diagonal inf), kept as members come and go: each
        # pair's correlation is computed once, so the matrix is exactly symmetric.
        self._abs_corr = np.empty((0, 0))
        self._mean_relevance: float | None = None      # of S, recomputed when S changes

    @property
    def params(self) -> dict:
        """Every parameter in effect (JSON-ready)."""
        return {"relevance": self.relevance}

    def relevances(self, block: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Correlation with the class, cosine with the class, unit centred columns of a block."""
        corr, units = pearson_with(block, self.y)
        norms = np.sqrt(sequential_sum(block ** 2))
        dots = sequential_sum(block * self.y[:, None])
        with np.errstate(invalid="ignore", divide="ignore"):
            cos = np.where(norms > 0, dots / (norms * self._y_norm), 0.0)
        return corr, cos, units

    def _step_block(self, block, names, columns) -> list[OFSFPDEvent]:
        corr, cos, units = self.relevances(block)
        return [self._decide(units[:, j], float(corr[j]), float(cos[j]), names[j], columns[j])
                for j in range(block.shape[1])]

    def objectives(self) -> np.ndarray:
        """The decision matrix M = [E1, E2, E3] of the current S, one row per feature."""
        if not self._members:
            return np.empty((0, 3))
        # corr(f, g) and corr(g, f) are the same float (one product per pair), because
        # dominance degrees of exactly 1 (ties) are common and decided by arrival order.
        e1 = self._abs_corr.min(axis=1) if len(self._members) > 1 else np.zeros(1)
        objectives = np.empty((len(self._members), 3))
        objectives[:, 0] = np.minimum(e1, 1.0)
        objectives[:, 1:] = [m[4:6] for m in self._members]
        return objectives

    def _add_member(self, member: tuple, unit: np.ndarray) -> None:
        """Append a feature to S with its correlations to the members (one product each)."""
        m = len(self._members)
        row = np.abs(unit @ self._units) if m else np.empty(0)
        grown = np.empty((m + 1, m + 1))
        grown[:m, :m] = self._abs_corr
        grown[m, :m] = row
        grown[:m, m] = row
        grown[m, m] = np.inf
        self._abs_corr = grown
        self._members.append(member)
        self._units = np.column_stack([self._units, unit])

    def _keep(self, kept: np.ndarray) -> None:
        """Keep the members at positions ``kept`` (in that order)."""
        self._members = [self._members[i] for i in kept]
        self._units = self._units[:, kept]
        self._abs_corr = self._abs_corr[kept][:, kept]

    def _ranking(self) -> tuple[np.ndarray, np.ndarray]:
        """Order of S by dominance score (ascending, ties to earlier arrival) and the scores."""
        from fsengine.online import _fpd_kernels

        scores = _fpd_kernels.dominance_scores(self.objectives(), TIE_TOLERANCE)
        arrival = np.array([m[2] for m in self._members])
        return np.lexsort((arrival, tie_key(scores))), scores

    def _decide(self, unit: np.ndarray, corr: float, cos: float, name: str,
                column: int) -> OFSFPDEvent:
        position = self.n_seen
        self.n_seen += 1
        cap = capacity(self.n_seen)
        relevant = corr > 0 if self.relevance == "positive" else abs(corr) > 0   # NaN: False
        dropped: tuple[str, ...] = ()
        dominance: tuple[float, ...] = ()
        new_was_dropped = False
        if relevant:
            strength = corr if self.relevance == "positive" else abs(corr)
            cos_strength = cos if self.relevance == "positive" else abs(cos)
            self._add_member((name, column, position, corr, 1.0 - strength, 1.0 - cos_strength),
                             unit)
        if len(self._members) > cap:
            order, scores = self._ranking()
            kept, lost = order[:cap], order[cap:]
            dropped = tuple(self._members[i][0] for i in lost)
            dominance = tuple(float(scores[i]) for i in kept)
            new_was_dropped = any(self._members[i][2] == position for i in lost)
            self._keep(kept)
        if relevant or dropped:
            self._set_selected([m[0] for m in self._members], [m[1] for m in self._members])
        action = IRRELEVANT if not relevant else REJECTED if new_was_dropped else ADDED
        if relevant or dropped or self._mean_relevance is None:
            self._mean_relevance = (float(np.mean([m[3] for m in self._members]))
                                    if self._members else 0.0)
        mean_relevance = self._mean_relevance
        return OFSFPDEvent(position, name, column, corr, action, self._selected_names,
                           self._selected_columns, mean_relevance, relevant, dropped, dominance, cap)

    def finish(self) -> Selection:
        """S ranked by fuzzy Pareto dominance (best first); scores are the correlations."""
        if len(self._members) > 1:
            order, _ = self._ranking()
            members = [self._members[i] for i in order]
        else:
            members = list(self._members)
        return Selection(self.method, tuple(m[0] for m in members), tuple(m[1] for m in members),
                         tuple(m[3] for m in members), "ranked by fuzzy Pareto dominance")
