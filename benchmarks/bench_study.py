"""A benchmark study serially and on a local Dask cluster, and the Dask path's cost per task.

The study: the real data sets (SRBCT, GLIOMA, ALLAML, Colon, Brain_Tumor1 from ../shared,
SRBCT and GLIOMA from the repository when ../shared is absent) x 15 methods (the twelve
online selectors but group SAOLA, and Fisher, S2N, ReliefF) x 20 splits, as
``fsengine benchmark`` runs it:

* serial: ``run_study(engine="serial")``, one task after the other in this process (the
  straightforward way);
* local cluster: ``run_study(n_jobs=2)`` on this machine's cores, with the cluster's start
  counted, and the start alone;
* the lower bound: the serial time divided by the number of cores (perfect scaling), or the
  longest single task if that is longer (no engine splits a task): on Brain_Tumor1, one
  split makes OFS-Density keep 635 features and take most of the study's time;
* the same study without that method, whose tasks are even, for how the engine scales.

The tables must be equal but for the measured seconds. Then the cost of one task on Dask:
a quick task (Fisher on GLIOMA, split 0) called directly and submitted to a warm one-worker
cluster (submit, run, result back), medians over many calls; and what a new cluster costs
before any work: until it answers, and each worker's age (from its process's start) when
its first task runs.
"""

from __future__ import annotations

import statistics
import sys
import time
from dataclasses import replace

from _common import ROOT, finish_report, machine, parse_options, print_table

from fsengine._compute.parallel import available_cores
from fsengine.evaluation.benchmark import (
    _run_task_on_worker,
    dask_client,
    read_study_data,
    run_study,
)
from fsengine.evaluation.study import Study, StudyDataset

SHARED = ROOT.parent / "shared" / "datasets"
#: The study on the local cluster against serially, without its longest method's tasks.
TARGET_SPEEDUP = 1.5
METHODS = (
    "kofsd",
    "ofs-fpd",
    "cie-osfs",
    "alpha-investing",
    "osfs",
    "fast-osfs",
    "saola",
    "ofs-a3m",
    "ofs-density",
    "rhofs",
    "sfsf",
    "osfs-et",
    "sfs-fi",
    "ossfs-dd",
    "fisher",
    "s2n",
    "relieff",
)
SETS = (
    ("SRBCT", "2", ROOT / "sample_data" / "SRBCT.parquet"),
    ("GLIOMA", "2", ROOT / "tests" / "reference" / "datasets" / "GLIOMA.parquet"),
    ("ALLAML", "2", None),
    ("Colon_alon", "n", None),
    ("Brain_Tumor1", "3", None),
)


def the_study() -> Study:
    datasets = []
    for name, minority, local in SETS:
        path = SHARED / f"{name}.parquet"
        path = path if path.is_file() else local
        if path is not None and path.is_file():
            datasets.append(StudyDataset(name, path, minority))
    return Study(datasets=tuple(datasets), methods=METHODS, splits=20, seed=0)


def _echo(value):
    return value


def _worker_age(_) -> float:
    """Seconds since this worker process started (its first task's view)."""
    import os

    import psutil

    return time.time() - psutil.Process(os.getpid()).create_time()


def worker_start(cores: int, repeats: int = 3) -> dict:
    """A new local cluster as run_study starts one (dask_client, then prepare_process on
    every worker): the seconds until the cluster answers, and each worker's age at its
    first task (from its process's start: spawn, imports, kernels, connection), medians."""
    from fsengine._compute.parallel import prepare_process

    starts, ages = [], []
    for _ in range(repeats):
        t0 = time.perf_counter()
        with dask_client(None, cores) as client:
            starts.append(time.perf_counter() - t0)
            client.run(prepare_process, ("fsengine.evaluation",))
            futures = [client.submit(_worker_age, i, pure=False) for i in range(cores)]
            ages.append(sorted(client.gather(futures)))
    return {
        "cluster": statistics.median(starts),
        "worker_ages": [statistics.median(a[i] for a in ages) for i in range(cores)],
    }


def per_task_cost(study: Study, data: dict, calls: int) -> dict:
    """Medians over ``calls`` of one quick task (Fisher on GLIOMA, split 0, single-threaded
    as on a worker) called directly and through a warm one-worker cluster (submit, run,
    result back), and of an empty task: alone (latency) and 2000 in flight (throughput)."""
    small = data["GLIOMA"]
    task = (study, "fisher", 0)
    direct = []
    for _ in range(calls):
        t0 = time.perf_counter()
        _run_task_on_worker(small, *task)
        direct.append(time.perf_counter() - t0)
    on_dask, empty = [], []
    with dask_client(None, 1) as client:
        shipped = client.scatter(small, broadcast=True, hash=False)
        for _ in range(5):  # warm: the worker imports and compiles
            client.submit(_run_task_on_worker, shipped, *task, pure=False).result()
        for _ in range(calls):
            t0 = time.perf_counter()
            client.submit(_run_task_on_worker, shipped, *task, pure=False).result()
            on_dask.append(time.perf_counter() - t0)
        for i in range(calls):
            t0 = time.perf_counter()
            client.submit(_echo, i, pure=False).result()
            empty.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        client.gather([client.submit(_echo, i, pure=False) for i in range(2000)])
        in_flight = (time.perf_counter() - t0) / 2000
    return {
        "direct": statistics.median(direct),
        "dask": statistics.median(on_dask),
        "empty": statistics.median(empty),
        "in_flight": in_flight,
    }


