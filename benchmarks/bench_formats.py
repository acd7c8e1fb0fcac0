"""Benchmark: reading users' formats (issue 30): time and peak memory per format, against
the library each field reads them with.

What is measured
----------------
Real files: GLIOMA (50 x 4434) as Parquet, as a gzip CSV, as a GEO series matrix (the
test fixture, tests/data) and as an AnnData file (dense X); the nine-class Brain_Tumor1
file of tests/data (90 x 1500, raw integers, a gzip TSV with genes in rows) as it is and
as a table plus a sample sheet; and scanpy's PBMC file (700 x 765, tests/data) as it is
and with X sparse (CSR). Each is read in a new
Python process, as a user's command is:

* ``process``: the wall time of ``python -c "...load_dataset(path, ...)"`` from outside
  (interpreter start, imports and the read), the median of ``--repeats`` runs;
* ``first``: the first read inside that process (pandas or anndata imported before; the
  modules a reader imports on first use, such as pyarrow's CSV reader, are in it);
* ``read``: a second read of the same file in that process, the reading alone, and the
  peak resident set size increase during it (``VmHWM`` reset through
  ``/proc/self/clear_refs`` just before, as bench_memory measures it);
* the baseline: the same file read in a new process by what its field uses, pandas
  (``read_parquet``, ``read_csv``; for the series matrix ``read_csv(comment="!")``) or
  anndata (``read_h5ad``), then its matrix as float64 numpy: the matrices must be equal.

Ratios fsengine / baseline are printed; no target is enforced (the readers check every
cell, name bad ones and choose the class, which the baselines do not).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
from _common import ROOT, finish_report, machine

NINE = ROOT / "tests" / "data" / "brain_nine_classes_genes_in_rows.tsv.gz"
GLIOMA = ROOT / "tests" / "reference" / "datasets" / "GLIOMA.parquet"
SERIES = ROOT / "tests" / "data" / "glioma_series_matrix.txt.gz"
PBMC = ROOT / "tests" / "data" / "pbmc68k_reduced.h5ad"

_CHILD = r"""
import json, os, sys, time, warnings
warnings.simplefilter("ignore")
sys.path.insert(0, sys.argv[1])
spec = json.loads(sys.argv[2])
import numpy as np


def rss_peak():
    with open("/proc/self/status") as f:
        return next(int(l.split()[1]) * 1024 for l in f if l.startswith("VmHWM:"))


def rss_now():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def read():
    if spec["mode"] == "fsengine":
        from fsengine import load_dataset
        return load_dataset(spec["path"], **spec["options"]).X
    import pandas as pd
    kind = spec["baseline"]
    if kind == "parquet":
        frame = pd.read_parquet(spec["path"])
        return frame.drop(columns="label").to_numpy(dtype=np.float64)
    if kind == "csv":
        frame = pd.read_csv(spec["path"], float_precision="round_trip", sep=spec["sep"],
                            index_col=0 if spec["transposed"] else None)
        if spec["transposed"]:
            return frame.drop(index="label").T.to_numpy(dtype=np.float64)
        return frame.drop(columns="label").to_numpy(dtype=np.float64)
    if kind == "table":
        frame = pd.read_csv(spec["path"], float_precision="round_trip", index_col=0)
        pd.read_csv(spec["sheet"])
        return frame.to_numpy(dtype=np.float64)
    if kind == "series":
        frame = pd.read_csv(spec["path"], sep="\t", comment="!", index_col=0,
                            float_precision="round_trip")
        return frame.T.to_numpy(dtype=np.float64)
    import anndata
    X = anndata.read_h5ad(spec["path"]).X
    return np.asarray(X.toarray() if hasattr(X, "toarray") else X, dtype=np.float64)


t_import = time.perf_counter()
if spec["mode"] == "fsengine":
    import fsengine.data.dataset  # noqa: F401
else:
    import pandas  # noqa: F401
if spec["path"].endswith(".h5ad"):
    import anndata  # noqa: F401
imported = time.perf_counter() - t_import
t0 = time.perf_counter()
warm = read()  # the first read: with the imports the reading does on first use
first = time.perf_counter() - t0
del warm
before = rss_now()
with open("/proc/self/clear_refs", "w") as f:
    f.write("5")
t0 = time.perf_counter()
X = read()
seconds = time.perf_counter() - t0
print(json.dumps({"first": first, "read": seconds, "peak": rss_peak() - before,
                  "shape": list(X.shape), "sum": float(np.asarray(X, dtype=np.float64).sum())}))
