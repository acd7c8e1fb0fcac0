"""Command line: ``python -m fsengine select|info ...``.

Every error is one line on standard error and exit status 2.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from fsengine import __version__
from fsengine.data import load_dataset
from fsengine.errors import FSEngineError
from fsengine.evaluation import PAPER_METHODS, evaluate, sweep_k, sweep_top
from fsengine.export import (events_to_csv, records_to_csv, selection_to_csv, stability_to_csv,
                             summary_table)
from fsengine.progress import terminal_progress
from fsengine.online import CARD_NAMES, ORDERS, k_warning
from fsengine.discretise import BINNINGS
from fsengine.online._cieosfs import TESTS
from fsengine.online._neighbours import METRICS, VARIANTS
from fsengine.online._ofsfpd import RELEVANCE
from fsengine.rankers import ESTIMATORS, RANKERS
from fsengine.runs import METHODS, ONLINE_METHODS, run_selection
from fsengine.stability import order_stability

EXIT_ERROR = 2


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (argparse prints the usage block by default)."""

    def error(self, message):
        raise FSEngineError(f"{message} (see {self.prog} --help)")


def _add_data_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("data", metavar="DATA",
                   help="CSV, TSV, gzip-compressed CSV/TSV or Parquet file; samples in rows")
    p.add_argument("--label", metavar="COL",
                   help="label column (default: a column named label/class/target, any case; "
                        "else the last non-numeric column; else the last column)")
    p.add_argument("--transpose", action="store_true",
                   help="the file has genes in rows and samples in columns (first column = "
                        "gene names, one row = the labels)")
    p.add_argument("--drop-constant", action="store_true",
                   help="drop features that have one value over all samples")


def _number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    return value


KOFSD_ONLY, CIE_ONLY = ("kofsd",), ("cie-osfs",)
D_RANKERS = ("d-fisher", "d-mi", "d-pcc", "d-s2n")

