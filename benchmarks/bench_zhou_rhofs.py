"""Benchmark: OFS-A3M, OFS-Density and RHOFS engines against straightforward numpy versions.

What is measured
----------------
One whole stream of each selector (default parameters, ``rand_state`` 0, column order) with
``stream_selection`` (no events, as ``select`` runs it), timed with ``time.perf_counter``
(one untimed warm-up, then the median of ``--repeats`` runs), on:

* SRBCT (83 x 2308) and GLIOMA (50 x 4434) from ../shared/datasets, if present, with the
  Octave times of the authors' code from the reference READMEs' times.txt;
* the seeded synthetic 181 x 12533 matrix of ``_common.make_data()`` and its rounded copy
  ``np.round(X, 1)``. OFS-Density is run there on the first ``--density-features`` (120) columns
  only: on noise its "undo" branch keeps every tolerated feature, S grows with the stream
  and each step costs O(|S|^2 n^2) in any exact implementation (see the report line).

Baselines written here (run on SRBCT and GLIOMA, and on the synthetic prefixes): the
dependency of every set from scratch (the full n x n ``seuclidean`` matrix, ``np.argsort``
of every column with ``kind="stable"``, the neighbour rule walked in Python), RHOFS with the
membership matrices ANDed from scratch for every test. Both must select the same features;
otherwise the script exits with status 1. The lower bound printed is one stable argsort of
the whole matrix along the samples. Results go to ``.bench/zhou_rhofs.json``.
"""

from __future__ import annotations

import math
import re
import statistics
import sys

import numpy as np
from _common import ROOT, finish_report, machine, make_data, parse_options, timed

from fsengine.online import OFSA3M, RHOFS, OFSDensity, stream_selection  # noqa: E402
from fsengine.online._octave_rng import OctaveRandom  # noqa: E402

SHARED = ROOT.parent / "shared"
TARGET_S, OCTAVE_FACTOR = 1.0, 50.0


# ---------------------------------------------------------------- baselines
def dependency(X_S: np.ndarray, y: np.ndarray, rule: str) -> float:
    n = len(y)
    var = np.array([_var(X_S[:, k]) for k in range(X_S.shape[1])])
    if (var == 0).any():
        dist = np.full((n, n), np.nan)
    else:
        sq = np.zeros((n, n))
        for k in range(X_S.shape[1]):
            d = X_S[:, k][:, None] - X_S[:, k][None, :]
            sq = sq + (d * (1.0 / var[k])) * d
        dist = np.sqrt(sq)
    np.fill_diagonal(dist, 0.0)
    order = np.argsort(dist, axis=0, kind="stable")
    total = 0.0
    for i in range(n):
        D, idx = dist[order[:, i], i], order[:, i]
        same = y[idx] == y[i]
        if rule == "gap":
            gap = 1.5 * (D[-1] - D[1]) / (n - 2)
            steps = np.diff(D[1:]) < gap
            stop = int(np.argmin(steps)) if not steps.all() else len(steps)
            total += same[1 : 2 + stop].sum() / (1 + stop)
        else:
            last, count, hits = (D[1] if D[1] >= 0 else 0.0), 0, 0
            for j in range(1, n):
                dens = D[j] / j
                if not (dens == 0 or dens <= last):
                    break
                last, count, hits = dens, count + 1, hits + int(same[j])
            total += hits / count if count else math.nan
    return total / n


def _var(x: np.ndarray) -> float:
    mean = 0.0
    for v in x:
        mean += v
    mean /= len(x)
    ss = 0.0
    for v in x:
        ss += (v - mean) * (v - mean)
    return ss / (len(x) - 1)


def zhou_baseline(X: np.ndarray, y: np.ndarray, method: str) -> list[int]:
    rule = "gap" if method == "ofs-a3m" else "density"
    rng = OctaveRandom(0)
    S, dep_set, dep_mean, single = [], 0.0, 0.0, {}

    def dep(cols):
        return dependency(X[:, sorted(cols)], y, rule)

    def mean_single(cols):
        total = 0.0
        for c in sorted(cols):
            total += single[c]
        return total / len(cols)

    for i in range(X.shape[1]):
        single[i] = dep([i])
        if method == "ofs-a3m":
            if not single[i] > dep_mean:
                continue
            new = dep(S + [i])
            if new > dep_set:
                S, dep_set = S + [i], new
            elif new == dep_set:
                R = S + [i]
                for k in rng.randperm(len(S)):
                    rest = [c for c in R if c != S[k]]
                    if dep(rest) == new:
                        R = rest
                S = R
            else:
                continue
            dep_mean = dep_set / len(S)
        else:
            if not single[i] >= dep_mean:
                continue
            new = dep(S + [i])
            if new > dep_set:
                S, dep_set = S + [i], new
                dep_mean = mean_single(S)
            elif dep_set != 0 and abs(new - dep_set) / dep_set <= 0.05:
                R, d_r = S + [i], new
                for k in rng.randperm(len(S)):
                    rest = [c for c in R if c != S[k]]
                    d_f = dep(rest)
                    if d_r - d_f <= 0:
                        R, d_r = rest, d_f
                if d_r >= dep_set:
                    S, dep_set = R, d_r
                    dep_mean = mean_single(S)
                else:
                    S = S + [i]
    return sorted(S)


