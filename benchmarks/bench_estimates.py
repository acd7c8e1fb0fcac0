"""Re-measure the cost models of :mod:`fsengine.estimates` on this machine.

Every registered method selects on seeded synthetic matrices over a grid of sizes: dense
continuous values and sparse log counts (a 10 % minority class with five genes up in it),
and raw single-cell counts (tests/synthetic.py, a rare type of 1 %). The median of the
repeats is fitted per method as
``log t = b0 + bn log n + bp log p + bd log d + bk log(K / K0) + bc counts`` by least
squares (n samples, p features, d the share of non-zero values, K the method's
neighbourhood size where it has one, counts 1 for non-negative integers). Sizes grow until
a run takes longer than ``--max-seconds``, so slow methods are fitted on smaller matrices.
The scoring of a split (1-NN and a linear SVM on the test half) is fitted the same way, as
``_scoring``.

Run ``python benchmarks/bench_estimates.py --write`` to rewrite
``fsengine/_estimates_fit.py`` (a few minutes to half an hour on two cores); without
``--write`` it prints the fit and how far each measured run is from the new model.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from fsengine.estimates import PARAMETER_TERMS, density_of, is_counts  # noqa: E402
from fsengine.evaluation.metrics import score_columns  # noqa: E402
from fsengine.methods import METHODS  # noqa: E402
from fsengine.runs import run_selection  # noqa: E402
from fsengine.task import Task  # noqa: E402

OUT = ROOT / "fsengine" / "_estimates_fit.py"
SAMPLES = (200, 400, 800, 1600, 3200, 6400)
FEATURES = (100, 400)
#: The kinds of data measured: dense continuous values, sparse log counts (density 0.1),
#: and raw single-cell counts (tests/synthetic.py: about 90 % zeros, a 1 % rare type).
KINDS = ("dense", "sparse", "counts")


def matrix(n: int, p: int, kind: str, seed: int = 0) -> Task:
    """A seeded task of ``n`` x ``p``: "dense", standard normal values with a 10 %
    minority (at least 4) and genes 0-4 up in it; "sparse", log1p counts in a tenth of the
    cells and zeros elsewhere, the same minority; "counts", the single-cell counts of
    tests/synthetic.py (a rare type of about 1 %, at least 10 cells, 30 marker genes)."""
    if kind == "counts":
        sys.path.insert(0, str(ROOT / "tests"))
        from synthetic import RARE_TYPE, single_cell_counts

        X, obs, names = single_cell_counts(
            n_cells=n, n_genes=p, n_rare=max(10, round(187 * n / 20_000)), seed=seed
        )
        y = (obs["cell_type"] == RARE_TYPE).to_numpy().astype(np.int8)
        return Task.from_arrays(X.toarray().astype(float), y, names)
    density = 1.0 if kind == "dense" else 0.1
    rng = np.random.default_rng(seed)
    y = np.zeros(n, dtype=np.int8)
    y[rng.choice(n, max(4, n // 10), replace=False)] = 1
    if density >= 1:
        X = rng.normal(size=(n, p))
        X[y == 1, :5] += 1.5
    else:
        nonzero = rng.random((n, p)) < density
        X = np.where(nonzero, np.log1p(rng.poisson(3.0, size=(n, p)) + 1.0), 0.0)
        X[y == 1, :5] += np.log1p(rng.poisson(5.0, size=(int(y.sum()), 5)))
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


def fit(rows: list[tuple]) -> tuple[list[float], float]:
    """Least squares of log t on (1, log n, log p, log d, log K, counts); coefficients of
    columns that do not vary are 0. Returns (b0, bn, bp, bd, bk, bc) and the residuals'
    largest absolute value (natural log)."""
    A = np.array(
        [
            [1.0, math.log(n), math.log(p), math.log(d), math.log(k), float(c)]
            for n, p, d, k, c, _ in rows
        ]
    )
    t = np.log(np.array([max(r[-1], 1e-5) for r in rows]))
    varies = [0] + [j for j in range(1, 6) if np.ptp(A[:, j]) > 0]
    coef, *_ = np.linalg.lstsq(A[:, varies], t, rcond=None)
    full = [0.0] * 6
    for j, c in zip(varies, coef):
        full[j] = float(c)
    residuals = t - A @ np.array(full)
    return full, float(np.max(np.abs(residuals))) if len(residuals) else 0.0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help=f"rewrite {OUT.name}")
    parser.add_argument("--max-seconds", type=float, default=10.0)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--methods", default=",".join(("_scoring", *METHODS)))
    options = parser.parse_args(argv)
    fitted = {}
    for method in options.methods.split(","):
        rows = []
        term = PARAMETER_TERMS.get(method)
        for kind in KINDS:
            for p in FEATURES:
                for n in SAMPLES:
                    task = matrix(n, p, kind)
                    density, counts = density_of(task.X), is_counts(task.X)
                    seconds = measure(method, task, {}, options.repeats)
                    rows.append((n, p, density, 1.0, counts, seconds))
                    print(
                        f"{method:16s} {kind:6s} n={n:5d} p={p:4d} d={density:.2f} "
                        f"{seconds:9.3f} s",
                        flush=True,
                    )
                    if seconds > options.max_seconds:
                        break
        if term is not None:  # the neighbourhood size, at the middle size
            name, default = term
            for k in (max(1, default // 2), default, 2 * default):
                task = matrix(400, 100, "dense")
                seconds = measure(method, task, {name: k}, options.repeats)
                rows.append((400, 100, 1.0, k / default, False, seconds))
                print(f"{method:16s} {name}={k} {seconds:9.3f} s", flush=True)
        coef, spread = fit(rows)
        fitted[method] = {
            "coef": [round(c, 4) for c in coef],
            "spread": round(spread, 3),
            "max_samples": max(r[0] for r in rows),
            "max_features": max(r[1] for r in rows),
        }
        print(f"{method}: {fitted[method]}", flush=True)
    if options.write:
        lines = [
            '"""Cost models of :mod:`fsengine.estimates`, written by',
            "benchmarks/bench_estimates.py --write (do not edit by hand).",
            "",
            f"Measured on: {sys.platform}, {time.strftime('%Y-%m-%d')}.",
            '"""',
            "",
            "#: method -> coef (b0, bn, bp, bd, bk, bc) of log seconds on (1, log n, log p,",
            "#: log density, log K / default K, counts), spread (largest |residual|, natural",
            "#: log),",
            "#: and the largest samples and features measured.",
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
