"""Benchmark: OFS-FPD and CIE-OSFS engines against straightforward implementations.

What is measured
----------------
One whole stream of each selector (default parameters, features streamed in column
order) over the seeded synthetic microarray-like matrix of ``bench_kofsd.py``
(181 samples x 12533 features, 31 minority), timed with ``time.perf_counter``:

* the engine: a fresh ``fsengine.methods.online.OFSFPD`` / ``fsengine.methods.online.CIEOSFS``,
  ``list(stream_events(selector, X, names))`` and ``selector.finish()`` (one untimed
  warm-up, then median of ``--repeats`` runs);
* a baseline written here that applies the same rule one feature at a time, the
  obvious way (median of ``--baseline-repeats`` runs; ``--quick`` runs it once):

  - OFS-FPD: ``np.corrcoef`` of each arriving feature with the class; the members'
    raw columns kept in a list; whenever |S| > capacity(t) = max(1, ceil(log2 t)),
    the full correlation matrix of S by ``np.corrcoef``, the objectives E1 (smallest
    off-diagonal |corr| of the row), E2 = 1 - corr(f, class), E3 = 1 - cos(f, class),
    and the fuzzy dominance degrees with Python loops over pairs; the capacity(t)
    lowest scores are kept (ties: earlier arrival); the final selection is S ranked
    the same way.
  - CIE-OSFS: each feature cut at its 1/3 and 2/3 quantiles, the 3 x 2 contingency
    table, G = 2 sum O ln(O/E) and ``scipy.stats.chi2.sf``; a relevant feature
    (p < 0.05) joins SF, and the reduct is rebuilt from scratch with H(D | B)
    counted in a Python dict keyed by tuples of codes.

For each selector both must select the same features in the same order and take the
same relevance decision on every feature; otherwise the script exits with status 1.
Target (reported, not enforced): engine whole stream <= 2 s for each selector.
Results are also written to ``benchmarks/results/online.json``.
"""

from __future__ import annotations

import math
import statistics
import sys

import numpy as np
from _common import finish_report, machine, make_data, parse_options, timed
from scipy.stats import chi2

from fsengine.methods.online import CIEOSFS, OFSFPD, stream_events  # noqa: E402  (after _common)

ENGINE_TARGET_S = 2.0
SIGNIFICANCE, QUANTILES, ENTROPY_TOLERANCE = 0.05, (1 / 3, 2 / 3), 1e-12
TIE = 1e-12  # objectives and scores closer than this are equal (the engines' tie rule)


# ---------------------------------------------------------------- OFS-FPD baseline
def degree(u, v) -> float:
    """Degree to which objective vector u dominates v (minimisation), objectives >= 0."""
    d = 1.0
    for ui, vi in zip(u, v):
        ui, vi = max(ui, 0.0), max(vi, 0.0)
        d *= 1.0 if ui <= vi + TIE else vi / ui
    return d


def fpd_scores(members) -> list[float]:
    """Each member's largest degree of being dominated by another member of S."""
    m = len(members)
    if m == 1:
        return [0.0]
    corr = np.corrcoef(np.array([mem["x"] for mem in members]))
    # np.corrcoef is not exactly symmetric (C[i, j] and C[j, i] can differ by an ulp:
    # it divides by s_i and s_j in opposite orders). Two features that are each
    # other's least correlated partner have equal E1 exactly; an ulp of asymmetry
    # turns "u dominates v to degree 1" into 0.9999999999999999 and flips ties at
    # score 1.0. Each pair's correlation is therefore read from one triangle.
    objectives = []
    for i, mem in enumerate(members):
        e1 = min(abs(corr[min(i, j), max(i, j)]) for j in range(m) if j != i)
        objectives.append((e1, mem["e2"], mem["e3"]))
    return [max(degree(objectives[u], objectives[v]) for u in range(m) if u != v) for v in range(m)]


def ranked(members) -> list:
    """Members by ascending dominance score, ties to the earlier arrival."""
    scores = fpd_scores(members)
    order = sorted(
        range(len(members)), key=lambda i: (round(scores[i] / TIE), members[i]["arrival"])
    )
    return [members[i] for i in order]


