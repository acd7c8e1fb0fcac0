"""What the benchmarks share: the seeded synthetic matrix, timing, and their options."""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

SHARED = ROOT.parent / "shared"

N_SAMPLES, N_FEATURES, N_MINORITY = 181, 12533, 31
N_INFORMATIVE, N_TIED = 40, 8


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


def timed(fn, repeats: int):
    """Run ``fn`` ``repeats`` times; return (list of seconds, last result)."""
    times, result = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return times, result


def parse_options(description: str, argv=None) -> tuple[argparse.Namespace, int]:
    """The benchmarks' common options; returns (options, number of baseline runs)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--quick", action="store_true", help="run the baseline(s) once")
    parser.add_argument("--repeats", type=int, default=7, help="timed engine runs (default 7)")
    parser.add_argument(
        "--baseline-repeats",
        type=int,
        default=3,
        help="timed baseline runs (default 3; 1 with --quick)",
    )
    parser.add_argument("--seed", type=int, default=0, help="data seed (default 0)")
    args = parser.parse_args(argv)
    base_repeats = 1 if args.quick else args.baseline_repeats
    if args.repeats < 1 or base_repeats < 1:
        parser.error("repeat counts must be at least 1")
    return args, base_repeats


def machine() -> str:
    """CPU count and numpy version, for the report's first line."""
    return f"CPUs: {os.cpu_count()}, numpy {np.__version__}"


def finish_report(name: str, record: dict, problems: list[str], targets_met: bool) -> int:
    """Write ``benchmarks/results/<name>.json`` (with the machine's facts, the date and
    whether the targets were met; the docs' speed page is written from these files) and
    return the exit status.

    1 if the engine and the baseline disagree; 0 otherwise (unmet performance targets
    are reported, not an error).
    """
    import datetime
    import json
    import platform

    out = ROOT / "benchmarks" / "results" / f"{name}.json"
    out.parent.mkdir(exist_ok=True)
    record = {
        **record,
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "targets_met": bool(targets_met),
        "cpu_count": os.cpu_count(),
        "numpy": np.__version__,
        "python": platform.python_version(),
        "agree": not problems,
        "problems": problems,
    }
    out.write_text(json.dumps(record, indent=2) + "\n")
    print(f"\nresults written to {out.relative_to(ROOT)}")
    if problems:
        print(
            "\nERROR: the engine and the baseline disagree:\n" + "\n".join(problems),
            file=sys.stderr,
        )
        return 1
    if not targets_met:
        print("\nNOTE: performance target(s) not met (reported only; results agree).")
    return 0


def print_table(rows: list[tuple[str, str]]) -> None:
    """Print (label, value) rows as an aligned two-column table."""
    width = max(len(label) for label, _ in rows)
    print()
    for label, value in rows:
        print(f"  {label:<{width}}  {value}")


# ---------------------------------------------------------------- the sets the baselines run on
REAL = ("SRBCT", "GLIOMA", "ALLAML", "Colon_alon", "Brain_Tumor1")
SYNTHETIC = ("synthetic", "rounded", "integer")


def data_sets(seed: int, only: str | None = None) -> list:
    """(name, X, y): the real sets (SRBCT and GLIOMA from the repository if ../shared is
    absent), then the synthetic 181 x 12533 matrix, its copy rounded to 1 decimal and an
    integer-valued copy (``rint(480 + 40 X)``); ``only``: that one alone."""
    sets = []
    local = {"SRBCT": ROOT / "sample_data", "GLIOMA": ROOT / "tests" / "reference" / "datasets"}
    for name in REAL if only in (None, *REAL) else ():
        path = SHARED / "datasets" / f"{name}.parquet"
        if not path.is_file() and name in local:
            path = local[name] / f"{name}.parquet"
        if path.is_file() and only in (None, name):
            import pandas as pd

            frame = pd.read_parquet(path)
            labels = frame["label"]
            minority = labels.value_counts().idxmin() if name not in local else 2
            X = frame.drop(columns="label").to_numpy(float)
            sets.append((name, X, (labels == minority).to_numpy(int)))
    if only in (None, *SYNTHETIC):
        X, y = make_data(seed)
        y = y.astype(int)
        copies = {"synthetic": X, "rounded": np.round(X, 1), "integer": np.rint(480 + 40 * X)}
        sets += [(name, M, y) for name, M in copies.items() if only in (None, name)]
    return sets


def against_baseline(
    X: np.ndarray,
    whole: bool,
    prefix: int,
    engine_s: float,
    selected: list,
    run_engine,
    run_baseline,
    repeats: int,
    base_repeats: int,
    ordered: bool = False,
) -> tuple[str, dict, tuple]:
    """The straightforward version timed against the engine: on all of X when ``whole``
    (the engine's ``engine_s`` and ``selected`` reused), else on its first ``prefix``
    columns (the engine timed again there). ``run_engine(B)`` and ``run_baseline(B)``
    return selections; they must agree (as lists when ``ordered``, else as sets in order).

    Returns
    -------
    (str, dict, tuple)
        The text for the report line, the record's entries, and (engine's, baseline's)
        selections when they differ, else ().
    """
    B = X if whole else X[:, :prefix]
    t_b = engine_s if whole else statistics.median(timed(lambda: run_engine(B), repeats)[0])
    base_times, expected = timed(lambda: run_baseline(B), base_repeats)
    b = statistics.median(base_times)
    text = f"; baseline {b:8.2f} s ({b / t_b:6.1f} x"
    text += ")" if whole else f" on the first {B.shape[1]} features)"
    got = selected if whole else run_engine(B)
    differ = (got, expected) if (got if ordered else sorted(got)) != expected else ()
    return text, {"baseline_s": b, "baseline_features": B.shape[1], "engine_prefix_s": t_b}, differ
