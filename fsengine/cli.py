"""Command line: ``python -m fsengine select|info ...``.

Every error is one line on standard error and exit status 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from fsengine.data import load_dataset
from fsengine.errors import FSEngineError
from fsengine.evaluation import COUNT_FROM, PAPER_METHODS, evaluate, sweep_top, sweep_values
from fsengine.export import (
    events_to_csv,
    records_to_csv,
    selection_to_csv,
    stability_to_csv,
    summary_table,
)
from fsengine.methods import METHODS, ONLINE_METHODS, REGISTRY, get_method
from fsengine.online import ORDERS
from fsengine.progress import logged_progress, terminal_progress
from fsengine.runs import run_selection
from fsengine.spec import Param
from fsengine.stability import order_stability
from fsengine.task import Task
from fsengine.version import __version__

EXIT_ERROR = 2


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (argparse prints the usage block by default)."""

    def error(self, message):
        raise FSEngineError(f"{message} (see {self.prog} --help)")


def _add_data_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "data",
        metavar="DATA",
        help="CSV, TSV, gzip-compressed CSV/TSV or Parquet file; samples in rows",
    )
    p.add_argument(
        "--label",
        metavar="COL",
        help="label column (default: a column named label/class/target, any case; "
        "else the last non-numeric column; else the last column)",
    )
    p.add_argument(
        "--transpose",
        action="store_true",
        help="the file has genes in rows and samples in columns (first column = "
        "gene names, one row = the labels)",
    )
    p.add_argument(
        "--drop-constant",
        action="store_true",
        help="drop features that have one value over all samples",
    )


#: Command-line words for the run-level parameters and loader options errors name.
RUN_FLAGS = {
    "minority": "--minority",
    "label": "--label",
    "transpose": "--transpose",
    "drop_constant": "--drop-constant",
    "method": "--method",
    "order": "--order",
    "seed": "--seed",
    "top": "--top",
    "count_from": "--count-from",
    "orders": "--orders",
    "methods": "--methods",
}


def cli_words(name: str) -> str:
    """The command line's flag for a library parameter or option named in an error."""
    if name in RUN_FLAGS:
        return RUN_FLAGS[name]
    for method in REGISTRY.values():
        if name in method.spec.parameters:
            return method.spec.parameters[name].cli_flag
    return "--" + name.replace("_", "-")


@dataclass(frozen=True)
class MethodOption:
    """One command-line flag of the method parameters, computed from the specs: the
    parameters (method name -> Param) that share it."""

    flag: str
    params: dict[str, Param]

    @property
    def dest(self) -> str:
        return "param_" + self.flag[2:].replace("-", "_")

    @property
    def methods(self) -> tuple[str, ...]:
        return tuple(self.params)

    def keywords(self) -> dict:
        """argparse keywords: type or choices, and a help computed from the specs."""
        first = next(iter(self.params.values()))
        kinds = {p.kind for p in self.params.values()}
        if len(kinds) > 1:
            raise RuntimeError(f"{self.flag} has parameters of different kinds: {kinds}")
        keywords: dict = {"default": None}
        if first.kind == "choice":
            keywords["choices"] = list(
                dict.fromkeys(c for p in self.params.values() for c in p.choices)
            )
        elif first.kind == "bool":
            keywords["action"] = argparse.BooleanOptionalAction
        else:
            keywords["type"] = _parser_of(first)
            keywords["metavar"] = first.name.upper()
        helps = list(dict.fromkeys(p.help for p in self.params.values()))
        if len(helps) == 1:
            text = helps[0]
        else:
            text = "; ".join(f"{m}: {p.help}" for m, p in self.params.items())
        if first.kind == "choice":
            described = {c: d for p in self.params.values() for c, d in p.choices.items()}
            text += " (" + "; ".join(f"{c} = {d}" for c, d in described.items()) + ")"
        by_default: dict[str, list[str]] = {}
        for m, p in self.params.items():
            shown = p.none_text if getattr(p, "none", False) and p.default is None else p.default
            by_default.setdefault(str(shown), []).append(m)
        if len(by_default) == 1:
            text += f" (default: {next(iter(by_default))})"
        else:
            text += (
                " (default: "
                + "; ".join(f"{d} for {', '.join(ms)}" for d, ms in by_default.items())
                + ")"
            )
        keywords["help"] = text.replace("%", "%%") + f" [--method {'|'.join(self.methods)}]"
        return keywords