def rhofs_baseline(X: np.ndarray, y: np.ndarray) -> list[int]:
    """RHOFS with the membership matrices (2 x n per feature) ANDed from scratch each time."""
    n, p = X.shape
    rng = OctaveRandom(0)
    mats, single, S, dep_set, dep_mean = {}, {}, [], 0.0, 0.0

    def dep(cols):
        mat = np.ones((2, n), dtype=bool)
        for c in cols:
            mat &= mats[c]
        return float(np.sum(mat.sum(axis=0) == 1)) / n

    def info(cols):
        mat = np.ones((2, n), dtype=bool)
        for c in cols:
            mat &= mats[c]
        total = 0.0
        cen = [[X[y == k, c].mean() for c in cols] for k in (0, 1)]
        for u in np.flatnonzero(mat.sum(axis=0) > 1):
            d = [sum((X[u, c] - cen[k][q]) ** 2 for q, c in enumerate(cols)) for k in (0, 1)]
            with np.errstate(divide="ignore", invalid="ignore"):
                total += float(1 / ((1 / np.float64(d[0]) + 1 / np.float64(d[1])) * d[y[u]]))
        return total / n

    for i in range(p):
        x = X[:, i]
        mats[i] = np.array([(x >= x[y == k].min()) & (x <= x[y == k].max()) for k in (0, 1)])
        single[i] = dep([i])
        if not single[i] > dep_mean:
            continue
        new = dep(S + [i])
        if new > dep_set:
            S, dep_set = S + [i], new
            dep_mean = dep_set / len(S)
            continue
        best = []
        for _ in range(3):
            B, R, T = [], S + [i], list(S)
            while T:
                f = T[int(rng.rand(len(T))[0] * len(T))]
                rest = [c for c in R if c != f]
                if dep(rest + [f]) - dep(rest) == 0:
                    B, R = B + [f], rest
                T.remove(f)
            if len(B) > len(best):
                best = B
        if len(best) > 1:
            S = [c for c in S if c not in best] + [i]
        elif len(best) == 1:
            f = best[0]
            if new < 1:
                a, b = info(S), info([c for c in S + [i] if c != f])
            else:
                a, b = single[f] + info([f]), single[i] + info([i])
            if a > b:
                pass  # the new feature is dropped
            elif a < b or not rng.rand(1)[0] > 0.5:  # a tie or NaN: the coin
                S = [c for c in S if c != f] + [i]
        dep_mean = dep_set / len(S)
    return sorted(S)


# ---------------------------------------------------------------- driver
def octave_times() -> dict:
    times = {}
    for folder in ("zhou_octave", "rhofs_octave"):
        path = SHARED / "reference" / folder / "times.txt"
        if path.is_file():
            for line in path.read_text().splitlines():
                m = re.match(r"(\S+) .*?\s(ofs_a3m|ofs_density|rhofs) .*?time=([\d.]+) s", line)
                if m:
                    times[(m.group(1), m.group(2).replace("_", "-"))] = float(m.group(3))
    return times


def engine(cls, X, y):
    names = [str(j) for j in range(X.shape[1])]
    return list(stream_selection(cls().start(y), X, names).columns)


def main(argv=None) -> int:
    import argparse

    extra = argparse.ArgumentParser(add_help=False)
    extra.add_argument("--density-features", type=int, default=120)
    own, rest = extra.parse_known_args(argv)
    args, base_repeats = parse_options(__doc__.splitlines()[0], rest)
    print(f"OFS-A3M / OFS-Density / RHOFS benchmark; seed={args.seed}; {machine()}")
    sets = []
    for name in ("SRBCT", "GLIOMA"):
        path = SHARED / "datasets" / f"{name}.parquet"
        if path.is_file():
            import pandas as pd

            frame = pd.read_parquet(path)
            X = frame.drop(columns="label").to_numpy(float)
            sets.append((name, X, (frame["label"] == 2).to_numpy(int)))
    X, y = make_data(args.seed)
    sets += [("synthetic", X, y.astype(int)), ("rounded", np.round(X, 1), y.astype(int))]
    octave = octave_times()
    record, problems, met = {}, [], True
    for name, X, y in sets:
        big = X.shape[0] > 100
        bound = statistics.median(timed(lambda: np.argsort(X, axis=0, kind="stable"), 5)[0])
        print(f"\n{name} {X.shape[0]} x {X.shape[1]}: one stable argsort {bound:.3f} s")
        for cls in (OFSA3M, OFSDensity, RHOFS):
            method = cls.spec.name
            M = X[:, : own.density_features] if big and cls is OFSDensity else X
            engine(cls, M[:, :50], y)  # warm-up (compiled kernels)
            times, selected = timed(lambda cls=cls, M=M: engine(cls, M, y), args.repeats)
            t = statistics.median(times)
            line = f"  {method:12s} engine {t:7.3f} s ({t / bound:6.1f} x argsort)"
            entry = {"engine_s": t, "argsort_s": bound, "features": M.shape[1]}
            if M.shape[1] < X.shape[1]:
                line += f" [first {M.shape[1]} features]"
            slow_ok = not big or cls is OFSDensity or cls is RHOFS
            if slow_ok:
                run = (
                    rhofs_baseline
                    if cls is RHOFS
                    else (lambda A, b, m=method: zhou_baseline(A, b, m))
                )
                base_times, expected = timed(lambda run=run, M=M: run(M, y), base_repeats)
                b = statistics.median(base_times)
                line += f"; baseline {b:8.2f} s ({b / t:6.1f} x)"
                entry["baseline_s"] = b
                if expected != selected:
                    problems.append(f"{name} {method}: engine {selected} != baseline {expected}")
            if (name, method) in octave:
                o = octave[(name, method)]
                line += f"; Octave {o:.1f} s ({o / t:.0f} x)"
                entry["octave_s"] = o
                met &= o / t >= OCTAVE_FACTOR
            elif big and M.shape[1] == X.shape[1]:
                met &= t <= TARGET_S
            print(line)
            record[f"{name}/{method}"] = entry
    return finish_report("zhou_rhofs", record, problems, met)


if __name__ == "__main__":
    sys.exit(main())
