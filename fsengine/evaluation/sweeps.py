"""Sweeps under the protocol: an online selector over the values of one parameter
(:func:`sweep_values`, :func:`sweep_k`: the K-OFSD paper's Figs. 2-7) and rankers over
their number of features (:func:`sweep_top`).
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np

from fsengine._compute.parallel import run_tasks
from fsengine.data.dataset import Dataset
from fsengine.data.task import Task, as_task
from fsengine.errors import FSEngineError, is_integer_in
from fsengine.evaluation.comparison import Evaluation
from fsengine.evaluation.metrics import split_record
from fsengine.evaluation.protocol import (
    Progress,
    check_methods,
    check_on_training_half,
    is_ranker,
    method_settings,
    progress_per_task,
    stratified_splits,
)
from fsengine.methods.rankers import rank_features
from fsengine.methods.registry import get_method

__all__ = ["best_sweep_values", "sweep_k", "sweep_top", "sweep_values"]


def _sweep_values_split(
    task: Task,
    split: int,
    train: np.ndarray,
    test: np.ndarray,
    method: str,
    parameter: str,
    values: list,
    params: dict,
) -> list[dict]:
    """An online method for every value of ``parameter`` on one split.

    ``seconds`` is each value's own selection time, except where the selector shares one
    pass over every value (:meth:`fsengine.methods.registry.Method.shared_selections`: K-OFSD's
    K): then the pass's time divided by the number of values, the same for each.
    """
    X_train, X_test = task.X[train], task.X[test]
    y_train, y_test = task.y[train], task.y[test]
    names = task.names
    chosen = get_method(method)
    start = time.perf_counter()
    shared = chosen.shared_selections(X_train, y_train, names, parameter, values, params)
    timed = {}
    if shared is not None:
        each = (time.perf_counter() - start) / len(values)
        timed = {v: (shared[v], each) for v in values}
    else:
        for v in values:
            start = time.perf_counter()
            found = chosen.selections_over(X_train, y_train, names, parameter, [v], params)
            timed[v] = (found[v], time.perf_counter() - start)
    halves = (X_train, y_train, X_test, y_test)
    return [
        split_record(
            method, split, list(timed[v][0].columns), timed[v][1], halves, names, **{parameter: v}
        )
        for v in values
    ]


def sweep_values(
    data: Task | Dataset,
    minority,
    method: str,
    parameter: str,
    values: Sequence,
    *,
    n_splits: int = 20,
    seed: int = 0,
    progress: Progress | None = None,
    n_jobs: int | None = None,
    params: dict | None = None,
) -> Evaluation:
    """An online selector over the values of one parameter, under the same protocol.

    Parameters
    ----------
    data, minority, n_splits, seed, progress, n_jobs
        As :func:`~fsengine.evaluation.evaluate`: a task, or a data set and its
        minority class.
    method : str
        An online selector.
    parameter : str
        The parameter swept (K-OFSD's ``k``: the paper's Figs. 2-7).
    values : sequence
        Its values; each is checked against the method's specification first.
    params : dict, optional
        The method's other parameters.

    Returns
    -------
    Evaluation
        Records carry a field named ``parameter`` and come in the order value, then
        split. The splits run on ``n_jobs`` processes (default: every available core).
    """
    chosen = get_method(method)
    if not chosen.online:
        raise FSEngineError(
            f"a parameter sweep is for online selectors; {method} is a "
            "ranker (sweep its number of features with sweep_top)",
            parameter="method",
        )
    values = list(values)
    if not values:
        raise FSEngineError(f"no value of {parameter} to sweep")
    params = dict(params or {})
    chosen.spec.check_swept(parameter, params)
    task = as_task(data, minority)
    splits = stratified_splits(task.y, n_splits, seed, task.groups)
    n_train = min(len(t) for t, _ in splits)  # with groups, below task.n_train
    # Each value checked once, against the smallest training half, before any split runs.
    checked = [check_on_training_half(method, {**params, parameter: v}, n_train) for v in values]
    values = [c[parameter] for c in checked]
    settings = {c[parameter]: chosen.spec.settings_text(c) for c in checked}
    distinct = list(dict.fromkeys(values))
    jobs = [
        (task, split, train, test, method, parameter, distinct, params)
        for split, (train, test) in enumerate(splits)
    ]
    on_done = progress_per_task(
        progress,
        len(values) * len(splits),
        lambda i: [f"{parameter}={v} split {i + 1}/{len(splits)} {method}" for v in values],
    )
    by_split = run_tasks(_sweep_values_split, jobs, n_jobs, on_done)
    records = [
        {**by_split[split][distinct.index(v)], "settings": settings[v]}
        for v in values
        for split in range(len(splits))
    ]
    return Evaluation(
        records,
        {
            "data": task.source,
            "minority": task.minority,
            "method": method,
            "parameter": parameter,
            "values": values,
            "splits": n_splits,
            "seed": seed,
            "params": params,
            "settings": settings,
        },
    )


def sweep_k(
    data: Task | Dataset,
    minority=None,
    ks: Sequence[int] = range(1, 11),
    *,
    n_splits: int = 20,
    seed: int = 0,
    progress: Progress | None = None,
    n_jobs: int | None = None,
    **params,
) -> Evaluation:
    """K-OFSD over a range of K (the paper's Figs. 2-7): :func:`sweep_values` on ``k``.

    Records carry a ``k`` field and come in the order K, then split; ``params`` are
    K-OFSD's other parameters.
    """
    ks = [int(k) for k in ks]
    if not ks:
        raise FSEngineError("no K to sweep")
    if "k" in params:
        raise FSEngineError("give the values of K as ks, not k")
    task = as_task(data, minority)
    result = sweep_values(
        task,
        None,
        "kofsd",
        "k",
        ks,
        n_splits=n_splits,
        seed=seed,
        progress=progress,
        n_jobs=n_jobs,
        params=params,
    )
    return Evaluation(
        result.records,
        {
            "data": task.source,
            "minority": task.minority,
            "ks": ks,
            "splits": n_splits,
            "seed": seed,
            "params": params,
        },
    )


def best_sweep_values(
    summary: list[dict], parameter: str, field: str = "gmean_1nn"
) -> tuple[list, float]:
    """The values of a sweep with the highest mean of a measure, and that mean.

    Parameters
    ----------
    summary : list of dict
        ``Evaluation.summary((parameter,))`` of :func:`sweep_values` or :func:`sweep_k`.
    parameter : str
        The swept parameter (the rows' field holding its value).
    field : str, default "gmean_1nn"
        A measure where larger is better (``<field>_mean`` in the rows).

    Returns
    -------
    (values, mean)
        Every value whose mean equals the highest (ties: all of them, in the rows'
        order), and that mean.

    Raises
    ------
    ValueError
        For an empty summary.
    """
    if not summary:
        raise ValueError("an empty sweep has no best value")
    best = max(row[f"{field}_mean"] for row in summary)
    return [row[parameter] for row in summary if row[f"{field}_mean"] == best], best


def _sweep_top_split(
    task: Task,
    split: int,
    train: np.ndarray,
    test: np.ndarray,
    methods: list[str],
    tops: list[int],
    params: dict,
) -> list[dict]:
    """Every ranker's scores on one split, then each top-k of its ranking, scored."""
    X_train, X_test = task.X[train], task.X[test]
    y_train, y_test = task.y[train], task.y[test]
    names = task.names
    records = []
    for method in methods:
        start = time.perf_counter()
        ranking = rank_features(
            get_method(method).scores(X_train, y_train, **params.get(method, {}))
        ).tolist()
        seconds = time.perf_counter() - start
        halves = (X_train, y_train, X_test, y_test)
        records += [
            split_record(method, split, ranking[:t], seconds, halves, names, top=t) for t in tops
        ]
    return records


def sweep_top(
    data: Task | Dataset,
    minority,
    methods: Sequence[str],
    tops: Sequence[int],
    *,
    n_splits: int = 20,
    seed: int = 0,
    params: dict | None = None,
    progress: Progress | None = None,
    n_jobs: int | None = None,
) -> Evaluation:
    """Rankers over a range of top-k under the same protocol; records carry ``top``.

    Each ranker scores each split once and every top-k is taken from that ranking; the
    splits run on ``n_jobs`` processes (default: every available core). Records come in
    the order top-k, split, method; ``seconds`` is the ranking's time.
    """
    methods = check_methods(methods)
    online = [m for m in methods if not is_ranker(m)]
    if online:
        raise FSEngineError(
            f"a top-k sweep is for rankers; {', '.join(online)} choose their own number of features"
        )
    tops = [int(t) for t in tops]
    if not tops:
        raise FSEngineError("no top-k to sweep")
    task = as_task(data, minority)
    bad = [t for t in tops if not is_integer_in(t, 1, task.n_features)]
    if bad:
        raise FSEngineError(f"top must be an integer from 1 to {task.n_features}, got {bad[0]!r}")
    params = {m: dict(p) for m, p in (params or {}).items()}
    splits = stratified_splits(task.y, n_splits, seed, task.groups)
    settings = method_settings(methods, params, min(len(t) for t, _ in splits))
    jobs = [
        (task, split, train, test, methods, tops, params)
        for split, (train, test) in enumerate(splits)
    ]
    on_done = progress_per_task(
        progress,
        len(tops) * len(methods) * len(splits),
        lambda i: [f"top {t} split {i + 1}/{len(splits)} {m}" for m in methods for t in tops],
    )
    by_split = run_tasks(_sweep_top_split, jobs, n_jobs, on_done)
    records = []
    for i, _t in enumerate(tops):
        for split in range(len(splits)):
            for j in range(len(methods)):
                record = by_split[split][j * len(tops) + i]
                spec = get_method(record["method"]).spec
                records.append(
                    {**record, "settings": spec.settings_text(settings[record["method"]])}
                )
    return Evaluation(
        records,
        {
            "data": task.source,
            "minority": task.minority,
            "methods": methods,
            "tops": tops,
            "splits": n_splits,
            "seed": seed,
            "params": params,
            "settings": settings,
        },
    )
