"""Benchmark: K-OFSD engine against a straightforward implementation of the same rule.

What is measured
----------------
One whole K-OFSD pass (K = 7, alpha = 0.5, Card_Imbalanced, standardised Euclidean
distance, features streamed in column order) over a seeded synthetic microarray-like
matrix of 181 samples x 12533 features (31 minority, 150 majority), timed with
``time.perf_counter``:

* the engine, ``fsengine.online.run_kofsd`` (one untimed warm-up, then median of
  ``--repeats`` runs);
* a baseline written here that does what the authors' MATLAB code does: for every
  feature an N x N distance matrix and a stable sort of every sample's distances, and
  for every set test the set's full N x N distance matrix recomputed from its columns
  (median of ``--baseline-repeats`` runs; ``--quick`` runs it once).

Both must select the same features in the same order, with the same single-feature
dependencies (to 1e-12) and the same number of set tests; otherwise the script exits
with status 1. Targets (reported, not enforced): engine pass <= 0.3 s, and baseline /
engine >= 20x. Results are also written to ``.bench/kofsd.json``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from fsengine.online import run_kofsd  # noqa: E402

N_SAMPLES, N_FEATURES, N_MINORITY = 181, 12533, 31
N_INFORMATIVE, N_TIED = 40, 8
K, ALPHA = 7, 0.5
ENGINE_TARGET_S, RATIO_TARGET = 0.3, 20.0


def make_data(seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Seeded microarray-like data: noise, a few informative and a few tied features.

    Parameters
    ----------
    seed : int
        Seed of ``numpy.random.default_rng``.

    Returns
    -------
    X : ndarray, shape (181, 12533)
        Standard normal noise; in ``N_INFORMATIVE`` random columns the minority
        samples are shifted by a per-feature effect of 1.5 to 3 (either sign);
        ``N_TIED`` columns (three of them informative) are rounded to 1 decimal.
    y : ndarray of int8, shape (181,)
        1 for the 31 minority samples (random rows), 0 for the rest.
    """
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((N_SAMPLES, N_FEATURES))
    y = np.zeros(N_SAMPLES, dtype=np.int8)
    y[rng.choice(N_SAMPLES, N_MINORITY, replace=False)] = 1
    informative = rng.choice(N_FEATURES, N_INFORMATIVE, replace=False)
    effect = rng.uniform(1.5, 3.0, N_INFORMATIVE) * rng.choice([-1.0, 1.0], N_INFORMATIVE)
    X[np.ix_(y == 1, informative)] += effect
    noise = np.setdiff1d(np.arange(N_FEATURES), informative)
    tied = np.concatenate([informative[:3], rng.choice(noise, N_TIED - 3, replace=False)])
    X[:, tied] = np.round(X[:, tied], 1)
    return X, y


# ---------------------------------------------------------------- baseline
def sequential_column_sums(a: np.ndarray) -> np.ndarray:
    """Column sums added one row at a time (Octave's ``sum``, not numpy's pairwise sum)."""
    total = np.zeros(a.shape[1])
    for row in a:
        total += row
    return total


def seuclidean_weights(X: np.ndarray) -> np.ndarray:
    """``w_f = 1 / var_f`` with the sample variance (n - 1) of every column."""
    n = X.shape[0]
    mean = sequential_column_sums(X) / n
    return 1.0 / (sequential_column_sums((X - mean) ** 2) / (n - 1))


def squared_terms(x: np.ndarray, w: float) -> np.ndarray:
    """One column's term ``(w * d) * d`` of every squared pair distance, shape (N, N)."""
    d = x[:, None] - x[None, :]
    return (w * d) * d


def dep_n1(sq_dist: np.ndarray, y: np.ndarray, k: int) -> float:
    """The authors' ``dep_n1`` from a set's summed squared terms (Card_Imbalanced)."""
    n = len(y)
    dist = np.sqrt(sq_dist)
    np.fill_diagonal(dist, 0.0)                          # squareform: zero diagonal
    order = np.argsort(dist, axis=1, kind="stable")      # D is symmetric: row i = column i
    same = (y[order[:, 1:k + 1]] == y[:, None]).sum(axis=1).tolist()
    card = 0.0
    for label, c_num in zip(y.tolist(), same):           # sequential sum in sample order
        card += float(c_num == k) if label == 0 else c_num / k
    return card / n


def kofsd_baseline(X: np.ndarray, y: np.ndarray, k: int, alpha: float):
    """The authors' K-OFSD loop, line by line.

    Returns
    -------
    selected : list of int
        Selected columns (ascending = stream order, or the fallback ranking).
    dep : ndarray, shape (p,)
        Single-feature dependencies (``depArray``).
    set_tests : int
        Number of times ``dep_n1`` was evaluated on a set.
    """
    p = X.shape[1]
    w = seuclidean_weights(X)
    dep = np.empty(p)
    mode = np.zeros(p, dtype=bool)
    dep_last, set_tests = 0.0, 0
    for i in range(p):
        dep[i] = dep_single = dep_n1(squared_terms(X[:, i], w[i]), y, k)
        if dep_single > alpha:
            if dep_single > dep_last:
                mode[:] = False
                mode[i] = True
                dep_last = dep_single
            else:
                mode[i] = True
                set_tests += 1
                sq = np.zeros((len(y), len(y)))
                for j in np.flatnonzero(mode):           # the set's columns, in column order
                    sq += squared_terms(X[:, j], w[j])
                dep_all = dep_n1(sq, y, k)
                if dep_all > dep_last:
                    dep_last = dep_all
                else:
                    mode[i] = False
    selected = np.flatnonzero(mode).tolist()
    if not selected:
        top = int(math.floor(math.sqrt(p) + 0.5))        # int16() rounds to nearest
        selected = np.argsort(-dep, kind="stable")[:top].tolist()
    return selected, dep, set_tests