def _parser_of(param: Param):
    """argparse ``type=`` for a parameter: its ``parse``, with argparse's message."""

    def parse(text: str):
        try:
            return param.parse(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{text!r} is not a valid {param.range_text()}"
            ) from None

    parse.__name__ = param.kind
    return parse


def method_options() -> list[MethodOption]:
    """Every method parameter's flag, computed from the registry: a flag that several
    methods' parameters share is one option (``--bins`` for cie-osfs, hellinger, mi, d-mi)."""
    flags: dict[str, dict[str, Param]] = {}
    for name, method in REGISTRY.items():
        for param in method.spec.parameters.values():
            flags.setdefault(param.cli_flag, {})[name] = param
    return [MethodOption(flag, params) for flag, params in flags.items()]


def _add_method_options(
    p: argparse.ArgumentParser, rankers: bool = True, single: bool = True, default: str = "kofsd"
) -> None:
    """--minority and --method (when ``single``) and every method's own options but
    those whose flag the command defines itself (``--seed``, ``--top``)."""
    methods = list(METHODS) if rankers else list(ONLINE_METHODS)
    if single:
        p.add_argument(
            "--minority",
            metavar="CLASS",
            help="the rare class to select for (one versus rest); '2' matches a numeric label 2 "
            "(default: the smallest class, as in the library and the dashboard)",
        )
        p.add_argument(
            "--method",
            choices=methods,
            default=default,
            metavar="METHOD",
            help="selection method: "
            + ", ".join(methods)
            + f" (default: {default}; see `methods`)",
        )
    own = set(p._option_string_actions)
    groups: dict[str, argparse._ArgumentGroup] = {}
    for option in method_options():
        if option.flag in own or not any(m in methods for m in option.methods):
            continue
        if len(option.methods) == 1:
            spec = REGISTRY[option.methods[0]].spec
            title = f"{spec.label} ({spec.name}) options"
        else:
            title = "options of several methods"
        if title not in groups:
            groups[title] = p.add_argument_group(title)
        groups[title].add_argument(option.flag, dest=option.dest, **option.keywords())


def _given_options(args):
    """(option, value) of each method option given on the command line."""
    for option in method_options():
        value = getattr(args, option.dest, None)
        if value is not None:
            yield option, value


def _params_per_method(args, methods: list[str]) -> dict[str, dict]:
    """Each given method option routed to every listed method it applies to."""
    params: dict[str, dict] = {}
    for option, value in _given_options(args):
        targets = [m for m in methods if m in option.params]
        if not targets:
            raise FSEngineError(
                f"{option.flag} applies to {'|'.join(option.methods)}, none "
                f"of which is in --methods {','.join(methods)}"
            )
        for m in targets:
            params.setdefault(m, {})[option.params[m].name] = value
    return params


