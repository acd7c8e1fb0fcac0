"""Every method's results on the real data sets, as digests: what a redesign leaves unchanged.

A checkout (``--root``, default this one) is run through its command line, each run a new
process of this interpreter with the checkout first on the path:

* ``select`` of every registered method (``fsengine methods --json``) on each data set, at
  its defaults, with the selection CSV and, for an online selector, its trace (SFS-FI on
  SRBCT and GLIOMA only);
* ``evaluate`` of the K-OFSD paper's methods (the command's default), 20 splits, with the
  per-split records;
* ``sweep`` of K-OFSD over K = 1..10 and of Fisher and MI over 1..20 features, 20 splits,
  with the per-split records.

The SHA-256 of every file written (its columns of times removed) and of what ``select``
says on standard error (its notes, warnings and counts; the times it prints removed) go
to a JSON file (``--out``). Two checkouts compute the same results when their files are
equal: ``--compare A.json B.json`` lists every difference, and every run that failed or
wrote nothing in either, and exits 1 if there is one. The file records the machine (CPU
model, BLAS libraries and the kernels they chose): the same commit on another machine
may differ in the last bits of a sum. The digests of 6419735 made on 1 December (machine
not recorded) and again on 2 December differ in 32 of 152 runs (OSFS-family traces,
Grafting's selection on two sets, GLIOMA's records), with the same pinned packages; on 2
December 6419735 and 816cb96 differ in none. Data sets: the real ones of
``../shared/datasets`` with the minority class the K-OFSD paper studies, or the bundled
SRBCT and GLIOMA.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import io
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "datasets"
#: Data set -> its minority class (the paper's where it studies one, else the smallest).
MINORITIES = {"SRBCT": "2", "GLIOMA": "2", "Colon_alon": "n", "ALLAML": "2", "Brain_Tumor1": "3"}
#: The bundled copies, where ../shared is not there.
BUNDLED = {
    "SRBCT": "sample_data/SRBCT.parquet",
    "GLIOMA": "tests/reference/datasets/GLIOMA.parquet",
}
#: Methods run on some data sets only: SFS-FI keeps nearly every feature of these sets and
#: its work grows as the square of the stream (bench_infotheo.py times it on these two).
ONLY_ON = {"sfs-fi": {"SRBCT", "GLIOMA"}}
#: A bound on one run, far above any method's time on these sets; a run that exceeds it is
#: recorded as such, never as a result.
RUN_TIMEOUT_S = 1800
#: What a command prints that changes from run to run: its times.
TIMES = re.compile(r"\b\d+(\.\d+)?\s*(s|ms|seconds?)\b")
#: The columns of a CSV written that hold times (the per-split records' "seconds").
TIME_COLUMNS = {"seconds"}


def data_sets(root: Path) -> dict[str, Path]:
    """Name -> file of each real data set to run."""
    if SHARED.is_dir():
        return {name: SHARED / f"{name}.parquet" for name in MINORITIES}
    return {name: root / path for name, path in BUNDLED.items()}


def _fsengine(root: Path, args: list[str], **options) -> subprocess.CompletedProcess:
    """``python -m fsengine ARGS`` of checkout ``root``, in a new process, its output kept."""
    env = dict(os.environ, PYTHONPATH=str(root))
    return subprocess.run(
        [sys.executable, "-m", "fsengine", *args],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        **options,
    )


def run(root: Path, args: list[str], outputs: list[Path]) -> dict:
    """Run ``python -m fsengine ARGS`` in ``root``; the digests of its output and files."""
    try:
        done = _fsengine(root, args, timeout=RUN_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return {"exit": "timeout"}
    found = {"exit": done.returncode}
    if args[0] == "select":  # its notes, warnings and counts (evaluate and sweep print means)
        said = TIMES.sub("T", done.stderr).replace(str(outputs[0].parent), "DIR")
        found["stderr"] = _digest(said.encode())
    if done.returncode:
        found["error"] = done.stderr.strip().splitlines()[-1:] if done.stderr else []
    for path in outputs:
        found[path.name] = _digest(_without_times(path.read_bytes())) if path.exists() else None
        path.unlink(missing_ok=True)
    return found


def _without_times(data: bytes) -> bytes:
    """A CSV's bytes without its :data:`TIME_COLUMNS` (other files as they are)."""
    rows = list(csv.reader(io.StringIO(data.decode("utf-8"))))
    if not rows or not TIME_COLUMNS & set(rows[0]):
        return data
    keep = [i for i, title in enumerate(rows[0]) if title not in TIME_COLUMNS]
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows([row[i] for i in keep] for row in rows)
    return out.getvalue().encode("utf-8")


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def methods(root: Path) -> list[dict]:
    """Every registered method's name and kind, from the checkout's command line."""
    listing = _fsengine(root, ["methods", "--json"], check=True)
    return [{"name": m["name"], "kind": m["kind"]} for m in json.loads(listing.stdout)]