# ---------------------------------------------------------------- timing
def timed(fn, repeats: int):
    """Run ``fn`` ``repeats`` times; return (list of seconds, last result)."""
    times, result = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return times, result


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="run the baseline once")
    parser.add_argument("--repeats", type=int, default=7, help="timed engine runs (default 7)")
    parser.add_argument("--baseline-repeats", type=int, default=3,
                        help="timed baseline runs (default 3; 1 with --quick)")
    parser.add_argument("--seed", type=int, default=0, help="data seed (default 0)")
    args = parser.parse_args(argv)
    base_repeats = 1 if args.quick else args.baseline_repeats
    if args.repeats < 1 or base_repeats < 1:
        parser.error("repeat counts must be at least 1")

    X, y = make_data(args.seed)
    print(f"data: {X.shape[0]} x {X.shape[1]} ({int(y.sum())} minority), K={K}, alpha={ALPHA}, "
          f"seed={args.seed}; CPUs: {os.cpu_count()}, numpy {np.__version__}", flush=True)

    run_engine = lambda: run_kofsd(X, y, k=K, alpha=ALPHA)  # noqa: E731
    run_engine()                                             # warm-up
    engine_times, (selection, events) = timed(run_engine, args.repeats)
    print(f"engine: {args.repeats} runs done; baseline: {base_repeats} run(s)...", flush=True)
    base_times, (base_selected, base_dep, base_tests) = timed(
        lambda: kofsd_baseline(X, y, K, ALPHA), base_repeats)

    engine_selected = list(selection.columns)
    engine_dep = np.empty(X.shape[1])
    for e in events:
        engine_dep[e.column] = e.score
    engine_tests = sum(e.action in ("added", "rejected") for e in events)
    max_dep_diff = float(np.max(np.abs(engine_dep - base_dep)))
    problems = []
    if engine_selected != base_selected:
        problems.append(f"selections differ:\n  engine   {engine_selected}\n  baseline {base_selected}")
    if not max_dep_diff <= 1e-12:
        problems.append(f"single-feature dependencies differ by up to {max_dep_diff:.3g}")
    if engine_tests != base_tests:
        problems.append(f"set tests differ: engine {engine_tests}, baseline {base_tests}")

    engine_med, base_med = statistics.median(engine_times), statistics.median(base_times)
    ratio = base_med / engine_med
    engine_ok, ratio_ok = engine_med <= ENGINE_TARGET_S, ratio >= RATIO_TARGET
    rows = [
        (f"engine median ({args.repeats} runs)", f"{engine_med:.4f} s"),
        (f"baseline median ({base_repeats} runs)", f"{base_med:.3f} s"),
        ("ratio (baseline / engine)", f"{ratio:.1f}x"),
        ("selected features", str(len(engine_selected))),
        ("set tests", str(engine_tests)),
        (f"target: engine <= {ENGINE_TARGET_S} s", "met" if engine_ok else "NOT MET"),
        (f"target: ratio >= {RATIO_TARGET:.0f}x", "met" if ratio_ok else "NOT MET"),
        ("results agree", "yes" if not problems else "NO"),
    ]
    width = max(len(label) for label, _ in rows)
    print()
    for label, value in rows:
        print(f"  {label:<{width}}  {value}")

    out = ROOT / ".bench" / "kofsd.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps({
        "shape": list(X.shape), "n_minority": int(y.sum()), "k": K, "alpha": ALPHA,
        "seed": args.seed, "cpu_count": os.cpu_count(), "numpy": np.__version__,
        "python": platform.python_version(), "engine_times_s": engine_times,
        "baseline_times_s": base_times, "engine_median_s": engine_med,
        "baseline_median_s": base_med, "ratio": ratio, "selected_columns": engine_selected,
        "n_selected": len(engine_selected), "set_tests": engine_tests,
        "max_dependency_difference": max_dep_diff, "engine_target_met": engine_ok,
        "ratio_target_met": ratio_ok, "agree": not problems, "problems": problems,
    }, indent=2) + "\n")
    print(f"\nresults written to {out.relative_to(ROOT)}")
    if problems:
        print("\nERROR: the engine and the baseline disagree:\n" + "\n".join(problems),
              file=sys.stderr)
        return 1
    if not (engine_ok and ratio_ok):
        print("\nNOTE: performance target(s) not met (reported only; results agree).")
    return 0


if __name__ == "__main__":
    sys.exit(main())
