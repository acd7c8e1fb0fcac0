"""Benchmark: a sparse counts matrix of 50,000 samples x 20,000 genes (issue 30, point 3).

What is measured
----------------
A seeded matrix with counts-like statistics: each gene is non-zero in 5-10 % of the
samples (uniform per gene, 7.5 % on average: about 75 million stored values), its
non-zero values 1 + Poisson(rate) with a gamma-distributed rate per gene (integers, many
exact ties), the minority 5 % of the samples at random; built directly as CSC (0.9 GB;
its dense float64 copy would take 8 GB). Each case runs in a new Python process, which
builds the matrix with the same seed (not timed), then:

* ``seconds``: the method's run on the CSC matrix (``Method.select``: a ranker scores
  every gene, an online selector streams every gene in natural order);
* ``peak``: the increase of the process's peak resident set size during the run
  (``VmHWM``, reset through ``/proc/self/clear_refs`` just before it, as bench_memory
  measures it), beside the matrix itself, which was already in memory.

Cases: the columnwise rankers Fisher, Welch's t and Wilcoxon (a dense block of 1M values
at a time), and the online selectors whose work grows linearly with the samples (SAOLA,
Fast-OSFS). The neighbourhood selectors (K-OFSD, OFS-FPD, CIE-OSFS, OFS-A3M,
OFS-Density, RHOFS) are not run here: their single-cell figures (K-OFSD's set tests on
the distinct points of its set, a rare type, marker recovery) are bench_singlecell.py's.

Beside it, the same two rankers on the first ``--dense-genes`` genes (default 2,000) as a
dense matrix made from the CSC copy (what a reader that densifies does): time and peak
memory against the sparse run on the same genes, whose scores must be equal.

What a user waits for: the same matrix written as an AnnData file (X as CSR, scanpy's
layout; the class in an obs column), then ``fsengine select FILE --label cls --method M``
run as a new process, timed from outside (interpreter start, imports, reading and
checking the file, converting CSR to CSC, the selection, writing the CSV), twice: the
first run after the file was written, then again; with the process's peak resident set
size at exit (``VmHWM``).

Target (reported): the sparse runs' peak memory increase at most 10 % of the dense
copy's size (0.8 GB for the full matrix).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time

from _common import ROOT, finish_report, machine, print_table

N_SAMPLES, N_GENES = 50_000, 20_000
RANKERS = ("fisher", "welch", "wilcoxon")
ONLINE = ("saola", "fast-osfs")
#: The peak memory increase allowed, as a share of the dense float64 copy's size.
PEAK_SHARE = 0.10

_CHILD = r"""
import json, sys, time
sys.path.insert(0, sys.argv[1])
spec = json.loads(sys.argv[2])
import numpy as np
from scipy import sparse


