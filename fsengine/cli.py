"""Command line: ``python -m fsengine select|info ...``.

Every error is one line on standard error and exit status 2.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from fsengine import __version__
from fsengine.data import load_dataset
from fsengine.errors import FSEngineError
from fsengine.export import events_to_csv, selection_to_csv
from fsengine.online import CARD_NAMES, ORDERS
from fsengine.online._neighbours import METRICS, VARIANTS
from fsengine.runs import ONLINE_METHODS, run_selection

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
        description="Stream the features of DATA through an online selector and write the "
                    "selected features as CSV: rank,feature,column_index,score,method.")
    _add_data_options(sel)
    sel.add_argument("--minority", metavar="CLASS", required=True,
                     help="the rare class to select for (one versus rest); '2' matches a "
                          "numeric label 2")
    sel.add_argument("--method", choices=sorted(ONLINE_METHODS), default="kofsd",
                     help="selection method (default: kofsd)")
    sel.add_argument("--out", metavar="FILE", default="-",
                     help="output CSV file; '-' writes to standard output (default)")
    sel.add_argument("--trace", metavar="FILE",
                     help="also write one row per streamed feature (the selector's events)")
    order = sel.add_argument_group("feature stream")
    order.add_argument("--order", choices=ORDERS, default="natural",
                       help="arrival order of the features: column order or a random "
                            "permutation (default: natural)")
    order.add_argument("--seed", type=int, metavar="N",
                       help="seed of the random order (with --order random)")
    kofsd = sel.add_argument_group("K-OFSD (Zhou et al. 2017)")
    kofsd.add_argument("--k", type=int, default=7, metavar="K",
                       help="number of nearest neighbours (default: 7)")
    kofsd.add_argument("--alpha", type=_number, default=0.5,
                       help="relevance threshold on a feature's dependency, in [0, 1] "
                            "(default: 0.5)")
    kofsd.add_argument("--card", choices=CARD_NAMES, default="imbalanced",
                       help="card function (default: imbalanced, Algorithm 3)")
    kofsd.add_argument("--variant", choices=VARIANTS, default="reference",
                       help="reference = the authors' published code (default); paper = the "
                            "printed Algorithm 5 (x_i excluded from its neighbours, discard only "
                            "if dependency < alpha, no fallback)")
    kofsd.add_argument("--metric", choices=METRICS, default="seuclidean",
                       help="distance: standardised Euclidean (default, the authors' code) or "
                            "plain Euclidean")
    kofsd.add_argument("--gamma", type=_number, default=0.5,
                       help="threshold of --card weight (default: 0.5)")
    kofsd.add_argument("--gamma1", type=_number, default=0.75,
                       help="upper threshold of --card distance (default: 0.75)")
    kofsd.add_argument("--gamma2", type=_number, default=0.25,
                       help="lower threshold of --card distance (default: 0.25)")
    return parser


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
    result = run_selection(ds, args.minority, args.method, order=args.order, seed=args.seed,
                           k=args.k, alpha=args.alpha, card=args.card, variant=args.variant,
                           metric=args.metric, gamma=args.gamma, gamma1=args.gamma1,
                           gamma2=args.gamma2)
    _write(selection_to_csv(result.selection), args.out)
    if args.trace:
        _write(events_to_csv(result.events), args.trace)
    note = f"; {result.selection.note}" if result.selection.note != "stream order" else ""
    print(f"fsengine: {args.method} selected {len(result.selection)} of {ds.n_features} features "
          f"in {result.seconds:.2f} s{note}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status (0, or 2 on any error)."""
    try:
        args = build_parser().parse_args(argv)
        {"info": _cmd_info, "select": _cmd_select}[args.command](args)
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
