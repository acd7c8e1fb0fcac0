"""Benchmark: Alpha-investing, SAOLA and group SAOLA engines against straightforward versions.

What is measured
----------------
One whole stream of each selector (default parameters, column order, no events: what
``fsengine select`` runs) with ``stream_selection``, on the seeded synthetic matrix of
``_common.make_data()`` (181 x 12533), its copy rounded to 1 decimal, and SRBCT and GLIOMA
(minority = label 2) when ../shared/datasets is present; median of ``--repeats`` runs after
a warm-up. Beside it, in the same run:

* a baseline written here the obvious way, one feature at a time:

  - Alpha-investing: ``w = inv(X'X) X'y`` of the model plus the feature (as the authors'
    code), the likelihood-ratio p and the wealth update;
  - SAOLA / group SAOLA: ``np.corrcoef`` of the feature with the class, then with each
    earlier selected feature in turn, the toolbox's Fisher z test on each;

* the lower bound of one sort of the matrix (``np.argsort(X, axis=0)``);
* the authors' Octave time from ../shared/reference/lofs_octave/times.txt (SRBCT, GLIOMA).

Engine and baseline must select the same features in the same order; otherwise the
script exits with status 1. Targets (reported, not enforced): engine <= 1 s on the
181 x 12533 matrices, >= 50x the Octave time on SRBCT and GLIOMA.
Results are also written to ``benchmarks/results/alpha_saola.json``.
"""

from __future__ import annotations

import math
import re
import statistics
import sys
from pathlib import Path

import numpy as np
from _common import finish_report, machine, make_data, parse_options, timed

from fsengine.methods.online import stream_selection  # noqa: E402
from fsengine.methods.online._statistical.fisher_z import fisher_z_cutoff  # noqa: E402
from fsengine.methods.online._statistical.saola import group_bounds  # noqa: E402
from fsengine.methods.registry import get_method  # noqa: E402  (after _common)

SHARED = Path(__file__).resolve().parents[2] / "shared"
ENGINE_TARGET_S, OCTAVE_FACTOR = 1.0, 50.0
OCTAVE_NAMES = {
    "alpha-investing": "alpha_investing",
    "saola": "saola",
    "group-saola": "group_saola",
}


# ---------------------------------------------------------------- baselines
def alpha_investing_baseline(X, y):
    n, p = X.shape
    y = y.astype(float)

    def rss(cols):
        A = X[:, cols]
        try:
            w = np.linalg.inv(A.T @ A) @ A.T @ y
        except np.linalg.LinAlgError:
            return math.nan
        return float(np.sum((y - A @ w) ** 2))

    model, wealth = [0], 0.5
    error = rss(model)
    for i in range(2, p + 1):
        alpha = wealth / (2 * i)
        new = rss(model + [i - 1])
        p_value = math.exp((new - error) / (2 * error / n))
        if p_value < alpha:
            model.append(i - 1)
            error, wealth = new, wealth + 0.5 - alpha
        else:
            wealth -= alpha
    return model


def saola_baseline(X, y, groups=None, alpha=0.01, tie=1e-12):
    n, p = X.shape
    cutoff = fisher_z_cutoff(alpha)

    def corr(a, b):
        with np.errstate(invalid="ignore", divide="ignore"):
            return float(np.corrcoef(a, b)[0, 1])

    def independent(r):
        return math.isnan(r) or (abs(r) < 1 and abs(math.sqrt(n - 3) * math.atanh(r)) < cutoff)

    dep, closed = {}, []
    for lo, hi in [(0, p)] if groups is None else group_bounds(p, groups):
        current = []
        for i in range(lo, hi):
            if sum(X[:, i].tolist()) == 0:
                continue
            r = corr(X[:, i], y)
            if independent(r):
                continue
            dep[i] = abs(r)
            earlier = list(current)
            current.append(i)
            for t in earlier:
                c = corr(X[:, i], X[:, t])
                if independent(c):
                    continue
                if dep[t] >= dep[i] - tie and abs(c) > dep[i] + tie:
                    current.remove(i)
                    break
                if dep[i] > dep[t] + tie and abs(c) > dep[t] + tie:
                    current.remove(t)
        group = list(current)
        for earlier_group in closed if current else []:
            snapshot = list(earlier_group)
            for c in current:
                for g in snapshot:
                    r = corr(X[:, g], X[:, c])
                    if independent(r):
                        continue
                    bar = min(dep[g], dep[c]) + tie
                    if dep[g] > dep[c] + tie and abs(r) > bar:
                        if c in group:
                            group.remove(c)
                        break
                    if abs(r) > bar and g in earlier_group:
                        earlier_group.remove(g)
        closed.append(group)
    return [f for group in closed for f in group]


