"""The tables and figures of docs/REPRODUCTION.md section 8 from the reproduction study.

usage (from the repository root, after ``fsengine benchmark studies/reproduction.toml``):

    .venv/bin/python studies/report.py [--results studies/reproduction_results.parquet]
                                       [--figures docs/figures] [--write docs/REPRODUCTION.md]

Prints the section (Markdown): the K-OFSD paper's Tables 3-9 laid out over the study's data
sets with the published values beside ours where the paper has the data set, the Friedman /
Iman-Davenport / Nemenyi results of every metric, and the OFS-FPD paper's Table 12 (Friedman
ranks of the online selectors) with the ranks its Table 7 gives the methods we share. With
``--write``, replaces the part of that file between the study markers. With ``--figures``,
draws the critical-difference diagram and the heat map of the 1-NN G-mean (plotly, saved as
PNG by Debian's Chromium through Playwright). Every number comes from
:func:`fsengine.evaluation.benchmark.compare_study` and
:func:`fsengine.evaluation.statistics.compare_methods`.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from fsengine.evaluation.benchmark import compare_study, study_means  # noqa: E402
from fsengine.evaluation.statistics import compare_methods  # noqa: E402
from fsengine.evaluation.study import load_manifest  # noqa: E402
from fsengine.methods.registry import METHOD_LABELS  # noqa: E402

MANIFEST = ROOT / "studies" / "reproduction.toml"
BEGIN, END = "<!-- study:begin -->", "<!-- study:end -->"
RANKERS = ["kofsd", "fisher", "s2n", "pcc", "relieff", "mi"]
EXTRA_RANKERS = ["hellinger", "d-fisher", "d-s2n", "d-pcc", "d-mi"]
PAPER_ONLINE = ["kofsd", "alpha-investing", "osfs", "fast-osfs", "saola"]
ONLINE = PAPER_ONLINE + [
    "group-saola",
    "cie-osfs",
    "ofs-fpd",
    "ofs-a3m",
    "ofs-density",
    "rhofs",
    "sfsf",
    "osfs-et",
    "sfs-fi",
    "ossfs-dd",
    "grafting",
]

# Zhou et al. 2017 (K-OFSD), Tables 3, 4 (K-OFSD and the rankers), 6-9 (the online methods):
# the two of its seven data sets that the project has.
PAPER = {
    "gmean_1nn": {
        "SRBCT": dict(
            zip(RANKERS, [0.9971, 0.9583, 0.9789, 0.9894, 0.9525, 0.9565]),
            **{"alpha-investing": 0.9669, "osfs": 0.9338, "fast-osfs": 0.9316, "saola": 0.9894},
        ),
        "GLIOMA": dict(
            zip(RANKERS, [0.8817, 0.5751, 0.8506, 0, 0.7275, 0.8334]),
            **{"alpha-investing": 0.804, "osfs": 0.8171, "fast-osfs": 0.8181, "saola": 0.8449},
        ),
    },
    "gmean_svm": {
        "SRBCT": dict(
            zip(RANKERS, [0.9942, 0.9584, 0.9894, 0.9894, 0.9563, 0.9459]),
            **{"alpha-investing": 0.9789, "osfs": 0.9113, "fast-osfs": 0.9316, "saola": 1.0},
        ),
        "GLIOMA": dict(
            zip(RANKERS, [0.8498, 0.5037, 0.8434, 0, 0.6952, 0.7482]),
            **{"alpha-investing": 0.0, "osfs": 0.7214, "fast-osfs": 0.8181, "saola": 0.8667},
        ),
    },
    "n_features": {
        "SRBCT": {
            "kofsd": 5.1,
            "alpha-investing": 13.2,
            "osfs": 2.3,
            "fast-osfs": 3.9,
            "saola": 17.0,
        },
        "GLIOMA": {
            "kofsd": 4.1,
            "alpha-investing": 1.0,
            "osfs": 1.3,
            "fast-osfs": 2.7,
            "saola": 9.7,
        },
    },
    "seconds": {
        "SRBCT": {
            "kofsd": 0.8133,
            "alpha-investing": 0.129,
            "osfs": 0.7411,
            "fast-osfs": 0.9421,
            "saola": 0.5108,
        },
        "GLIOMA": {
            "kofsd": 1.2012,
            "alpha-investing": 0.2051,
            "osfs": 0.9888,
            "fast-osfs": 0.8201,
            "saola": 0.8402,
        },
    },
}
#: Table 5 of the K-OFSD paper (K-OFSD's mean count, which the rankers get).
PAPER_TABLE5 = {"SRBCT": 5.2, "GLIOMA": 3.1}

# Hashemi et al. (OFS-FPD), Table 12: Friedman ranks over its six data sets, 8 methods.
FPD_METHODS = [
    "OSFSMI",
    "OFS-A3M",
    "OFS-Density",
    "Alpha-investing",
    "OFSFI",
    "OFSV",
    "RHOFS",
    "OFS-FPD",
]
FPD_TABLE12 = {
    "KNN (Accuracy)": [6.33, 5.33, 4.83, 7.50, 2.83, 2.50, 4.17, 1.67],
    "KNN (Sensitivity)": [3.50, 6.17, 3.83, 5.83, 3.17, 3.33, 5.83, 2.50],
    "KNN (Precision)": [4.33, 5.17, 5.00, 7.00, 3.33, 3.17, 3.83, 3.00],
    "KNN (F-Measure)": [6.33, 5.33, 4.67, 7.50, 2.50, 2.33, 4.50, 2.00],
    "CART (Accuracy)": [5.67, 6.17, 3.67, 6.67, 3.67, 3.50, 4.50, 1.17],
    "CART (Sensitivity)": [2.17, 3.50, 4.00, 4.50, 5.17, 5.00, 6.17, 3.33],
    "CART (Precision)": [4.33, 6.00, 5.00, 6.67, 3.50, 3.67, 3.67, 2.00],
    "CART (F-Measure)": [6.17, 6.00, 3.50, 6.00, 3.67, 3.50, 4.33, 2.00],
}
# Its Table 7 (KNN F-Measure), the columns of the five methods fsengine has.
FPD_SHARED = ["ofs-a3m", "ofs-density", "alpha-investing", "rhofs", "ofs-fpd"]
FPD_TABLE7 = {
    "Prostate-GE": [0.7369, 0.8935, 0.8677, 0.8866, 0.9071],
    "Leukemia": [0.8690, 0.9352, 0.8987, 0.9048, 0.9517],
    "Subramanian": [0.7152, 0.7169, 0.6047, 0.7408, 0.7962],
    "Sorlie": [0.6759, 0.6477, 0.3182, 0.6344, 0.6498],
    "Colon": [0.7467, 0.7382, 0.5693, 0.8022, 0.8539],
    "NCI60": [0.5009, 0.4715, 0.3019, 0.4721, 0.4598],
}
METRIC_TITLES = {
    "gmean_1nn": "G-mean, 1-NN",
    "gmean_svm": "G-mean, SVM",
    "f1_1nn": "F1, 1-NN",
    "f1_svm": "F1, SVM",
    "auc_1nn": "AUC, 1-NN",
    "auc_svm": "AUC, SVM",
    "n_features": "number of features",
    "seconds": "selection time (s)",
}


def fmt(value: float, digits: int) -> str:
    return f"{value:.{digits}f}"


def value_table(means, datasets, methods, metric, digits=4, paper=None) -> list[str]:
    """A data sets x methods table of the means with an AVERAGE row; published values in
    parentheses after ours where ``paper`` has them."""
    lines = [
        "| data set | " + " | ".join(methods) + " |",
        "|---|" + "---:|" * len(methods),
    ]
    for d in datasets:
        cells = []
        for m in methods:
            cell = fmt(means.loc[(d, m), metric], digits)
            published = (paper or {}).get(d, {}).get(m)
            if published is not None:
                cell += f" ({published:g})"
            cells.append(cell)
        lines.append(f"| {d} | " + " | ".join(cells) + " |")
    average = [fmt(means.xs(m, level="method")[metric].mean(), digits) for m in methods]
    lines.append("| AVERAGE | " + " | ".join(average) + " |")
    return lines


def statistics_table(results) -> list[str]:
    lines = [
        "| metric | Friedman chi2 | p | Iman-Davenport F | p | Nemenyi CD (alpha 0.05) "
        "| best average rank |",
        "|---|---:|---:|---:|---:|---:|---|",
    ]
    for metric, r in results.items():
        best = r.rank_table()[0]
        lines.append(
            f"| {METRIC_TITLES[metric]} | {r.friedman_chi2:.2f} | {r.friedman_p:.2g} | "
            f"{r.iman_davenport_f:.2f} | {r.iman_davenport_p:.2g} | "
            f"{r.critical_difference:.2f} | {best['method']} ({best['average_rank']:.2f}) |"
        )
    return lines


def rank_table(results, methods) -> list[str]:
    metrics = list(results)
    lines = [
        "| method | " + " | ".join(METRIC_TITLES[m] for m in metrics) + " |",
        "|---|" + "---:|" * len(metrics),
    ]
    ranks = {m: dict(zip(r.methods, r.average_ranks)) for m, r in results.items()}
    for method in sorted(methods, key=lambda x: ranks[metrics[0]][x]):
        lines.append(
            f"| {method} | " + " | ".join(f"{ranks[m][method]:.2f}" for m in metrics) + " |"
        )
    return lines


def significant_pairs(result, limit=12) -> list[str]:
    pairs = sorted(
        (p for p in result.pairs if p.wilcoxon_p_holm < result.alpha or p.nemenyi_p < result.alpha),
        key=lambda p: p.wilcoxon_p_holm,
    )
    if not pairs:
        return ["No pair differs at alpha 0.05 (neither Nemenyi nor Wilcoxon-Holm)."]
    lines = [
        "| pair | rank difference | Nemenyi p | Wilcoxon p | Holm-adjusted p |",
        "|---|---:|---:|---:|---:|",
    ]
    for p in pairs[:limit]:
        lines.append(
            f"| {p.first} vs {p.second} | {p.rank_difference:+.2f} | {p.nemenyi_p:.3g} | "
            f"{p.wilcoxon_p:.3g} | {p.wilcoxon_p_holm:.3g} |"
        )
    if len(pairs) > limit:
        lines.append(f"| ... {len(pairs) - limit} more | | | | |")
    return lines


def fpd_tables(table, study) -> list[str]:
    """Table 12's layout over our data sets (online selectors only), and the shared five
    methods ranked on the paper's Table 7 beside our F1 ranks."""
    datasets = [d.name for d in study.datasets]
    online = [m for m in ONLINE if m in study.methods]
    means = study_means(table, study.metrics)
    lines = [
        "| criterion | " + " | ".join(online) + " | Friedman p |",
        "|---|" + "---:|" * (len(online) + 1),
    ]
    for metric in ("gmean_1nn", "f1_1nn", "auc_1nn", "gmean_svm", "f1_svm", "auc_svm"):
        r = compare_methods(
            [[means.loc[(d, m), metric] for m in online] for d in datasets],
            online,
            datasets,
            metric=metric,
        )
        lines.append(
            f"| {METRIC_TITLES[metric]} | "
            + " | ".join(f"{x:.2f}" for x in r.average_ranks)
            + f" | {r.friedman_p:.2g} |"
        )
    paper = compare_methods(list(FPD_TABLE7.values()), FPD_SHARED, list(FPD_TABLE7), metric="f1")
    ours = compare_methods(
        [[means.loc[(d, m), "f1_1nn"] for m in FPD_SHARED] for d in datasets],
        FPD_SHARED,
        datasets,
        metric="f1_1nn",
    )
    lines += [
        "",
        "The five methods both have, ranked among themselves on KNN F-measure: the paper's "
        "Table 7 values (its six data sets) and our 1-NN F1 (our five):",
        "",
        "| | " + " | ".join(FPD_SHARED) + " | Friedman p |",
        "|---|" + "---:|" * (len(FPD_SHARED) + 1),
        "| OFS-FPD paper, Table 7 | "
        + " | ".join(f"{x:.2f}" for x in paper.average_ranks)
        + f" | {paper.friedman_p:.2g} |",
        "| this study, F1 1-NN | "
        + " | ".join(f"{x:.2f}" for x in ours.average_ranks)
        + f" | {ours.friedman_p:.2g} |",
    ]
    colon = dict(zip(FPD_SHARED, FPD_TABLE7["Colon"]))
    lines += [
        "",
        "Colon, the one data set both have (KNN F-measure; ours: minority class n, 1-NN F1 on "
        "the test halves):",
        "",
        "| | " + " | ".join(FPD_SHARED) + " |",
        "|---|" + "---:|" * len(FPD_SHARED),
        "| OFS-FPD paper | " + " | ".join(f"{colon[m]:.4f}" for m in FPD_SHARED) + " |",
        "| this study | "
        + " | ".join(f"{means.loc[('Colon', m), 'f1_1nn']:.4f}" for m in FPD_SHARED)
        + " |",
    ]
    return lines