def digests(root: Path, only: set[str] | None = None) -> dict:
    """Every run's digests in checkout ``root``: {case: {file: sha256}}."""
    found = {}
    registered = methods(root)
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        selection, trace, records = work / "selection.csv", work / "trace.csv", work / "records.csv"
        for name, path in data_sets(root).items():
            if only and name not in only:
                continue
            data = [str(path), "--minority", MINORITIES[name]]
            for method in registered:
                if name not in ONLY_ON.get(method["name"], {name}):
                    continue
                online = method["kind"] == "online"
                files = [selection] + ([trace] if online else [])
                extra = ["--trace", str(trace)] if online else []
                case = f"{name} select {method['name']}"
                found[case] = run(
                    root,
                    ["select", *data, "--method", method["name"], "--out", str(selection), *extra],
                    files,
                )
                print(case, found[case].get("exit"), flush=True)
            for case, args in (
                ("evaluate", ["evaluate", *data, "--splits", "20", "--jobs", "1"]),
                ("sweep k", ["sweep", *data, "--k", "1..10", "--splits", "20", "--jobs", "1"]),
                (
                    "sweep top",
                    ["sweep", *data, "--methods", "fisher,mi", "--top", "1..20", "--splits", "20"]
                    + ["--jobs", "1"],
                ),
            ):
                found[f"{name} {case}"] = run(root, [*args, "--out", str(records)], [records])
                print(name, case, found[f"{name} {case}"].get("exit"), flush=True)
    return found


def machine_facts() -> dict:
    """What a result's last bits may depend on besides the code: the CPU model and each
    BLAS library with the kernel set it chose for that CPU (numpy's and scipy's OpenBLAS
    pick theirs at load). Two checkouts are compared on one machine."""
    import platform

    import scipy.linalg  # noqa: F401  (scipy's BLAS loaded, so that it is listed)
    from threadpoolctl import threadpool_info

    cpuinfo = Path("/proc/cpuinfo")
    models = [
        line.split(":", 1)[1].strip()
        for line in (cpuinfo.read_text().splitlines() if cpuinfo.exists() else [])
        if line.startswith("model name")
    ]
    blas = sorted(  # (the order they were loaded in is not a fact of the machine)
        f"{info['internal_api']} {info['version']} ({info.get('architecture')})"
        for info in threadpool_info()
        if info["user_api"] == "blas"
    )
    return {"cpu": models[0] if models else platform.processor(), "blas": blas}


def _machine(report: dict) -> dict | None:
    """A file's machine facts, its BLAS libraries in one order (older files kept them in
    the order loaded)."""
    machine = report.get("machine")
    return machine and {**machine, "blas": sorted(machine.get("blas", []))}


def compare(first: dict, second: dict) -> list[str]:
    """The cases whose digests differ between two files' runs, that only one has, or that
    prove nothing: a run that failed, timed out or wrote no file, in either (the same
    failure in both is no evidence that the results are the same)."""
    differences = []
    for case in sorted(set(first["runs"]) | set(second["runs"])):
        a, b = first["runs"].get(case), second["runs"].get(case)
        if a != b:
            differences.append(f"{case}: {a} != {b}")
        elif a["exit"] != 0 or None in a.values():
            differences.append(f"{case}: no result in either: {a}")
    return differences


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout to run")
    parser.add_argument("--out", type=Path, help="the JSON file of digests to write")
    parser.add_argument("--data", help="only these data sets (comma-separated names)")
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("A", "B"))
    args = parser.parse_args(argv)
    if args.compare:
        first, second = (json.loads(p.read_text()) for p in args.compare)
        differences = compare(first, second)
        for line in differences:
            print(line)
        if _machine(first) != _machine(second):
            print(
                f"not known to be computed on one machine ({first.get('machine', 'not recorded')}"
                f"; {second.get('machine', 'not recorded')}): sums may differ in their last "
                "bits, and a selection decided by them with it; run both here to compare code"
            )
        print(f"{len(first['runs'])} and {len(second['runs'])} runs; {len(differences)} differ")
        return 1 if differences else 0
    root = args.root.resolve()
    commit = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True
    ).stdout.strip()
    only = set(args.data.split(",")) if args.data else None
    report = {
        "root": str(root),
        "commit": commit,
        "machine": machine_facts(),
        "runs": digests(root, only),
    }
    text = json.dumps(report, indent=1, sort_keys=True)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