"""


def _child(spec: dict) -> tuple[float, dict]:
    t0 = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, str(ROOT), json.dumps(spec)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    wall = time.perf_counter() - t0
    if done.returncode != 0:
        raise RuntimeError(f"{spec}: {done.stderr[-2000:]}")
    return wall, json.loads(done.stdout.strip().splitlines()[-1])


def _cases(folder: Path) -> list[tuple[str, dict, dict]]:
    """(name, fsengine spec, baseline spec) for every file, written into ``folder``."""
    glioma = pd.read_parquet(GLIOMA)
    glioma.to_csv(folder / "glioma.csv.gz", index=False)
    genes = pd.read_csv(NINE, sep="\t", index_col=0)
    table = genes.drop(index="label").T.astype(np.float64)
    table.index.name = "sample"
    table.to_csv(folder / "brain_table.csv")
    labels = genes.loc["label"]
    pd.DataFrame({"sample": labels.index[::-1], "class": labels.to_numpy()[::-1]}).to_csv(
        folder / "brain_sheet.csv", index=False
    )
    import warnings

    import anndata
    from scipy import sparse

    warnings.simplefilter("ignore", FutureWarning)  # the PBMC file's older layout
    adata = anndata.AnnData(
        X=glioma.drop(columns="label").to_numpy(),
        obs=pd.DataFrame({"label": glioma["label"].astype(str).to_numpy()}),
    )
    adata.obs_names = adata.obs_names.astype(str)
    adata.var_names = list(glioma.columns[:-1])
    adata.write_h5ad(folder / "glioma.h5ad")
    pbmc = anndata.read_h5ad(PBMC)
    csr = anndata.AnnData(X=sparse.csr_matrix(pbmc.X), obs=pbmc.obs[["bulk_labels"]])
    csr.var_names = pbmc.var_names
    csr.write_h5ad(folder / "pbmc_csr.h5ad")

    def f(path, **options):
        return {"mode": "fsengine", "path": str(path), "options": options}

    def b(path, kind, **extra):
        return {"mode": "baseline", "path": str(path), "baseline": kind, **extra}

    return [
        ("GLIOMA Parquet", f(GLIOMA), b(GLIOMA, "parquet")),
        (
            "GLIOMA CSV, gzip",
            f(folder / "glioma.csv.gz"),
            b(folder / "glioma.csv.gz", "csv", sep=",", transposed=False),
        ),
        ("GLIOMA GEO series matrix", f(SERIES, label="glioma class"), b(SERIES, "series")),
        (
            "GLIOMA AnnData, dense",
            f(folder / "glioma.h5ad", label="label"),
            b(folder / "glioma.h5ad", "h5ad"),
        ),
        (
            "Brain (9 classes) TSV genes in rows, gzip",
            f(NINE, transpose=True),
            b(NINE, "csv", sep="\t", transposed=True),
        ),
        (
            "Brain (9 classes) table + sample sheet",
            f(folder / "brain_table.csv", samples=str(folder / "brain_sheet.csv"), label="class"),
            b(folder / "brain_table.csv", "table", sheet=str(folder / "brain_sheet.csv")),
        ),
        ("PBMC AnnData (scanpy's)", f(PBMC, label="bulk_labels"), b(PBMC, "h5ad")),
        (
            "PBMC AnnData, X sparse (CSR)",
            f(folder / "pbmc_csr.h5ad", label="bulk_labels"),
            b(folder / "pbmc_csr.h5ad", "h5ad"),
        ),
    ]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5, help="new processes per case")
    args = parser.parse_args(argv)
    print(f"# Reading users' formats in a new process ({machine()})")
    rows, problems, record = [], [], {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, ours, theirs in _cases(Path(tmp)):
            found = {}
            for label, spec in (("fsengine", ours), ("baseline", theirs)):
                runs = [_child(spec) for _ in range(args.repeats)]
                found[label] = {
                    "process": statistics.median(w for w, _ in runs),
                    "first": statistics.median(r["first"] for _, r in runs),
                    "read": statistics.median(r["read"] for _, r in runs),
                    "peak_mb": statistics.median(r["peak"] for _, r in runs) / 1e6,
                    "shape": runs[0][1]["shape"],
                    "sum": runs[0][1]["sum"],
                }
            a, c = found["fsengine"], found["baseline"]
            if a["shape"] != c["shape"] or not np.isclose(a["sum"], c["sum"], rtol=1e-12):
                problems.append(f"{name}: fsengine {a['shape']} sum {a['sum']}, baseline {c}")
            record[name] = found
            rows.append(
                f"  {name:<44} {a['process']:6.2f} {c['process']:6.2f} {a['first']:7.3f} "
                f"{c['first']:7.3f} {a['read']:7.3f} {c['read']:7.3f} "
                f"{a['read'] / c['read']:6.2f}x {a['peak_mb']:7.1f} {c['peak_mb']:7.1f}"
            )
    print(
        f"\n  {'file (medians of ' + str(args.repeats) + ' new processes)':<44} "
        f"{'proc s':>6} {'base':>6} {'first':>7} {'base':>7} {'read s':>7} {'base':>7} "
        f"{'ratio':>7} {'peak MB':>7} "
        f"{'base':>7}"
    )
    print("\n".join(rows))
    return finish_report("formats", {"cases": record}, problems, True)


if __name__ == "__main__":
    sys.exit(main())