def section(table: pd.DataFrame, figures_rel: str | None) -> str:
    study = load_manifest(MANIFEST)
    datasets = [d.name for d in study.datasets]
    means = study_means(table, study.metrics)
    results = compare_study(table, study)
    fisher = table[table.method == "fisher"].set_index(["dataset", "split"]).features
    pcc = table[table.method == "pcc"].set_index(["dataset", "split"]).features
    same = int((fisher == pcc).sum())
    gmean = results["gmean_1nn"]
    n_pairs = sum(p.wilcoxon_p_holm < gmean.alpha or p.nemenyi_p < gmean.alpha for p in gmean.pairs)
    n_tasks = len(table)
    rankers = RANKERS + EXTRA_RANKERS
    out = [
        "## 8. The whole comparison as one benchmark study",
        "",
        f"`fsengine benchmark studies/reproduction.toml` runs every online selector and ranker "
        f"of fsengine ({len(study.methods)} methods) on the {len(datasets)} real data sets the "
        f"project has, under the protocol of section 1: {study.splits} splits, seed "
        f"{study.seed}, the rankers given K-OFSD's count on each split. {n_tasks} tasks; the "
        "table is `studies/reproduction_results.parquet` (one row per data set, method and "
        "split), and this section is printed from it by `studies/report.py`. Minority classes: "
        "SRBCT BL (11 of 83), GLIOMA CO (7 of 50), Colon normal (22 of 62), ALLAML AML "
        "(25 of 72), Brain_Tumor1 class 3 (4 of 90). Values are means over the 20 test halves;"
        " in parentheses, the K-OFSD paper's value where it has the data set (SRBCT, GLIOMA; "
        "sections 2-6 discuss those differences).",
        "",
        "### 8.1 Tables 3 and 4: K-OFSD and the rankers (G-mean)",
        "",
        "1-NN:",
        "",
        *value_table(means, datasets, rankers, "gmean_1nn", paper=PAPER["gmean_1nn"]),
        "",
        "SVM:",
        "",
        *value_table(means, datasets, rankers, "gmean_svm", paper=PAPER["gmean_svm"]),
        "",
        f"Fisher and PCC select the same features on {same} of the {len(fisher)} splits: with "
        "two classes both rank by the same between-class to within-class ratio (section 4.3).",
        "",
        "### 8.2 Table 5: the number of features (K-OFSD's, which every ranker gets)",
        "",
        "| data set | " + " | ".join(datasets) + " |",
        "|---|" + "---:|" * len(datasets),
        "| K-OFSD, this study | "
        + " | ".join(fmt(means.loc[(d, "kofsd"), "n_features"], 2) for d in datasets)
        + " |",
        "| K-OFSD paper, Table 5 | "
        + " | ".join(str(PAPER_TABLE5.get(d, "-")) for d in datasets)
        + " |",
        "",
        "### 8.3 Tables 6-9: the online selectors",
        "",
        "G-mean, 1-NN (Table 6):",
        "",
        *value_table(means, datasets, ONLINE, "gmean_1nn", paper=PAPER["gmean_1nn"]),
        "",
        "G-mean, SVM (Table 7):",
        "",
        *value_table(means, datasets, ONLINE, "gmean_svm", paper=PAPER["gmean_svm"]),
        "",
        "Selection time in seconds on a training half, median over the splits (Table 8; "
        "ours on one core of this 2-core machine per task, the paper's in MATLAB on its own "
        "machine: only the order within a row compares):",
        "",
        *value_table(means, datasets, ONLINE, "seconds", digits=4, paper=PAPER["seconds"]),
        "",
        "Number of selected features (Table 9):",
        "",
        *value_table(means, datasets, ONLINE, "n_features", digits=2, paper=PAPER["n_features"]),
        "",
        "### 8.4 Friedman, Iman-Davenport and Nemenyi over all methods",
        "",
        f"{len(datasets)} data sets x {len(study.methods)} methods; means over the splits, "
        "ranked per data set (1 = best; fewer features and less time rank better).",
        "",
        *statistics_table(results),
        "",
        "Average ranks (sorted by the 1-NN G-mean):",
        "",
        *rank_table(results, study.methods),
        "",
        "Pairs that differ at alpha 0.05 on the 1-NN G-mean (Nemenyi or Wilcoxon signed-rank "
        "with Holm's correction):",
        "",
        *significant_pairs(results["gmean_1nn"]),
        "",
        f"With {len(datasets)} data sets and {len(study.methods)} methods, Nemenyi's critical "
        f"difference ({gmean.critical_difference:.1f} ranks) is wider than almost every "
        f"difference, and a Wilcoxon test on {len(datasets)} pairs of means cannot go below "
        f"p = {2 / 2 ** len(datasets):.4g} before Holm's correction: the Friedman tests reject "
        f"equal methods, yet {n_pairs} pair(s) can be told apart on the 1-NN G-mean. Demsar "
        "(2006) asks for more data sets than methods; this study has the opposite, as do both "
        "papers (7 and 6 data sets, 6 and 8 methods).",
    ]
    if figures_rel:
        out += [
            "",
            f"![Critical-difference diagram, 1-NN G-mean]({figures_rel}/study-cd-gmean_1nn.png)",
            "",
            f"![Heat map, 1-NN G-mean]({figures_rel}/study-heatmap-gmean_1nn.png)",
        ]
    out += [
        "",
        "### 8.5 The OFS-FPD paper's Table 12: Friedman ranks of the online selectors",
        "",
        "The paper ranks eight online methods on six data sets by accuracy, sensitivity, "
        "precision and F-measure with KNN and CART. fsengine has five of its eight methods "
        "(not OSFSMI, OFSFI, OFSV: none has public code or a public printed algorithm, so "
        "none can be run faithfully) and one of its data sets (Colon; its Leukemia is the "
        "Golub data, 7070 features, ours ALLAML has 7129), and reports G-mean, F1 and AUC of "
        "the minority class with 1-NN and an SVM. Its Table 12 as printed:",
        "",
        "| criterion | " + " | ".join(FPD_METHODS) + " |",
        "|---|" + "---:|" * len(FPD_METHODS),
        *(
            f"| {c} | " + " | ".join(f"{x:.2f}" for x in ranks) + " |"
            for c, ranks in FPD_TABLE12.items()
        ),
        "",
        "The same layout from this study (the online selectors ranked among themselves on "
        "our five data sets):",
        "",
        *fpd_tables(table, study),
    ]
    return "\n".join(out) + "\n"