def _method_params(args, method: str | None = None) -> dict:
    """The options given that apply to the chosen method; one that does not is an error."""
    method = method or args.method
    params = {}
    for option, value in _given_options(args):
        if method not in option.params:
            raise FSEngineError(
                f"{option.flag} applies to --method {'|'.join(option.methods)}, not {method}"
            )
        params[option.params[method].name] = value
    return params


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``python -m fsengine``."""
    parser = _Parser(
        prog="python -m fsengine",
        description="Feature selection for high-dimensional, class-imbalanced data.",
    )
    parser.add_argument("--version", action="version", version=f"fsengine {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True

    info = sub.add_parser(
        "info",
        help="show a data set's shape, classes and imbalance ratio",
        description="Show a data set's shape, class counts and imbalance ratio.",
    )
    _add_data_options(info)
    info.add_argument(
        "--minority",
        metavar="CLASS",
        help="also show the one-versus-rest imbalance ratio for this class",
    )

    sel = sub.add_parser(
        "select",
        help="select features and write them as CSV",
        description="Stream the features of DATA through an online selector, or rank them "
        "with a filter ranker, and write the selected features as CSV: "
        "rank,feature,column_index,score,method.",
    )
    _add_data_options(sel)
    sel.add_argument(
        "--out",
        metavar="FILE",
        default="-",
        help="output CSV file; '-' writes to standard output (default)",
    )
    sel.add_argument(
        "--trace",
        metavar="FILE",
        help="also write one row per streamed feature (the selector's events)",
    )
    order = sel.add_argument_group("feature stream")
    order.add_argument(
        "--order",
        choices=ORDERS,
        default="natural",
        help="arrival order of the features: column order or a random "
        "permutation (default: natural)",
    )
    order.add_argument(
        "--seed",
        type=int,
        metavar="N",
        help="seed of the random order (with --order random); for d-* "
        "rankers, the seed of k-means (default 0)",
    )
    sel.add_argument(
        "--top",
        type=int,
        metavar="N",
        help="rankers: how many of the best features to write (default: all, in rank order)",
    )
    _add_method_options(sel)

    stab = sub.add_parser(
        "stability",
        help="how much a selection depends on the order of the features",
        description="Run a selector over R random feature orders and report the mean "
        "pairwise Jaccard and Kuncheva indices of the selected sets.",
    )
    _add_data_options(stab)
    stab.add_argument(
        "--orders", type=int, default=10, metavar="R", help="number of random orders (default: 10)"
    )
    stab.add_argument(
        "--seed",
        type=int,
        default=0,
        metavar="N",
        help="seed of the first order; order r uses N + r (default: 0)",
    )
    stab.add_argument(
        "--out",
        metavar="FILE",
        help="also write each order's selection as CSV (order,seed,size,features)",
    )
    _add_method_options(stab, rankers=False)

    ev = sub.add_parser(
        "evaluate",
        help="compare methods under the K-OFSD paper's protocol",
        description="R random stratified 50/50 splits: each method selects on the training "
        "half; 1-NN and a linear SVM trained on it are scored on the test half "
        "(G-mean, minority F1, AUC). Rankers get as many features as the "
        "--count-from selector (K-OFSD) selected on the split, or --top. Prints "
        "mean +- sd per method.",
    )
    _add_data_options(ev)
    _add_protocol_options(ev)
    ev.add_argument(
        "--methods",
        type=_name_list,
        metavar="M1,M2,...",
        default=list(PAPER_METHODS),
        help="methods to compare (default: "
        + ",".join(PAPER_METHODS)
        + ", the paper's); any of "
        + ",".join(METHODS),
    )
    ev.add_argument(
        "--top",
        type=int,
        metavar="N",
        help="give every ranker N features (default: as many as --count-from selected)",
    )
    ev.add_argument(
        "--count-from",
        choices=ONLINE_METHODS,
        default=COUNT_FROM,
        metavar="METHOD",
        help="the online selector whose number of selected features the rankers "
        f"get on each split (default: {COUNT_FROM}, the paper's rule); any of "
        + ", ".join(ONLINE_METHODS),
    )
    ev.add_argument("--out", metavar="FILE", help="also write one CSV row per method and split")
    _add_method_options(ev, single=False)

    sw = sub.add_parser(
        "sweep",
        help="an online selector over values of a parameter, or rankers over top-k",
        description="Under the evaluation protocol, run an online selector for each value of "
        "one of its parameters (--over NAME --values LIST; K-OFSD over --k 1..10 "
        "by default, the paper's Figs. 2-7), or rankers for each number of "
        "features (--methods fisher,mi --top 1..20). Prints mean +- sd per value "
        "or per method and N.",
    )
    _add_data_options(sw)
    _add_protocol_options(sw)
    sw.add_argument(
        "--method",
        choices=ONLINE_METHODS,
        default="kofsd",
        metavar="METHOD",
        help="the online selector to sweep (default: kofsd); any of " + ", ".join(ONLINE_METHODS),
    )
    sw.add_argument(
        "--over",
        metavar="NAME",
        help="the parameter of --method to sweep (see `methods`; default: k)",
    )
    sw.add_argument(
        "--values",
        type=_name_list,
        metavar="LIST",
        help="its values: 0.3,0.5,0.7, or a range of integers 1..10",
    )
    sw.add_argument(
        "--k",
        type=_int_range,
        metavar="RANGE",
        default=None,
        help="K-OFSD's K: 1..10 (default), 3,5,7 or 7 (same as --over k --values)",
    )
    sw.add_argument(
        "--methods",
        type=_name_list,
        metavar="M1,M2,...",
        help="rankers to sweep over --top (instead of an online selector)",
    )
    sw.add_argument(
        "--top",
        type=_int_range,
        metavar="RANGE",
        help="numbers of features for --methods, e.g. 1..20",
    )
    sw.add_argument("--out", metavar="FILE", help="also write one CSV row per setting and split")
    _add_method_options(sw, single=False)

    bench = sub.add_parser(
        "benchmark",
        help="run a study: many data sets x methods x splits, with the rank statistics",
        description="Run every (data set, method, split) of a study manifest (TOML: see "
        "fsengine.study) under the evaluation protocol, write one row per task to "
        "OUT.parquet and OUT.csv as the study finishes (each task is kept as soon as it "
        "ends), and print per metric the average ranks, the Friedman test with the "
        "Iman-Davenport correction and Nemenyi's critical difference.",
    )
    bench.add_argument("manifest", help="the study manifest (.toml)")
    bench.add_argument(
        "--out",
        metavar="STEM",
        help="output stem (default: the manifest's name + _results, beside it)",
    )
    bench.add_argument(
        "--resume",
        action="store_true",
        help="continue an interrupted run: only the missing tasks are computed",
    )
    engine = bench.add_mutually_exclusive_group()
    engine.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="run the tasks on an existing Dask cluster (tcp://HOST:PORT of 'dask scheduler'; "
        "its workers need fsengine, not the data files). Default: a local Dask cluster",
    )
    engine.add_argument(
        "--jobs",
        type=int,
        default=None,
        metavar="N",
        help="worker processes of the local Dask cluster (default: every available core)",
    )
    engine.add_argument(
        "--serial",
        action="store_true",
        help="run the tasks one after the other in this process, without Dask",
    )

    met = sub.add_parser(
        "methods",
        help="list every method with its parameters",
        description="Every online selector and ranker: name, citation, what its score "
        "means, and each parameter with its flag, range, default, help and "
        "source in the paper or the authors' code.",
    )
    met.add_argument("--json", action="store_true", help="write the list as JSON")
    met.add_argument(
        "--markdown",
        action="store_true",
        help="write the parameter tables as Markdown (docs/METHODS.md)",
    )

    ker = sub.add_parser(
        "kernels",
        help="show or build the compiled kernels",
        description="The compiled kernels: each family's build for this machine and the "
        "current sources, in the cache directory (FSENGINE_CACHE_DIR, default "
        "~/.cache/fsengine/kernels). A run builds missing ones itself, once; --compile "
        "does it now (make venv runs it).",
    )
    ker.add_argument(
        "--compile",
        action="store_true",
        help="build every family missing from the cache (about 40 s on 2 cores)",
    )
    return parser


def _name_list(text: str) -> list[str]:
    names = [t.strip() for t in text.split(",") if t.strip()]
    if not names:
        raise argparse.ArgumentTypeError("give at least one name")
    return names


def _int_range(text: str) -> list[int]:
    """'1..10', '3,5,7' or '7' as a list of integers."""
    try:
        if ".." in text:
            low, high = (int(t) for t in text.split("..", 1))
            values = list(range(low, high + 1))
        else:
            values = [int(t) for t in text.split(",") if t.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a range like 1..10 or 3,5,7") from None
    if not values:
        raise argparse.ArgumentTypeError(f"{text!r} is an empty range")
    return values


def _add_protocol_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--minority",
        metavar="CLASS",
        help="the rare class (one versus rest); '2' matches a numeric label 2 (default: the "
        "smallest class, as in the library and the dashboard)",
    )
    p.add_argument(
        "--splits",
        type=int,
        default=20,
        metavar="R",
        help="random stratified 50/50 splits (default: 20)",
    )
    p.add_argument(
        "--seed", type=int, default=0, metavar="N", help="seed of the splits (default: 0)"
    )
    p.add_argument(
        "--jobs",
        type=int,
        default=None,
        metavar="N",
        help="worker processes for the splits (default: every available core; "
        "1 = serial); the results are the same whatever N",
    )


def _write(text: str, target: str) -> None:
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


def _cmd_info(args) -> None:
    ds = load_dataset(
        args.data, label=args.label, transpose=args.transpose, drop_constant=args.drop_constant
    )
    lines = [
        f"data: {ds.source}",
        f"samples: {ds.n_samples}",
        f"features: {ds.n_features}",
        f"label column: {ds.label_column}",
        "classes:",
    ]
    lines += [f"  {c}: {n}" for c, n in ds.class_counts().items()]
    label = ds.default_minority() if args.minority is None else ds.resolve_class(args.minority)
    chosen = "" if args.minority is not None else ", the smallest class"
    lines.append(f"minority class: {label}{chosen}")
    ratio = ds.imbalance_ratio(label)
    lines.append(f"imbalance ratio (majority / minority, {label} versus rest): {ratio:.2f}")
    lines.append(
        f"constant features: {len(ds.constant_features)}"
        + (f" (dropped {len(ds.dropped_features)})" if ds.dropped_features else "")
    )
    lines += [f"note: {n}" for n in ds.notes]
    sys.stdout.write("\n".join(lines) + "\n")


def _chosen_minority(minority, ds):
    """``--minority`` as given, or else the library's rule (the smallest class,
    :meth:`fsengine.data.Dataset.default_minority`), which is then said on stderr."""
    if minority is not None:
        return minority
    label = ds.default_minority()
    count = ds.class_counts()[label]
    print(
        f"fsengine: no --minority given: class {label} ({count} of {ds.n_samples} samples), "
        "the smallest, is the minority",
        file=sys.stderr,
    )
    return label


def _task_of(args) -> Task:
    """The task of the command: ``args.data`` read with the command's options, and the
    class the run is for (:func:`_chosen_minority`) versus the rest."""
    ds = load_dataset(
        args.data, label=args.label, transpose=args.transpose, drop_constant=args.drop_constant
    )
    return Task.from_dataset(ds, _chosen_minority(args.minority, ds))


def _cmd_select(args) -> None:
    task = _task_of(args)
    params = _method_params(args)
    result = run_selection(
        task,
        method=args.method,
        order=args.order,
        seed=args.seed,
        top=args.top,
        events=bool(args.trace),
        **params,
    )
    for warning in result.warnings:
        print(f"fsengine: warning: {warning}", file=sys.stderr)
    _write(selection_to_csv(result.selection), args.out)
    if args.trace:
        if not get_method(args.method).online:
            raise FSEngineError(
                f"--trace writes an online selector's steps; {args.method} is a "
                "ranker (its scores are in the selection CSV)"
            )
        _write(events_to_csv(result.events, args.method), args.trace)
    note = f"; {result.selection.note}" if result.selection.note != "stream order" else ""
    print(
        f"fsengine: {args.method} selected {len(result.selection)} of {task.n_features} features "
        f"in {result.seconds:.2f} s{note}",
        file=sys.stderr,
    )


def _cmd_stability(args) -> None:
    params = _method_params(args)
    task = _task_of(args)
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
        _write(stability_to_csv(result), args.out)


def _data_line(task: Task) -> str:
    shape = f"{task.n_samples} x {task.n_features}"
    return (
        f"{task.source}: {shape}, minority {task.minority} ({task.n_minority} of {task.n_samples})"
    )


def _start_workers(args) -> None:
    """Start the worker processes of the splits while this process reads the data: they
    spawn and import scikit-learn (about a second) meanwhile (--jobs 1: none)."""
    if args.jobs != 1 and args.splits > 1 and Path(args.data).is_file():
        from fsengine.parallel import warm_up

        warm_up(args.jobs, modules=("fsengine.evaluation",))


def _cmd_evaluate(args) -> None:
    _start_workers(args)
    task = _task_of(args)
    counted = (
        args.top is None
        and args.count_from not in args.methods
        and any(not get_method(m).online for m in args.methods)
    )
    # The --count-from selector sets the rankers' number of features, so its options apply
    # even when it is not itself compared.
    params = _params_per_method(args, args.methods + ([args.count_from] if counted else []))
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
        f"{_data_line(task)}\n{args.splits} stratified 50/50 splits "
        f"(seed {args.seed}); rankers: {rule}\n\n" + summary_table(result.summary())
    )
    if args.out:
        _write(records_to_csv(result.records, ("method", "split")), args.out)


def _cmd_benchmark(args) -> None:
    from fsengine.benchmark import compare_study, journal_path, read_journal, run_study
    from fsengine.study import load_manifest

    study = load_manifest(args.manifest)
    manifest = Path(args.manifest)
    out = Path(args.out) if args.out else manifest.with_name(manifest.stem + "_results")
    try:
        table = run_study(
            study,
            out,
            resume=args.resume,
            progress=terminal_progress() or logged_progress(),
            engine="serial" if args.serial else "dask",
            scheduler=args.scheduler,
            n_jobs=args.jobs,
        )
    except KeyboardInterrupt:
        kept = len(read_journal(journal_path(out)))
        raise KeyboardInterrupt(
            f"{kept} of {study.n_tasks} tasks are kept in {journal_path(out)}: "
            "continue with --resume"
        ) from None
    lines = [
        f"{len(study.datasets)} data sets x {len(study.methods)} methods x {study.splits} "
        f"splits (seed {study.seed}): {len(table)} tasks; table in "
        f"{out.with_suffix('.parquet')} and {out.with_suffix('.csv')}"
    ]
    for metric, result in compare_study(table, study).items():
        lines.append(
            f"\n{metric}: Friedman chi2 {result.friedman_chi2:.3f} (p {result.friedman_p:.3g}), "
            f"Iman-Davenport F {result.iman_davenport_f:.3f} (p {result.iman_davenport_p:.3g}), "
            f"Nemenyi CD {result.critical_difference:.3f} at alpha {result.alpha:g}"
        )
        lines += [
            f"  {row['method']:<16} average rank {row['average_rank']:.3f}  "
            f"mean {row[f'mean_{metric}']:.4g}"
            for row in result.rank_table()
        ]
    sys.stdout.write("\n".join(lines) + "\n")


def _values_of(param: Param, texts: list[str]) -> list:
    """--values as the parameter's values ('1..10' for an integer parameter)."""
    values = []
    for text in texts:
        if param.kind == "int" and ".." in text:
            values += _int_range(text)
            continue
        try:
            values.append(param.parse(text))
        except ValueError:
            raise FSEngineError(
                f"--values: {text!r} is not a valid {param.range_text()} for {param.cli_flag}"
            ) from None
    return values


