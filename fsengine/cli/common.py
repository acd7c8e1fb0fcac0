"""What the commands share: reading the task, writing output, starting workers."""

from __future__ import annotations

import sys
from pathlib import Path

from fsengine.cli.options import preprocess_params
from fsengine.data.dataset import Dataset, load_dataset
from fsengine.data.preprocess import counts_warning, looks_like_counts, looks_unlogged, preprocess
from fsengine.data.task import Task
from fsengine.errors import FSEngineError
from fsengine.evaluation.group_splits import plan_group_splits, repeated_splits_warning

__all__ = [
    "data_line",
    "dataset_of",
    "groups_text",
    "start_workers",
    "task_of",
    "warn_repeated_splits",
    "write",
]


def write(text: str, target: str) -> None:
    """Write ``text`` to the file ``target`` (UTF-8, lines as given), or to standard output
    for ``-``; a folder or an unwritable path is an FSEngineError naming it."""
    if target == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    path = Path(target)
    if path.is_dir():
        raise FSEngineError(f"cannot write {target}: it is a directory; give a file name")
    try:
        path.write_text(text, encoding="utf-8", newline="")
    except OSError as exc:
        raise FSEngineError(f"cannot write {target}: {exc.strerror or exc}") from None


def chosen_minority(minority, ds):
    """``--minority`` as given, or else the library's rule (the smallest class the 50/50
    protocol can use, :meth:`fsengine.data.dataset.Dataset.default_minority`), which is then said
    on stderr with its reason when it is not the smallest class."""
    if minority is not None:
        return minority
    label = ds.default_minority()
    count = ds.class_counts()[label]
    reason = ds.default_minority_reason()
    which = "the default" if reason else "the smallest"
    print(
        f"fsengine: no --minority given: class {label} ({count} of {ds.n_samples} samples), "
        f"{which}, is the minority" + (f". {reason}" if reason else ""),
        file=sys.stderr,
    )
    return label


def dataset_of(args, sparse: bool = False) -> Dataset:
    """``args.data`` read with the command's loader and preprocessing options; a note on
    stderr when the values look unlogged or like raw counts and were not preprocessed (a
    warning instead when the command runs a ranker that assumes normalised values).

    Parameters
    ----------
    args : argparse.Namespace
    sparse : bool
        Keep a sparse matrix sparse (every command that runs methods: they read a block of
        columns at a time, the classifiers only the selected columns).

    An AnnData file's matrix stays on disk with ``--backed``, and by default when it is
    large (``args.backed`` None: :func:`fsengine.io.h5ad.wants_backed`), for the commands
    that have the option (info, select, stability).
    """
    ds = preprocess(
        load_dataset(
            args.data,
            label=args.label,
            transpose=args.transpose,
            drop_constant=args.drop_constant,
            samples=args.samples,
            sample_groups=args.sample_groups,
            layer=args.layer,
            gene_names=args.gene_names,
            sparse=sparse,
            backed=getattr(args, "backed", False),
        ),
        preprocess_params(args),
    )
    unlogged = None if ds.preprocessing else looks_unlogged(ds.X)
    if unlogged:
        print(f"fsengine: note: {unlogged}", file=sys.stderr)
    counts = None if ds.preprocessing or unlogged else looks_like_counts(ds.X)
    if counts:  # one line: the warning for the rankers that assume normalised values, or the note
        warning = counts_warning(ds.X, _methods_of(args))
        print(f"fsengine: {'warning' if warning else 'note'}: {warning or counts}", file=sys.stderr)
    return ds


def _methods_of(args) -> list[str]:
    """The methods a command runs (``--method``, ``--methods``), for the data checks."""
    return [*(getattr(args, "methods", None) or ()), *filter(None, [getattr(args, "method", None)])]


def task_of(args, sparse: bool = False) -> Task:
    """The task of the command: ``args.data`` read with the command's options
    (:func:`dataset_of`, ``sparse`` as there), and the class the run is for
    (:func:`chosen_minority`) versus the rest."""
    ds = dataset_of(args, sparse)
    return Task.from_dataset(ds, chosen_minority(args.minority, ds))


def warn_repeated_splits(task: Task, n_splits: int, seed: int) -> None:
    """One line on stderr when the task's sample groups allow fewer distinct splits than
    ``n_splits`` (:func:`fsengine.evaluation.group_splits.repeated_splits_warning`)."""
    if task.groups is None:
        return
    warning = repeated_splits_warning(task.y, task.groups, n_splits, seed)
    if warning:
        print(f"fsengine: warning: {warning}", file=sys.stderr)


def groups_text(task: Task) -> str:
    """The splits' groups for the header of ``evaluate`` and ``sweep``: ", each 'donor'
    group on one side of 66 distinct splits"
    (:func:`fsengine.evaluation.group_splits.plan_group_splits`); "" without groups."""
    if task.groups is None:
        return ""
    column = task.dataset.groups_column if task.dataset is not None else ""
    allowed = plan_group_splits(task.y, task.groups).count_text
    return f", each {f'{column!r} ' if column else ''}group on one side of {allowed}"


def data_line(task: Task) -> str:
    """The line that heads a command's report: the data's source, its shape and the
    minority class with its count."""
    shape = f"{task.n_samples} x {task.n_features}"
    return (
        f"{task.source}: {shape}, minority {task.minority} ({task.n_minority} of {task.n_samples})"
    )


def start_workers(args) -> None:
    """Start the worker processes of the splits while this process reads the data: they
    spawn and import scikit-learn (about a second) meanwhile (--jobs 1: none)."""
    if args.jobs != 1 and args.splits > 1 and Path(args.data).is_file():
        from fsengine._compute.parallel import warm_up

        warm_up(args.jobs, modules=("fsengine.evaluation",))