BASELINES = {
    "alpha-investing": alpha_investing_baseline,
    "saola": saola_baseline,
    "group-saola": lambda X, y: saola_baseline(X, y, groups=5),
}


# ---------------------------------------------------------------- data and Octave times
def data_sets(seed):
    X, y = make_data(seed)
    sets = {"synthetic": (X, y), "rounded": (np.round(X, 1), y)}
    for name in ("SRBCT", "GLIOMA"):
        path = SHARED / "datasets" / f"{name}.parquet"
        if path.exists():
            import pandas as pd

            frame = pd.read_parquet(path)
            features = [c for c in frame.columns if c != "label"]
            labels = (frame["label"].astype(str) == "2").astype(int).to_numpy()
            sets[name] = (frame[features].to_numpy(dtype=float), labels)
    return sets


def octave_times() -> dict:
    """(data set, method) -> seconds, from the reference's times.txt."""
    path = SHARED / "reference" / "lofs_octave" / "times.txt"
    found = {}
    if path.exists():
        for line in path.read_text().splitlines():
            match = re.match(r"(\S+) \S+ x \S+\s+(\S+) .* time=([\d.]+) s", line)
            if match:
                found[(match.group(1), match.group(2))] = float(match.group(3))
    return found


def main(argv=None) -> int:
    args, base_repeats = parse_options(__doc__.splitlines()[0], argv)
    sets, octave = data_sets(args.seed), octave_times()
    print(f"{machine()}; data sets: {', '.join(sets)}", flush=True)
    results, problems, targets_met = {}, [], True
    for name, (X, y) in sets.items():
        names = [f"f{j}" for j in range(X.shape[1])]
        sort_times, _ = timed(lambda: np.argsort(X, axis=0), args.repeats)  # noqa: B023
        sort_med = statistics.median(sort_times)
        for method, baseline in BASELINES.items():
            run = lambda: stream_selection(  # noqa: E731
                get_method(method).selector().start(y, n_features=X.shape[1]),
                X,
                names,  # noqa: B023
            )
            run()  # warm-up (and compilation)
            engine_times, selection = timed(run, args.repeats)
            base_times, base_selected = timed(lambda: baseline(X, y), base_repeats)  # noqa: B023
            engine_med, base_med = statistics.median(engine_times), statistics.median(base_times)
            if list(selection.columns) != base_selected:
                problems.append(f"{method} on {name}: {list(selection.columns)} != {base_selected}")
            oct_s = octave.get((name, OCTAVE_NAMES[method]))
            big = X.shape[1] > 10000
            met = (engine_med <= ENGINE_TARGET_S) if big else True
            if oct_s is not None:
                met = met and oct_s / engine_med >= OCTAVE_FACTOR
            targets_met &= met
            results[f"{method} {name}"] = {
                "engine_median_s": engine_med,
                "baseline_median_s": base_med,
                "argsort_median_s": sort_med,
                "octave_s": oct_s,
                "n_selected": len(selection),
                "target_met": met,
            }
            print(
                f"{method:16s} {name:9s} engine {engine_med * 1e3:8.2f} ms  "
                f"baseline {base_med:7.3f} s ({base_med / engine_med:7.0f}x)  "
                f"argsort {sort_med * 1e3:7.2f} ms (engine / argsort {engine_med / sort_med:5.2f})"
                + (f"  Octave {oct_s:.3f} s ({oct_s / engine_med:5.0f}x)" if oct_s else "")
                + f"  selected {len(selection)}{'' if met else '  TARGET NOT MET'}",
                flush=True,
            )
    return finish_report("alpha_saola", {"results": results}, problems, targets_met)


if __name__ == "__main__":
    sys.exit(main())