def write_figures(table: pd.DataFrame, folder: Path) -> None:
    """The CD diagram and the heat map of the 1-NN G-mean as PNG (Chromium)."""
    from playwright.sync_api import sync_playwright

    from fsengine.pl.figures import critical_difference_figure, metric_heatmap_figure

    study = load_manifest(MANIFEST)
    result = compare_study(table, study)["gmean_1nn"]
    figures = [
        (
            critical_difference_figure(result, METHOD_LABELS),
            folder / "study-cd-gmean_1nn.png",
            1200,
            520,
        ),
        (
            metric_heatmap_figure(result, METHOD_LABELS),
            folder / "study-heatmap-gmean_1nn.png",
            1400,
            420,
        ),
    ]
    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path="/usr/bin/chromium", args=["--no-sandbox", "--disable-gpu"]
        )
        for fig, png, width, height in figures:
            fig.update_layout(width=width, height=height)
            html = Path(tmp) / (png.stem + ".html")
            fig.write_html(html, include_plotlyjs=True, full_html=True)
            page = browser.new_page(viewport={"width": width, "height": height})
            page.goto(html.as_uri())
            page.wait_for_selector(".main-svg")
            page.screenshot(path=str(png))
            page.close()
        browser.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", default=str(ROOT / "studies" / "reproduction_results.parquet"))
    parser.add_argument("--figures", help="folder for the PNG figures (e.g. docs/figures)")
    parser.add_argument("--write", help="replace the study section of this Markdown file")
    args = parser.parse_args()
    table = pd.read_parquet(args.results)
    if args.figures:
        write_figures(table, Path(args.figures))
    text = section(table, "figures" if args.figures else None)
    if args.write:
        target = Path(args.write)
        document = target.read_text(encoding="utf-8")
        if BEGIN in document:
            head, rest = document.split(BEGIN, 1)
            document = head + BEGIN + "\n" + text + END + rest.split(END, 1)[1]
        else:
            document = document.rstrip("\n") + "\n\n" + BEGIN + "\n" + text + END + "\n"
        target.write_text(document, encoding="utf-8")
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
