"""Methods compared under the protocol of the K-OFSD paper (section 4.1): the
:func:`evaluate` of a task over R splits, one split's records (:func:`evaluate_split`), and
each method's selection on the whole data (:func:`whole_data_selections`).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from fsengine._compute.parallel import run_tasks
from fsengine.data.dataset import Dataset
from fsengine.data.task import Task, as_task
from fsengine.errors import FSEngineError, is_integer_in
from fsengine.evaluation.metrics import CLASSIFIERS, METRICS, split_record
from fsengine.evaluation.protocol import (
    COUNT_FROM,
    PAPER_METHODS,
    Progress,
    check_count_from,
    check_methods,
    is_ranker,
    method_settings,
    progress_per_task,
    select_on,
    stratified_splits,
)
from fsengine.methods.online import Selection
from fsengine.methods.registry import get_method
from fsengine.methods.runs import run_selection

__all__ = [
    "Evaluation",
    "Plan",
    "evaluate",
    "evaluate_split",
    "feature_frequencies",
    "whole_data_runs",
    "whole_data_selections",
]


@dataclass(frozen=True)
class Evaluation:
    """Results of :func:`evaluate`: one record per method and split.

    Attributes
    ----------
    records : list of dict
        method, split, n_features, seconds (selection time), features (names joined
        by ';') and ``<metric>_<classifier>`` for every metric and classifier.
    params : dict
        Data set, minority class, splits, seed, methods and their parameters.
    """

    #: The tag of an evaluation in JSON (:mod:`fsengine.export.codec`).
    json_tag = "evaluation"

    records: list[dict]
    params: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        """The records and the parameters; :meth:`from_dict` takes them back."""
        return {"records": self.records, "params": self.params}

    @classmethod
    def from_dict(cls, data: dict) -> Evaluation:
        """The evaluation of :meth:`to_dict`'s fields (after a JSON round trip)."""
        return cls(list(data["records"]), dict(data["params"]))

    def summary(self, by: tuple[str, ...] = ("method",)) -> list[dict]:
        """Mean and standard deviation (over splits) of every metric, the number of
        features and the time, per group of records (keys ``<name>_mean`` / ``_std``).

        Parameters
        ----------
        by : tuple of str
            Record fields that define a group, in the order first seen: ("method",)
            for :func:`evaluate`, ("k",) for :func:`sweep_k`, ("method", "top") for
            :func:`sweep_top`.
        """
        groups: dict[tuple, list[dict]] = {}
        for record in self.records:
            groups.setdefault(tuple(record[b] for b in by), []).append(record)
        columns = ["n_features", "seconds"] + [f"{m}_{c}" for c in CLASSIFIERS for m in METRICS]
        rows = []
        for key, mine in groups.items():
            row = {**dict(zip(by, key)), "splits": len(mine)}
            for column in columns:
                values = np.array([r[column] for r in mine], dtype=float)
                row[f"{column}_mean"] = float(values.mean())
                row[f"{column}_std"] = float(values.std(ddof=1)) if len(values) > 1 else 0.0
            rows.append(row)
        return rows


def feature_frequencies(records: list[dict], **where) -> list[tuple[str, int]]:
    """How many records (splits) selected each feature, most often first (ties by name).

    Parameters
    ----------
    records : list of dict
        Records of :func:`evaluate` or a sweep (their ``features`` field: names joined
        by ';').
    **where
        Keep only records whose fields equal these values, e.g. ``k=7``.

    Returns
    -------
    list of (feature, count)
    """
    counts: dict[str, int] = {}
    for record in records:
        if all(record.get(field) == value for field, value in where.items()):
            for name in filter(None, record["features"].split(";")):
                counts[name] = counts.get(name, 0) + 1
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))


