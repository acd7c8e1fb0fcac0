"""Benchmark: peak memory of ``fsengine.load_dataset`` on a ~200 MB matrix.

What is measured
----------------
A seeded samples x genes matrix (``--samples`` rows, default 1000; standard normal
values written as ``%.5f``, about 8.5 bytes a cell, and a last column ``label`` of
0/1) is written into a temporary directory (deleted afterwards) as a CSV of about
``--mb`` MB (default 200; the number of gene columns is chosen to hit that size), and
the same data as Parquet, as a genes-in-rows CSV (loaded with ``transpose=True``) and
as a gzip-compressed CSV (``--no-gzip`` skips the latter). The CSV is also loaded from
bytes already in memory, as the dashboard does with an upload (those bytes belong to
the caller and are not counted).

Each case is loaded with ``fsengine.load_dataset`` in fresh child processes, so that
nothing of the parent (the generated matrix, earlier loads) is counted:

* RSS run: the process's peak resident set size after the load (``VmHWM`` in
  ``/proc/self/status``, reset to the current size just before the load by writing 5
  to ``/proc/self/clear_refs``) minus the resident set size just before it (read
  from ``/proc/self/statm``, after numpy, pyarrow and fsengine are imported): the
  peak RSS increase during the load. Not ``getrusage``'s ``ru_maxrss``: Linux carries
  it over from the parent across fork and exec, so it would report the parent's peak. The
  Arrow memory pool's own peak (``pyarrow.default_memory_pool().max_memory()``)
  is reported too, because tracemalloc does not see Arrow's allocations.
* tracemalloc run: ``tracemalloc`` peak during the load (Python objects and numpy
  arrays, e.g. the file's bytes and ``X``; not Arrow buffers).
* baseline run: the straightforward way, ``pandas.read_csv`` (or ``read_parquet``) of
  the whole file and ``to_numpy``, measured like the RSS run. Its matrix must be
  bit-identical to fsengine's (SHA-256 of the bytes), else the benchmark fails.

The matrix's float64 size is ``n_samples * n_features * 8`` (the size of the loaded
``X``, which the figures include). Target (reported, not enforced): peak RSS increase
<= 3x the matrix's float64 size, for every format. Results are also written to
``benchmarks/results/memory.json``. Not a timed test; load times are printed only for context.
"""

from __future__ import annotations

import argparse
import gzip
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from _common import ROOT, finish_report, machine, print_table

RATIO_TARGET = 3.0
FMT = "%.5f"
CHUNK_ROWS = 50

# Child process: import first, then measure the load alone; one JSON line on stdout.
_CHILD = r"""
import json, os, sys, time
sys.path.insert(0, sys.argv[1])
path, mode, kind = sys.argv[2], sys.argv[3], sys.argv[4]
import numpy as np
import pyarrow as pa
import fsengine
from fsengine.data.dataset import load_dataset

source = open(path, "rb").read() if kind == "bytes" else path   # bytes: held by the caller
transpose = kind == "transposed"


def straightforward(source):
    # The baseline: pandas reads the whole file, then the features go to numpy
    # (round_trip: correctly rounded parsing, like fsengine's).
    import io
    import pandas as pd
    if kind == "bytes":
        source = io.BytesIO(source)
    if str(path).endswith(".parquet"):
        frame = pd.read_parquet(source)
    else:
        frame = pd.read_csv(source, float_precision="round_trip",
                            index_col=0 if transpose else None)
    if transpose:
        return np.asfortranarray(frame.drop(index="label").T.to_numpy(dtype=np.float64))
    return np.asfortranarray(frame.drop(columns="label").to_numpy(dtype=np.float64))


def load(source):
    if mode == "baseline":
        return straightforward(source)
    return load_dataset(source, transpose=transpose).X

def rss_now():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def peak_rss():
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmHWM:"))


def reset_peak_rss():
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")

out = {}
if mode == "tracemalloc":
    import tracemalloc
    tracemalloc.start()
    base, _ = tracemalloc.get_traced_memory()
    tracemalloc.reset_peak()
    t0 = time.perf_counter()
    X = load(source)
    out["seconds"] = time.perf_counter() - t0
    cur, peak = tracemalloc.get_traced_memory()
    out["tracemalloc_peak"] = peak - base
    out["tracemalloc_after"] = cur - base
else:
    pool = pa.default_memory_pool()
    out["arrow_pool"] = pool.backend_name
    arrow_before = pool.max_memory()
    rss_before = rss_now()
    reset_peak_rss()
    hwm_before = peak_rss()
    t0 = time.perf_counter()
    X = load(source)
    out["seconds"] = time.perf_counter() - t0
    hwm_after = peak_rss()
    out.update(rss_before=rss_before, hwm_before=hwm_before,
               hwm_after=hwm_after, rss_after=rss_now(),
               arrow_peak=pool.max_memory() - arrow_before,
               arrow_after=pa.total_allocated_bytes())
import hashlib
out["shape"] = list(X.shape)
out["x_nbytes"] = X.nbytes
out["x_sha256"] = hashlib.sha256(np.asfortranarray(X).tobytes(order="F")).hexdigest()
print(json.dumps(out))
"""


