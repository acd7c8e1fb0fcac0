"""Run a selection method on a data set, with the record that repeats the run.

The command line and the app both call :func:`run_selection`, so the numbers they
show and export come from the same code path (:meth:`fsengine.methods.Method.select`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fsengine.data import Dataset
from fsengine.methods import METHODS, ONLINE_METHODS, RANKER_METHODS, get_method
from fsengine.online import Selection, StreamEvent

__all__ = ["METHODS", "ONLINE_METHODS", "RANKER_METHODS", "RunResult", "run_selection"]


@dataclass(frozen=True)
class RunResult:
    """A finished run: the selection, every step's event and what produced them.

    Attributes
    ----------
    selection : Selection
    events : list of StreamEvent
    params : dict
        Method, data set, minority class and every parameter, as strings and
        numbers (JSON-ready): enough to repeat the run.
    seconds : float
        Wall-clock time of the stream or the ranking.
    scores : ndarray or None
        Every feature's score, for rankers (None for online selectors).
    warnings : tuple of str
        The selector's warnings about the labels and parameters.
    """

    selection: Selection
    events: list[StreamEvent]
    params: dict
    seconds: float
    scores: np.ndarray | None = None
    warnings: tuple[str, ...] = ()


def run_selection(
    dataset: Dataset,
    minority,
    method: str = "kofsd",
    *,
    order: str = "natural",
    seed: int | None = None,
    top: int | None = None,
    events: bool = True,
    **params,
) -> RunResult:
    """Binarise ``dataset`` for ``minority`` and select features with ``method``.

    Parameters
    ----------
    dataset : Dataset
    minority : label or str
        The class to select for (one versus rest).
    method : str
        A registered method (:data:`fsengine.methods.METHODS`).
    order : {"natural", "random"}
        Online selectors: feature arrival order.
    seed : int, optional
        Seed of the random order; for rankers with k-means (d-*), their seed.
    top : int, optional
        Rankers: number of features kept (default: all, in rank order).
    events : bool, default True
        Keep the online method's events (a trace). False returns no events and lets the
        selector skip work only events need: the same selection, sooner.
    **params
        The method's parameters (see ``python -m fsengine methods``).

    Returns
    -------
    RunResult
        ``params`` holds method, data, label_column, minority, then order and seed
        (online) or top (rankers), then every parameter in effect.
    """
    spec_method = get_method(method)
    label = dataset.resolve_class(minority)
    y = dataset.binarise(label)
    outcome = spec_method.select(
        dataset.X,
        y,
        dataset.feature_names,
        params=params,
        order=order,
        seed=seed,
        top=top,
        events=events,
    )
    record = {
        "method": method,
        "data": dataset.source,
        "label_column": dataset.label_column,
        "minority": label,
    }
    if spec_method.online:
        record.update(order=order, seed=seed)
    else:
        record["top"] = top
    record.update(outcome.params)
    return RunResult(
        outcome.selection, outcome.events, record, outcome.seconds, outcome.scores, outcome.warnings
    )
