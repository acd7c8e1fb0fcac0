"""Re-measure the cost models of :mod:`fsengine.methods.estimates` on this machine.

Every registered method selects on seeded synthetic matrices over a grid of sizes: dense
continuous values and sparse log counts (a 10 % minority class with five genes up in it),
and raw single-cell counts (tests/synthetic.py, a rare type of 1 %). The median of the
repeats is fitted per method and kind of data as ``log t = b0 + bn log n + bp log p`` by
least squares (n samples, p features), with a shared ``bk log(K / K0)`` for the method's
neighbourhood size K where it has one. Sizes grow until a run takes longer than
``--max-seconds``, so slow methods are fitted on smaller matrices.
The scoring of a split (1-NN and a linear SVM on the test half) is fitted the same way, as
``_scoring``.

Run ``python benchmarks/bench_estimates.py --write --save runs.json`` to rewrite
``fsengine/methods/_estimates_fit.py`` (about 1.5 hours on two cores), ``--refit runs.json --write``
to fit saved runs again, ``--methods kofsd:ties=average --add runs.json --write`` to
measure some methods again beside the saved runs of the others; without ``--write`` it
prints the fit. A selector with a ``ties`` parameter is also measured under
``ties="average"`` (``kofsd:ties=average``), a model of its own.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from fsengine.data.task import Task  # noqa: E402
from fsengine.evaluation.metrics import score_columns  # noqa: E402
from fsengine.methods.estimates import PARAMETER_TERMS  # noqa: E402
from fsengine.methods.registry import METHODS, get_method  # noqa: E402
from fsengine.methods.runs import run_selection  # noqa: E402

OUT = ROOT / "fsengine" / "_estimates_fit.py"
SAMPLES = (200, 400, 800, 1600, 3200, 6400, 12800, 25600)
FEATURES = (100, 400, 1600)
#: The kinds of data measured: dense continuous values, sparse log counts (density 0.1),
#: and raw single-cell counts (tests/synthetic.py: about 90 % zeros, a 1 % rare type).
KINDS = ("dense", "sparse", "counts")


def matrix(n: int, p: int, kind: str, seed: int = 0) -> Task:
    """A seeded task of ``n`` x ``p``: "dense", standard normal values with a 10 %
    minority (at least 4) and genes 0-4 up in it; "counts", the single-cell counts of
    tests/synthetic.py (a rare type of about 1 %, at least 10 cells, 30 marker genes),
    as a sparse matrix, as the dashboard and the command line hold an AnnData file's;
    "sparse", the same counts normalised as the Data page suggests (log1p of counts per
    million: scanpy's normalize_total then log1p), sparse too: single-cell data as users
    hold them, marker genes that a selector keeps and tests against each other."""
    if kind in ("counts", "sparse"):
        sys.path.insert(0, str(ROOT / "tests"))
        from synthetic import RARE_TYPE, single_cell_counts

        X, obs, names = single_cell_counts(
            n_cells=n, n_genes=p, n_rare=max(10, round(187 * n / 20_000)), seed=seed
        )
        y = (obs["cell_type"] == RARE_TYPE).to_numpy().astype(np.int8)
        X = X.tocsc().astype(float)
        if kind == "sparse":
            totals = np.maximum(np.asarray(X.sum(axis=1)).ravel(), 1.0)
            X = X.multiply((1e6 / totals)[:, None]).tocsc()
            X.data = np.log1p(X.data)
        return Task.from_arrays(X, y, names)
    rng = np.random.default_rng(seed)
    y = np.zeros(n, dtype=np.int8)
    y[rng.choice(n, max(4, n // 10), replace=False)] = 1
    X = rng.normal(size=(n, p))
    X[y == 1, :5] += 1.5
    return Task.from_arrays(X, y)


def measure(method: str, task: Task, params: dict, repeats: int) -> float:
    """The median seconds of ``method``'s selection on ``task`` (no events kept, as the
    evaluation runs it); ``_scoring`` times one split's scoring of ten features."""
    times = []
    for i in range(repeats + 4):
        if i >= repeats and times[0] > 0.1:
            break  # runs shorter than 0.1 s are repeated five times
        start = time.perf_counter()
        if method == "_scoring":
            half = task.n_samples // 2
            train, test = np.arange(half), np.arange(half, task.n_samples)
            X, y = task.X, task.y
            score_columns(X[train], y[train], X[test], y[test], list(range(10)))
        else:
            run_selection(task, method=method, events=False, **params)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def fit(rows: list[dict]) -> dict:
    """The model of one method from its measured ``rows`` (kind, n, p, k_ratio, seconds).

    Per kind of data: least squares of log t on (1, log n, log p) over its runs at the
    default K, and the largest absolute residual (natural log) as its spread; the K term
    (log t against log K / K0 at one size) is shared. A coefficient of a column that does
    not vary is 0."""
    model: dict = {"kinds": {}, "bk": 0.0}
    for kind in KINDS:
        mine = [r for r in rows if r["kind"] == kind and r["k_ratio"] == 1.0]
        if not mine:
            continue
        A = np.array([[1.0, math.log(r["n"]), math.log(r["p"])] for r in mine])
        t = np.log(np.array([max(r["seconds"], 1e-5) for r in mine]))
        varies = [0] + [j for j in (1, 2) if np.ptp(A[:, j]) > 0]
        coef, *_ = np.linalg.lstsq(A[:, varies], t, rcond=None)
        full = [0.0, 0.0, 0.0]
        for j, c in zip(varies, coef):
            full[j] = float(c)
        residuals = t - A @ np.array(full)
        model["kinds"][kind] = {
            "coef": [round(c, 4) for c in full],
            "spread": round(float(np.max(np.abs(residuals))), 3),
            "max_samples": max(r["n"] for r in mine),
            "max_features": max(r["p"] for r in mine),
        }
    ks = [r for r in rows if r["k_ratio"] != 1.0 or (r["kind"] == "k")]
    if len(ks) >= 2:
        x = np.log([r["k_ratio"] for r in ks])
        y = np.log([max(r["seconds"], 1e-5) for r in ks])
        model["bk"] = round(float(np.polyfit(x, y, 1)[0]), 4)
    return model


