"""Running a benchmark study (:mod:`fsengine.study`): every (data set, method, split) is one
task, run under the evaluation protocol of :func:`fsengine.evaluation.evaluate`, its record
appended to a journal as soon as it finishes, so that an interrupted study resumes with only
the missing tasks.

This module runs the tasks in this process, one after the other; the result is one long
table (data set, method, split, every metric, the selected features, the selection time).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from fsengine.data import load_dataset
from fsengine.errors import FSEngineError
from fsengine.evaluation import _evaluate_split, stratified_splits
from fsengine.study import Study

#: Fields that identify a task (and its record).
TASK_KEYS = ("dataset", "method", "split")
#: progress(done, total, message), message with the task and the time left.
StudyProgress = Callable[[int, int, str], None]


def study_tasks(study: Study) -> list[tuple[str, str, int]]:
    """Every (data set, method, split) of ``study``, data set first, then method, then split."""
    return [
        (d.name, m, s) for d in study.datasets for m in study.methods for s in range(study.splits)
    ]


def run_task(X: np.ndarray, y: np.ndarray, names: list[str], study: Study, method: str, split: int):
    """The record of one task: ``method`` selects on the training half of split ``split``
    (the study's seed) and is scored on the test half; a ranker gets ``study.top`` features
    or the count of ``study.count_from`` on the same split, as :func:`evaluate` gives it.

    Returns
    -------
    dict
        method, split, n_features, seconds, the metrics, features (``;``-joined names).
    """
    train, test = stratified_splits(y, study.splits, study.seed)[split]
    [record] = _evaluate_split(
        X, y, names, train, test, split, [method], study.top, study.params, study.count_from
    )
    return record


def study_key(study: Study, dataset: str) -> str:
    """A fingerprint of what the records of ``dataset`` depend on besides their own key:
    the protocol (splits, seed, top, count_from, parameters) and the data set's file and
    class. Methods and data sets may be added to a study without changing it."""
    import hashlib

    entry = next(d for d in study.datasets if d.name == dataset)
    facts = {
        "splits": study.splits,
        "seed": study.seed,
        "top": study.top,
        "count_from": study.count_from,
        "params": study.params,
        "dataset": [str(entry.path), entry.minority, entry.label, entry.genes_in_rows],
    }
    return hashlib.sha256(json.dumps(facts, sort_keys=True, default=str).encode()).hexdigest()[:16]


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


def run_study(
    study: Study,
    out,
    *,
    resume: bool = False,
    progress: StudyProgress | None = None,
):
    """Run every task of ``study`` not yet done and write the table.

    Parameters
    ----------
    study : Study
    out : str or Path
        Stem of the outputs: ``out.parquet`` and ``out.csv``; the journal is
        ``out.journal.jsonl`` beside them.
    resume : bool
        Continue from the journal of an interrupted run (its tasks are not recomputed).
        Without it, an existing journal is an error, so that no work is lost by mistake.
    progress : callable, optional
        ``progress(done, total, message)`` after each task, message with the task and the
        estimated time left.

    Returns
    -------
    pandas.DataFrame
        One row per task, in :func:`study_tasks` order.
    """
    import pandas as pd

    out = Path(out)
    journal = journal_path(out)
    if journal.exists() and not resume:
        raise FSEngineError(
            f"{journal} holds the finished tasks of an earlier run of this study",
            remedy="continue it with resume, or delete that file to start again",
        )
    tasks = study_tasks(study)
    wanted = set(tasks)
    keys = {d.name: study_key(study, d.name) for d in study.datasets}
    done, earlier = {}, read_journal(journal)
    for record in earlier:
        if record["dataset"] in keys and record.get("study_key") != keys[record["dataset"]]:
            raise FSEngineError(
                f"{journal} was written for another version of this study (its splits, seed, "
                f"parameters or the data set {record['dataset']} differ)",
                remedy="restore the manifest it was run with, or delete that file to start again",
            )
        key = tuple(record[k] for k in TASK_KEYS)
        if key in wanted:  # others stay in the journal (e.g. a method left out for now)
            done[key] = {k: v for k, v in record.items() if k != "study_key"}
    if journal.exists():  # drop a line cut by the interruption before appending
        kept = journal.with_name(journal.name + ".tmp")
        kept.write_text("".join(json.dumps(r) + "\n" for r in earlier))
        os.replace(kept, journal)
    missing = [t for t in tasks if t not in done]
    data = {}
    for entry in study.datasets:
        if any(t[0] == entry.name for t in missing):
            ds = load_dataset(
                entry.path, label=entry.label, transpose=entry.genes_in_rows, name=entry.name
            )
            y = ds.binarise(ds.resolve_class(entry.minority))
            data[entry.name] = (ds.X, y, list(ds.feature_names))
    out.parent.mkdir(parents=True, exist_ok=True)
    start = time.monotonic()
    with open(journal, "a", encoding="utf-8") as log:
        for i, (name, method, split) in enumerate(missing, start=1):
            X, y, names = data[name]
            record = {"dataset": name, **run_task(X, y, names, study, method, split)}
            log.write(json.dumps({**record, "study_key": keys[name]}) + "\n")
            log.flush()
            os.fsync(log.fileno())
            done[(name, method, split)] = record
            if progress is not None:
                elapsed = time.monotonic() - start
                left = elapsed / i * (len(missing) - i)
                progress(
                    len(done),
                    len(tasks),
                    f"{name} {method} split {split + 1}/{study.splits}; about {left:.0f} s left",
                )
    table = pd.DataFrame([done[t] for t in tasks])
    table.to_parquet(out.with_suffix(".parquet"), index=False)
    table.to_csv(out.with_suffix(".csv"), index=False)
    return table


def compare_study(table, study: Study, alpha: float = 0.05) -> dict:
    """The statistics of a study's table, per metric of the study: the mean over splits for
    each data set and method, then :func:`fsengine.statistics.compare_methods` (ranks,
    Friedman / Iman-Davenport, Nemenyi, Wilcoxon-Holm). Empty with fewer than 2 data sets or
    2 methods.

    Returns
    -------
    dict
        metric -> RankComparison.
    """
    from fsengine.statistics import compare_methods
    from fsengine.study import HIGHER_IS_BETTER

    datasets = [d.name for d in study.datasets]
    methods = list(study.methods)
    if len(datasets) < 2 or len(methods) < 2:
        return {}
    means = table.groupby(["dataset", "method"], sort=False).mean(numeric_only=True)
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