def ofsfpd_baseline(X: np.ndarray, y: np.ndarray):
    """OFS-FPD (relevance "positive"), feature by feature.

    Returns
    -------
    selected : list of int
        Final columns, ranked by fuzzy Pareto dominance.
    relevant : ndarray of bool, shape (p,)
        Whether each feature entered S (corr > 0).
    corrs : ndarray, shape (p,)
        Each feature's Pearson correlation with the class.
    """
    p = X.shape[1]
    yf = y.astype(float)
    y_norm = math.sqrt(float(yf @ yf))
    members: list[dict] = []
    relevant = np.zeros(p, dtype=bool)
    corrs = np.empty(p)
    for t in range(1, p + 1):
        x = X[:, t - 1]
        with np.errstate(invalid="ignore", divide="ignore"):
            corr = float(np.corrcoef(x, yf)[0, 1])
        corrs[t - 1] = corr
        cap = max(1, math.ceil(math.log2(t)))
        if corr > 0:  # NaN (constant feature): False
            relevant[t - 1] = True
            x_norm = math.sqrt(float(x @ x))
            cos = float(x @ yf) / (x_norm * y_norm) if x_norm > 0 else 0.0
            members.append(
                {"column": t - 1, "arrival": t - 1, "x": x, "e2": 1.0 - corr, "e3": 1.0 - cos}
            )
        if len(members) > cap:
            members = ranked(members)[:cap]
    final = ranked(members) if len(members) > 1 else members
    return [m["column"] for m in final], relevant, corrs


# ---------------------------------------------------------------- CIE-OSFS baseline
def cond_entropy(codes_list, y: np.ndarray) -> float:
    """H(D | B) in bits; B's blocks keyed by the tuple of the members' codes."""
    n = len(y)
    counts: dict[tuple, list[int]] = {}
    labels = y.tolist()
    columns = [c.tolist() for c in codes_list]
    for i in range(n):
        key = tuple(col[i] for col in columns)
        counts.setdefault(key, [0, 0])[labels[i]] += 1
    h = 0.0
    for c0, c1 in counts.values():
        block = c0 + c1
        for c in (c0, c1):
            if c > 0:
                h -= c / n * math.log2(c / block)
    return h