@dataclass(frozen=True)
class Plan:
    """What each split of a comparison runs: the methods, the rankers' number of
    features and every method's parameters.

    Attributes
    ----------
    methods : tuple of str
        Registered methods, online selectors and rankers.
    top : int, optional
        Features given to each ranker; None: as many as ``count_from`` selects on the
        same training half (the K-OFSD paper's rule).
    params : mapping
        Each method's parameters, by method name.
    count_from : str, default COUNT_FROM
        The online selector whose count the rankers get.
    """

    methods: tuple[str, ...]
    top: int | None = None
    params: Mapping[str, Mapping] = field(default_factory=dict)
    count_from: str = COUNT_FROM

    def params_of(self, method: str) -> dict:
        """``method``'s parameters (empty: its defaults)."""
        return dict(self.params.get(method, {}))


def evaluate_split(
    task: Task, plan: Plan, split: int, train: np.ndarray, test: np.ndarray
) -> list[dict]:
    """The records of one split of the protocol (section 4.1 of the K-OFSD paper): every
    method selects on the training half and is scored on the test half.

    Parameters
    ----------
    task : Task
        The whole data set: matrix, binary labels (1: minority), feature names.
    plan : Plan
        The methods, the rankers' count and the parameters.
    split : int
        The split's number, written into its records.
    train, test : ndarray of int
        The split's rows (:func:`stratified_splits`).

    Returns
    -------
    list of dict
        One record per method (the fields of :attr:`Evaluation.records`).
    """
    X_train, X_test = task.X[train], task.X[test]
    y_train, y_test = task.y[train], task.y[test]
    names = task.names
    chosen: dict[str, tuple[list[int], float]] = {}
    for method in plan.methods:
        if is_ranker(method):
            continue
        start = time.perf_counter()
        columns = select_on(method, X_train, y_train, names, **plan.params_of(method))
        chosen[method] = (columns, time.perf_counter() - start)
    count = plan.top
    if count is None and any(is_ranker(m) for m in plan.methods):
        if plan.count_from in chosen:
            count = len(chosen[plan.count_from][0])
        else:
            count = len(
                select_on(
                    plan.count_from, X_train, y_train, names, **plan.params_of(plan.count_from)
                )
            )
    for method in plan.methods:
        if is_ranker(method):
            start = time.perf_counter()
            columns = select_on(method, X_train, y_train, names, count, **plan.params_of(method))
            chosen[method] = (columns, time.perf_counter() - start)
    halves = (X_train, y_train, X_test, y_test)
    return [split_record(m, split, *chosen[m], halves, names) for m in plan.methods]


def evaluate(
    data: Task | Dataset,
    minority=None,
    methods: Sequence[str] = PAPER_METHODS,
    *,
    n_splits: int = 20,
    seed: int = 0,
    top: int | None = None,
    params: dict | None = None,
    progress: Progress | None = None,
    n_jobs: int | None = None,
    count_from: str = COUNT_FROM,
) -> Evaluation:
    """The paper's protocol: selection on the training half, 1-NN and SVM on the test half.

    Parameters
    ----------
    data : Task or Dataset
        The task (:class:`fsengine.data.task.Task`), or a data set to build it from.
    minority : label or str, optional
        With a data set: the class to select for (one versus rest; default
        :meth:`Dataset.default_minority`). With a task: None or its own class.
    methods : sequence of str
        Online selectors and rankers (see :data:`fsengine.methods.runs.METHODS`).
    n_splits : int, default 20
        Number of random stratified 50/50 splits R.
    seed : int, default 0
        Seed of the splits.
    top : int, optional
        Give every ranker this many features; default: as many as ``count_from``
        selected on the same split (run for the count even if not in ``methods``).
    params : dict, optional
        Parameters per method, e.g. ``{"kofsd": {"k": 5}, "relieff": {"n_neighbors": 7}}``.
    progress : callable, optional
        Called as ``progress(done, total, message)`` as each split finishes (``done``
        counts methods x splits).
    n_jobs : int, optional
        Worker processes for the splits (default: every available core; 1 = serial).
        The records are the same whatever the number (``seconds`` apart).
    count_from : str, default "kofsd"
        The online selector whose number of selected features the rankers get when
        ``top`` is None (the K-OFSD paper's rule: K-OFSD's).

    Returns
    -------
    Evaluation
    """
    methods = check_methods(methods)
    count_from = check_count_from(count_from)
    params = {m: dict(p) for m, p in (params or {}).items()}
    task = as_task(data, minority)
    splits = stratified_splits(task.y, n_splits, seed, task.groups)
    # K against the smallest training half drawn (with groups, below task.n_train)
    settings = method_settings(methods, params, min(len(t) for t, _ in splits))
    if top is not None and not is_integer_in(top, 1, task.n_features):
        raise FSEngineError(f"top must be an integer from 1 to {task.n_features}, got {top!r}")
    plan = Plan(tuple(methods), top, params, count_from)
    jobs = [(task, plan, split, train, test) for split, (train, test) in enumerate(splits)]
    on_done = progress_per_task(
        progress,
        len(splits) * len(methods),
        lambda i: [f"split {i + 1}/{len(splits)} {m}" for m in methods],
    )
    records = [
        r
        for split_records in run_tasks(evaluate_split, jobs, n_jobs, on_done)
        for r in split_records
    ]
    run_params = {
        **task.record(),
        "methods": methods,
        "splits": n_splits,
        "seed": seed,
        "top": top,
        "count_from": count_from,
        "params": params,
        "settings": settings,
    }
    for record in records:
        record["settings"] = get_method(record["method"]).spec.settings_text(
            settings[record["method"]]
        )
    return Evaluation(records, run_params)


