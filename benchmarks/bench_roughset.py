"""Benchmark: SFSF (four rough-set models) and OSFS-ET engines against straightforward versions.

What is measured
----------------
One whole stream of each selector (default parameters, ``rand_state`` 0, column order) with
``stream_selection`` (no events, as ``select`` runs it), timed with ``time.perf_counter``
(one untimed warm-up, then the median of ``--repeats`` runs): ``sfsf`` with each ``model``
(k-nearest, classical, fuzzy, radius) and ``osfs-et``, on

* the real sets: SRBCT (83 x 2308) and GLIOMA (50 x 4434), from ../shared/datasets or the
  repository's copies, with the Octave times of the authors' code from
  tests/reference/roughset_octave/times.txt (target: >= 50x); ALLAML, Colon and
  Brain_Tumor1 when ../shared is there (minority = the smallest class);
* the seeded synthetic 181 x 12533 matrix of ``_common.make_data()``, its copy rounded to 1
  decimal and an integer-valued copy ``rint(480 + 40 X)`` (target: <= 1 s each on the rounded
  and integer copies).

Baselines written here, as the code computes: the dependency of every set from scratch (the
classical partition by ``np.unique`` of the rows; the full fuzzy similarity matrices; the
full n x n ``seuclidean`` matrix with ``np.argsort(kind="stable")`` of every column), every
feature's dependency alone from the same function, the loops of ``SFSF_*.m`` and
``OSFS_ET_c.m`` in Python with Octave's ``randperm`` replayed. They run on SRBCT and GLIOMA
whole and on the first ``--baseline-features`` (300) columns of the 181 x 12533 matrices
(the engine is timed again on the same columns for the ratio). Both must select the same
features; otherwise the script exits with status 1. The lower bound printed is one stable
argsort of the whole matrix along the samples. Results go to ``benchmarks/results/roughset.json``.
"""

from __future__ import annotations

import math
import re
import statistics
import sys

import numpy as np
from _common import ROOT, against_baseline, data_sets, finish_report, machine, parse_options, timed

from fsengine.methods.online import OSFSET, SFSF, stream_selection  # noqa: E402
from fsengine.methods.online._roughset.octave_rng import OctaveRandom  # noqa: E402

TARGET_S, OCTAVE_FACTOR = 1.0, 50.0
#: (label, selector class, parameters, the run's name in the Octave times)
RUNS = [
    ("sfsf/k-nearest", SFSF, {"model": "k-nearest"}, "sfsf_nk"),
    ("sfsf/classical", SFSF, {"model": "classical"}, "sfsf_c"),
    ("sfsf/fuzzy", SFSF, {"model": "fuzzy"}, "sfsf_f"),
    ("sfsf/radius", SFSF, {"model": "radius"}, "sfsf_nr"),
    ("osfs-et", OSFSET, {}, "osfs_et"),
]


# ---------------------------------------------------------------- baselines
def _total(values) -> float:
    return float(np.cumsum(values)[-1]) / len(values)  # left to right, as Octave's sum


def _var(x: np.ndarray) -> float:
    mean = float(np.cumsum(x)[-1]) / len(x)
    return float(np.cumsum((x - mean) * (x - mean))[-1]) / (len(x) - 1)


