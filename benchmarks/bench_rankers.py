"""Benchmark: the ten filter rankers, and MI and ReliefF against scikit-learn and skrebate.

What is measured
----------------
On the seeded synthetic microarray-like matrix of ``bench_kofsd.py`` (181 samples x
12533 features, 31 minority), timed with ``time.perf_counter``:

* all ten rankers of ``fsengine.methods.rankers.RANKERS``, one after the other, as
  ``score_features(name, X, y)`` with default parameters (one untimed warm-up, then the
  median of ``--repeats`` runs of the whole set; each ranker's own median comes from
  the same runs). The decomposition rankers (d-fisher, d-mi, d-pcc, d-s2n) share one
  k-means run per data set through a cache; the cache is cleared before every run, so
  each run pays for k-means once (in the first decomposition ranker, d-fisher), as a
  user running all ten on a new data set would;
* scikit-learn's ``mutual_info_classif(X, y, n_neighbors=3, random_state=0)`` against
  our ``score_features("mi", X, y)``, and skrebate's
  ``ReliefF(n_neighbors=7, n_features_to_select=50, n_jobs=1).fit(X, y)`` against our
  ``score_features("relieff", X, y)`` (median of ``--baseline-repeats`` runs;
  ``--quick`` runs each baseline once).

Agreement
---------
* MI: ours must equal scikit-learn's per-column estimator
  ``sklearn.feature_selection._mutual_info._compute_mi_cd(X[:, j], y, 3)`` to 1e-9 on
  200 seeded random columns, the tied (rounded to 1 decimal) columns of ``make_data``
  and our top 20 columns; otherwise the script exits with status 1.
  ``mutual_info_classif`` itself rescales every column and adds 1e-10 noise, so against
  it only the Spearman rank correlation and the top-50 overlap are reported, over all
  features and without the tied columns. The noise matters on tied values: there a
  point's k-th neighbour in its class is often at distance 0, and the estimate without
  noise (ours, ``_compute_mi_cd``) can differ widely from the noisy one (it is often
  clipped to 0); on the other columns of this matrix the two agree exactly.
* ReliefF: the Spearman rank correlation with skrebate's ``feature_importances_``, the
  top-50 overlap and the largest absolute difference are reported. For a binary class
  with no missing values and every feature continuous in skrebate's sense (more than
  ``categorical_threshold`` = 10 distinct values), skrebate 0.8.4 computes what
  ``fsengine.methods.rankers._relieff`` computes: min-max scaled features, Manhattan distance
  over all features, k nearest hits and k nearest misses (itself excluded),
  ``W = 1/n sum_R (mean over misses - mean over hits)`` of the scaled |differences|
  (our miss factor P(C) / (1 - P(class(R))) is 1 for two classes). The weights must
  then agree to 1e-9 (status 1 otherwise). Where they differ in general:

  - a feature with at most 10 distinct values (a constant one included) is
    categorical in skrebate: its diff is 0/1 (values equal or not) instead of the
    scaled |difference|; the data are then "mixed", the distance becomes
    ``n_features * Hamming(categorical) + Manhattan(continuous)`` (each differing
    categorical feature weighs n_features / n_categorical, not 1), and a continuous
    diff larger than the feature's standard deviation counts as 1 (skrebate's ramp);
  - neighbours at equal distance: skrebate sorts with numpy's default (unstable)
    argsort, we break ties to the lower sample index;
  - more than two classes: skrebate weighs each miss class by its share of the misses
    found (times the number of miss classes), we by its prior P(C) / (1 - P(class(R)));
  - missing values: skrebate skips them, we reject them.

  On this matrix every feature has at least 42 distinct values (the tied columns
  included), so the first difference does not arise; the script reports skrebate's
  feature types to show it.

Targets (reported, not enforced): all ten rankers <= 2 s in total; baseline / ours
>= 20x for MI and for ReliefF. Results are also written to ``benchmarks/results/rankers.json``.
skrebate is a benchmark-only requirement (``requirements-bench.txt``); without it the
script exits with status 2.
"""

from __future__ import annotations

import statistics
import sys
import time

import numpy as np
from _common import finish_report, machine, make_data, parse_options, print_table, timed
from scipy.stats import spearmanr
from sklearn.feature_selection import mutual_info_classif
from sklearn.feature_selection._mutual_info import _compute_mi_cd

from fsengine.methods.rankers import (  # noqa: E402  (after _common)
    RANKERS,
    _decomposition,  # noqa: E402
    rank_features,
    score_features,
)
from fsengine.methods.rankers._mi import break_ties  # noqa: E402
from fsengine.methods.rankers._order import sorted_within_classes  # noqa: E402