def g_test(codes: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """G statistic and p-value of the 3 x 2 table of codes against the class."""
    n = len(y)
    class_totals = [float(np.sum(y == 0)), float(np.sum(y == 1))]
    g, occupied = 0.0, 0
    for v in range(3):
        in_bin = codes == v
        total = float(np.sum(in_bin))
        if total == 0:
            continue
        occupied += 1
        for d in (0, 1):
            observed = float(np.sum(in_bin & (y == d)))
            if observed > 0:
                expected = total * class_totals[d] / n
                g += observed * math.log(observed / expected)
    g = max(2.0 * g, 0.0)
    dof = occupied - 1
    return g, (float(chi2.sf(g, dof)) if dof > 0 else 1.0)


def cieosfs_baseline(X: np.ndarray, y: np.ndarray):
    """CIE-OSFS (3 quantile bins, G-test, 0.05), feature by feature.

    Returns
    -------
    selected : list of int
        Final reduct, in descending |corr| (ties: earlier arrival).
    relevant : ndarray of bool, shape (p,)
        Whether each feature passed the independence test.
    p_values : ndarray, shape (p,)
    """
    p = X.shape[1]
    yf = y.astype(float)
    members: list[dict] = []
    relevant = np.zeros(p, dtype=bool)
    p_values = np.empty(p)
    for j in range(p):
        x = X[:, j]
        cuts = np.quantile(x, QUANTILES)
        codes = (x > cuts[0]).astype(np.int64) + (x > cuts[1])
        _, p_values[j] = g_test(codes, y)
        if not p_values[j] < SIGNIFICANCE:
            continue
        relevant[j] = True
        with np.errstate(invalid="ignore", divide="ignore"):
            corr = abs(float(np.corrcoef(x, yf)[0, 1]))
        corr = 0.0 if math.isnan(corr) else corr
        candidates = members + [{"column": j, "arrival": j, "corr": corr, "codes": codes}]
        ordered = sorted(candidates, key=lambda m: (-round(m["corr"] / TIE), m["arrival"]))
        target = cond_entropy([m["codes"] for m in ordered], y)
        current = cond_entropy([], y)
        reduct: list[dict] = []
        for m in ordered:
            if current - target <= ENTROPY_TOLERANCE:
                break
            entropy = cond_entropy([r["codes"] for r in reduct] + [m["codes"]], y)
            if current - entropy > ENTROPY_TOLERANCE:
                reduct.append(m)
                current = entropy
        members = reduct
    return [m["column"] for m in members], relevant, p_values


# ---------------------------------------------------------------- timing
def run_engine(cls, X, y, names):
    """A fresh selector over the whole stream in natural order: (events, selection)."""
    selector = cls().start(y)
    events = list(stream_events(selector, X, names))
    return events, selector.finish()


def main(argv=None) -> int:
    args, base_repeats = parse_options(__doc__.splitlines()[0], argv)

    X, y = make_data(args.seed)
    names = [f"f{j}" for j in range(X.shape[1])]
    print(
        f"data: {X.shape[0]} x {X.shape[1]} ({int(y.sum())} minority), natural order, "
        f"seed={args.seed}; {machine()}",
        flush=True,
    )

    selectors = {"OFS-FPD": (OFSFPD, ofsfpd_baseline), "CIE-OSFS": (CIEOSFS, cieosfs_baseline)}
    results, all_problems = {}, []
    for label, (cls, baseline) in selectors.items():
        engine = lambda: run_engine(cls, X, y, names)  # noqa: E731
        engine()  # warm-up
        engine_times, (events, selection) = timed(engine, args.repeats)
        print(
            f"{label}: engine {args.repeats} runs done; baseline: {base_repeats} run(s)...",
            flush=True,
        )
        base_times, (base_selected, base_relevant, base_values) = timed(
            lambda: baseline(X, y), base_repeats
        )

        engine_selected = list(selection.columns)
        engine_relevant = np.array([e.action != "irrelevant" for e in events])
        if cls is OFSFPD:  # per-feature value compared: correlation with the class
            engine_values = np.array([e.score for e in events])
            value_name = "max |corr difference|"
        else:  # p-value of the independence test
            engine_values = np.array([e.p_value for e in events])
            value_name = "max |p-value difference|"
        max_value_diff = float(np.max(np.abs(engine_values - base_values)))
        problems = []
        if engine_selected != base_selected:
            problems.append(
                f"{label}: selections differ:\n  engine   {engine_selected}\n"
                f"  baseline {base_selected}"
            )
        mismatched = np.flatnonzero(engine_relevant != base_relevant).tolist()
        if mismatched:
            problems.append(
                f"{label}: relevance decisions differ on {len(mismatched)} "
                f"feature(s), first columns {mismatched[:10]}"
            )
        all_problems += problems

        engine_med, base_med = statistics.median(engine_times), statistics.median(base_times)
        results[label] = {
            "engine_times_s": engine_times,
            "baseline_times_s": base_times,
            "engine_median_s": engine_med,
            "baseline_median_s": base_med,
            "ratio": base_med / engine_med,
            "selected_columns": engine_selected,
            "baseline_selected_columns": base_selected,
            "n_selected": len(engine_selected),
            "n_relevant": int(engine_relevant.sum()),
            "n_relevant_baseline": int(base_relevant.sum()),
            value_name.replace(" ", "_").replace("|", ""): max_value_diff,
            "engine_target_met": engine_med <= ENGINE_TARGET_S,
            "agree": not problems,
            "problems": problems,
        }
        results[label]["_value_row"] = (value_name, f"{max_value_diff:.3g}")

    labels = list(results)
    value_rows = [results[lb].pop("_value_row") for lb in labels]
    rows = [
        ("", *labels),
        (
            f"engine median ({args.repeats} runs)",
            *(f"{results[lb]['engine_median_s']:.4f} s" for lb in labels),
        ),
        (
            f"baseline median ({base_repeats} runs)",
            *(f"{results[lb]['baseline_median_s']:.3f} s" for lb in labels),
        ),
        ("ratio (baseline / engine)", *(f"{results[lb]['ratio']:.1f}x" for lb in labels)),
        ("selected features", *(str(results[lb]["n_selected"]) for lb in labels)),
        ("relevant features (engine)", *(str(results[lb]["n_relevant"]) for lb in labels)),
        ("per-feature value", *(name for name, _ in value_rows)),
        ("  engine vs baseline", *(value for _, value in value_rows)),
        (
            f"target: engine whole stream <= {ENGINE_TARGET_S:g} s",
            *("met" if results[lb]["engine_target_met"] else "NOT MET" for lb in labels),
        ),
        ("results agree", *("yes" if results[lb]["agree"] else "NO" for lb in labels)),
    ]
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    print()
    for row in rows:
        print("  " + "  ".join(f"{cell:<{w}}" for cell, w in zip(row, widths)).rstrip())

    return finish_report(
        "online",
        {
            "shape": list(X.shape),
            "n_minority": int(y.sum()),
            "order": "natural",
            "seed": args.seed,
            "engine_target_s": ENGINE_TARGET_S,
            "selectors": results,
        },
        all_problems,
        all(r["engine_target_met"] for r in results.values()),
    )


if __name__ == "__main__":
    sys.exit(main())