#: Method options: (group, flag, parameter name, methods it applies to, argparse keywords).
#: Defaults live in the selectors and rankers: an option left out is not passed.
METHOD_OPTIONS = [
    ("K-OFSD (Zhou et al. 2017)", "--k", "k", KOFSD_ONLY,
     dict(type=int, metavar="K", help="number of nearest neighbours (default: 7)")),
    ("K-OFSD (Zhou et al. 2017)", "--alpha", "alpha", KOFSD_ONLY,
     dict(type=_number, help="relevance threshold on a feature's dependency, in [0, 1] "
                             "(default: 0.5)")),
    ("K-OFSD (Zhou et al. 2017)", "--card", "card", KOFSD_ONLY,
     dict(choices=CARD_NAMES, help="card function (default: imbalanced, Algorithm 3)")),
    ("K-OFSD (Zhou et al. 2017)", "--variant", "variant", KOFSD_ONLY,
     dict(choices=VARIANTS, help="reference = the authors' published code (default); paper = "
                                 "the printed Algorithm 5 (x_i excluded from its neighbours, "
                                 "discard only if dependency < alpha, no fallback)")),
    ("K-OFSD (Zhou et al. 2017)", "--metric", "metric", KOFSD_ONLY,
     dict(choices=METRICS, help="distance: standardised Euclidean (default, the authors' "
                                "code) or plain Euclidean")),
    ("K-OFSD (Zhou et al. 2017)", "--gamma", "gamma", KOFSD_ONLY,
     dict(type=_number, help="threshold of --card weight (default: 0.5)")),
    ("K-OFSD (Zhou et al. 2017)", "--gamma1", "gamma1", KOFSD_ONLY,
     dict(type=_number, help="upper threshold of --card distance (default: 0.75)")),
    ("K-OFSD (Zhou et al. 2017)", "--gamma2", "gamma2", KOFSD_ONLY,
     dict(type=_number, help="lower threshold of --card distance (default: 0.25)")),
    ("OFS-FPD (Hashemi et al.)", "--relevance", "relevance", ("ofs-fpd",),
     dict(choices=RELEVANCE, help="positive = a feature enters when corr(f, class) > 0, as "
                                  "printed (default); absolute = when |corr| > 0")),
    ("CIE-OSFS (Wang et al. 2017) and the binned rankers", "--bins", "bins",
     ("cie-osfs", "hellinger", "mi", "d-mi"),
     dict(type=int, help="bins per feature (default: 3 for cie-osfs, 10 for hellinger and "
                         "--estimator binned)")),
    ("CIE-OSFS (Wang et al. 2017) and the binned rankers", "--binning", "binning",
     ("cie-osfs", "mi", "d-mi"),
     dict(choices=BINNINGS, help="quantile = equal-frequency bins (default); uniform = "
                                 "equal-width")),
    ("CIE-OSFS (Wang et al. 2017) and the binned rankers", "--test", "test", CIE_ONLY,
     dict(choices=TESTS, help="independence test: g = G-test (default), chi2 = Pearson's "
                              "chi-square")),
    ("CIE-OSFS (Wang et al. 2017) and the binned rankers", "--significance", "significance",
     CIE_ONLY, dict(type=_number, help="a feature is relevant when the test's p-value is "
                                       "below this (default: 0.05)")),
    ("rankers (Yin et al. 2013; K-OFSD paper section 4.4)", "--estimator", "estimator",
     ("mi", "d-mi"), dict(choices=ESTIMATORS, help="MI estimator: knn = Ross's nearest-"
                                                   "neighbour estimator, scikit-learn's "
                                                   "(default); binned = plug-in on bins")),
    ("rankers (Yin et al. 2013; K-OFSD paper section 4.4)", "--neighbors", "n_neighbors",
     ("mi", "d-mi", "relieff"), dict(type=int, help="neighbours: kNN MI (default 3) or "
                                                    "ReliefF's hits and misses (default 7)")),
    ("rankers (Yin et al. 2013; K-OFSD paper section 4.4)", "--clusters", "n_clusters",
     D_RANKERS, dict(type=int, help="k-means clusters of the majority class (default: "
                                    "majority / minority, rounded half up)")),
]


def _add_method_options(p: argparse.ArgumentParser, rankers: bool = True,
                        single: bool = True, skip: tuple[str, ...] = ()) -> None:
    """--minority and --method (when ``single``) and every method's own options but
    those in ``skip`` (flags the command defines itself)."""
    if single:
        p.add_argument("--minority", metavar="CLASS", required=True,
                       help="the rare class to select for (one versus rest); '2' matches a "
                            "numeric label 2")
        methods = list(METHODS) if rankers else list(ONLINE_METHODS)
        p.add_argument("--method", choices=methods, default="kofsd", metavar="METHOD",
                       help="selection method: " + ", ".join(methods) + " (default: kofsd)")
    groups = {}
    for group, flag, _, applies, keywords in METHOD_OPTIONS:
        if flag in skip or (not rankers and not set(applies) & set(ONLINE_METHODS)):
            continue
        if group not in groups:
            groups[group] = p.add_argument_group(group)
        help_text = f"{keywords['help']} [--method {'|'.join(applies)}]"
        groups[group].add_argument(flag, default=None, **{**keywords, "help": help_text})


def _given_options(args, skip: tuple[str, ...] = ()):
    """(flag, parameter name, methods it applies to, value) of each method option given."""
    for _, flag, name, applies, _ in METHOD_OPTIONS:
        value = None if flag in skip else getattr(args, flag[2:].replace("-", "_"), None)
        if value is not None:
            yield flag, name, applies, value


def _params_per_method(args, methods: list[str], skip: tuple[str, ...] = ()) -> dict[str, dict]:
    """Each given method option (but ``skip``), routed to every listed method it applies to."""
    params: dict[str, dict] = {}
    for flag, name, applies, value in _given_options(args, skip):
        targets = [m for m in methods if m in applies]
        if not targets:
            raise FSEngineError(f"{flag} applies to {'|'.join(applies)}, none of which is in "
                                f"--methods {','.join(methods)}")
        for m in targets:
            params.setdefault(m, {})[name] = value
    return params