def main(argv=None) -> int:
    args, _ = parse_options(__doc__.splitlines()[0], argv)
    repeats = min(args.repeats, 3)  # each run is a whole study
    study = the_study()
    data = read_study_data(study)
    cores = available_cores()
    print(f"{machine()}; {cores} cores for the local cluster")
    print(
        f"study: {len(study.datasets)} data sets ({', '.join(d.name for d in study.datasets)}) "
        f"x {len(study.methods)} methods x {study.splits} splits = {study.n_tasks} tasks"
    )
    serial, local, starts = [], [], []
    tables = {}
    for _ in range(repeats):
        t0 = time.perf_counter()
        tables["serial"] = run_study(study, engine="serial", data=data)
        serial.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        tables["dask"] = run_study(study, n_jobs=cores, data=data)
        local.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        with dask_client(None, cores):
            starts.append(time.perf_counter() - t0)
    problems = []
    a, b = (tables[k].drop(columns="seconds") for k in ("serial", "dask"))
    if not a.equals(b):
        problems.append("the local cluster's table differs from the serial one")
    longest = tables["serial"].loc[tables["serial"].seconds.idxmax()]
    # Without the one method whose tasks are most uneven: how the engine scales on even tasks.
    even = replace(study, methods=tuple(m for m in study.methods if m != longest.method))
    even_serial, even_local = [], []
    for _ in range(repeats):
        t0 = time.perf_counter()
        run_study(even, engine="serial", data=data)
        even_serial.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        run_study(even, n_jobs=cores, data=data)
        even_local.append(time.perf_counter() - t0)
    cost = per_task_cost(study, data, calls=200)
    started = worker_start(cores)
    direct, on_dask = cost["direct"], cost["dask"]
    t_serial, t_local, t_start = (statistics.median(x) for x in (serial, local, starts))
    e_serial, e_local = statistics.median(even_serial), statistics.median(even_local)
    bound = max(t_serial / cores, float(longest.seconds))
    mean_task = t_serial / study.n_tasks
    rows = [
        ("serial (this process), median", f"{t_serial:.1f} s"),
        (f"local Dask cluster ({cores} workers), median", f"{t_local:.1f} s"),
        ("  of which the cluster's start", f"{t_start:.1f} s"),
        ("speed-up, serial / local cluster", f"{t_serial / t_local:.2f}x"),
        ("  without the start", f"{t_serial / (t_local - t_start):.2f}x"),
        (
            "longest task (serial)",
            f"{longest.seconds:.1f} s: {longest.method} on {longest.dataset} "
            f"split {longest.split} ({longest.n_features} features)",
        ),
        (f"lower bound: max(serial / {cores}, longest task)", f"{bound:.1f} s"),
        ("local cluster / lower bound", f"{t_local / bound:.2f}x"),
        ("tables equal (but the seconds)", "yes" if not problems else "NO"),
        (f"without {longest.method} ({even.n_tasks} tasks): serial", f"{e_serial:.1f} s"),
        ("  local cluster", f"{e_local:.1f} s"),
        (f"  speed-up (target >= {TARGET_SPEEDUP}x)", f"{e_serial / e_local:.2f}x"),
        (f"  against serial / {cores}", f"{e_local / (e_serial / cores):.2f}x"),
        ("a new cluster: until it answers (median)", f"{started['cluster']:.2f} s"),
        (
            "  each worker's age at its first task",
            ", ".join(f"{a:.2f} s" for a in started["worker_ages"]),
        ),
        ("study's mean task (serial)", f"{mean_task * 1e3:.1f} ms"),
        ("one quick task, direct call (median)", f"{direct * 1e3:.2f} ms"),
        ("the same task through Dask, one at a time", f"{on_dask * 1e3:.2f} ms"),
        ("  Dask's latency per task", f"{(on_dask - direct) * 1e3:.2f} ms"),
        ("an empty task, one at a time", f"{cost['empty'] * 1e3:.2f} ms"),
        ("an empty task, 2000 in flight", f"{cost['in_flight'] * 1e3:.2f} ms"),
        ("  in flight, over the study's mean task", f"{cost['in_flight'] / mean_task:.1%}"),
    ]
    print_table(rows)
    record = {
        "tasks": study.n_tasks,
        "datasets": [d.name for d in study.datasets],
        "methods": list(study.methods),
        "serial_seconds": serial,
        "local_cluster_seconds": local,
        "cluster_start_seconds": starts,
        "speedup": t_serial / t_local,
        "longest_task_seconds": float(longest.seconds),
        "without_longest_method": {"serial": even_serial, "local_cluster": even_local},
        **{f"task_{k}_seconds": v for k, v in cost.items()},
        "new_cluster_seconds": started["cluster"],
        "worker_age_at_first_task_seconds": started["worker_ages"],
    }
    record["even_speedup"] = e_serial / e_local
    return finish_report(
        "study", record, problems, targets_met=e_serial / e_local >= TARGET_SPEEDUP
    )


if __name__ == "__main__":
    sys.exit(main())
