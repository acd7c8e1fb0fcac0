"""Alpha-investing: streamwise feature selection with an adaptive significance level.

Zhou, Foster, Stine, Ungar, "Streamwise feature selection", JMLR 7 (2006) 1861-1885,
as run by the LOFS toolbox (kuiy/LOFS, ``Alpha_Investing.m``). The class vector is
regressed on the selected features by least squares; each arriving feature is tested
at level ``alpha_i = wealth / (2 i)`` (i = its arrival position), and the wealth grows
by ``payout - alpha_i`` when a feature is accepted and shrinks by ``alpha_i`` when not.
Reference: ../shared/reference/lofs_octave/README.md, "Alpha-investing".
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from fsengine._compute import kernels
from fsengine.methods.online._codes import (
    ALPHA_ACCEPTED,
    ALPHA_COLLINEAR,
    ALPHA_REJECTED,
    ALPHA_TAKEN,
)
from fsengine.methods.online._stream import Selection, StreamEvent, StreamingSelector
from fsengine.spec import ONLINE, Choice, MethodSpec, Real

TAKEN, ADDED, REJECTED, COLLINEAR = "taken", "added", "rejected", "collinear"
#: The compiled walk.
ALPHA_KERNELS = "methods.online._statistical._alpha_kernels"
#: The outcome codes of the compiled walk (``_alpha_kernels``) as actions.
_ACTIONS = {
    ALPHA_REJECTED: REJECTED,
    ALPHA_ACCEPTED: ADDED,
    ALPHA_TAKEN: TAKEN,
    ALPHA_COLLINEAR: COLLINEAR,
}


@dataclass(frozen=True, slots=True)
class AlphaInvestingEvent(StreamEvent):
    """One Alpha-investing step.

    ``action`` is "taken" (reference variant: the first feature, put in the model without
    a test, as the authors' code does with column 1), "added" (p < alpha_i), "rejected"
    (p >= alpha_i, or p undefined) or "collinear" (the feature is a linear combination of
    the model's columns, an all-zero column among them: X'X is singular, no test, rejected).
    ``score`` is ``p_value``; ``selected_score`` is the model's residual sum of squares.

    Attributes
    ----------
    alpha_threshold : float
        ``alpha_i = wealth / (2 i)`` the feature was tested at (NaN when taken untested).
    p_value : float
        Reference variant: the likelihood ratio ``exp((rss_with - rss_before) /
        (2 rss_before / n))`` of the authors' code; paper variant: the two-sided t-test
        p-value of the feature's coefficient. NaN when not tested.
    rss_before, rss_with : float
        Residual sum of squares of the model without and with the feature.
    wealth : float
        The wealth after the step.
    """

    alpha_threshold: float = math.nan
    p_value: float = math.nan
    rss_before: float = math.nan
    rss_with: float = math.nan
    wealth: float = math.nan


class AlphaInvesting(StreamingSelector):
    """Alpha-investing as an online selector: one feature in, one event out.

    Parameters
    ----------
    wealth : float, default 0.5
        Initial alpha-wealth W0 (``wealth = 0.5`` in ``Alpha_Investing.m``).
    payout : float, default 0.5
        Wealth earned by each accepted feature, delta_alpha (``delta_alpha = 0.5``).
    variant : {"reference", "paper"}, default "reference"
        "reference" is the authors' code: the first feature that arrives is put in the model
        untested (the code assumes column 1 is a constant term, but is called on the raw
        features), no intercept is fitted, feature i is tested at ``wealth / (2 i)`` with i
        its 1-based arrival position (so the first test uses 2 x 2), and the "p-value" is the
        likelihood ratio ``exp((rss_new - rss_old) / (2 rss_old / n))``. "paper" follows the
        JMLR algorithm as printed: the model starts with an intercept, every feature is
        tested (the first at ``wealth / 2``), and p is the two-sided t-test p-value of the
        new coefficient (``t^2 = (rss_old - rss_new) / (rss_new / (n - k))``, k the number
        of coefficients with the feature).

    Notes
    -----
    The authors' code inverts X'X for every feature; here the model is an orthonormal basis
    updated once per accepted feature (:mod:`fsengine.methods.online._statistical._alpha_kernels`),
    which gives the same residual sums of squares to rounding. Where X'X is singular (a zero column,
    an exact copy or multiple of a model column, or a model that already spans the samples)
    Octave's ``inv`` returns Inf and the feature is rejected; here such a feature is
    "collinear" and rejected too. Near-singular systems depend on rounding in both.
    """

    kernel_families = (ALPHA_KERNELS,)

    spec = MethodSpec(
        name="alpha-investing",
        label="Alpha-investing",
        kind=ONLINE,
        citation="Zhou, Foster, Stine, Ungar. Streamwise feature selection. Journal of "
        "Machine Learning Research 7 (2006) 1861-1885; code: LOFS toolbox (kuiy/LOFS), "
        "Alpha_Investing.m",
        score="p-value of the feature given the model (smaller: more significant)",
        set_score="residual sum of squares of the class on S",
        parameters={
            "wealth": Real(
                0.5,
                "starting budget of false discoveries: a larger wealth lets more features in "
                "early in the stream",
                label="Initial wealth",
                source="Alpha_Investing.m (wealth = 0.5); JMLR 2006, Algorithm 1 (W0)",
                low=0.0,
                low_open=True,
                step=0.05,
            ),
            "payout": Real(
                0.5,
                "budget earned back by each accepted feature (delta alpha): a larger payout "
                "keeps the test lenient after discoveries",
                label="Payout",
                source="Alpha_Investing.m (delta_alpha = 0.5); JMLR 2006, Algorithm 1",
                low=0.0,
                step=0.05,
            ),
            "variant": Choice(
                "reference",
                "which Alpha-investing to run",
                label="Variant",
                source="Alpha_Investing.m / JMLR 2006, Algorithm 1",
                choices={
                    "reference": "the authors' code (default): first feature taken untested, "
                    "no intercept, likelihood-ratio p",
                    "paper": "the printed algorithm: intercept, every feature tested, "
                    "t-test p-value",
                },
            ),
        },
        actions={
            TAKEN: "the first feature, put in the model without a test (the authors' code)",
            ADDED: "p-value below alpha_i: the feature joins the model",
            REJECTED: "p-value not below alpha_i",
            COLLINEAR: "a linear combination of the model's features: not testable, rejected",
        },
        action_codes={TAKEN: 1, ADDED: 1, REJECTED: 0, COLLINEAR: 0},
        event=AlphaInvestingEvent,
    )

    def _start(self) -> None:
        p = self._params
        self.variant = p["variant"]
        self.payout = p["payout"]
        y = self.y.astype(float)
        n = len(y)
        self._basis = np.zeros((n, n))  # rows: orthonormal basis of the model
        if self.variant == "reference":
            self._residual = y.copy()
            m = 0
        else:  # the intercept is in the model from the start
            self._basis[0] = 1.0 / math.sqrt(n)
            self._residual = y - sum(y) / n
            m = 1
        rss = float(np.sum(self._residual**2))
        self._yy = rss
        self._state = np.array([rss, p["wealth"], m, 0.0])
        self._members: list[tuple[str, int, float]] = []  # name, column, p at entry

    def _run(self, block: np.ndarray) -> np.ndarray:
        walk = kernels.load(ALPHA_KERNELS).walk

        out = np.empty((block.shape[1], 6))
        walk(
            np.ascontiguousarray(block),
            self._basis,
            self._residual,
            self._state,
            self.variant == "reference",
            self.payout,
            self._yy,
            out,
        )
        return out

    def _step_block(self, block, names, columns) -> list[AlphaInvestingEvent]:
        first = self.n_seen
        out = self._run(block)
        events = []
        for j, row in enumerate(out.tolist()):
            alpha, rss_before, rss_with, p_value, code, wealth = row
            action = _ACTIONS[int(code)]
            if action in (TAKEN, ADDED):
                self._members.append((names[j], columns[j], p_value))
                self._set_selected([m[0] for m in self._members], [m[1] for m in self._members])
            events.append(
                AlphaInvestingEvent(
                    first + j,
                    names[j],
                    columns[j],
                    p_value,
                    action,
                    self._selected_names,
                    self._selected_columns,
                    rss_with if action in (TAKEN, ADDED) else rss_before,
                    alpha,
                    p_value,
                    rss_before,
                    rss_with,
                    wealth,
                )
            )
        self.n_seen = first + block.shape[1]
        return events

    def _step_block_quiet(self, block, names, columns) -> None:
        out = self._run(block)
        for j in np.flatnonzero((out[:, 4] == 1) | (out[:, 4] == 2)).tolist():
            self._members.append((names[j], columns[j], float(out[j, 3])))
        self.n_seen += block.shape[1]
        self._set_selected([m[0] for m in self._members], [m[1] for m in self._members])

    def finish(self) -> Selection:
        """The model's features in stream order; scores are their p-values at entry."""
        return Selection(
            self.method,
            tuple(m[0] for m in self._members),
            tuple(m[1] for m in self._members),
            tuple(m[2] for m in self._members),
            "stream order (order of entry into the model)",
        )