TOTAL_TARGET_S, RATIO_TARGET = 2.0, 20.0
MI_NEIGHBORS, RELIEFF_NEIGHBORS = 3, 7
MI_TOLERANCE, RELIEFF_TOLERANCE = 1e-9, 1e-9
N_CHECKED, N_TOP_CHECKED, TOP, CHECK_SEED = 200, 20, 50, 12345


def load_skrebate():
    """The skrebate module, or None when it is not installed."""
    try:
        import skrebate
    except ImportError:
        return None
    return skrebate


# ---------------------------------------------------------------- timing
def run_all(X: np.ndarray, y: np.ndarray):
    """All ten rankers in registry order, the k-means cache cleared first.

    Returns
    -------
    total : float
        Seconds for the ten.
    times : dict of str to float
        Seconds per ranker.
    scores : dict of str to ndarray
    """
    _decomposition._CACHE.clear()
    times, scores = {}, {}
    start = time.perf_counter()
    for name in RANKERS:
        t0 = time.perf_counter()
        scores[name] = score_features(name, X, y)
        times[name] = time.perf_counter() - t0
    return time.perf_counter() - start, times, scores


def sklearn_mi(X, y) -> np.ndarray:
    return mutual_info_classif(X, y, n_neighbors=MI_NEIGHBORS, random_state=0)


def skrebate_relieff(skrebate, X, y):
    return skrebate.ReliefF(n_neighbors=RELIEFF_NEIGHBORS, n_features_to_select=TOP, n_jobs=1).fit(
        X, y
    )


# ---------------------------------------------------------------- agreement
def top_overlap(a: np.ndarray, b: np.ndarray, top: int = TOP) -> int:
    """How many features the two scorings share among their ``top`` best."""
    return len(set(rank_features(a)[:top].tolist()) & set(rank_features(b)[:top].tolist()))


def check_mi(X, y, ours: np.ndarray, seed: int):
    """Our MI against ``_compute_mi_cd`` on sampled, tied and top columns.

    Columns with tied values are compared after the same deterministic tie-breaking
    noise that our estimator adds (``break_ties`` on the columns sorted within each
    class, where each draw goes by the sample's (label, value) place): the estimator
    itself must agree everywhere.

    Returns (columns, reference values, number of tied columns, problems).
    """
    p = X.shape[1]
    rng = np.random.default_rng(CHECK_SEED + seed)
    sample = rng.choice(p, min(N_CHECKED, p), replace=False)
    tied = np.flatnonzero(np.all(X == np.round(X, 1), axis=0))  # make_data's rounded columns
    best = rank_features(ours)[:N_TOP_CHECKED]
    columns = np.unique(np.concatenate([sample, tied, best]))
    X_sorted, y_sorted = sorted_within_classes(X, y)
    untied_x = break_ties(X_sorted)
    reference = np.array([_compute_mi_cd(untied_x[:, j], y_sorted, MI_NEIGHBORS) for j in columns])
    diff = np.abs(ours[columns] - reference)
    problems = [
        f"MI column {j}: ours {ours[j]!r}, _compute_mi_cd {ref!r} "
        f"(difference {abs(ours[j] - ref):.3g})"
        for j, ref, d in zip(columns.tolist(), reference.tolist(), diff.tolist())
        if not d <= MI_TOLERANCE
    ]
    return columns, reference, tied, problems


