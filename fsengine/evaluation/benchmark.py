"""Running a benchmark study (:mod:`fsengine.evaluation.study`): every (data set, method,
split) is one task, run under the evaluation protocol of
:func:`fsengine.evaluation.evaluate`, its record appended to a journal as soon as it
finishes, so that an interrupted study resumes with only the missing tasks. The result
is one long table (data set, method, split, every metric, the selected features, the
selection time).

Engines
-------
- ``"dask"`` (the default): the tasks run on Dask. Without a scheduler address, on an
  in-process :class:`distributed.LocalCluster` of one single-threaded worker process per
  core; with ``scheduler="tcp://HOST:PORT"``, on an existing cluster (``dask scheduler`` and
  ``dask worker``, or any Dask deployment). The data sets are read here and shipped to the
  workers (``Client.scatter``, a copy on every worker), so the workers need fsengine (the same
  version) but not the files. A worker lost mid-study loses nothing: Dask reruns its tasks
  on the others.
- ``"serial"``: one task after the other in this process, without Dask.

A record depends only on the data, the protocol and its task, never on the engine, the
number of workers or the order in which tasks finish: the tables are equal, bit for bit,
except the measured ``seconds``.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import time
from collections.abc import Callable, Iterator
from concurrent.futures import CancelledError
from contextlib import nullcontext
from pathlib import Path
from typing import TYPE_CHECKING

from fsengine._compute.cluster import dask_client, limit_worker_threads
from fsengine.data.task import Task
from fsengine.errors import FSEngineError, is_integer_in
from fsengine.evaluation import Plan, evaluate_split, stratified_splits
from fsengine.evaluation.protocol import check_on_training_half
from fsengine.evaluation.study import Study
from fsengine.export.codec import dumps
from fsengine.export.spreadsheet import spreadsheet_safe_frame
from fsengine.methods.registry import get_method

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "MAX_BATCH",
    "StudyProgress",
    "check_on_training_halves",
    "compare_study",
    "journal_path",
    "read_journal",
    "read_study_data",
    "run_study",
    "study_means",
    "study_table",
    "study_tasks",
    "task_batches",
]

#: Fields that identify a task (and its record).
TASK_KEYS = ("dataset", "method", "split")
#: progress(done, total, message), message with the time left and the task.
StudyProgress = Callable[[int, int, str], None]
ENGINES = ("dask", "serial")
#: The most splits of one method that one Dask task runs (see task_batches).
MAX_BATCH = 5
#: How many times a batch is submitted again when the loss of a worker took its data set's
#: scattered copy with it (the scheduler then cancels the batch: "already forgotten").
LOST_BATCH_RETRIES = 3


#: Formats of :func:`study_table`.
STUDY_FORMATS = ("csv", "parquet")


def study_table(table, fmt: str = "csv") -> bytes:
    """A study's table (:func:`run_study`) as the bytes ``run_study`` writes to
    ``out.csv`` or ``out.parquet`` (and the dashboard offers for download); in CSV a
    name that starts like a spreadsheet formula is quoted
    (:func:`~fsengine.export.spreadsheet.spreadsheet_safe`).

    Raises
    ------
    ValueError
        For an unknown format.
    """
    if fmt not in STUDY_FORMATS:
        raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(STUDY_FORMATS)}")
    if fmt == "csv":
        return spreadsheet_safe_frame(table).to_csv(index=False).encode("utf-8")
    out = io.BytesIO()
    table.to_parquet(out, index=False)
    return out.getvalue()


def study_tasks(study: Study) -> list[tuple[str, str, int]]:
    """Every (data set, method, split) of ``study``, data set first, then method, then split."""
    return [
        (d.name, m, s) for d in study.datasets for m in study.methods for s in range(study.splits)
    ]


def read_study_data(study: Study, names=None) -> dict[str, Task]:
    """Read the data sets of ``study`` (those in ``names``, default all) as the manifest
    says (label column, genes in rows, minority class versus the rest).

    Returns
    -------
    dict
        data set name -> :class:`fsengine.data.task.Task` (the minority class versus the rest).
    """
    from fsengine.data.dataset import load_dataset
    from fsengine.data.preprocess import preprocess, preprocessing_params

    data = {}
    for entry in study.datasets:
        if names is None or entry.name in names:
            ds = load_dataset(
                entry.path,
                label=entry.label,
                transpose=entry.genes_in_rows,
                name=entry.name,
                sample_groups=entry.sample_groups,
            )
            ds = preprocess(ds, preprocessing_params(entry.preprocessing))
            data[entry.name] = Task.from_dataset(ds, entry.minority)
    return data


def check_on_training_halves(study: Study, data: dict[str, Task]) -> None:
    """Every method's parameters checked against each data set's smallest training half
    (:func:`fsengine.evaluation.protocol.check_on_training_half`), and the rankers' ``top``
    against its features, before any task runs: a K too large for one data set's halves
    is refused at once, naming the data set, not inside its tasks.

    Parameters
    ----------
    study : Study
        The study (its methods, parameters, splits and seed).
    data : dict
        Data set name -> :class:`fsengine.data.task.Task`, every data set of the study.

    Raises
    ------
    FSEngineError
        The first parameter refused, or a data set the splits refuse, with the data
        set's name.
    """
    methods = list(study.methods)
    ranked = any(not get_method(m).online for m in methods)
    if study.top is None and ranked:
        methods.append(study.count_from)  # its count is the rankers' on each split
    for entry in study.datasets:
        task = data[entry.name]
        if ranked and study.top is not None and not is_integer_in(study.top, 1, task.n_features):
            raise FSEngineError(
                f"must be an integer from 1 to {task.n_features} (the number of features), "
                f"got {study.top!r}, in the data set {entry.name}",
                parameter="top",
            )
        try:
            splits = stratified_splits(task.y, study.splits, study.seed, task.groups)
        except FSEngineError as error:  # as its tasks would fail: said before, named
            raise error.reworded(f"{error.problem}, in the data set {entry.name}") from None
        n_train = min(len(train) for train, _ in splits)
        for method in dict.fromkeys(methods):
            try:
                check_on_training_half(method, study.params.get(method, {}), n_train)
            except FSEngineError as error:
                raise error.reworded(f"{error.problem}, in the data set {entry.name}") from None


def run_task(task: Task, study: Study, method: str, split: int) -> dict:
    """The record of one task: ``method`` selects on the training half of split ``split``
    (the study's seed) and is scored on the test half; a ranker gets ``study.top`` features
    or the count of ``study.count_from`` on the same split, as :func:`evaluate` gives it.

    Returns
    -------
    dict
        method, split, n_features, seconds, the metrics, features (``;``-joined names).
    """
    train, test = stratified_splits(task.y, study.splits, study.seed, task.groups)[split]
    plan = Plan((method,), study.top, study.params, study.count_from)
    [record] = evaluate_split(task, plan, split, train, test)
    return record


def _run_task_on_worker(data: Task, study: Study, method: str, split: int) -> dict:
    """:func:`run_task` with the compiled kernels and BLAS on one thread
    (:func:`fsengine._compute.cluster.limit_worker_threads`)."""
    limit_worker_threads()
    return run_task(data, study, method, split)


def study_key(study: Study, digest: str) -> str:
    """A fingerprint of what the records of a data set depend on besides their own key: the
    protocol (splits, seed, top, count_from, parameters) and the data (``digest``, see
    :attr:`fsengine.data.task.Task.digest`, with the minority class). Methods and data sets may
    be added to a study without changing it."""
    facts = {
        "splits": study.splits,
        "seed": study.seed,
        "top": study.top,
        "count_from": study.count_from,
        "params": study.params,
        "data": digest,
    }
    return hashlib.sha256(dumps(facts, strict=False, sort_keys=True).encode()).hexdigest()[:16]


def journal_path(out: Path) -> Path:
    """Where the records of finished tasks are appended while a study runs."""
    return out.with_name(out.name + ".journal.jsonl")


def read_journal(path: Path) -> list[dict]:
    """The records in a journal; a last line cut by an interruption is ignored."""
    records = []
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError:
                break  # the line being written when the process stopped
    return records


def _finished_tasks(journal: Path, resume: bool, keys: dict, wanted: set) -> dict:
    """The records of ``journal`` that belong to this study, by task; the journal is
    rewritten without a line cut by an interruption.

    Raises
    ------
    FSEngineError
        If the journal exists and ``resume`` is false, or if it was written for another
        protocol or other data.
    """
    if journal.exists() and not resume:
        raise FSEngineError(
            f"{journal} holds the finished tasks of an earlier run of this study",
            remedy="continue it with resume (--resume), or delete that file to start again",
        )
    done, earlier = {}, read_journal(journal)
    for record in earlier:
        name = record["dataset"]
        if name in keys and record.get("study_key") != keys[name]:
            raise FSEngineError(
                f"{journal} was written for another version of this study (its splits, seed, "
                f"parameters or the data set {name} differ)",
                remedy="restore the manifest and data it was run with, or delete that file "
                "to start again",
            )
        key = tuple(record[k] for k in TASK_KEYS)
        if key in wanted:  # others stay in the journal (e.g. a method left out for now)
            done[key] = {k: v for k, v in record.items() if k != "study_key"}
    if journal.exists():  # drop a line cut by the interruption before appending
        kept = journal.with_name(journal.name + ".tmp")
        kept.write_text("".join(dumps(r) + "\n" for r in earlier))
        os.replace(kept, journal)
    return done


def _serial_records(data, study, tasks) -> Iterator[tuple[tuple, dict]]:
    for name, method, split in tasks:
        yield (name, method, split), run_task(data[name], study, method, split)


def _run_tasks_on_worker(data: Task, study: Study, method: str, splits) -> list[dict]:
    """:func:`_run_task_on_worker` for several splits of one method: one Dask task."""
    return [_run_task_on_worker(data, study, method, split) for split in splits]


def task_batches(tasks, n_threads: int) -> list[tuple[str, str, tuple[int, ...]]]:
    """``tasks`` grouped into Dask tasks: consecutive splits of one (data set, method), at
    most :data:`MAX_BATCH`, and small enough that there are about 8 batches per worker
    thread. Each batch costs Dask's scheduling once (about 3 ms of the 2 cores here, 7% of
    a study's mean task) while the records stay one per split.

    Returns
    -------
    list of (data set, method, splits)
    """
    size = max(1, min(MAX_BATCH, len(tasks) // (8 * max(n_threads, 1))))
    batches: list[tuple[str, str, tuple[int, ...]]] = []
    for name, method, split in tasks:
        last = batches[-1] if batches else None
        if last and last[:2] == (name, method) and len(last[2]) < size:
            batches[-1] = (name, method, (*last[2], split))
        else:
            batches.append((name, method, (split,)))
    return batches


def _dask_records(client, data, study, tasks) -> Iterator[tuple[tuple, dict]]:
    """The records of ``tasks`` on ``client``'s cluster, as they finish (by batches, see
    :func:`task_batches`); the tasks not yet finished are cancelled when the caller stops
    (an interruption, an error)."""
    from distributed import as_completed

    from fsengine._compute.parallel import prepare_process

    # Imports and kernels in every worker before any task is timed.
    client.run(prepare_process, ("fsengine.evaluation",))
    shipped = {
        name: client.scatter(data[name], broadcast=True, hash=False)
        for name in dict.fromkeys(t[0] for t in tasks)
    }
    batches = task_batches(tasks, sum(client.nthreads().values()))
    # Larger data sets first: their tasks tend to be the longest, and a long task started
    # last would leave the other workers idle at the end (the order changes no result).
    batches.sort(key=lambda b: -data[b[0]].n_samples * data[b[0]].n_features)

    def submit(batch, priority: int):
        name, method, splits = batch
        return client.submit(
            _run_tasks_on_worker,
            shipped[name],
            study,
            method,
            splits,
            pure=False,
            priority=priority,
        )

    futures = {submit(batch, len(batches) - i): batch for i, batch in enumerate(batches)}
    retries: dict[tuple, int] = {}
    finishing = as_completed(futures)
    try:
        for future in finishing:
            batch = futures.pop(future)
            name, method, splits = batch
            try:
                records = future.result()
            except FSEngineError:
                raise
            except CancelledError as exc:  # a worker lost with the data set's copy
                if retries.get(batch, 0) >= LOST_BATCH_RETRIES:
                    raise _batch_failed(batch, exc) from None
                retries[batch] = retries.get(batch, 0) + 1
                if shipped[name].status != "finished":  # scattered again, once
                    shipped[name] = client.scatter(data[name], broadcast=True, hash=False)
                again = submit(batch, len(batches))
                futures[again] = batch
                finishing.add(again)
                continue
            except Exception as exc:  # noqa: BLE001 - e.g. KilledWorker after repeated losses
                raise _batch_failed(batch, exc) from None
            for split, record in zip(splits, records):
                yield (name, method, split), record
    finally:
        client.cancel(list(futures))
        client.cancel(list(shipped.values()))


def _batch_failed(batch: tuple, exc: BaseException) -> FSEngineError:
    """The error of a batch of tasks that failed on the cluster."""
    name, method, splits = batch
    return FSEngineError(
        f"the tasks of {name} {method}, splits {splits[0] + 1}-{splits[-1] + 1}, "
        f"failed on the cluster: {exc}",
        remedy="resume the study (--resume): finished tasks are kept",
    )


def _remaining(start: float, finished: int, left: int) -> str:
    if not finished:
        return "time left unknown"
    seconds = (time.monotonic() - start) / finished * left
    return f"about {seconds:.0f} s left" if seconds < 120 else f"about {seconds / 60:.0f} min left"


def run_study(
    study: Study,
    out=None,
    *,
    resume: bool = False,
    progress: StudyProgress | None = None,
    engine: str = "dask",
    scheduler: str | None = None,
    n_jobs: int | None = None,
    data: dict[str, Task] | None = None,
):
    """Run every task of ``study`` not yet done and write the table.

    Parameters
    ----------
    study : Study
    out : str or Path, optional
        Stem of the outputs: ``out.parquet`` and ``out.csv``; the journal is
        ``out.journal.jsonl`` beside them. None: nothing is written (no resume).
    resume : bool
        Continue from the journal of an interrupted run (its tasks are not recomputed).
        Without it, an existing journal is an error, so that no work is lost by mistake.
    progress : callable, optional
        ``progress(done, total, message)`` after each task, message with the estimated
        time left and the task. An exception it raises stops the study (finished tasks
        stay in the journal; the others are cancelled).
    engine : {"dask", "serial"}
        See the module's docstring.
    scheduler : str, optional
        Address of an existing Dask scheduler (``tcp://HOST:PORT``); default: a local
        cluster.
    n_jobs : int, optional
        Worker processes of the local cluster (default: every available core).
    data : dict, optional
        The data sets already read (name -> :class:`fsengine.data.task.Task`), e.g. uploaded ones;
        default: read as the manifest says (:func:`read_study_data`).

    Returns
    -------
    pandas.DataFrame
        One row per task, in :func:`study_tasks` order.
    """
    import pandas as pd

    if engine not in ENGINES:
        raise FSEngineError(f"unknown engine {engine!r}; choose one of {', '.join(ENGINES)}")
    if resume and out is None:
        raise FSEngineError("resume needs the output stem of the interrupted run")
    tasks = study_tasks(study)
    data = read_study_data(study) if data is None else data
    missing_data = [d.name for d in study.datasets if d.name not in data]
    if missing_data:
        raise FSEngineError(f"no data for the data set {missing_data[0]} of the study")
    check_on_training_halves(study, data)
    journal = None if out is None else journal_path(Path(out))
    keys = {  # the journal's check: not needed without one
        d.name: study_key(study, f"{data[d.name].digest} {d.minority}")
        for d in (study.datasets if journal is not None else ())
    }
    done = {} if journal is None else _finished_tasks(journal, resume, keys, set(tasks))
    missing = [t for t in tasks if t not in done]
    start = time.monotonic()

    def finished(task: tuple, record: dict, log) -> None:
        record = {"dataset": task[0], **record}
        if log is not None:
            log.write(dumps({**record, "study_key": keys[task[0]]}) + "\n")
            log.flush()
            os.fsync(log.fileno())
        done[task] = record
        if progress is not None:
            count = len(done) - (len(tasks) - len(missing))
            name, method, split = task
            progress(
                len(done),
                len(tasks),
                f"{_remaining(start, count, len(missing) - count)}: {name} {method} "
                f"split {split + 1}/{study.splits}",
            )

    if journal is not None:
        journal.parent.mkdir(parents=True, exist_ok=True)
    with open(journal, "a", encoding="utf-8") if journal is not None else nullcontext() as log:
        if missing and engine == "serial":
            from fsengine._compute.parallel import prepare_process

            prepare_process()
            for task, record in _serial_records(data, study, missing):
                finished(task, record, log)
        elif missing:
            with dask_client(scheduler, n_jobs) as client:
                for task, record in _dask_records(client, data, study, missing):
                    finished(task, record, log)
    table = pd.DataFrame([done[t] for t in tasks])
    if out is not None:
        for fmt in STUDY_FORMATS:
            Path(out).with_suffix(f".{fmt}").write_bytes(study_table(table, fmt))
    return table


#: How a metric is summarised over the splits: the median for the selection time (robust to
#: a cold start or a busy core, as every speed figure of the project), the mean otherwise.
SPLIT_SUMMARY = {"seconds": "median"}


def study_means(table, metrics) -> pd.DataFrame:
    """Each metric of ``metrics`` summarised over the splits per data set and method (the
    mean, the median for ``seconds``: :data:`SPLIT_SUMMARY`).

    Returns
    -------
    pandas.DataFrame
        Indexed by (dataset, method) in the table's order, one column per metric.
    """
    groups = table.groupby(["dataset", "method"], sort=False)
    return groups.agg({m: SPLIT_SUMMARY.get(m, "mean") for m in metrics})


def compare_study(table, study: Study, alpha: float = 0.05) -> dict:
    """The statistics of a study's table, per metric of the study: the summary over splits
    for each data set and method (:func:`study_means`), then
    :func:`fsengine.evaluation.statistics.compare_methods` (ranks, Friedman /
    Iman-Davenport, Nemenyi, Wilcoxon-Holm). Empty with fewer than 2 data sets or 2 methods.

    Returns
    -------
    dict
        metric -> RankComparison.
    """
    from fsengine.evaluation.statistics import compare_methods
    from fsengine.evaluation.study import HIGHER_IS_BETTER

    datasets = [d.name for d in study.datasets]
    methods = list(study.methods)
    if len(datasets) < 2 or len(methods) < 2:
        return {}
    means = study_means(table, study.metrics)
    return {
        metric: compare_methods(
            [[means.loc[(d, m), metric] for m in methods] for d in datasets],
            methods,
            datasets,
            metric=metric,
            higher_is_better=HIGHER_IS_BETTER[metric],
            alpha=alpha,
        )
        for metric in study.metrics
    }