def _method_params(args) -> dict:
    """The options given that apply to the chosen method; one that does not is an error."""
    params = {}
    for flag, name, applies, value in _given_options(args):
        if args.method not in applies:
            raise FSEngineError(f"{flag} applies to --method {'|'.join(applies)}, "
                                f"not {args.method}")
        params[name] = value
    return params


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``python -m fsengine``."""
    parser = _Parser(prog="python -m fsengine",
                     description="Feature selection for high-dimensional, class-imbalanced data.")
    parser.add_argument("--version", action="version", version=f"fsengine {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True

    info = sub.add_parser("info", help="show a data set's shape, classes and imbalance ratio",
                          description="Show a data set's shape, class counts and imbalance ratio.")
    _add_data_options(info)
    info.add_argument("--minority", metavar="CLASS",
                      help="also show the one-versus-rest imbalance ratio for this class")

    sel = sub.add_parser(
        "select", help="select features and write them as CSV",
        description="Stream the features of DATA through an online selector, or rank them "
                    "with a filter ranker, and write the selected features as CSV: "
                    "rank,feature,column_index,score,method.")
    _add_data_options(sel)
    sel.add_argument("--out", metavar="FILE", default="-",
                     help="output CSV file; '-' writes to standard output (default)")
    sel.add_argument("--trace", metavar="FILE",
                     help="also write one row per streamed feature (the selector's events)")
    order = sel.add_argument_group("feature stream")
    order.add_argument("--order", choices=ORDERS, default="natural",
                       help="arrival order of the features: column order or a random "
                            "permutation (default: natural)")
    order.add_argument("--seed", type=int, metavar="N",
                       help="seed of the random order (with --order random); for d-* "
                            "rankers, the seed of k-means (default 0)")
    sel.add_argument("--top", type=int, metavar="N",
                     help="rankers: how many of the best features to write (default: all, "
                          "in rank order)")
    _add_method_options(sel)

    stab = sub.add_parser(
        "stability", help="how much a selection depends on the order of the features",
        description="Run a selector over R random feature orders and report the mean "
                    "pairwise Jaccard and Kuncheva indices of the selected sets.")
    _add_data_options(stab)
    stab.add_argument("--orders", type=int, default=10, metavar="R",
                      help="number of random orders (default: 10)")
    stab.add_argument("--seed", type=int, default=0, metavar="N",
                      help="seed of the first order; order r uses N + r (default: 0)")
    stab.add_argument("--out", metavar="FILE",
                      help="also write each order's selection as CSV (order,seed,size,features)")
    _add_method_options(stab, rankers=False)

    ev = sub.add_parser(
        "evaluate", help="compare methods under the K-OFSD paper's protocol",
        description="R random stratified 50/50 splits: each method selects on the training "
                    "half; 1-NN and a linear SVM trained on it are scored on the test half "
                    "(G-mean, minority F1, AUC). Rankers get as many features as K-OFSD "
                    "selected on the split, or --top. Prints mean +- sd per method.")
    _add_data_options(ev)
    _add_protocol_options(ev)
    ev.add_argument("--methods", type=_name_list, metavar="M1,M2,...",
                    default=list(PAPER_METHODS),
                    help="methods to compare (default: " + ",".join(PAPER_METHODS)
                         + ", the paper's); any of " + ",".join(METHODS))
    ev.add_argument("--top", type=int, metavar="N",
                    help="give every ranker N features (default: as many as K-OFSD selected)")
    ev.add_argument("--out", metavar="FILE", help="also write one CSV row per method and split")
    _add_method_options(ev, single=False)

    sw = sub.add_parser(
        "sweep", help="K-OFSD over a range of K, or rankers over a range of top-k",
        description="Under the evaluation protocol, run K-OFSD for each K (--k 1..10, the "
                    "paper's Figs. 2-7), or rankers for each number of features (--methods "
                    "fisher,mi --top 1..20). Prints mean +- sd per K or per method and N.")
    _add_data_options(sw)
    _add_protocol_options(sw)
    sw.add_argument("--k", type=_int_range, metavar="RANGE", default=None,
                    help="values of K: 1..10 (default), 3,5,7 or 7")
    sw.add_argument("--methods", type=_name_list, metavar="M1,M2,...",
                    help="rankers to sweep over --top (instead of K-OFSD over --k)")
    sw.add_argument("--top", type=_int_range, metavar="RANGE",
                    help="numbers of features for --methods, e.g. 1..20")
    sw.add_argument("--out", metavar="FILE", help="also write one CSV row per setting and split")
    _add_method_options(sw, single=False, skip=("--k",))
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
    p.add_argument("--minority", metavar="CLASS", required=True,
                   help="the rare class (one versus rest); '2' matches a numeric label 2")
    p.add_argument("--splits", type=int, default=20, metavar="R",
                   help="random stratified 50/50 splits (default: 20)")
    p.add_argument("--seed", type=int, default=0, metavar="N",
                   help="seed of the splits (default: 0)")
    p.add_argument("--jobs", type=int, default=None, metavar="N",
                   help="worker processes for the splits (default: every available core; "
                        "1 = serial); the results are the same whatever N")


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
    ds = load_dataset(args.data, label=args.label, transpose=args.transpose,
                      drop_constant=args.drop_constant)
    lines = [f"data: {ds.source}", f"samples: {ds.n_samples}", f"features: {ds.n_features}",
             f"label column: {ds.label_column}", "classes:"]
    lines += [f"  {c}: {n}" for c, n in ds.class_counts().items()]
    lines.append(f"imbalance ratio (largest / smallest class): {ds.imbalance_ratio():.2f}")
    if args.minority is not None:
        label = ds.resolve_class(args.minority)
        lines.append(f"imbalance ratio ({label} versus rest): {ds.imbalance_ratio(label):.2f}")
    lines.append(f"constant features: {len(ds.constant_features)}"
                 + (f" (dropped {len(ds.dropped_features)})" if ds.dropped_features else ""))
    lines += [f"note: {n}" for n in ds.notes]
    sys.stdout.write("\n".join(lines) + "\n")


def _cmd_select(args) -> None:
    ds = load_dataset(args.data, label=args.label, transpose=args.transpose,
                      drop_constant=args.drop_constant)
    params = _method_params(args)
    result = run_selection(ds, args.minority, args.method, order=args.order, seed=args.seed,
                           top=args.top, events=bool(args.trace), **params)
    if args.method == "kofsd":
        warning = k_warning(ds.binarise(args.minority), result.params["k"])
        if warning:
            print(f"fsengine: warning: {warning}", file=sys.stderr)
    _write(selection_to_csv(result.selection), args.out)
    if args.trace:
        _write(events_to_csv(result.events), args.trace)
    note = f"; {result.selection.note}" if result.selection.note != "stream order" else ""
    print(f"fsengine: {args.method} selected {len(result.selection)} of {ds.n_features} features "
          f"in {result.seconds:.2f} s{note}", file=sys.stderr)


def _cmd_stability(args) -> None:
    params = _method_params(args)
    ds = load_dataset(args.data, label=args.label, transpose=args.transpose,
                      drop_constant=args.drop_constant)
    result = order_stability(ds, args.minority, args.method, orders=args.orders, seed=args.seed,
                             **params)
    sizes = result.sizes
    lines = [f"method: {args.method}" + "".join(f", {k}={v}" for k, v in params.items()),
             f"data: {ds.source} ({ds.n_samples} x {ds.n_features}), minority {args.minority}",
             f"orders: {len(result.seeds)} random (seeds {result.seeds[0]}..{result.seeds[-1]})",
             f"mean pairwise Jaccard: {result.mean_jaccard:.4f}",
             f"mean pairwise Kuncheva index: {result.mean_kuncheva:.4f}",
             f"selected features per order: mean {np.mean(sizes):.1f} "
             f"(min {min(sizes)}, max {max(sizes)})"]
    sys.stdout.write("\n".join(lines) + "\n")
    if args.out:
        _write(stability_to_csv(result), args.out)


def _data_line(ds, minority) -> str:
    label = ds.resolve_class(minority)
    count = ds.class_counts()[label]
    return f"{ds.source}: {ds.n_samples} x {ds.n_features}, minority {label} ({count} of {ds.n_samples})"


def _cmd_evaluate(args) -> None:
    ds = load_dataset(args.data, label=args.label, transpose=args.transpose,
                      drop_constant=args.drop_constant)
    counted_by_kofsd = (args.top is None and "kofsd" not in args.methods
                        and any(m in RANKERS for m in args.methods))
    # K-OFSD sets the rankers' number of features, so its options apply even when it is
    # not itself compared.
    params = _params_per_method(args, args.methods + (["kofsd"] if counted_by_kofsd else []))
    result = evaluate(ds, args.minority, args.methods, n_splits=args.splits, seed=args.seed,
                      top=args.top, params=params, progress=terminal_progress(),
                      n_jobs=args.jobs)
    rule = f"top {args.top}" if args.top else "as many features as K-OFSD selected on each split"
    sys.stdout.write(f"{_data_line(ds, args.minority)}\n{args.splits} stratified 50/50 splits "
                     f"(seed {args.seed}); rankers: {rule}\n\n"
                     + summary_table(result.summary()))
    if args.out:
        _write(records_to_csv(result.records, ("method", "split")), args.out)


def _cmd_sweep(args) -> None:
    ds = load_dataset(args.data, label=args.label, transpose=args.transpose,
                      drop_constant=args.drop_constant)
    if args.methods:
        if args.k is not None:
            raise FSEngineError("--k sweeps K-OFSD; with --methods, sweep rankers over --top")
        if not args.top:
            raise FSEngineError("--methods needs --top with the numbers of features, e.g. 1..20")
        params = _params_per_method(args, args.methods, skip=("--k",))
        result = sweep_top(ds, args.minority, args.methods, args.top, n_splits=args.splits,
                           seed=args.seed, params=params, progress=terminal_progress(),
                           n_jobs=args.jobs)
        rows = [{**r, "setting": f"{r['method']} top {r['top']}"}
                for r in result.summary(("method", "top"))]
        first = ("method", "top", "split")
    else:
        if args.top:
            raise FSEngineError("--top sweeps rankers: give them with --methods")
        params = _params_per_method(args, ["kofsd"], skip=("--k",)).get("kofsd", {})
        result = sweep_k(ds, args.minority, args.k or list(range(1, 11)), n_splits=args.splits,
                         seed=args.seed, progress=terminal_progress(), n_jobs=args.jobs,
                         **params)
        rows = [{**r, "setting": f"K={r['k']}"} for r in result.summary(("k",))]
        first = ("k", "split")
    sys.stdout.write(f"{_data_line(ds, args.minority)}\n{args.splits} stratified 50/50 splits "
                     f"(seed {args.seed})\n\n" + summary_table(rows, key="setting"))
    if args.out:
        _write(records_to_csv(result.records, first), args.out)


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status (0, or 2 on any error)."""
    try:
        args = build_parser().parse_args(argv)
        commands = {"info": _cmd_info, "select": _cmd_select, "stability": _cmd_stability,
                    "evaluate": _cmd_evaluate, "sweep": _cmd_sweep}
        commands[args.command](args)
    except FSEngineError as exc:
        print(f"fsengine: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except MemoryError:
        print("fsengine: error: out of memory; the data set is too large for this machine",
              file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("fsengine: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    return 0
