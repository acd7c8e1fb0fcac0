"""The commands that read one data set and select on it: ``info``, ``select``,
``stability``."""

from __future__ import annotations

import sys
from contextlib import nullcontext

import numpy as np

from fsengine._compute.cluster import dask_client
from fsengine._compute.progress import terminal_progress
from fsengine.adata import to_h5ad
from fsengine.cli.common import dataset_of, task_of, write
from fsengine.cli.options import (
    method_params,
)
from fsengine.errors import FSEngineError
from fsengine.evaluation.stability import order_stability
from fsengine.export.writers import (
    events_to_csv,
    selection_to_csv,
    stability_to_csv,
)
from fsengine.io.backed import is_zarr_store
from fsengine.methods.registry import METHODS, get_method
from fsengine.methods.runs import run_selection

__all__ = ["cmd_info", "cmd_select", "cmd_stability"]


def cmd_info(args) -> None:
    """The ``info`` command: a data set's shape, label column, classes, minority class,
    imbalance ratio, constant features and the reader's notes."""
    ds = dataset_of(args, sparse=True)
    lines = [
        f"data: {ds.source}",
        f"samples: {ds.n_samples}",
        f"features: {ds.n_features}",
        f"label column: {ds.label_column}",
        "classes:",
    ]
    lines += [f"  {c}: {n}" for c, n in ds.class_counts().items()]
    label = ds.default_minority() if args.minority is None else ds.resolve_class(args.minority)
    reason = ds.default_minority_reason()
    chosen = (
        ""
        if args.minority is not None
        else f", the default. {reason}"
        if reason
        else ", the smallest class"
    )
    lines.append(f"minority class: {label}{chosen}")
    ratio = ds.imbalance_ratio(label)
    lines.append(f"imbalance ratio (majority / minority, {label} versus rest): {ratio:.2f}")
    lines.append(
        f"constant features: {len(ds.constant_features)}"
        + (f" (dropped {len(ds.dropped_features)})" if ds.dropped_features else "")
    )
    lines += [f"note: {n}" for n in ds.notes]
    sys.stdout.write("\n".join(lines) + "\n")


def _cluster(args):
    """The Dask client that ``--workers`` or ``--scheduler`` ask for (a context), or a
    context of None when neither is given."""
    if args.workers is None and args.scheduler is None:
        return nullcontext()
    if args.workers is not None and args.workers < 1:
        raise FSEngineError(f"--workers must be 1 or more, got {args.workers}")
    if args.trace:
        raise FSEngineError(
            "--trace is written by a run in this process only; leave out --workers/--scheduler"
        )
    if not get_method(args.method).on_dask:
        on_dask = ", ".join(name for name in METHODS if get_method(name).on_dask)
        raise FSEngineError(
            f"{args.method} runs in this process only; on Dask (--workers, --scheduler): {on_dask}"
        )
    return dask_client(args.scheduler, args.workers)


def cmd_select(args) -> None:
    """The ``select`` command: one method's selection, written as CSV or into an AnnData
    file (``--out``), its steps with ``--trace``, on Dask with ``--workers``/``--scheduler``."""
    params = method_params(args)  # options checked before the data are read
    if args.trace and not get_method(args.method).online:
        raise FSEngineError(
            f"--trace writes an online selector's steps; {args.method} is a "
            "ranker (its scores are in the selection CSV)"
        )
    task = task_of(args, sparse=True)
    with _cluster(args) as client:
        result = run_selection(
            task,
            method=args.method,
            order=args.order,
            seed=args.seed,
            top=args.top,
            events=bool(args.trace),
            client=client,
            **params,
        )
    for warning in result.warnings:
        print(f"fsengine: warning: {warning}", file=sys.stderr)
    if str(args.out).lower().endswith(".h5ad"):  # the AnnData object, with the selection
        is_h5ad = str(args.data).lower().endswith(".h5ad") or is_zarr_store(args.data)
        to_h5ad(
            task,
            result.selection,
            args.out,
            source=args.data if is_h5ad else None,
            params=result.params,
        )
    else:
        write(selection_to_csv(result.selection), args.out)
    if args.trace:
        write(events_to_csv(result.events, args.method), args.trace)
    selection = result.selection
    dependence = get_method(args.method).order_dependence(task.X, task.y, selection, params)
    if dependence is not None and dependence.depends:
        print(f"fsengine: note: {dependence.sentence()}", file=sys.stderr)
    if selection.fallback:
        print(
            f"fsengine: {selection.fallback_text()} ({task.n_features} features streamed "
            f"in {result.seconds:.2f} s)",
            file=sys.stderr,
        )
        return
    note = f"; {selection.note}" if selection.note != "stream order" else ""
    print(
        f"fsengine: {args.method} selected {len(selection)} of {task.n_features} features "
        f"in {result.seconds:.2f} s{note}",
        file=sys.stderr,
    )


def cmd_stability(args) -> None:
    """The ``stability`` command: a selector over random feature orders, the mean pairwise
    Jaccard and Kuncheva indices of its selections (each order's in ``--out``)."""
    params = method_params(args)
    task = task_of(args, sparse=True)
    result = order_stability(
        task,
        method=args.method,
        orders=args.orders,
        seed=args.seed,
        progress=terminal_progress(),
        **params,
    )
    sizes = result.sizes
    lines = [
        f"method: {args.method}" + "".join(f", {k}={v}" for k, v in params.items()),
        f"data: {task.source} ({task.n_samples} x {task.n_features}), minority {task.minority}",
        f"orders: {len(result.seeds)} random (seeds {result.seeds[0]}..{result.seeds[-1]})",
        f"mean pairwise Jaccard: {result.mean_jaccard:.4f}",
        f"mean pairwise Kuncheva index: {result.mean_kuncheva:.4f}",
        f"selected features per order: mean {np.mean(sizes):.1f} "
        f"(min {min(sizes)}, max {max(sizes)})",
    ]
    sys.stdout.write("\n".join(lines) + "\n")
    if args.out:
        write(stability_to_csv(result), args.out)
