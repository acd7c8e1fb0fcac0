"""Benchmark: the Grafting engine against a straightforward Grafting written here.

What is measured
----------------
One whole stream of ``Grafting()`` (lambda 0.5, the values as given, column order) with
``stream_selection`` (no events, as ``select`` runs it), timed with ``time.perf_counter``
(one untimed warm-up, then the median of ``--repeats`` runs), on:

* the real sets: SRBCT (83 x 2308) and GLIOMA (50 x 4434), from ../shared/datasets or the
  repository's copies; ALLAML, Colon and Brain_Tumor1 when ../shared is there (minority =
  the smallest class). No authors' code of Grafting is public, so there is no Octave time
  to compare with;
* the seeded synthetic 181 x 12533 matrix of ``_common.make_data()``, its copy rounded to 1
  decimal and an integer-valued copy ``rint(480 + 40 X)`` (target: <= 1 s each). On the
  first two, whose columns have a standard deviation near 1, no gradient reaches 0.5; on the
  integer copy (standard deviation 40) 214 features enter over the stream and 14 stay.

Each is also timed from a new process (``--child``): the interpreter's start, the imports
and the data included, then the stream; the child reports its in-process time too.

The baseline written here is Grafting as printed, one feature at a time: the gradient of the
centred column with the current model (a dot product), and for a feature that enters a refit
from scratch (w = 0, b = 0) with scipy's L-BFGS-B on the split ``w = w+ - w-`` (bias free),
the weights left exactly at 0 (on their bound) leaving. It runs on SRBCT and GLIOMA whole and
on the first ``--baseline-features`` (2000) columns of the 181 x 12533 matrices (the engine is
timed again on the same columns for the ratio). Both must select the same features;
otherwise the script exits with status 1. Results go to ``benchmarks/results/grafting.json``.
"""

from __future__ import annotations

import math
import statistics
import subprocess
import sys
import time

import numpy as np
from _common import data_sets, finish_report, machine, parse_options, timed

from fsengine.methods.online import Grafting, stream_selection  # noqa: E402

TARGET_S = 1.0
LAM, TOL = 0.5, 1e-6


# ---------------------------------------------------------------- baseline
def l1_logistic(X: np.ndarray, t: np.ndarray, lam: float):
    """min (1/n) sum ln(1 + exp(-y f)) + lam |w|_1, f = X w + b, from w = 0, b = 0."""
    from scipy.optimize import minimize

    n, k = X.shape
    y = 2.0 * t - 1.0

    def value_and_gradient(z):
        w = z[:k] - z[k : 2 * k]
        f = X @ w + z[-1]
        r = (1.0 / (1.0 + np.exp(-f)) - t) / n
        g = X.T @ r
        value = np.mean(np.logaddexp(0.0, -y * f)) + lam * z[: 2 * k].sum()
        return value, np.concatenate([g + lam, lam - g, [r.sum()]])

    result = minimize(
        value_and_gradient,
        np.zeros(2 * k + 1),
        jac=True,
        method="L-BFGS-B",
        bounds=[(0.0, None)] * (2 * k) + [(None, None)],
        options={"maxiter": 100_000, "gtol": 1e-12, "ftol": 1e-15},
    )
    z = result.x
    return z[:k] - z[k : 2 * k], float(z[-1])


def baseline(X: np.ndarray, y: np.ndarray) -> list[int]:
    """Grafting one feature at a time, each entry refitted from scratch."""
    n, p = X.shape
    t = (y == 1).astype(float)
    members: list[int] = []
    w, b = np.zeros(0), math.log(t.mean() / (1.0 - t.mean()))
    for j in range(p):
        if X[:, j].max() == X[:, j].min():
            continue
        x = X[:, j] - X[:, j].mean()
        M = X[:, members] - X[:, members].mean(axis=0)
        p_model = 1.0 / (1.0 + np.exp(-(M @ w + b)))
        if abs(x @ (p_model - t) / n) > (1.0 + TOL) * LAM:
            cols = members + [j]
            w_all, b = l1_logistic(X[:, cols] - X[:, cols].mean(axis=0), t, LAM)
            members = [c for c, v in zip(cols, w_all) if v != 0]
            w = w_all[w_all != 0]
    return sorted(members)


# ---------------------------------------------------------------- data and engine


def engine(X: np.ndarray, y: np.ndarray) -> list[int]:
    names = [str(j) for j in range(X.shape[1])]
    return list(stream_selection(Grafting().start(y), X, names).columns)


def child(name: str, seed: int) -> None:
    """In a new process: one stream of ``name``; prints its in-process seconds."""
    ((_, X, y),) = data_sets(seed, only=name)
    t0 = time.perf_counter()
    engine(X, y)
    print(f"{time.perf_counter() - t0:.6f}")


def from_new_process(name: str, seed: int) -> tuple[float, float]:
    """(wall seconds of a new process running one stream, its in-process seconds)."""
    t0 = time.perf_counter()
    done = subprocess.run(
        [sys.executable, __file__, "--child", name, "--seed", str(seed)],
        capture_output=True,
        text=True,
        check=True,
    )
    return time.perf_counter() - t0, float(done.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    import argparse

    extra = argparse.ArgumentParser(add_help=False)
    extra.add_argument("--baseline-features", type=int, default=2000)
    extra.add_argument("--child")
    own, rest = extra.parse_known_args(argv)
    args, base_repeats = parse_options(__doc__.splitlines()[0], rest)
    if own.child:
        child(own.child, args.seed)
        return 0
    print(f"Grafting benchmark; lambda={LAM}; seed={args.seed}; {machine()}")
    record, problems, met = {}, [], True
    for name, X, y in data_sets(args.seed):
        big = X.shape[1] >= 10000
        engine(X[:, :50], y)  # warm-up
        times, selected = timed(lambda X=X, y=y: engine(X, y), args.repeats)
        t = statistics.median(times)
        line = f"{name:12s} {X.shape[0]} x {X.shape[1]}: engine {t:7.3f} s"
        line += f", {len(selected)} selected"
        entry = {"engine_s": t, "features": X.shape[1], "selected": len(selected)}
        wall, inside = from_new_process(name, args.seed)
        line += f"; new process {wall:.2f} s ({inside:.3f} s in it)"
        entry.update(new_process_s=wall, new_process_stream_s=inside)
        if name in ("SRBCT", "GLIOMA") or big:
            B = X if name in ("SRBCT", "GLIOMA") else X[:, : own.baseline_features]
            t_b = (
                t
                if B is X
                else statistics.median(timed(lambda B=B, y=y: engine(B, y), args.repeats)[0])
            )
            base_times, expected = timed(lambda B=B, y=y: baseline(B, y), base_repeats)
            b = statistics.median(base_times)
            line += f"; baseline {b:7.2f} s ({b / t_b:6.1f} x"
            line += ")" if B is X else f" on the first {B.shape[1]} features)"
            entry.update(baseline_s=b, baseline_features=B.shape[1], engine_prefix_s=t_b)
            got = selected if B is X else engine(B, y)
            if expected != sorted(got):
                problems.append(f"{name}: engine {sorted(got)} != baseline {expected}")
        if big:
            met &= t <= TARGET_S
        print(line, flush=True)
        record[name] = entry
    return finish_report("grafting", record, problems, met)


if __name__ == "__main__":
    sys.exit(main())