def _cmd_sweep(args) -> None:
    _start_workers(args)
    task = _task_of(args)
    if args.methods:
        if args.k is not None or args.over or args.values:
            raise FSEngineError(
                "--k, --over and --values sweep an online selector; with "
                "--methods, sweep rankers over --top"
            )
        if not args.top:
            raise FSEngineError("--methods needs --top with the numbers of features, e.g. 1..20")
        params = _params_per_method(args, args.methods)
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
                _values_of(spec.parameters[over], args.values)
                if args.values
                else list(range(1, 11))
            )
        params = _method_params(args, args.method)
        if over in params:
            raise FSEngineError(
                f"{spec.parameters[over].cli_flag} is swept: give its values "
                "with --values (or --k), not as a single option"
            )
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
        f"{_data_line(task)}\n{args.splits} stratified 50/50 splits "
        f"(seed {args.seed})\n\n" + summary_table(rows, key="setting")
    )
    if args.out:
        _write(records_to_csv(result.records, first), args.out)


def methods_description() -> list[dict]:
    """Every registered method as JSON-ready data: the ``methods --json`` output."""
    described = []
    for name, method in REGISTRY.items():
        spec = method.spec
        described.append(
            {
                "name": name,
                "label": spec.label,
                "kind": spec.kind,
                "citation": spec.citation,
                "score": spec.score,
                "set_score": spec.set_score or None,
                "actions": spec.actions or None,
                "trace_columns": list(method.trace_columns()) if method.online else None,
                "parameters": [
                    {
                        "name": p.name,
                        "flag": p.cli_flag,
                        "kind": p.kind,
                        "default": p.default,
                        "range": p.range_text(),
                        "help": p.help,
                        "source": p.source,
                        "applies_when": ({p.when[0]: list(p.when[1])} if p.when else None),
                    }
                    for p in spec.parameters.values()
                ],
            }
        )
    return described