def counts(n, p, seed):
    rng = np.random.default_rng(seed)
    k = rng.binomial(n, rng.uniform(0.05, 0.10, p))
    indptr = np.concatenate([[0], np.cumsum(k)])
    indices = np.empty(indptr[-1], dtype=np.int32)
    for j in range(p):
        indices[indptr[j] : indptr[j + 1]] = np.sort(rng.choice(n, k[j], replace=False))
    data = (1 + rng.poisson(np.repeat(rng.gamma(0.6, 2.0, p), k))).astype(np.float64)
    y = np.zeros(n, np.int8)
    y[rng.choice(n, n // 20, replace=False)] = 1
    return sparse.csc_array((data, indices, indptr), shape=(n, p)), y


def rss_peak():
    with open("/proc/self/status") as f:
        return next(int(l.split()[1]) * 1024 for l in f if l.startswith("VmHWM:"))


def rss_now():
    import os
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


X, y = counts(spec["n"], spec["p"], spec["seed"])
X = X[:, : spec["genes"]] if spec["genes"] < spec["p"] else X
from fsengine.methods.registry import get_method

method = get_method(spec["method"])
names = [f"g{j}" for j in range(X.shape[1])]
if spec["dense"]:
    X = np.asfortranarray(X.toarray())
method.select(X[:, :50], y, names[:50])  # imports and kernels, not timed
before = rss_now()
with open("/proc/self/clear_refs", "w") as f:
    f.write("5")
t0 = time.perf_counter()
result = method.select(X, y, names)
seconds = time.perf_counter() - t0
peak = rss_peak() - before
stored = X.data.nbytes + X.indices.nbytes + X.indptr.nbytes if not spec["dense"] else X.nbytes
scores = [] if method.online else [float(s) for s in result.scores]
print(json.dumps({"seconds": seconds, "peak": peak, "stored": stored, "nnz": getattr(X, "nnz", 0),
                  "selected": len(result.selection), "scores": scores}))
"""


_WRITE = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
spec = json.loads(sys.argv[2])
import anndata, numpy as np, pandas as pd
from scipy import sparse
exec(sys.argv[3])  # counts()
X, y = counts(spec["n"], spec["p"], spec["seed"])
cells = [f"c{i}" for i in range(len(y))]
obs = pd.DataFrame({"cls": np.where(y == 1, "rare", "rest")}, index=cells)
var = pd.DataFrame(index=[f"g{j}" for j in range(X.shape[1])])
anndata.AnnData(X=X.tocsr(), obs=obs, var=var).write_h5ad(spec["path"])
"""

_COMMAND = r"""
import sys
sys.path.insert(0, sys.argv[1])
from fsengine.cli import main
code = main(sys.argv[2:])
with open("/proc/self/status") as f:
    peak = next(int(l.split()[1]) * 1024 for l in f if l.startswith("VmHWM:"))
print(peak, file=sys.stderr)
sys.exit(code)
"""


def _counts_source() -> str:
    start = _CHILD.index("def counts(")
    return _CHILD[start : _CHILD.index("def rss_peak")]


def _command_line(base: dict, folder: str) -> list[tuple[str, str]]:
    """``fsengine select`` on the matrix written as an .h5ad file, in new processes."""
    path = f"{folder}/counts.h5ad"
    t0 = time.perf_counter()
    subprocess.run(
        [
            sys.executable,
            "-c",
            _WRITE,
            str(ROOT),
            json.dumps({**base, "path": path}),
            _counts_source(),
        ],
        check=True,
        cwd=ROOT,
    )
    rows = [("AnnData file written (CSR)", f"{time.perf_counter() - t0:.0f} s")]
    for method, extra in (("welch", ["--top", "50"]), ("saola", [])):
        argv = ["select", path, "--label", "cls", "--minority", "rare", "--method", method]
        runs = []
        for _ in range(2):
            t0 = time.perf_counter()
            done = subprocess.run(
                [
                    sys.executable,
                    "-c",
                    _COMMAND,
                    str(ROOT),
                    *argv,
                    *extra,
                    "--out",
                    f"{folder}/{method}.csv",
                ],
                capture_output=True,
                text=True,
                cwd=ROOT,
            )
            if done.returncode != 0:
                raise RuntimeError(f"fsengine select {method}: {done.stderr[-2000:]}")
            runs.append((time.perf_counter() - t0, int(done.stderr.strip().splitlines()[-1])))
        rows.append(
            (
                f"fsengine select --method {method}",
                f"{runs[0][0]:.1f} s, then {runs[1][0]:.1f} s; peak RSS {_gb(runs[1][1])}",
            )
        )
    return rows


def _child(spec: dict) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, str(ROOT), json.dumps(spec)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    if done.returncode != 0:
        raise RuntimeError(f"{spec['method']}: {done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _gb(n_bytes: float) -> str:
    return f"{n_bytes / 2**30:.2f} GB"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--samples", type=int, default=N_SAMPLES)
    parser.add_argument("--genes", type=int, default=N_GENES)
    parser.add_argument("--dense-genes", type=int, default=2_000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    base = {"n": args.samples, "p": args.genes, "seed": args.seed}
    dense_size = 8 * args.samples * args.genes
    print(f"sparse counts {args.samples:,} x {args.genes:,}; {machine()}")
    rows, record, problems, met = [], {"cases": {}}, [], True
    started = time.perf_counter()
    for method in (*RANKERS, *ONLINE):
        found = _child({**base, "method": method, "genes": args.genes, "dense": False})
        record["cases"][method] = {k: v for k, v in found.items() if k != "scores"}
        within = found["peak"] <= PEAK_SHARE * dense_size
        met &= within
        rows.append(
            (
                f"{method}, sparse, all genes",
                f"{found['seconds']:7.1f} s, peak +{_gb(found['peak'])} "
                f"(matrix {_gb(found['stored'])}, {found['nnz']:,} stored; dense would be "
                f"{_gb(dense_size)}), {found['selected']} selected"
                + ("" if within else "  [over target]"),
            )
        )
    for method in ("fisher", "welch"):
        cut = {**base, "method": method, "genes": args.dense_genes}
        on_sparse, on_dense = _child({**cut, "dense": False}), _child({**cut, "dense": True})
        if on_sparse["scores"] != on_dense["scores"]:
            problems.append(f"{method}: the sparse and dense scores differ")
        record["cases"][f"{method}_first_{args.dense_genes}"] = {
            "sparse": {k: v for k, v in on_sparse.items() if k != "scores"},
            "dense": {k: v for k, v in on_dense.items() if k != "scores"},
        }
        rows.append(
            (
                f"{method}, first {args.dense_genes:,} genes",
                f"sparse {on_sparse['seconds']:.2f} s, peak +{_gb(on_sparse['peak'])}; dense "
                f"{on_dense['seconds']:.2f} s, peak +{_gb(on_dense['peak'])} (matrix "
                f"{_gb(on_dense['stored'])}); time ratio sparse/dense "
                f"{on_sparse['seconds'] / on_dense['seconds']:.2f}",
            )
        )
    with tempfile.TemporaryDirectory() as folder:
        command_rows = _command_line(base, folder)
    rows += command_rows
    record["command_line"] = dict(command_rows)
    print_table(rows)
    print(f"\n(all cases: {time.perf_counter() - started:.0f} s)")
    record.update(samples=args.samples, genes=args.genes, target_peak_share=PEAK_SHARE)
    return finish_report("sparse", record, problems, met)


if __name__ == "__main__":
    sys.exit(main())