def dependency(X_S: np.ndarray, y: np.ndarray, model: str, k=7, radius=0.3) -> float:
    """The dependency of the columns of X_S (in order), as each model's code computes it."""
    n = len(y)
    if model == "classical":
        if X_S.shape[1] == 0:
            blocks = np.zeros(n, dtype=int)
        else:
            blocks = np.unique(X_S, axis=0, return_inverse=True)[1].ravel()
        pure = [len(set(y[blocks == b])) == 1 for b in range(blocks.max() + 1)]
        return sum(pure[b] for b in blocks) / n
    if model == "fuzzy":
        sim = np.ones((n, n))
        for c in range(X_S.shape[1]):
            x = X_S[:, c]
            interval = abs(x.max() - x.min())
            if interval > 0:
                sim = np.minimum(sim, 1 - np.abs(x[None, :] - x[:, None]) / interval)
        low = [np.min(1 - sim[i, y != y[i]]) for i in range(n)]
        return _total(low)
    sq = np.zeros((n, n))
    with np.errstate(divide="ignore", invalid="ignore"):
        for c in range(X_S.shape[1]):
            d = X_S[:, c][:, None] - X_S[:, c][None, :]
            sq = sq + ((1.0 / np.float64(_var(X_S[:, c]))) * d) * d
        dist = np.sqrt(sq)
    np.fill_diagonal(dist, 0.0)
    cards = np.empty(n)
    if model == "k-nearest":
        order = np.argsort(dist, axis=0, kind="stable")[:k]
        for i in range(n):
            cards[i] = np.sum(y[order[:, i]] == y[i]) / k
    else:
        with np.errstate(invalid="ignore"):
            inside = dist <= radius * np.fmax(dist, 1.0)
        for i in range(n):
            cards[i] = np.sum(inside[:, i] & (y == y[i])) / np.sum(inside[:, i])
    return _total(cards)


def _binned(X: np.ndarray, bins=5) -> np.ndarray:
    lo, hi = X.min(axis=0), X.max(axis=0)
    return sum((X > lo + (hi - lo) * (c / bins)).astype(float) for c in range(1, bins))


def sfsf_baseline(X: np.ndarray, y: np.ndarray, model: str) -> list[int]:
    """``SFSF_*.m``: relevance against the mean single dependency, significance, and the
    redundancy check over S + f in Octave's random order."""
    if model == "classical":
        X = _binned(X)
    rng = OctaveRandom(0)

    def dep(cols):
        return dependency(X[:, sorted(cols)], y, model)

    single, S, dep_set, dep_mean = {}, [], 0.0, 0.0
    for i in range(X.shape[1]):
        single[i] = dep([i])
        threshold = dep_mean * 0.5 if model == "classical" else dep_mean
        if model in ("classical", "fuzzy"):
            passes = single[i] > threshold
        else:
            passes = single[i] >= threshold
        if not passes:
            continue
        R = S + [i]
        new = dep(R)
        if model == "fuzzy":  # round(new, 4): C's round, half away from zero
            v = new * 10000.0
            new = (math.trunc(v) + (1 if v - math.trunc(v) >= 0.5 else 0)) / 10000.0
        if new > dep_set:
            S, dep_set = R, new
        elif new == dep_set:
            for j in rng.randperm(len(R)):
                f = S[j] if j < len(S) else i
                d_b, d_f = dep(R), dep([c for c in R if c != f])
                with np.errstate(divide="ignore", invalid="ignore"):
                    gone = (
                        np.float64(d_b - d_f) / np.float64(d_b) == 0
                        if model == "radius"
                        else d_b - d_f <= 0
                    )
                if gone:
                    R = [c for c in R if c != f]
            S = R
        else:
            continue
        dep_mean = _total([single[c] for c in sorted(S)]) if S else math.nan
    return sorted(S)


def osfs_et_baseline(X: np.ndarray, y: np.ndarray, k=9, width=800, increase=0.01) -> list[int]:
    """``OSFS_ET_c.m``: every dep(S + f) recorded, the check at every 100th drop, the window
    test, the last check."""
    rng = OctaveRandom(0)

    def dep(cols):
        return dependency(X[:, sorted(cols)], y, "k-nearest", k=k)

    def prune(R, candidates):
        for j in rng.randperm(len(candidates)):
            f = candidates[j]
            if dep(R) - dep([c for c in R if c != f]) <= 0:
                R = [c for c in R if c != f]
        return R

    S, dep_set, history, count = [], 0.0, [], 0
    for i in range(X.shape[1]):
        new = dep(S + [i])
        history.append(new)
        if new > dep_set:
            S, dep_set, count = S + [i], new, 0
        else:
            count += 1
            if count % 100 == 0:
                S = prune(S, list(S))
        if len(history) > width and new - history[i - width] < increase:
            return sorted(prune(S, [c for c in S if c != i]))
    return sorted(prune(S, [c for c in S if c != X.shape[1] - 1]))


