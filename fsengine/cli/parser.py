"""The argument parser of ``python -m fsengine``: every command and its options."""

from __future__ import annotations

import argparse

from fsengine.cli.options import (
    Parser,
    add_backed_option,
    add_data_options,
    add_method_options,
    add_protocol_options,
    int_range,
    name_list,
)
from fsengine.evaluation import COUNT_FROM, PAPER_METHODS
from fsengine.methods.online import ORDERS
from fsengine.methods.registry import METHODS, ONLINE_METHODS
from fsengine.version import __version__

__all__ = ["build_parser"]


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``python -m fsengine``."""
    parser = Parser(
        prog="python -m fsengine",
        description="Feature selection for high-dimensional, class-imbalanced data.",
    )
    parser.add_argument("--version", action="version", version=f"fsengine {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    sub.required = True
    _add_info(sub)
    _add_select(sub)
    _add_stability(sub)
    _add_evaluate(sub)
    _add_sweep(sub)
    _add_benchmark(sub)
    _add_methods(sub)
    _add_kernels(sub)
    return parser


def _add_info(sub) -> None:
    """The ``info`` command and its options, on the subparsers ``sub``."""
    info = sub.add_parser(
        "info",
        help="show a data set's shape, classes and imbalance ratio",
        description="Show a data set's shape, class counts and imbalance ratio.",
    )
    add_data_options(info)
    add_backed_option(info)
    info.add_argument(
        "--minority",
        metavar="CLASS",
        help="also show the one-versus-rest imbalance ratio for this class",
    )


def _add_select(sub) -> None:
    """The ``select`` command and its options, on the subparsers ``sub``."""
    sel = sub.add_parser(
        "select",
        help="select features and write them as CSV",
        description="Stream the features of DATA through an online selector, or rank them "
        "with a filter ranker, and write the selected features as CSV: "
        "rank,feature,column_index,score,method,status (status: selected, or fallback "
        "when the selector selected nothing and its fallback rule listed the features).",
    )
    add_data_options(sel)
    add_backed_option(sel)
    sel.add_argument(
        "--out",
        metavar="FILE",
        default="-",
        help="output CSV file ('-' writes to standard output, the default), or an AnnData "
        "file (.h5ad): the input object (or one built from the data) with the selection in "
        "var columns and an uns entry that scanpy's rank_genes_groups getters and plots read",
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
    cluster = sel.add_argument_group(
        "Dask cluster",
        "the per-gene work (K-OFSD: each gene's dependency alone and the alpha filter; the "
        "rankers that score each gene alone) over gene blocks on Dask workers, which read a "
        "file given with --backed themselves; K-OFSD's set tests stay here, in stream order. "
        "The same selection as without. Default: neither, the run stays in this process",
    ).add_mutually_exclusive_group()
    cluster.add_argument(
        "--workers",
        type=int,
        metavar="N",
        help="on a new local Dask cluster of N single-threaded worker processes",
    )
    cluster.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="on an existing Dask cluster (tcp://HOST:PORT of 'dask scheduler'; its workers "
        "need fsengine and, with --backed, the file at the same path)",
    )
    add_method_options(sel)


def _add_stability(sub) -> None:
    """The ``stability`` command and its options, on the subparsers ``sub``."""
    stab = sub.add_parser(
        "stability",
        help="how much a selection depends on the order of the features",
        description="Run a selector over R random feature orders and report the mean "
        "pairwise Jaccard and Kuncheva indices of the selected sets.",
    )
    add_data_options(stab)
    add_backed_option(stab)
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
    add_method_options(stab, rankers=False)


def _add_evaluate(sub) -> None:
    """The ``evaluate`` command and its options, on the subparsers ``sub``."""
    ev = sub.add_parser(
        "evaluate",
        help="compare methods under the K-OFSD paper's protocol",
        description="R random stratified 50/50 splits: each method selects on the training "
        "half; 1-NN and a linear SVM trained on it are scored on the test half "
        "(G-mean, minority F1, AUC). Rankers get as many features as the "
        "--count-from selector (K-OFSD) selected on the split, or --top. Prints "
        "mean +- sd per method.",
    )
    add_data_options(ev)
    add_protocol_options(ev)
    ev.add_argument(
        "--methods",
        type=name_list,
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
    add_method_options(ev, single=False)


def _add_sweep(sub) -> None:
    """The ``sweep`` command and its options, on the subparsers ``sub``."""
    sw = sub.add_parser(
        "sweep",
        help="an online selector over values of a parameter, or rankers over top-k",
        description="Under the evaluation protocol, run an online selector for each value of "
        "one of its parameters (--over NAME --values LIST; K-OFSD over --k 1..10 "
        "by default, the paper's Figs. 2-7), or rankers for each number of "
        "features (--methods fisher,mi --top 1..20). Prints mean +- sd per value "
        "or per method and N.",
    )
    add_data_options(sw)
    add_protocol_options(sw)
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
        type=name_list,
        metavar="LIST",
        help="its values: 0.3,0.5,0.7, or a range of integers 1..10",
    )
    sw.add_argument(
        "--k",
        type=int_range,
        metavar="RANGE",
        default=None,
        help="K-OFSD's K: 1..10 (default), 3,5,7 or 7 (same as --over k --values)",
    )
    sw.add_argument(
        "--methods",
        type=name_list,
        metavar="M1,M2,...",
        help="rankers to sweep over --top (instead of an online selector)",
    )
    sw.add_argument(
        "--top",
        type=int_range,
        metavar="RANGE",
        help="numbers of features for --methods, e.g. 1..20",
    )
    sw.add_argument("--out", metavar="FILE", help="also write one CSV row per setting and split")
    add_method_options(sw, single=False)


def _add_benchmark(sub) -> None:
    """The ``benchmark`` command and its options, on the subparsers ``sub``."""
    bench = sub.add_parser(
        "benchmark",
        help="run a study: many data sets x methods x splits, with the rank statistics",
        description="Run every (data set, method, split) of a study manifest (TOML: see "
        "fsengine.evaluation.study) under the evaluation protocol, write one row per task to "
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


def _add_methods(sub) -> None:
    """The ``methods`` command and its options, on the subparsers ``sub``."""
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


def _add_kernels(sub) -> None:
    """The ``kernels`` command and its options, on the subparsers ``sub``."""
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
        help="build every family missing from the cache (about a minute on 2 cores)",
    )
