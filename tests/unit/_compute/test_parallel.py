"""Splits run on several processes give exactly the records of a serial run."""

import csv
import io
import subprocess
import sys

import pytest

from conftest import ROOT, SAMPLE, SLOW_SECONDS
from fsengine._compute.parallel import resolve_jobs, run_tasks
from fsengine.cli import main
from fsengine.errors import FSEngineError
from fsengine.evaluation import evaluate, sweep_k, sweep_top
from fsengine.methods.runs import METHODS, run_selection


def without_seconds(records):
    return [{k: v for k, v in r.items() if k != "seconds"} for r in records]


def test_evaluate_with_every_method_is_the_same_on_two_processes(srbct):
    serial = evaluate(srbct, 2, METHODS, n_splits=3, seed=5, n_jobs=1)
    parallel = evaluate(srbct, 2, METHODS, n_splits=3, seed=5, n_jobs=2)
    assert len(serial.records) == 3 * len(METHODS)
    assert without_seconds(parallel.records) == without_seconds(serial.records)


def test_sweeps_are_the_same_on_two_processes(srbct):
    serial = sweep_k(srbct, 2, range(1, 8), n_splits=3, seed=2, n_jobs=1, alpha=0.4)
    calls = []
    parallel = sweep_k(
        srbct,
        2,
        range(1, 8),
        n_splits=3,
        seed=2,
        n_jobs=2,
        alpha=0.4,
        progress=lambda *a: calls.append(a[:2]),
    )
    assert without_seconds(parallel.records) == without_seconds(serial.records)
    assert calls == [(i, 21) for i in range(1, 22)]
    serial = sweep_top(srbct, 2, ["fisher", "mi"], [1, 3, 5], n_splits=3, n_jobs=1)
    parallel = sweep_top(srbct, 2, ["fisher", "mi"], [1, 3, 5], n_splits=3, n_jobs=2)
    assert without_seconds(parallel.records) == without_seconds(serial.records)


def _csv_without_seconds(path):
    rows = list(csv.DictReader(io.StringIO(path.read_text())))
    for row in rows:
        del row["seconds"]
    return rows


@pytest.mark.parametrize(
    "command", [["evaluate", "--methods", "kofsd,fisher,cie-osfs"], ["sweep", "--k", "2..5"]]
)
def test_cli_jobs_give_the_same_csv(tmp_path, command):
    outputs = []
    for jobs in ("1", "2"):
        out = tmp_path / f"jobs{jobs}.csv"
        code = main(
            [
                command[0],
                str(SAMPLE),
                "--minority",
                "2",
                "--splits",
                "3",
                *command[1:],
                "--jobs",
                jobs,
                "--out",
                str(out),
            ]
        )
        assert code == 0
        outputs.append(_csv_without_seconds(out))
    assert outputs[0] == outputs[1] and len(outputs[0]) > 0


@pytest.mark.parametrize("jobs", ["0", "-2"])
def test_cli_rejects_a_bad_number_of_jobs(capsys, jobs):
    code = main(["evaluate", str(SAMPLE), "--minority", "2", "--splits", "2", "--jobs", jobs])
    assert code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        f"fsengine: error: the number of jobs must be a positive integer, got {int(jobs)}"
    ]


def _fails_on_two(x):
    if x == 2:
        raise FSEngineError("task 2 failed")
    return x * 10


def test_an_error_in_a_worker_reaches_the_caller_unchanged():
    assert run_tasks(_fails_on_two, [(0,), (1,), (3,)], n_jobs=2) == [0, 10, 30]
    with pytest.raises(FSEngineError, match="^task 2 failed$"):
        run_tasks(_fails_on_two, [(0,), (1,), (2,), (3,)], n_jobs=2)


def test_default_jobs_are_the_available_cores():
    import os

    assert resolve_jobs(None) == len(os.sched_getaffinity(0))
    assert resolve_jobs(3) == 3
    with pytest.raises(FSEngineError):
        resolve_jobs(True)


def test_runs_from_several_threads_and_the_warm_up_take_turns_on_the_pool():
    """Two sessions of the dashboard running at once, while the warm-up starts the workers:
    every run finishes with its own results in task order."""
    import threading

    from fsengine._compute import parallel

    parallel._warmed = False
    parallel.warm_up(2)
    results, threads = {}, []
    for name, base in (("a", 0), ("b", 100)):
        tasks = [(base + i,) for i in range(6)]
        thread = threading.Thread(
            target=lambda n=name, t=tasks: results.__setitem__(n, run_tasks(abs, t, n_jobs=2))
        )
        threads.append(thread)
        thread.start()
    for thread in threads:
        thread.join(timeout=SLOW_SECONDS)
    assert not any(t.is_alive() for t in threads)
    assert results == {"a": list(range(6)), "b": list(range(100, 106))}
    assert parallel._warmed
    parallel.warm_up(2)  # once per process: returns at once


@pytest.mark.parametrize("method", ["kofsd", "ofs-fpd", "cie-osfs"])
def test_run_without_events_selects_the_same(srbct, method):
    """run_selection(events=False), as `select` without --trace and the sweeps run it:
    no events kept, the same selection and record as the traced run."""
    traced = run_selection(srbct, 2, method, order="random", seed=3)
    plain = run_selection(srbct, 2, method, order="random", seed=3, events=False)
    assert len(traced.events) == srbct.n_features and plain.events == []
    assert plain.selection == traced.selection and plain.params == traced.params


def test_import_in_background_imports_once_and_ignores_a_failure():
    """In a new process: the modules listed are imported by a background thread after the
    delay, a name that cannot be imported is skipped, and a second call does nothing."""
    script = (
        "import sys, threading\n"
        "from fsengine._compute import parallel\n"
        "assert 'colorsys' not in sys.modules and 'wave' not in sys.modules\n"
        "parallel.import_in_background(['no_such_module_here', 'colorsys'], delay=0.01)\n"
        "parallel.import_in_background(['wave'])\n"
        "for thread in threading.enumerate():\n"
        "    if thread.name == 'fsengine-import-ahead':\n"
        "        thread.join()\n"
        "print('colorsys' in sys.modules, 'wave' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert done.stdout.split() == ["True", "False"]


def test_an_instance_lock_is_one_per_object_and_goes_with_it():
    import gc

    from fsengine._compute.parallel import _instance_locks, instance_lock

    class Owner:
        pass

    a, b = Owner(), Owner()
    assert instance_lock(a) is instance_lock(a)
    assert instance_lock(a) is not instance_lock(b)
    count = len(_instance_locks)
    del a
    gc.collect()
    assert len(_instance_locks) == count - 1
