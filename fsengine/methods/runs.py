"""Run a selection method on a data set, with the record that repeats the run.

The command line and the app both call :func:`run_selection`, so the numbers they
show and export come from the same code path (:meth:`fsengine.methods.registry.Method.select`).
"""

from __future__ import annotations

import dataclasses

from fsengine.data.dataset import Dataset
from fsengine.data.task import Task, as_task
from fsengine.methods.registry import METHODS, ONLINE_METHODS, RANKER_METHODS, RunResult, get_method

__all__ = ["METHODS", "ONLINE_METHODS", "RANKER_METHODS", "RunResult", "run_selection"]


def run_selection(
    data: Task | Dataset,
    minority=None,
    method: str = "kofsd",
    *,
    order: str = "natural",
    seed: int | None = None,
    top: int | None = None,
    events: bool = True,
    client=None,
    **params,
) -> RunResult:
    """Select features with ``method`` for a task: ``minority`` versus the rest of a data set.

    Parameters
    ----------
    data : Task or Dataset
        The task (:class:`fsengine.data.task.Task`), or a data set to build it from.
    minority : label or str, optional
        With a data set: the class to select for (one versus rest; default
        :meth:`Dataset.default_minority`). With a task: None or its own class.
    method : str
        A registered method (:data:`fsengine.methods.registry.METHODS`).
    order : {"natural", "random"}
        Online selectors: feature arrival order.
    seed : int, optional
        Seed of the random order; for rankers with k-means (``d-*``), their seed.
    top : int, optional
        Rankers: number of features kept (default: all, in rank order).
    events : bool, default True
        Keep the online method's events (a trace). False returns no events and lets the
        selector skip work only events need: the same selection, sooner.
    client : distributed.Client, optional
        Run the per-gene work on this Dask cluster (:meth:`Method.select`; K-OFSD and the
        columnwise rankers): the same selection.
    **params
        The method's parameters (see ``python -m fsengine methods``).

    Returns
    -------
    RunResult
        ``params`` holds method, data, label_column, minority, then order and seed
        (online) or top (rankers), then every parameter in effect.
    """
    spec_method = get_method(method)
    task = as_task(data, minority)
    outcome = spec_method.select(
        task.X,
        task.y,
        task.names,
        params=params,
        order=order,
        seed=seed,
        top=top,
        events=events,
        client=client,
    )
    record = {"method": method, **task.record()}
    if spec_method.online:
        record.update(order=order, seed=seed)
    else:
        record["top"] = top
    record.update(outcome.params)
    return dataclasses.replace(outcome, params=record)