def whole_data_runs(
    data: Task | Dataset,
    minority,
    methods: Sequence[str],
    top: int | None = None,
    params: dict | None = None,
    count_from: str = COUNT_FROM,
) -> tuple[dict[str, Selection], int | None]:
    """Each method's selection on the whole data set, by the protocol's rule.

    Rankers keep ``top`` features or, when it is None, as many as ``count_from``
    returns on the whole data (a fallback's features included, as in the authors'
    protocol; none if it returns none). For comparing what the methods pick (e.g. the
    dashboard's Jaccard heat map), not for measuring accuracy.

    Parameters
    ----------
    data, minority
        The task, or a data set and its minority class (as :func:`evaluate`).
    methods : sequence of str
    top : int, optional
    params : dict, optional
        Parameters per method.
    count_from : str, default COUNT_FROM

    Returns
    -------
    (selections by method, the rankers' number of features)
        Each a :class:`~fsengine.methods.online.Selection`: its ``fallback`` says when the
        method selected nothing and listed its fallback instead.
    """
    params = params or {}
    methods = check_methods(methods)
    task = as_task(data, minority)
    runs = {}
    # through run_tasks (serial here: n_jobs=1), so that a cancellable run's selections
    # compute in a worker process that a cancellation kills (fsengine._compute.parallel)
    if top is None and any(is_ranker(m) for m in methods):
        count_from = check_count_from(count_from)
        (runs[count_from],) = run_tasks(
            _whole_data_run, [(task, count_from, None, params.get(count_from, {}))], n_jobs=1
        )
        top = len(runs[count_from].selection)
    selections = {}
    todo = [m for m in methods if m not in runs and not (is_ranker(m) and top == 0)]
    done = run_tasks(
        _whole_data_run,
        [(task, m, top if is_ranker(m) else None, params.get(m, {})) for m in todo],
        n_jobs=1,
    )
    runs.update(zip(todo, done))
    for method in methods:
        if is_ranker(method) and top == 0:
            selections[method] = Selection(method, (), (), (), "ranked by descending score")
            continue
        selections[method] = runs[method].selection
    return selections, top


def _whole_data_run(task: Task, method: str, top: int | None, params: dict):
    """``method``'s run on the whole task without events (a task of :func:`run_tasks`)."""
    return run_selection(task, method=method, top=top, events=False, **params)


def whole_data_selections(
    data: Task | Dataset,
    minority,
    methods: Sequence[str],
    top: int | None = None,
    params: dict | None = None,
    count_from: str = COUNT_FROM,
) -> tuple[dict[str, tuple[str, ...]], int | None]:
    """Each method's selected features on the whole data set: :func:`whole_data_runs`'
    selections as their feature names.

    Returns
    -------
    (features by method, the rankers' number of features)
    """
    runs, top = whole_data_runs(data, minority, methods, top, params, count_from)
    return {method: selection.features for method, selection in runs.items()}, top