def _md_cell(text: str) -> str:
    """Text for a Markdown table cell: a ``|`` would end the cell, so it is escaped."""
    return str(text).replace("|", "\\|")


def methods_markdown() -> str:
    """Every method's parameter table in Markdown: docs/METHODS.md, generated from the
    specs (``python -m fsengine methods --markdown > docs/METHODS.md``; a test checks it)."""
    lines = [
        "# Methods and their parameters",
        "",
        "Generated from the method specifications by `python -m fsengine methods "
        "--markdown`; do not edit by hand (a test compares this file with the specs).",
        "",
    ]
    for m in methods_description():
        lines += [
            f"## `{m['name']}`: {m['label']} ({m['kind']})",
            "",
            m["citation"] + ".",
            "",
            f"Score of a feature: {m['score']}.",
        ]
        if m["set_score"]:
            lines.append(f"Score of the selected set: {m['set_score']}.")
        if m["actions"]:
            lines += ["", "| action | meaning |", "|---|---|"]
            lines += [f"| `{a}` | {_md_cell(d)} |" for a, d in m["actions"].items()]
            lines += [
                "",
                "Trace columns of its own: "
                + (", ".join(f"`{c}`" for c in m["trace_columns"]) or "none")
                + ".",
            ]
        lines.append("")
        if m["parameters"]:
            lines += [
                "| parameter | flag | values | default | what it does | source |",
                "|---|---|---|---|---|---|",
            ]
            for p in m["parameters"]:
                when = "".join(
                    f" (only with `{k}={'|'.join(v)}`)"
                    for k, v in (p["applies_when"] or {}).items()
                )
                values = p["range"].replace(" | ", ", ")
                lines.append(
                    f"| `{p['name']}` | `{p['flag']}` | {_md_cell(values)} | "
                    f"`{p['default']}` | {_md_cell(p['help'] + when)} | {_md_cell(p['source'])} |"
                )
        else:
            lines.append("No parameters.")
        lines.append("")
    return "\n".join(lines)


