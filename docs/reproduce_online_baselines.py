"""The K-OFSD paper's Tables 6-9 (K-OFSD against Alpha-investing, OSFS, Fast-OSFS and SAOLA)
under fsengine's protocol, and the checks behind docs/REPRODUCTION.md section 5.

usage: python docs/reproduce_online_baselines.py [DATASETS_DIR] [--seeds N]

For SRBCT and GLIOMA (minority = label 2, one versus rest), prints:
1. ``evaluate`` with seed 0 (20 stratified 50/50 splits; selection on the training half);
2. the mean and sd over seeds 0..N-1 of the 20-split means (how much one run can move);
3. a leaky protocol for comparison: each method selects once on all samples, then 1-NN and
   the SVM are trained and tested on the 20 splits of seeds 0..4 with those features.
"""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path

from fsengine import load_dataset
from fsengine.evaluation import classify, evaluate, select_on, stratified_splits

METHODS = ["kofsd", "alpha-investing", "osfs", "fast-osfs", "saola"]
SETS = ["SRBCT", "GLIOMA"]
ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("datasets", nargs="?", default=str(ROOT.parent / "shared" / "datasets"))
    parser.add_argument("--seeds", type=int, default=50)
    args = parser.parse_args()
    for name in SETS:
        ds = load_dataset(Path(args.datasets) / f"{name}.parquet")
        y = ds.binarise(2)
        print(f"\n## {name}: {ds.n_samples} x {ds.n_features}, minority 2 ({int(y.sum())})")
        per_seed: dict[str, list[tuple[float, float, float]]] = {m: [] for m in METHODS}
        for seed in range(args.seeds):
            for row in evaluate(ds, 2, METHODS, n_splits=20, seed=seed, n_jobs=1).summary():
                per_seed[row["method"]].append(
                    (row["gmean_1nn_mean"], row["gmean_svm_mean"], row["n_features_mean"])
                )
        print("method | seed 0: 1-NN / SVM / #features | seeds 0..N-1: mean (sd) 1-NN, SVM")
        for method, rows in per_seed.items():
            knn, svm, count = zip(*rows)
            sd = statistics.stdev if len(rows) > 1 else (lambda _: 0.0)
            print(
                f"{method} | {knn[0]:.4f} / {svm[0]:.4f} / {count[0]:.1f} | "
                f"{statistics.mean(knn):.3f} ({sd(knn):.3f}), "
                f"{statistics.mean(svm):.3f} ({sd(svm):.3f})"
            )
        print("leaky (selection on all samples), seeds 0..4: 1-NN / SVM / #features")
        names = list(ds.feature_names)
        for method in METHODS:
            columns = select_on(method, ds.X, y, names)
            scores = {"1nn": [], "svm": []}
            for seed in range(5):
                for train, test in stratified_splits(y, 20, seed):
                    for clf in scores:  # no feature: the majority class everywhere
                        result = classify(
                            clf,
                            ds.X[train][:, columns],
                            y[train],
                            ds.X[test][:, columns],
                            y[test],
                        )
                        scores[clf].append(result["gmean"])
            print(
                f"{method} | {statistics.mean(scores['1nn']):.4f} / "
                f"{statistics.mean(scores['svm']):.4f} / {len(columns)}"
            )


if __name__ == "__main__":
    main()