def write_files(
    directory: Path, target_mb: float, n_samples: int, seed: int, with_gzip: bool
) -> tuple[dict[str, tuple[Path, str]], tuple[int, int]]:
    """Write the CSV (about ``target_mb`` MB), the Parquet, the same matrix with genes
    in rows, and optionally the gzip CSV; returns case -> (path, how it is loaded)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(seed)
    # Bytes per cell of the format, from a sample of the same distribution.
    probe = rng.standard_normal(20000)
    per_cell = np.mean([len(FMT % v) + 1 for v in probe])
    n_features = max(2, int(round(target_mb * 1e6 / (n_samples * per_cell))))
    X = rng.standard_normal((n_samples, n_features)).round(5)
    y = np.zeros(n_samples, dtype=np.int64)
    y[rng.choice(n_samples, max(2, n_samples // 6), replace=False)] = 1
    names = [f"g{j:05d}" for j in range(n_features)]

    paths = {"CSV": directory / "matrix.csv"}
    with open(paths["CSV"], "w") as f:
        f.write(",".join(names) + ",label\n")
        for start in range(0, n_samples, CHUNK_ROWS):
            block = np.column_stack([X[start : start + CHUNK_ROWS], y[start : start + CHUNK_ROWS]])
            np.savetxt(f, block, fmt=[FMT] * n_features + ["%d"], delimiter=",")

    paths["Parquet"] = directory / "matrix.parquet"
    table = pa.table({**{n: X[:, j] for j, n in enumerate(names)}, "label": y})
    pq.write_table(table, paths["Parquet"])
    del table

    paths["genes-in-rows CSV"] = directory / "genes_in_rows.csv"
    with open(paths["genes-in-rows CSV"], "w") as f:
        f.write("gene," + ",".join(f"s{i}" for i in range(n_samples)) + "\n")
        f.write("label," + ",".join(map(str, y)) + "\n")
        for start in range(0, n_features, 500):
            block = X[:, start : start + 500].T
            for name, row in zip(names[start : start + 500], block):
                f.write(name + "," + ",".join(FMT % v for v in row) + "\n")

    if with_gzip:
        paths["gzip CSV"] = directory / "matrix.csv.gz"
        with (
            open(paths["CSV"], "rb") as src,
            gzip.open(paths["gzip CSV"], "wb", compresslevel=1) as dst,
        ):
            while chunk := src.read(1 << 24):
                dst.write(chunk)
    cases = {
        fmt: (path, "transposed" if fmt == "genes-in-rows CSV" else "path")
        for fmt, path in paths.items()
    }
    cases["CSV as bytes (an upload)"] = (paths["CSV"], "bytes")
    return cases, (n_samples, n_features)


def run_child(path: Path, mode: str, kind: str) -> dict:
    proc = subprocess.run(
        [sys.executable, "-c", _CHILD, str(ROOT), str(path), mode, kind],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"load of {path.name} ({mode}) failed:\n{proc.stderr}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def mb(n: float) -> str:
    return f"{n / 1e6:,.1f} MB"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mb", type=float, default=200.0, help="CSV size in MB (default 200)")
    parser.add_argument("--samples", type=int, default=1000, help="rows (default 1000)")
    parser.add_argument("--seed", type=int, default=0, help="data seed (default 0)")
    parser.add_argument("--no-gzip", action="store_true", help="skip the gzip CSV")
    args = parser.parse_args(argv)
    if args.mb <= 0 or args.samples < 4:
        parser.error("--mb must be positive and --samples at least 4")

    import pyarrow as pa

    print(machine() + f", pyarrow {pa.__version__} ({pa.default_memory_pool().backend_name} pool)")
    results, problems = {}, []
    with tempfile.TemporaryDirectory(prefix="fsengine-bench-memory-") as tmp:
        t0 = time.perf_counter()
        paths, (n, p) = write_files(Path(tmp), args.mb, args.samples, args.seed, not args.no_gzip)
        matrix = n * p * 8
        print(
            f"data: {n} samples x {p} features + label; matrix float64 size {mb(matrix)}; "
            f"files written in {time.perf_counter() - t0:.1f} s"
        )
        for fmt, (path, kind) in paths.items():
            rss = run_child(path, "rss", kind)
            trace = run_child(path, "tracemalloc", kind)
            base = run_child(path, "baseline", kind)
            if rss["shape"] != [n, p] or trace["shape"] != [n, p]:
                problems.append(f"{fmt}: loaded shape {rss['shape']}, expected {[n, p]}")
            if rss["x_sha256"] != base["x_sha256"]:
                problems.append(
                    f"{fmt}: the loaded matrix differs from pandas' (not bit-identical)"
                )
            rss_peak = rss["hwm_after"] - rss["rss_before"]
            base_peak = base["hwm_after"] - base["rss_before"]
            results[fmt] = {
                "file_bytes": path.stat().st_size,
                "load_seconds": rss["seconds"],
                "rss_before": rss["rss_before"],
                "hwm_before": rss["hwm_before"],
                "hwm_after": rss["hwm_after"],
                "rss_after": rss["rss_after"],
                "rss_peak_increase": rss_peak,
                "rss_ratio": rss_peak / matrix,
                "arrow_pool_peak": rss["arrow_peak"],
                "arrow_ratio": rss["arrow_peak"] / matrix,
                "tracemalloc_peak": trace["tracemalloc_peak"],
                "tracemalloc_ratio": trace["tracemalloc_peak"] / matrix,
                "tracemalloc_after": trace["tracemalloc_after"],
                "peak_raised_by_load": rss["hwm_after"] > rss["hwm_before"],
                "baseline_seconds": base["seconds"],
                "baseline_rss_peak_increase": base_peak,
                "baseline_rss_ratio": base_peak / matrix,
                "baseline_over_engine": base_peak / rss_peak,
            }

    rows = [("samples x features", f"{n} x {p}"), ("matrix float64 size", mb(matrix))]
    for fmt, r in results.items():
        rows += [
            (f"{fmt}: file size", mb(r["file_bytes"])),
            (f"{fmt}: load time (context only)", f"{r['load_seconds']:.2f} s"),
            (
                f"{fmt}: peak RSS increase",
                f"{mb(r['rss_peak_increase'])}  ({r['rss_ratio']:.2f}x matrix)",
            ),
            (
                f"{fmt}: Arrow pool peak",
                f"{mb(r['arrow_pool_peak'])}  ({r['arrow_ratio']:.2f}x matrix)",
            ),
            (
                f"{fmt}: tracemalloc peak",
                f"{mb(r['tracemalloc_peak'])}  ({r['tracemalloc_ratio']:.2f}x matrix)",
            ),
            (
                f"{fmt}: pandas baseline peak RSS increase",
                f"{mb(r['baseline_rss_peak_increase'])}  ({r['baseline_rss_ratio']:.2f}x matrix; "
                f"{r['baseline_over_engine']:.1f}x fsengine's; {r['baseline_seconds']:.2f} s)",
            ),
        ]
    met = {fmt: r["rss_ratio"] <= RATIO_TARGET for fmt, r in results.items()}
    for fmt, ok in met.items():
        rows.append(
            (f"target: {fmt} peak RSS <= {RATIO_TARGET:.0f}x matrix", "met" if ok else "NOT MET")
        )
    print_table(rows)

    return finish_report(
        "memory",
        {
            "shape": [n, p],
            "target_mb": args.mb,
            "seed": args.seed,
            "format": FMT,
            "matrix_bytes": matrix,
            "ratio_target": RATIO_TARGET,
            "results": results,
            "targets_met": met,
        },
        problems,
        all(met.values()),
    )


if __name__ == "__main__":
    sys.exit(main())