def _cmd_methods(args) -> None:
    if args.markdown:
        sys.stdout.write(methods_markdown())
        return
    described = methods_description()
    if args.json:
        sys.stdout.write(json.dumps(described, indent=2) + "\n")
        return
    lines = []
    for m in described:
        lines.append(f"{m['name']}  {m['label']} ({m['kind']})")
        lines.append(f"    {m['citation']}")
        lines.append(f"    score: {m['score']}")
        if m["set_score"]:
            lines.append(f"    set score: {m['set_score']}")
        if m["actions"]:
            lines.append("    actions: " + ", ".join(m["actions"]))
        for p in m["parameters"]:
            when = "".join(
                f"; only with {k}={'|'.join(v)}" for k, v in (p["applies_when"] or {}).items()
            )
            lines.append(
                f"    {p['flag']} {p['range']} (default: {p['default']}): "
                f"{p['help']}{when} [{p['source']}]"
            )
        lines.append("")
    sys.stdout.write("\n".join(lines))


def _cmd_kernels(args) -> None:
    from fsengine._compute import kernels

    if args.compile:
        try:
            kernels.compile_kernels()
        except RuntimeError as exc:
            raise FSEngineError(str(exc)) from None
        except OSError as exc:
            raise FSEngineError(
                f"cannot write the kernels to {kernels.cache_dir()}: {exc.strerror or exc}; "
                "set FSENGINE_CACHE_DIR to a writable directory"
            ) from None
    rows = kernels.status()
    lines = [f"cache: {kernels.cache_dir()} (mode: {kernels.mode()})"]
    for row in rows:
        state = (
            f"built in {row['seconds']} s for {row['cpu']} (numba {row['numba']})"
            if row["built"]
            else "not built for the current sources"
        )
        lines.append(f"  {row['family']}: {state}")
    sys.stdout.write("\n".join(lines) + "\n")


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status (0, or 2 on any error)."""
    try:
        args = build_parser().parse_args(argv)
        commands = {
            "info": _cmd_info,
            "select": _cmd_select,
            "stability": _cmd_stability,
            "evaluate": _cmd_evaluate,
            "sweep": _cmd_sweep,
            "methods": _cmd_methods,
            "benchmark": _cmd_benchmark,
            "kernels": _cmd_kernels,
        }
        commands[args.command](args)
    except FSEngineError as exc:
        print(f"fsengine: error: {exc.describe(cli_words)}", file=sys.stderr)
        return EXIT_ERROR
    except MemoryError:
        print(
            "fsengine: error: out of memory; the data set is too large for this machine",
            file=sys.stderr,
        )
        return EXIT_ERROR
    except KeyboardInterrupt as exc:
        print("fsengine: interrupted" + (f"; {exc}" if str(exc) else ""), file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    return 0
