"""The commands of the evaluation protocol: ``evaluate`` and ``sweep``."""

from __future__ import annotations

import sys

from fsengine._compute.progress import terminal_progress
from fsengine.cli.common import (
    data_line,
    groups_text,
    start_workers,
    task_of,
    warn_repeated_splits,
    write,
)
from fsengine.cli.options import (
    method_params,
    params_per_method,
    values_of,
)
from fsengine.errors import FSEngineError
from fsengine.evaluation import evaluate, sweep_top, sweep_values
from fsengine.export.writers import (
    records_to_csv,
    summary_table,
)
from fsengine.methods.estimates import LONG_SECONDS, density_of, evaluate_seconds, is_counts
from fsengine.methods.registry import get_method

__all__ = ["cmd_evaluate", "cmd_sweep"]


def say_estimate(what: str, model, task) -> None:
    """Say on standard error how long ``what`` will take when the estimate
    (:mod:`fsengine.methods.estimates`; ``model(n, p, density, counts)``) passes
    :data:`~fsengine.methods.estimates.LONG_SECONDS`: "fsengine: estimated about 2 h ...". A
    method without a cost model says nothing."""
    try:
        found = model(task.n_samples, task.n_features, density_of(task.X), is_counts(task.X))
    except FSEngineError:
        return
    if found.seconds > LONG_SECONDS:
        sys.stderr.write(f"fsengine: {what} is estimated to take {found.text()}\n")
        sys.stderr.flush()


def cmd_evaluate(args) -> None:
    """The ``evaluate`` command: the methods compared under the protocol, the summary table
    on standard output, every split's records in ``--out``."""
    counted = (
        args.top is None
        and args.count_from not in args.methods
        and any(not get_method(m).online for m in args.methods)
    )
    # The --count-from selector sets the rankers' number of features, so its options apply
    # even when it is not itself compared.
    params = params_per_method(args, args.methods + ([args.count_from] if counted else []))
    start_workers(args)
    task = task_of(args, sparse=True)
    warn_repeated_splits(task, args.splits, args.seed)
    say_estimate(
        "the evaluation",
        lambda n, p, density, counts: evaluate_seconds(
            n,
            p,
            args.methods,
            density=density,
            counts=counts,
            params=params,
            n_splits=args.splits,
            top=args.top,
            count_from=args.count_from,
            n_jobs=args.jobs,
            whole_data=False,
        ),
        task,
    )
    result = evaluate(
        task,
        None,
        args.methods,
        n_splits=args.splits,
        seed=args.seed,
        top=args.top,
        params=params,
        progress=terminal_progress(),
        n_jobs=args.jobs,
        count_from=args.count_from,
    )
    label = get_method(args.count_from).spec.label
    rule = f"top {args.top}" if args.top else f"as many features as {label} selected on each split"
    sys.stdout.write(
        f"{data_line(task)}\n{args.splits} stratified 50/50 splits "
        f"(seed {args.seed}{groups_text(task)}); rankers: {rule}\n\n"
        + summary_table(result.summary())
    )
    for method in args.methods:
        dependence = get_method(method).order_dependence(
            task.X, task.y, None, params.get(method, {})
        )
        if dependence is not None and dependence.depends:
            print(f"fsengine: note: {dependence.sentence()}", file=sys.stderr)
    if args.out:
        write(records_to_csv(result.records, ("method", "split")), args.out)


def cmd_sweep(args) -> None:
    """The ``sweep`` command: an online selector over the values of one parameter, or
    rankers (``--methods``) over their number of features (``--top``), under the protocol."""
    start_workers(args)
    task = task_of(args, sparse=True)
    warn_repeated_splits(task, args.splits, args.seed)
    if args.methods:
        if args.k is not None or args.over or args.values:
            raise FSEngineError(
                "--k, --over and --values sweep an online selector; with "
                "--methods, sweep rankers over --top"
            )
        if not args.top:
            raise FSEngineError("--methods needs --top with the numbers of features, e.g. 1..20")
        params = params_per_method(args, args.methods)
        result = sweep_top(
            task,
            None,
            args.methods,
            args.top,
            n_splits=args.splits,
            seed=args.seed,
            params=params,
            progress=terminal_progress(),
            n_jobs=args.jobs,
        )
        rows = [
            {**r, "setting": f"{r['method']} top {r['top']}"}
            for r in result.summary(("method", "top"))
        ]
        first = ("method", "top", "split")
    else:
        if args.top:
            raise FSEngineError("--top sweeps rankers: give them with --methods")
        spec = get_method(args.method).spec
        if args.k is not None:
            if args.over not in (None, "k") or args.values or args.method != "kofsd":
                raise FSEngineError(
                    "--k sweeps K-OFSD's K; for another parameter or method "
                    "use --over NAME --values LIST"
                )
            over, values = "k", args.k
        else:
            over = args.over or ("k" if args.method == "kofsd" else None)
            if over is None or over not in spec.parameters:
                raise FSEngineError(
                    f"--over names the parameter of {args.method} to sweep: one "
                    f"of {', '.join(spec.parameters) or 'none'}"
                )
            if args.values is None and over != "k":
                raise FSEngineError(f"--over {over} needs --values, e.g. --values a,b,c")
            values = (
                values_of(spec.parameters[over], args.values) if args.values else list(range(1, 11))
            )
        params = method_params(args, args.method)
        spec.check_swept(over, params)
        result = sweep_values(
            task,
            None,
            args.method,
            over,
            values,
            n_splits=args.splits,
            seed=args.seed,
            progress=terminal_progress(),
            n_jobs=args.jobs,
            params=params,
        )
        name = "K" if over == "k" else over
        rows = [{**r, "setting": f"{name}={r[over]}"} for r in result.summary((over,))]
        first = (over, "split")
    sys.stdout.write(
        f"{data_line(task)}\n{args.splits} stratified 50/50 splits "
        f"(seed {args.seed}{groups_text(task)})\n\n" + summary_table(rows, key="setting")
    )
    if args.out:
        write(records_to_csv(result.records, first), args.out)
