"""Grafting as an online selector (Perkins and Theiler, ICML 2003).

The model is an L1-penalised logistic regression with a bias (Perkins, Lacker and
Theiler, JMLR 3, 2003; eq. 1 and 2 of the survey of Hu et al. 2018)::

    C(w, b) = (1/n) sum_i ln(1 + exp(-y_i f(x_i))) + lam sum_j |w_j|,  f(x) = w . x + b,

y in {-1, +1} (+1 = the minority class). A streamed feature j is tested with the current
model: at ``w_j = 0`` the penalised objective can only fall by giving it a weight when
``|dL/dw_j| > lam`` (L the mean loss; the gradient test, eq. 2). A feature that passes
enters, every weight of the model is re-optimised (:func:`.solver.reoptimise`), and the
features whose weight the optimum puts at 0 leave (they fail the gradient test at the new
optimum). A feature is seen once: a rejected or removed feature never returns (the
survey's "reapplies the gradient test to all the selected features" is that removal: at the
optimum a member's weight is 0 exactly when its ``|dL/dw| <= lam``).

Every choice the printed text leaves open is listed in docs/ALGORITHMS.md ("Grafting").
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from fsengine.methods.online._columns import sequential_sum
from fsengine.methods.online._embedded.solver import mean_loss, objective, reoptimise
from fsengine.methods.online._stream import Selection, StreamEvent, StreamingSelector
from fsengine.spec import ONLINE, Bool, MethodSpec, Real

ADDED, REJECTED = "added", "rejected"
#: Columns whose gradient one pass computes at once (a new model recomputes the rest).
GRADIENT_BLOCK = 512
#: The optimality conditions of the weights and the bias hold within ``tol * lam`` times
#: this (far inside the entry margin ``tol * lam``, so that a copy of a member never enters).
SOLVE_FACTOR = 1e-4


@dataclass(frozen=True, slots=True)
class GraftingEvent(StreamEvent):
    """One Grafting step.

    ``score`` is ``|dL/dw|`` of the feature at ``w = 0`` with the model before the step
    (L the mean logistic loss); ``threshold`` the value it had to exceed
    (``(1 + tol) lam``). ``action``:

    * "added": the feature entered and the model was re-optimised; ``weight`` is its
      weight after that (per unit of its values as given) and ``removed`` the members
      whose weight went to 0 (they left);
    * "rejected": ``|dL/dw|`` did not exceed the threshold; the model is unchanged.

    ``selected_score`` is the mean logistic loss of the model after the step,
    ``objective`` that loss plus ``lam * sum |w|``, ``violation`` the largest violation
    of the optimality conditions left by the re-optimisation (0 when they hold within
    the tolerances; NaN when the model did not change).
    """

    threshold: float = math.nan
    weight: float = math.nan
    removed: tuple[str, ...] = ()
    objective: float = math.nan
    violation: float = math.nan


class Grafting(StreamingSelector):
    """Grafting as an online selector: one feature in, one event out.

    Parameters
    ----------
    lam : float, default 0.5
        The L1 penalty lambda (``--lambda``): a feature enters when the gradient of the
        mean logistic loss in its weight exceeds it. 0.5 as in the OFS-Density paper's
        experiments (Zhou et al. 2019, section 5.5).
    standardise : bool, default False
        Scale every feature to unit (population) standard deviation first. The printed
        loss is on the values as given, so the default leaves them; standardised,
        ``|dL/dw| <= sqrt(pi (1 - pi))`` for the first feature (pi = the minority's
        share, Cauchy-Schwarz), so no feature can enter when ``lam >= sqrt(pi (1 - pi))``
        (at most 0.5: the default lambda selects nothing).
    tol : float, default 1e-6
        Relative margin of the gradient test: a feature enters when
        ``|dL/dw| > (1 + tol) lam``. A copy of a member has ``|dL/dw| = lam`` exactly in
        exact arithmetic; the margin keeps rounding from letting it in. Each
        re-optimisation holds the optimality conditions within ``tol * lam * 1e-4``.

    Notes
    -----
    Every column is centred before it is tested or enters the model (the bias is free,
    so the optimum is the same; constant columns have gradient exactly 0). The weights
    reported are per unit of the values as given. The test of a block of streamed columns
    is one vectorised product with the residual ``p - t`` (a sum over the samples in a fixed
    order, so that a feature's gradient does not depend on the block), recomputed after
    each feature that enters: the same decisions as one feature at a time.
    """

    spec = MethodSpec(
        name="grafting",
        label="Grafting",
        kind=ONLINE,
        citation="Perkins, Theiler. Online feature selection using grafting. ICML 2003 "
        "(grafting: Perkins, Lacker, Theiler, JMLR 3, 2003)",
        score="|dL/dw| of the feature at w = 0 with the model before it arrived (gradient "
        "of the mean logistic loss in its weight)",
        set_score="mean logistic loss of the model (lower is better)",
        parameters={
            "lam": Real(
                0.5,
                "L1 penalty: a feature enters when |dL/dw| of the mean logistic loss exceeds "
                "it; members whose weight the re-optimised model puts at 0 leave",
                label="lambda (L1 penalty)",
                source="Perkins and Theiler 2003 (eq. 1-2 of Hu et al. 2018); 0.5 as in the "
                "OFS-Density paper's experiments",
                low=0.0,
                low_open=True,
                flag="lambda",
            ),
            "standardise": Bool(
                False,
                "scale every feature to unit standard deviation first (then no feature can "
                "enter when lambda >= sqrt(pi (1 - pi)), pi = minority share: at most 0.5)",
                label="Standardise features",
                source="a choice: the printed loss is on the values as given",
            ),
            "tol": Real(
                1e-6,
                "relative margin of the gradient test (|dL/dw| > (1 + tol) lambda) and "
                "tolerance of the re-optimisation (tol * lambda * 1e-4)",
                label="Tolerance",
                source="a choice: rounding must not decide a test that is an equality "
                "in exact arithmetic",
                low=1e-12,
                high=0.01,
            ),
        },
        actions={
            ADDED: "|dL/dw| exceeded lambda: the feature entered, the model was "
            "re-optimised and members whose weight went to 0 left",
            REJECTED: "|dL/dw| did not exceed lambda",
        },
        event=GraftingEvent,
    )

    @classmethod
    def data_warnings(cls, params: dict, y) -> list[str]:
        """Standardised, no feature can enter when ``lam >= sqrt(pi (1 - pi))``."""
        y = np.asarray(y)
        pi = float(np.mean(y == 1))
        bound = math.sqrt(pi * (1.0 - pi))
        if params.get("standardise") and params["lam"] * (1.0 + params["tol"]) >= bound:
            return [
                f"Grafting with standardised features and lambda = {params['lam']:g} selects "
                f"nothing: no feature's |dL/dw| can exceed sqrt(pi (1 - pi)) = {bound:.3f} "
                f"(pi = {pi:.3f}, the minority's share); lower lambda"
            ]
        return []

    def _start(self) -> None:
        self._lam = self._params["lam"]
        self._standardise = self._params["standardise"]
        self._tol = self._params["tol"]
        self._threshold = (1.0 + self._tol) * self._lam
        self._t = (self.y == 1).astype(float)
        n = len(self._t)
        pi = float(np.sum(self._t)) / n
        # The optimum with no feature: the bias alone, sigmoid(b) = pi.
        self._b = math.log(pi / (1.0 - pi))
        self._p = np.full(n, pi)
        self._w = np.zeros(0)
        self._X = np.zeros((n, 0))  # the members' centred (scaled) columns
        self._scales = np.zeros(0)  # per member: the factor its column was divided by
        self._means = np.zeros(0)
        self._members: list[tuple[str, int, float]] = []  # name, column, score at entry
        self._loss = mean_loss(np.full(n, self._b), self._t)

    # ------------------------------------------------------------------ columns
    def _prepared(self, block: np.ndarray):
        """Centred (and, standardising, scaled) columns, their means and scales; a
        constant column (max == min) is all zeros."""
        n = block.shape[0]
        means = sequential_sum(block) / n
        centred = block - means
        constant = block.max(axis=0) == block.min(axis=0)
        centred[:, constant] = 0.0
        scales = np.ones(block.shape[1])
        if self._standardise:
            sd = np.sqrt(sequential_sum(centred * centred) / n)
            scales = np.where(constant, 1.0, sd)
            centred = centred / scales
        return centred, means, scales

    def _gradients(self, prepared: np.ndarray) -> np.ndarray:
        """``dL/dw`` of each column at w = 0: ``sum_i x_i (p_i - t_i) / n``, summed over the
        samples in order (the same value whatever the block)."""
        return sequential_sum(prepared * (self._p - self._t)[:, None]) / len(self._t)

    # ------------------------------------------------------------------ stream
    def _step_block(self, block, names, columns) -> list[GraftingEvent]:
        return self._run_block(block, names, columns, events=True)

    def _step_block_quiet(self, block, names, columns) -> None:
        self._run_block(block, names, columns, events=False)

    def _run_block(self, block, names, columns, events: bool):
        prepared, means, scales = self._prepared(block)
        out: list[GraftingEvent] = []
        b = block.shape[1]
        j = 0
        while j < b:
            stop = min(b, j + GRADIENT_BLOCK)
            g = self._gradients(prepared[:, j:stop])
            over = np.flatnonzero(np.abs(g) > self._threshold)
            last = j + int(over[0]) if over.size else stop  # the first that enters
            if events:
                for q in range(j, last):
                    out.append(
                        self._event(
                            self.n_seen + q - j,
                            names[q],
                            columns[q],
                            abs(float(g[q - j])),
                            REJECTED,
                        )
                    )
            self.n_seen += last - j
            if last == stop:
                j = stop
                continue
            score = abs(float(g[last - j]))
            info = self._enter(
                prepared[:, last],
                float(means[last]),
                float(scales[last]),
                names[last],
                columns[last],
                float(g[last - j]),
            )
            if events:
                out.append(
                    self._event(self.n_seen, names[last], columns[last], score, ADDED, **info)
                )
            self.n_seen += 1
            j = last + 1
        return out

    def _event(self, position, name, column, score, action, **info) -> GraftingEvent:
        if action == REJECTED:
            info = {"objective": self._objective()}
        return GraftingEvent(
            position,
            name,
            column,
            score,
            action,
            self._selected_names,
            self._selected_columns,
            self._loss,
            threshold=self._threshold,
            **info,
        )

    def _objective(self) -> float:
        """``C(w, b)`` of the current model (weights of the centred, scaled columns)."""
        return self._loss + self._lam * float(np.sum(np.abs(self._w)))

    def _enter(self, column, mean, scale, name, index, gradient) -> dict:
        """Add a column, re-optimise every weight, drop the members at 0."""
        X = np.column_stack([self._X, column])
        w0 = np.append(self._w, 0.0)
        signs = np.append(np.sign(self._w), -np.sign(gradient))
        fit = reoptimise(
            X,
            self._t,
            self._lam,
            w0,
            self._b,
            signs,
            eps=self._tol * self._lam * SOLVE_FACTOR,
            slack=self._tol,
        )
        members = self._members + [(name, index, abs(gradient))]
        keep = fit.w != 0
        removed = tuple(m[0] for m, k in zip(members, keep) if not k)
        weight = float(fit.w[-1] / scale)
        self._X = np.ascontiguousarray(X[:, keep])
        self._w = fit.w[keep]
        self._scales = np.append(self._scales, scale)[keep]
        self._means = np.append(self._means, mean)[keep]
        self._members = [m for m, k in zip(members, keep) if k]
        self._b = fit.b
        self._p = fit.p
        self._loss = mean_loss(fit.f, self._t)
        self._set_selected([m[0] for m in self._members], [m[1] for m in self._members])
        return {
            "weight": weight,
            "removed": removed,
            "objective": objective(fit.f, self._t, self._w, self._lam),
            "violation": fit.violation,
        }

    # ------------------------------------------------------------------ results
    @property
    def model(self) -> tuple[tuple[int, ...], np.ndarray, float]:
        """The current model on the values as given: (column indices of the members in
        order of entry, their weights, the bias) with ``f(x) = x[columns] . w + b``."""
        w = self._w / self._scales
        return self._selected_columns, w, float(self._b - float(w @ self._means))

    def finish(self) -> Selection:
        """The members in order of entry; scores are their ``|dL/dw|`` when they arrived."""
        return Selection(
            self.method,
            tuple(m[0] for m in self._members),
            tuple(m[1] for m in self._members),
            tuple(m[2] for m in self._members),
            "stream order (order of entry into the model)",
        )