def main(argv=None) -> int:
    args, base_repeats = parse_options(__doc__.splitlines()[0], argv)
    skrebate = load_skrebate()
    if skrebate is None:
        print(
            "bench_rankers: skrebate (the ReliefF baseline) is not installed. Run `make bench`, "
            "which installs requirements-bench.txt (or: .venv/bin/pip install -r "
            "requirements-bench.txt).",
            file=sys.stderr,
        )
        return 2
    import sklearn

    X, y = make_data(args.seed)
    X_original = X.copy()
    p = X.shape[1]
    decomposition = [name for name, fn in RANKERS.items() if hasattr(fn, "base")]
    print(
        f"data: {X.shape[0]} x {p} ({int(y.sum())} minority), seed={args.seed}; {machine()}, "
        f"scikit-learn {sklearn.__version__}, skrebate {skrebate.__version__}",
        flush=True,
    )
    print(
        f"k-means cache cleared before every run of the {len(RANKERS)} rankers: each run pays "
        f"for k-means once, in {decomposition[0]}; {', '.join(decomposition[1:])} reuse its "
        f"pseudo-labels (as a user running all {len(RANKERS)} on a new data set would)",
        flush=True,
    )

    # ------------------------------------------------------------ our rankers
    run_all(X, y)  # warm-up
    totals, per_ranker, scores = [], {name: [] for name in RANKERS}, None
    for _ in range(args.repeats):
        total, times, scores = run_all(X, y)
        totals.append(total)
        for name, seconds in times.items():
            per_ranker[name].append(seconds)
    total_med = statistics.median(totals)
    ranker_med = {name: statistics.median(ts) for name, ts in per_ranker.items()}
    problems = [
        f"{name}: scores of shape {np.shape(s)}, not ({p},) and finite"
        for name, s in scores.items()
        if np.shape(s) != (p,) or not np.all(np.isfinite(s))
    ]
    print(
        f"rankers: {args.repeats} runs done (median {total_med:.3f} s); "
        f"baselines: {base_repeats} run(s) each...",
        flush=True,
    )

    # ------------------------------------------------------------ baselines
    mi_times, sk_mi = timed(lambda: sklearn_mi(X, y), base_repeats)
    print(f"mutual_info_classif: median {statistics.median(mi_times):.3f} s", flush=True)
    rf_times, model = timed(lambda: skrebate_relieff(skrebate, X, y), base_repeats)
    print(f"skrebate ReliefF: median {statistics.median(rf_times):.3f} s", flush=True)
    if not np.array_equal(X, X_original):
        problems.append("a baseline modified X in place")
    mi_base_med, rf_base_med = statistics.median(mi_times), statistics.median(rf_times)
    mi_ratio, rf_ratio = mi_base_med / ranker_med["mi"], rf_base_med / ranker_med["relieff"]

    # ------------------------------------------------------------ agreement
    ours_mi, ours_rf = scores["mi"], scores["relieff"]
    columns, reference, tied, mi_problems = check_mi(X, y, ours_mi, args.seed)
    mi_max_diff = float(np.max(np.abs(ours_mi[columns] - reference)))
    mi_identical = int(np.sum(ours_mi[columns] == reference))
    mi_spearman = float(spearmanr(ours_mi, sk_mi).statistic)
    mi_overlap = top_overlap(ours_mi, sk_mi)
    untied = np.ones(p, dtype=bool)
    untied[tied] = False
    mi_spearman_untied = float(spearmanr(ours_mi[untied], sk_mi[untied]).statistic)
    mi_untied_max_diff = float(np.max(np.abs(ours_mi[untied] - sk_mi[untied])))
    mi_tied_diff = np.abs(ours_mi[tied] - sk_mi[tied])
    mi_tied_differ = int(np.sum(mi_tied_diff > MI_TOLERANCE))
    problems += mi_problems

    sk_rf = np.asarray(model.feature_importances_, dtype=float)
    rf_spearman = float(spearmanr(ours_rf, sk_rf).statistic)
    rf_overlap = top_overlap(ours_rf, sk_rf)
    rf_max_diff = float(np.max(np.abs(ours_rf - sk_rf)))
    n_categorical = sum(v[0] == "categorical" for v in model.attr.values())
    fewest_values = int(min(len(np.unique(X[:, j])) for j in range(p)))
    same_definition = model.data_type == "continuous" and model._class_type == "binary"
    if same_definition and not rf_max_diff <= RELIEFF_TOLERANCE:
        problems.append(
            f"ReliefF: skrebate's data are all continuous and binary (the same "
            f"definition as ours), yet the weights differ by up to {rf_max_diff:.3g}"
        )

    total_ok = total_med <= TOTAL_TARGET_S
    mi_ok, rf_ok = mi_ratio >= RATIO_TARGET, rf_ratio >= RATIO_TARGET
    first_dec = decomposition[0]
    rows = [
        (f"all {len(RANKERS)} rankers, median ({args.repeats} runs)", f"{total_med:.3f} s"),
        *(
            (
                f"  {name}"
                + (
                    " (incl. k-means)"
                    if name == first_dec
                    else " (cached pseudo-labels)"
                    if name in decomposition
                    else ""
                ),
                f"{ranker_med[name]:.4f} s",
            )
            for name in RANKERS
        ),
        (f"MI: mutual_info_classif median ({base_repeats} runs)", f"{mi_base_med:.3f} s"),
        ("MI: ratio (scikit-learn / ours)", f"{mi_ratio:.1f}x"),
        (f"ReliefF: skrebate median ({base_repeats} runs)", f"{rf_base_med:.3f} s"),
        ("ReliefF: ratio (skrebate / ours)", f"{rf_ratio:.1f}x"),
        (f"MI vs _compute_mi_cd: columns checked ({len(tied)} tied)", str(len(columns))),
        ("  max |difference|", f"{mi_max_diff:.3g}"),
        ("  bit-identical", f"{mi_identical} of {len(columns)}"),
        ("MI vs mutual_info_classif (noise): Spearman", f"{mi_spearman:.6f}"),
        (f"  top-{TOP} overlap", f"{mi_overlap} of {TOP}"),
        (f"  without the {len(tied)} tied columns: Spearman", f"{mi_spearman_untied:.6f}"),
        ("    max |difference|", f"{mi_untied_max_diff:.3g}"),
        (
            f"  tied columns differing by > {MI_TOLERANCE:g}",
            f"{mi_tied_differ} of {len(tied)} "
            f"(up to {float(np.max(mi_tied_diff, initial=0.0)):.3g})",
        ),
        ("ReliefF vs skrebate: Spearman", f"{rf_spearman:.6f}"),
        (f"  top-{TOP} overlap", f"{rf_overlap} of {TOP}"),
        ("  max |difference|", f"{rf_max_diff:.3g}"),
        (
            "  skrebate's feature types",
            f"{p - n_categorical} continuous, {n_categorical} "
            f"categorical (fewest distinct values: {fewest_values})",
        ),
        (
            "  same definition on these data",
            "yes" if same_definition else f"no (skrebate data type {model.data_type!r})",
        ),
        (f"target: all {len(RANKERS)} <= {TOTAL_TARGET_S:g} s", "met" if total_ok else "NOT MET"),
        (f"target: MI ratio >= {RATIO_TARGET:.0f}x", "met" if mi_ok else "NOT MET"),
        (f"target: ReliefF ratio >= {RATIO_TARGET:.0f}x", "met" if rf_ok else "NOT MET"),
        ("results agree", "yes" if not problems else "NO"),
    ]
    print_table(rows)

    return finish_report(
        "rankers",
        {
            "shape": list(X.shape),
            "n_minority": int(y.sum()),
            "seed": args.seed,
            "scikit_learn": sklearn.__version__,
            "skrebate": skrebate.__version__,
            "kmeans_cache": f"cleared before every run; k-means paid once per run, in {first_dec}",
            "total_times_s": totals,
            "total_median_s": total_med,
            "ranker_times_s": per_ranker,
            "ranker_median_s": ranker_med,
            "mi": {
                "baseline": "sklearn mutual_info_classif(n_neighbors=3, random_state=0)",
                "baseline_times_s": mi_times,
                "baseline_median_s": mi_base_med,
                "engine_median_s": ranker_med["mi"],
                "ratio": mi_ratio,
                "checked_columns": columns.tolist(),
                "tied_columns": tied.tolist(),
                "max_difference_vs_compute_mi_cd": mi_max_diff,
                "bit_identical_vs_compute_mi_cd": mi_identical,
                "spearman_vs_mutual_info_classif": mi_spearman,
                f"top{TOP}_overlap_vs_mutual_info_classif": mi_overlap,
                "spearman_vs_mutual_info_classif_untied": mi_spearman_untied,
                "max_difference_vs_mutual_info_classif_untied": mi_untied_max_diff,
                "tied_columns_ours": ours_mi[tied].tolist(),
                "tied_columns_mutual_info_classif": sk_mi[tied].tolist(),
                "ratio_target_met": mi_ok,
            },
            "relieff": {
                "baseline": f"skrebate.ReliefF(n_neighbors={RELIEFF_NEIGHBORS}, n_jobs=1)",
                "baseline_times_s": rf_times,
                "baseline_median_s": rf_base_med,
                "engine_median_s": ranker_med["relieff"],
                "ratio": rf_ratio,
                "spearman_vs_skrebate": rf_spearman,
                f"top{TOP}_overlap": rf_overlap,
                "max_difference_vs_skrebate": rf_max_diff,
                "skrebate_categorical_features": n_categorical,
                "skrebate_data_type": model.data_type,
                "same_definition": same_definition,
                "ratio_target_met": rf_ok,
            },
            "total_target_s": TOTAL_TARGET_S,
            "ratio_target": RATIO_TARGET,
            "total_target_met": total_ok,
        },
        problems,
        total_ok and mi_ok and rf_ok,
    )


if __name__ == "__main__":
    sys.exit(main())
