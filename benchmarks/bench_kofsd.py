"""Benchmark: K-OFSD engine against a straightforward implementation of the same rule.

What is measured
----------------
One whole K-OFSD pass (K = 7, alpha = 0.5, Card_Imbalanced, standardised Euclidean
distance, features streamed in column order) over a seeded synthetic microarray-like
matrix of 181 samples x 12533 features (31 minority, 150 majority), timed with
``time.perf_counter``:

* the engine, ``fsengine.methods.online.run_kofsd`` (one untimed warm-up, then median of
  ``--repeats`` runs);
* a baseline written here that does what the authors' MATLAB code does: for every
  feature an N x N distance matrix and a stable sort of every sample's distances, and
  for every set test the set's full N x N distance matrix recomputed from its columns
  (median of ``--baseline-repeats`` runs; ``--quick`` runs it once).

Both must select the same features in the same order, with the same single-feature
dependencies (to 1e-12) and the same number of set tests; otherwise the script exits
with status 1. Targets (reported, not enforced): engine pass <= 0.3 s, and baseline /
engine >= 20x. Results are also written to ``benchmarks/results/kofsd.json``.
"""

from __future__ import annotations

import math
import statistics
import sys

import numpy as np
from _common import finish_report, machine, make_data, parse_options, print_table, timed

from fsengine.methods.online import run_kofsd  # noqa: E402  (after _common puts the repo on the path)

K, ALPHA = 7, 0.5
ENGINE_TARGET_S, RATIO_TARGET = 0.3, 20.0


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
    np.fill_diagonal(dist, 0.0)  # squareform: zero diagonal
    order = np.argsort(dist, axis=1, kind="stable")  # D is symmetric: row i = column i
    same = (y[order[:, 1 : k + 1]] == y[:, None]).sum(axis=1).tolist()
    card = 0.0
    for label, c_num in zip(y.tolist(), same):  # sequential sum in sample order
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
                for j in np.flatnonzero(mode):  # the set's columns, in column order
                    sq += squared_terms(X[:, j], w[j])
                dep_all = dep_n1(sq, y, k)
                if dep_all > dep_last:
                    dep_last = dep_all
                else:
                    mode[i] = False
    selected = np.flatnonzero(mode).tolist()
    if not selected:
        top = int(math.floor(math.sqrt(p) + 0.5))  # int16() rounds to nearest
        selected = np.argsort(-dep, kind="stable")[:top].tolist()
    return selected, dep, set_tests


def main(argv=None) -> int:
    args, base_repeats = parse_options(__doc__.splitlines()[0], argv)

    X, y = make_data(args.seed)
    print(
        f"data: {X.shape[0]} x {X.shape[1]} ({int(y.sum())} minority), K={K}, alpha={ALPHA}, "
        f"seed={args.seed}; {machine()}",
        flush=True,
    )

    run_engine = lambda: run_kofsd(X, y, k=K, alpha=ALPHA)  # noqa: E731
    run_engine()  # warm-up
    engine_times, (selection, events) = timed(run_engine, args.repeats)
    print(f"engine: {args.repeats} runs done; baseline: {base_repeats} run(s)...", flush=True)
    base_times, (base_selected, base_dep, base_tests) = timed(
        lambda: kofsd_baseline(X, y, K, ALPHA), base_repeats
    )

    engine_selected = list(selection.columns)
    engine_dep = np.empty(X.shape[1])
    for e in events:
        engine_dep[e.column] = e.score
    engine_tests = sum(e.action in ("added", "rejected") for e in events)
    max_dep_diff = float(np.max(np.abs(engine_dep - base_dep)))
    problems = []
    if engine_selected != base_selected:
        problems.append(
            f"selections differ:\n  engine   {engine_selected}\n  baseline {base_selected}"
        )
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
    print_table(rows)

    return finish_report(
        "kofsd",
        {
            "shape": list(X.shape),
            "n_minority": int(y.sum()),
            "k": K,
            "alpha": ALPHA,
            "seed": args.seed,
            "engine_times_s": engine_times,
            "baseline_times_s": base_times,
            "engine_median_s": engine_med,
            "baseline_median_s": base_med,
            "ratio": ratio,
            "selected_columns": engine_selected,
            "n_selected": len(engine_selected),
            "set_tests": engine_tests,
            "max_dependency_difference": max_dep_diff,
            "engine_target_met": engine_ok,
            "ratio_target_met": ratio_ok,
        },
        problems,
        engine_ok and ratio_ok,
    )


if __name__ == "__main__":
    sys.exit(main())