# ---------------------------------------------------------------- driver
def octave_times() -> dict:
    """(data set, run) -> seconds of the authors' code in Octave (times.txt)."""
    times = {}
    path = ROOT / "tests" / "reference" / "roughset_octave" / "times.txt"
    if path.is_file():
        for line in path.read_text().splitlines():
            m = re.match(r"(\S+) .*?\s(sfsf_\w+|osfs_et\w*) .*?time=([\d.]+) s", line)
            if m:
                times[(m.group(1), m.group(2))] = float(m.group(3))
    return times


def engine(cls, params, X, y):
    names = [str(j) for j in range(X.shape[1])]
    return list(stream_selection(cls(**params).start(y), X, names).columns)


def baseline(cls, params, X, y):
    if cls is OSFSET:
        return osfs_et_baseline(X, y)
    return sfsf_baseline(X, y, params["model"])


def main(argv=None) -> int:
    import argparse

    extra = argparse.ArgumentParser(add_help=False)
    extra.add_argument("--baseline-features", type=int, default=300)
    extra.add_argument("--features", type=int, default=0, help="(testing) first columns only")
    extra.add_argument("--sets", default="", help="(testing) comma-separated data set names")
    own, rest = extra.parse_known_args(argv)
    args, base_repeats = parse_options(__doc__.splitlines()[0], rest)
    print(f"SFSF / OSFS-ET benchmark; seed={args.seed}; {machine()}")
    octave = octave_times()
    record, problems, met = {}, [], True
    wanted = set(filter(None, own.sets.split(",")))
    for name, X, y in data_sets(args.seed):
        if wanted and name not in wanted:
            continue
        if own.features:
            X = X[:, : own.features]
        big = X.shape[1] >= 10000
        bound = statistics.median(timed(lambda: np.argsort(X, axis=0, kind="stable"), 5)[0])
        print(f"\n{name} {X.shape[0]} x {X.shape[1]}: one stable argsort {bound:.3f} s")
        for label, cls, params, key in RUNS:
            engine(cls, params, X[:, :50], y)  # warm-up (compiled kernels)
            times, selected = timed(lambda c=cls, p=params: engine(c, p, X, y), args.repeats)
            t = statistics.median(times)
            line = f"  {label:15s} engine {t:7.3f} s ({t / bound:6.1f} x argsort)"
            entry = {"engine_s": t, "argsort_s": bound, "features": X.shape[1]}
            if name in ("SRBCT", "GLIOMA") or big:
                text, found, differ = against_baseline(
                    X,
                    name in ("SRBCT", "GLIOMA"),
                    own.baseline_features,
                    t,
                    selected,
                    lambda B, c=cls, p=params: engine(c, p, B, y),
                    lambda B, c=cls, p=params: baseline(c, p, B, y),
                    args.repeats,
                    base_repeats,
                )
                line += text
                entry.update(found)
                if differ:
                    problems.append(f"{name} {label}: engine {differ[0]} != baseline {differ[1]}")
            if (name, key) in octave and not own.features:
                o = octave[(name, key)]
                line += f"; Octave {o:.1f} s ({o / t:.0f} x)"
                entry["octave_s"] = o
                met &= o / t >= OCTAVE_FACTOR
            if big and name != "synthetic":
                met &= t <= TARGET_S
            print(line, flush=True)
            record[f"{name}/{label}"] = entry
    return finish_report("roughset", record, problems, met)


if __name__ == "__main__":
    sys.exit(main())