#: The methods measured again under their order-invariant tie rule (``kofsd:ties=average``:
#: another cost, another model; :func:`fsengine.methods.estimates.model_key`).
TIE_VARIANTS = tuple(
    f"{name}:ties=average" for name in METHODS if "ties" in get_method(name).spec.parameters
)


def _method_and_params(key: str) -> tuple[str, dict]:
    """``"kofsd:ties=average"`` -> ("kofsd", {"ties": "average"})."""
    method, _, setting = key.partition(":")
    if not setting:
        return method, {}
    name, _, value = setting.partition("=")
    return method, {name: value}


def measure_method(key: str, options) -> list[dict]:
    """Every measured run of ``key`` (a method, or a method and one setting,
    ``kofsd:ties=average``): each kind and number of features, samples growing until a
    run takes longer than ``options.max_seconds``; then its K term."""
    method, fixed = _method_and_params(key)
    rows = []
    for kind in KINDS:
        for p in FEATURES:
            for n in SAMPLES:
                task = matrix(n, p, kind)
                seconds = measure(method, task, fixed, options.repeats)
                rows.append(
                    {
                        "method": key,
                        "kind": kind,
                        "n": n,
                        "p": p,
                        "k_ratio": 1.0,
                        "seconds": seconds,
                    }
                )
                print(f"{key:24s} {kind:6s} n={n:5d} p={p:4d} {seconds:9.3f} s", flush=True)
                if seconds > options.max_seconds:
                    break
    term = PARAMETER_TERMS.get(method)
    if term is not None:  # the neighbourhood size, at one middle size
        name, default = term
        for k in (max(1, default // 2), default, 2 * default):
            seconds = measure(
                method, matrix(400, 100, "dense"), {**fixed, name: k}, options.repeats
            )
            rows.append(
                {
                    "method": key,
                    "kind": "k",
                    "n": 400,
                    "p": 100,
                    "k_ratio": k / default,
                    "seconds": seconds,
                }
            )
            print(f"{key:24s} {name}={k} {seconds:9.3f} s", flush=True)
    return rows


def runs_json(rows: list[dict]) -> str:
    """The measured runs as JSON, one run a line (diffs show the runs that changed)."""
    return "[\n" + ",\n".join(json.dumps(r) for r in rows) + "\n]\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help=f"rewrite {OUT.name}")
    parser.add_argument("--max-seconds", type=float, default=10.0)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--methods", default=",".join(("_scoring", *METHODS, *TIE_VARIANTS)))
    parser.add_argument(
        "--add",
        type=Path,
        help="measure --methods, add their runs to those of this JSON file (replacing a "
        "method's earlier runs), save it there and fit them all",
    )
    parser.add_argument("--save", type=Path, help="write the measured runs to this JSON file")
    parser.add_argument(
        "--refit", type=Path, help="fit the runs of this JSON file (from --save) instead"
    )
    options = parser.parse_args(argv)
    if options.refit:
        rows = json.loads(options.refit.read_text())
    elif options.add:
        measure("_scoring", matrix(200, 100, "dense"), {}, 1)  # imports: not measured
        new = [r for m in options.methods.split(",") for r in measure_method(m, options)]
        measured = {r["method"] for r in new}
        earlier = json.loads(options.add.read_text()) if options.add.exists() else []
        rows = [r for r in earlier if r["method"] not in measured] + new
        options.add.write_text(runs_json(rows))
    else:
        measure("_scoring", matrix(200, 100, "dense"), {}, 1)  # imports: not measured
        rows = [r for m in options.methods.split(",") for r in measure_method(m, options)]
        if options.save:
            options.save.write_text(runs_json(rows))
    fitted = {}
    for method in dict.fromkeys(r["method"] for r in rows):
        fitted[method] = fit([r for r in rows if r["method"] == method])
        print(f"{method}: {fitted[method]}", flush=True)
    if options.write:
        lines = [
            '"""Cost models of :mod:`fsengine.methods.estimates`, written by',
            "benchmarks/bench_estimates.py --write (do not edit by hand).",
            "",
            f"Measured on: {sys.platform}, {time.strftime('%Y-%m-%d')}.",
            '"""',
            "",
            "#: method -> per kind of data (dense, sparse, counts): coef (b0, bn, bp) of log",
            "#: seconds on (1, log n, log p), spread (largest |residual|, natural log) and the",
            "#: largest samples and features measured; bk: of log K / default K.",
            "COST_MODELS = {",
        ]
        for method, model in fitted.items():
            lines.append(f"    {method!r}: {model!r},")
        lines.append("}")
        OUT.write_text("\n".join(lines) + "\n")
        print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
