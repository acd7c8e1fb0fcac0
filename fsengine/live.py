"""A feature stream advanced a little at a time, for the dashboard's animation.

:class:`LiveStream` runs an online selector over a data set in the same order and
with the same events as :func:`fsengine.runs.run_selection` (so its final selection
is the command line's), but in chunks bounded by a number of features or a time
budget. Between chunks it keeps the curves to draw: the selected set's size and score
after every step, and a hold-out G-mean.

The hold-out G-mean is honest: a second copy of the selector streams the same features
over the samples of a stratified training half only, and a 1-NN classifier trained on
that half's selection is scored on the held-out half (refreshed once per chunk). The
selection shown and exported uses all samples, as the command line does, and is never
scored on samples it has seen.
"""

from __future__ import annotations

import math
import time

import numpy as np

from fsengine.data import Dataset
from fsengine.errors import FSEngineError
from fsengine.evaluation import classify, stratified_splits
from fsengine.methods import get_method
from fsengine.online import Selection, StreamEvent, feature_order
from fsengine.task import Task, as_task


class LiveStream:
    """An online selector streaming a data set's features, advanced on demand.

    Parameters
    ----------
    data : Task or Dataset
        The task (:class:`fsengine.task.Task`), or a data set to build it from.
    minority : label or str, optional
        With a data set: the class to select for (one versus rest; default
        :meth:`Dataset.default_minority`). With a task: None or its own class.
    method : str
        An online method (:data:`fsengine.methods.ONLINE_METHODS`).
    order : {"natural", "random"}
    seed : int, optional
        Seed of the random order.
    params : dict, optional
        The method's parameters.
    holdout_seed : int
        Seed of the stratified split used for the live G-mean.
    """

    def __init__(
        self,
        data: Task | Dataset,
        minority=None,
        method: str = "kofsd",
        *,
        order: str = "natural",
        seed: int | None = None,
        params: dict | None = None,
        holdout_seed: int = 0,
    ):
        self.task = task = as_task(data, minority)
        #: The data set the task came from (None for a task of arrays).
        self.dataset = task.dataset
        self.minority = task.minority
        self.method = method
        self.params = dict(params or {})
        self.y = task.y
        self.selector = (
            get_method(method).selector(**self.params).start(self.y, n_features=task.n_features)
        )
        self.order = feature_order(task.n_features, order, seed)
        self.order_name, self.seed = order, seed
        self.position = 0
        self.events: list[StreamEvent] = []
        self.sizes: list[int] = []
        self.scores: list[float] = []
        self.gmean_steps: list[int] = []
        self.gmeans: list[float] = []
        #: Why there is no hold-out G-mean (a minority too small to split), else "".
        self.holdout_problem = ""
        self.train_selector = None
        try:
            self._train, self._test = stratified_splits(self.y, 1, holdout_seed)[0]
        except FSEngineError as exc:
            self.holdout_problem = exc.problem
        else:
            self.train_selector = (
                get_method(method)
                .selector(**self.params)
                .start(self.y[self._train], n_features=task.n_features)
            )
        self._gmean_cache: dict[tuple[int, ...], float] = {}
        self.seconds = 0.0
        self._selection: Selection | None = None

    @property
    def total(self) -> int:
        """Number of features in the stream."""
        return len(self.order)

    @property
    def done(self) -> bool:
        """Whether every feature has arrived."""
        return self.position >= self.total

    def advance(
        self, max_features: int | None = None, max_seconds: float | None = None, chunk: int = 256
    ) -> list[StreamEvent]:
        """Stream up to ``max_features`` more features, stopping early after ``max_seconds``.

        At least one feature is processed if any is left. Returns the new events.
        """
        start = time.perf_counter()
        limit = self.total - self.position if max_features is None else max_features
        new: list[StreamEvent] = []
        while limit > 0 and not self.done:
            take = min(chunk, limit, self.total - self.position)
            columns = self.order[self.position : self.position + take]
            events = self.selector.step_many(
                self.task.X[:, columns],
                [self.task.names[c] for c in columns],
                columns.tolist(),
            )
            new += events
            if self.train_selector is not None:
                self.train_selector.step_many(
                    self.task.X[np.ix_(self._train, columns)],
                    [self.task.names[c] for c in columns],
                    columns.tolist(),
                )
            self.position += take
            limit -= take
            if max_seconds is not None and time.perf_counter() - start >= max_seconds:
                break
        self.events += new
        self.sizes += [len(e.selected) for e in new]
        self.scores += [float(e.selected_score) for e in new]
        if new and self.train_selector is not None:
            self.gmean_steps.append(self.position)
            self.gmeans.append(self.holdout_gmean(self.train_selector.selected_columns))
        self.seconds += time.perf_counter() - start
        return new

    @property
    def holdout_selected(self) -> tuple[str, ...]:
        """The features selected so far on the training half alone."""
        return () if self.train_selector is None else self.train_selector.selected

    def holdout_gmean(self, columns) -> float:
        """G-mean of 1-NN on ``columns``: trained on the training split, scored on the held-out
        split (0 for an empty set). ``columns`` must have been chosen without the held-out
        samples (the training half's selector's) for the figure to be honest."""
        key = tuple(columns)
        if key not in self._gmean_cache:
            if not key:
                self._gmean_cache[key] = 0.0
            else:
                X = self.task.X[:, list(key)]
                self._gmean_cache[key] = classify(
                    "1nn", X[self._train], self.y[self._train], X[self._test], self.y[self._test]
                )["gmean"]
        return self._gmean_cache[key]

    def curves(self) -> dict[str, np.ndarray]:
        """Arrays to draw: ``step`` (1-based), ``size``, ``score`` per step; ``gmean_step``,
        ``gmean`` per refresh."""
        return {
            "step": np.arange(1, len(self.sizes) + 1),
            "size": np.array(self.sizes),
            "score": np.array(self.scores, dtype=float),
            "gmean_step": np.array(self.gmean_steps),
            "gmean": np.array(self.gmeans),
        }

    def selection(self) -> Selection:
        """The final selection (the command line's), once the stream is done."""
        if not self.done:
            raise RuntimeError("the stream is not finished")
        if self._selection is None:  # pages ask on every rerun: finish once
            self._selection = self.selector.finish()
        return self._selection

    def current_gmean(self) -> float:
        """The latest hold-out G-mean (NaN before the first feature, or with no hold-out)."""
        return self.gmeans[-1] if self.gmeans else math.nan
