"""K-OFSD on a 5,000 x 2,000 sub-matrix of the single-cell atlas against its definition
(issue 41: "the same selection as the definition on a 5,000 x 2,000 sub-matrix").

What is checked
---------------
``--cells`` cells drawn at random (seeded) from the atlas of ``bench_singlecell.py`` (the
50,000-cell file by default) and its first ``--genes`` genes (the 30 planted markers among
them; genes constant on those cells left out), written as an h5ad file (float32 CSR, as the
atlas) and read by ``fsengine.load_dataset`` as a user's file is. For each tie rule:

- the engine (``run_selection``, natural order, default parameters: K = 7, alpha 0.5, the
  imbalanced card, the reference variant) with its events, and without them (the command
  line's path, whose set tests may stop early); under ``ties=average`` also on the same
  cells in a random row order;
- the definition on whole distance rows (``tests/kofsd_oracle.py``
  ``matrix_run``: every distance between the 5,000 cells summed feature by feature in the
  authors' arithmetic, each cell's list by its row, the average rule's card written out as
  a mean over the orders of the tied cells; tested against the plain loops and the mean
  over every order in ``tests/unit/methods/online/roughset/test_kofsd_matrix_oracle.py``).

Reported: whether each step's action and the selections are equal, the largest
difference of a dependency, and the smallest margin of a decision (how near a dependency
came to alpha or to the set's). A difference exits with status 1.

Not part of ``make bench``: the definition takes about half an hour a rule on two cores.
Run ``.venv/bin/python benchmarks/definition_singlecell.py`` (the atlas is written first if
``.bench/singlecell`` does not hold it).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from _common import ROOT
from bench_singlecell import RARE, atlas_file

sys.path.insert(0, str(ROOT / "tests" / "unit"))

import kofsd_oracle  # noqa: E402


def sub_matrix(path: Path, cells: int, genes: int, seed: int):
    """The cells (seeded draw, in file order) x first genes of the atlas, dense float64,
    their labels (1 = the rare type) and the gene names; genes constant on those cells
    are left out."""
    import anndata

    adata = anndata.read_h5ad(path, backed="r")
    rows = np.sort(np.random.default_rng(seed).choice(adata.n_obs, cells, replace=False))
    X = adata.X[rows][:, :genes]
    X = np.asarray(X.toarray() if hasattr(X, "toarray") else X, dtype=np.float64)
    labels = adata.obs["cell_type"].to_numpy()[rows].astype(str)
    names = np.asarray(adata.var_names[:genes])
    varying = X.max(axis=0) > X.min(axis=0)
    return X[:, varying], labels, list(names[varying])


def write_h5ad(path: Path, X: np.ndarray, labels: np.ndarray, names: list[str]) -> None:
    """``X`` as float32 CSR with the labels in obs["cell_type"] (the atlas's layout)."""
    import anndata
    import pandas as pd
    from scipy import sparse

    obs = pd.DataFrame(
        {"cell_type": pd.Categorical(labels)}, index=[f"c{i}" for i in range(len(labels))]
    )
    adata = anndata.AnnData(
        X=sparse.csr_matrix(X.astype(np.float32)), obs=obs, var=pd.DataFrame(index=names)
    )
    adata.write_h5ad(path)


def engine(path: Path, ties: str, events: bool):
    """The engine's run on the file: (actions, single dependencies, set dependencies with
    the feature (NaN when not measured), selected names)."""
    from fsengine import load_dataset, run_selection

    dataset = load_dataset(path, label="cell_type")
    result = run_selection(dataset, RARE, "kofsd", ties=ties, events=events)
    steps = result.events
    return (
        [e.action for e in steps],
        np.array([e.score for e in steps]),
        np.array([e.set_score_with_feature for e in steps]),
        list(result.selection.features),
        result.seconds,
    )


def compare(ties: str, X, y, names, files) -> dict:
    """The engine against the definition under one tie rule."""
    t0 = time.perf_counter()
    last = [t0]

    def progress(event):
        if event[0] % 200 == 199 and time.perf_counter() - last[0] > 30:
            last[0] = time.perf_counter()
            print(f"  definition, {ties}: {event[0] + 1} genes, {last[0] - t0:.0f} s", flush=True)

    events, chosen = kofsd_oracle.matrix_run(X, y, k=7, ties=ties, progress=progress)
    definition_seconds = time.perf_counter() - t0
    actions, singles, with_feature, selected, seconds = engine(files["natural"], ties, True)
    _, _, _, selected_quiet, quiet_seconds = engine(files["natural"], ties, False)
    expected_actions = [e[2] for e in events]
    expected_singles = np.array([e[1] for e in events])
    expected_with = np.array([math.nan if e[3] is None else e[3] for e in events])
    both = ~np.isnan(expected_with) & ~np.isnan(with_feature)
    # How near each decision came to going the other way.
    margins = [abs(e[1] - 0.5) for e in events]
    set_before = 0.0
    for e in events:
        if e[3] is not None:
            margins.append(abs(e[3] - set_before))
        if e[2] in ("added", "replaced"):
            set_before = e[3] if e[2] == "added" else e[1]
    report = {
        "ties": ties,
        "genes": len(names),
        "cells": len(y),
        "rare cells": int(y.sum()),
        "definition selected": [names[c] for c in chosen],
        "engine selected": selected,
        "engine selected without events": selected_quiet,
        "actions equal": actions == expected_actions,
        "actions differing": [
            (names[j], a, b) for j, (a, b) in enumerate(zip(actions, expected_actions)) if a != b
        ][:20],
        "set tests": int(sum(e[3] is not None for e in events)),
        "largest single dependency difference": float(np.max(np.abs(singles - expected_singles))),
        "largest set dependency difference": float(
            np.max(np.abs(with_feature[both] - expected_with[both]))
        )
        if both.any()
        else 0.0,
        "smallest decision margin": float(min(margins)),
        "definition seconds": round(definition_seconds, 1),
        "engine seconds": round(seconds, 2),
        "engine seconds without events": round(quiet_seconds, 2),
    }
    same = report["actions equal"] and selected == report["definition selected"] == selected_quiet
    if ties == "average":
        report["engine selected, rows permuted"] = engine(files["permuted"], ties, False)[3]
        same = same and report["engine selected, rows permuted"] == selected
    report["same"] = bool(same)
    return report


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--atlas-cells", type=int, default=50_000)
    parser.add_argument("--cells", type=int, default=5_000)
    parser.add_argument("--genes", type=int, default=2_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--ties", default="average,index", help="comma-separated")
    parser.add_argument("--folder", type=Path, default=ROOT / ".bench" / "singlecell")
    parser.add_argument("--out", type=Path, default=None, help="the report as JSON")
    args = parser.parse_args(argv)
    args.folder.mkdir(parents=True, exist_ok=True)
    atlas = atlas_file(args.folder, args.atlas_cells, 20_000, args.seed)
    X, labels, names = sub_matrix(atlas, args.cells, args.genes, args.seed)
    y = (labels == RARE).astype(int)
    print(f"{atlas.name}: {len(y)} cells ({y.sum()} {RARE}) x {len(names)} genes", flush=True)
    reports = []
    with tempfile.TemporaryDirectory() as folder:
        files = {
            "natural": Path(folder) / "natural.h5ad",
            "permuted": Path(folder) / "permuted.h5ad",
        }
        write_h5ad(files["natural"], X, labels, names)
        permutation = np.random.default_rng(args.seed + 1).permutation(len(y))
        write_h5ad(files["permuted"], X[permutation], labels[permutation], names)
        for ties in args.ties.split(","):
            report = compare(ties, X, y, names, files)
            reports.append(report)
            print(json.dumps(report, indent=1), flush=True)
    if args.out:
        args.out.write_text(json.dumps(reports, indent=1) + "\n")
    return 0 if all(r["same"] for r in reports) else 1


if __name__ == "__main__":
    sys.exit(main())
