"""A study on a real Dask cluster: `dask scheduler` and two `dask worker` processes on
127.0.0.1 (free ports, started and stopped here by their process ids). The table is the
local run's whatever the engine, a worker killed mid-study changes nothing, and an
interrupted command resumes without recomputing finished tasks."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from conftest import GLIOMA, SAMPLE, SLOW_SECONDS
from dask_cluster import START_SECONDS, Cluster, default_sigint, free_port
from fsengine.cli import main
from fsengine.errors import FSEngineError
from fsengine.evaluation.benchmark import journal_path, read_journal, run_study, study_tasks
from fsengine.evaluation.study import load_manifest

#: How an interrupted command ends: status 130, or (rarely, once its message is out) by the
#: signal itself, which a shell reports as 130 too.
INTERRUPTED = (130, -signal.SIGINT)


def _running_cluster(tmp_path: Path, n_workers: int):
    """A :class:`Cluster` of ``n_workers`` in a folder of the test's, closed after it."""
    folder = tmp_path / f"cluster{n_workers}"
    folder.mkdir()
    running = Cluster(folder, n_workers=n_workers)
    yield running
    running.close()


@pytest.fixture
def cluster(tmp_path):
    yield from _running_cluster(tmp_path, 2)


@pytest.fixture
def one_worker_cluster(tmp_path):
    yield from _running_cluster(tmp_path, 1)


@pytest.fixture(scope="module")
def manifest(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("study")
    path = folder / "study.toml"
    path.write_text(
        f"""
[study]
methods = ["kofsd", "fisher", "osfs", "ofs-fpd"]
splits = 4
seed = 3

[[dataset]]
path = "{SAMPLE}"
minority = "2"

[[dataset]]
path = "{GLIOMA}"
minority = "2"
"""
    )
    return path


@pytest.fixture(scope="module")
def study(manifest):
    return load_manifest(manifest)


@pytest.fixture(scope="module")
def serial_table(study):
    return without_seconds(run_study(study, engine="serial"))


def without_seconds(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.drop(columns="seconds").reset_index(drop=True)


def test_the_scheduler_and_a_local_cluster_give_the_serial_table(
    manifest, study, serial_table, cluster, tmp_path
):
    out = tmp_path / "remote"
    assert (
        main(["benchmark", str(manifest), "--out", str(out), "--scheduler", cluster.address]) == 0
    )
    remote = pd.read_parquet(out.with_suffix(".parquet"))
    pd.testing.assert_frame_equal(without_seconds(remote), serial_table)
    local = run_study(study, n_jobs=2)
    pd.testing.assert_frame_equal(without_seconds(local), serial_table)
    assert cluster.n_workers() == 2


def test_a_worker_killed_mid_study_changes_nothing(study, serial_table, cluster, tmp_path):
    finished = []

    def kill_a_worker(done, total, message):
        finished.append(done)
        if len(finished) == 3:
            os.kill(cluster.workers[0].pid, signal.SIGKILL)
            cluster.workers[0].wait(30)

    table = run_study(study, tmp_path / "killed", scheduler=cluster.address, progress=kill_a_worker)
    assert cluster.workers[0].returncode == -signal.SIGKILL
    assert len(finished) == study.n_tasks > 3  # the kill came mid-study
    assert cluster.n_workers() == 1
    pd.testing.assert_frame_equal(without_seconds(table), serial_table)
    journal = read_journal(journal_path(tmp_path / "killed"))
    assert sorted((r["dataset"], r["method"], r["split"]) for r in journal) == sorted(
        study_tasks(study)
    )


def test_a_data_set_lost_with_its_worker_is_sent_again(manifest, one_worker_cluster, tmp_path):
    """A data set is scattered to the workers there are; the worker that holds its only
    copy can be lost (so can one of two: Dask's active memory manager keeps one copy once
    no task waits for it elsewhere), and the scheduler then cancels the batches that need
    it ("already forgotten"). They are sent again with the data, to the workers left, and
    the table is the serial one. Here, at the study's first record, a second worker joins
    and the first, the only holder, is killed (the study of 40 splits: most of its 64
    batches still to run)."""
    cluster = one_worker_cluster
    longer = load_manifest(_longer_study(manifest, tmp_path))
    finished = []

    def replace_the_worker(done, total, message):
        finished.append(done)
        if len(finished) == 1:
            first = cluster.workers[0]
            cluster.add_worker()
            os.kill(first.pid, signal.SIGKILL)
            first.wait(SLOW_SECONDS)

    table = run_study(
        longer, tmp_path / "lost", scheduler=cluster.address, progress=replace_the_worker
    )
    assert cluster.workers[0].returncode == -signal.SIGKILL
    assert cluster.n_workers() == 1
    assert len(finished) == longer.n_tasks
    serial = without_seconds(run_study(longer, engine="serial"))
    pd.testing.assert_frame_equal(without_seconds(table), serial)


def _longer_study(manifest: Path, folder: Path) -> Path:
    """The fixture's study with 40 splits (320 tasks: seconds of work on any machine)."""
    longer = folder / "longer.toml"
    longer.write_text(manifest.read_text().replace("splits = 4", "splits = 40"))
    return longer


def _interrupted(manifest: Path, out: Path, ready, delay: float = 0.0):
    """Run ``fsengine benchmark`` on ``manifest``, press Ctrl-C once ``ready(journal)``
    holds (then ``delay`` seconds more) and wait for the command: (process, stderr)."""
    process = subprocess.Popen(
        [sys.executable, "-m", "fsengine", "benchmark", str(manifest), "--out", str(out)],
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
        preexec_fn=default_sigint,
    )
    journal = journal_path(out)
    deadline = time.monotonic() + START_SECONDS
    while not ready(journal) and time.monotonic() < deadline:
        assert process.poll() is None, process.stderr.read()
        time.sleep(0.002)
    time.sleep(delay)
    os.kill(process.pid, signal.SIGINT)  # Ctrl-C
    try:
        _, err = process.communicate(timeout=SLOW_SECONDS)
    except subprocess.TimeoutExpired:
        os.kill(process.pid, signal.SIGKILL)
        raise
    return process, err


def test_an_interrupted_command_says_what_is_kept_and_exits_130(manifest, tmp_path):
    """Ctrl-C once tasks are being kept, in a study of 320 tasks (the fixture's with 40
    splits: seconds of work on any machine, where the signal takes milliseconds): status
    130, how many tasks are kept and how to go on, no table."""
    longer = _longer_study(manifest, tmp_path)
    n_tasks = load_manifest(longer).n_tasks
    assert n_tasks == 320
    out = tmp_path / "interrupted"
    process, err = _interrupted(longer, out, lambda journal: len(read_journal(journal)) >= 3)
    kept = read_journal(journal_path(out))
    assert process.returncode in INTERRUPTED, err
    assert 3 <= len(kept) < n_tasks
    assert f"{len(kept)} of {n_tasks} tasks are kept" in err and "--resume" in err
    assert not out.with_suffix(".parquet").exists()


@pytest.mark.parametrize("delay", [0.0, 0.3, 0.6])
def test_ctrl_c_while_the_local_cluster_starts_is_one_line(manifest, tmp_path, delay):
    """Ctrl-C at points of the local cluster's start (once the journal is open): the
    interruption takes effect once the cluster can be closed, and the command says one
    line, status 130; distributed's tracebacks of a half-started cluster (seen before:
    "AssertionError: Status.init", "Nanny failed to start") never show."""
    longer = _longer_study(manifest, tmp_path)
    process, err = _interrupted(longer, tmp_path / "started", Path.exists, delay)
    assert process.returncode in INTERRUPTED, err
    lines = err.strip().splitlines()  # a progress line at most every 30 s, then the end
    assert "tasks are kept" in lines[-1] and all(n.startswith("fsengine: ") for n in lines), err


def test_a_resumed_study_keeps_the_finished_tasks(manifest, study, serial_table, tmp_path):
    """A study stopped after its first tasks (a full run's journal cut after three records,
    its tables removed: what an interruption leaves) resumes without recomputing them."""
    out = tmp_path / "resumed"
    command = [sys.executable, "-m", "fsengine", "benchmark", str(manifest), "--out", str(out)]
    first = subprocess.run(
        [*command, "--serial"],
        capture_output=True,
        stdin=subprocess.DEVNULL,
        text=True,
        timeout=SLOW_SECONDS,
    )
    assert first.returncode == 0, first.stderr
    journal = journal_path(out)
    records = journal.read_text(encoding="utf-8").splitlines(keepends=True)
    assert len(records) == study.n_tasks
    journal.write_text("".join(records[:3]), encoding="utf-8")
    for table in (out.with_suffix(".parquet"), out.with_suffix(".csv")):
        table.unlink()
    resumed = subprocess.run(
        [*command, "--resume", "--serial"],
        capture_output=True,
        stdin=subprocess.DEVNULL,
        text=True,
        timeout=SLOW_SECONDS,
    )
    assert resumed.returncode == 0, resumed.stderr
    after = journal.read_text(encoding="utf-8").splitlines(keepends=True)
    assert after[:3] == records[:3]  # the finished tasks were not recomputed (their times)
    assert len(after) == study.n_tasks  # ... and each missing one ran once
    keys = [(r["dataset"], r["method"], r["split"]) for r in map(json.loads, after)]
    assert sorted(keys) == sorted(study_tasks(study))
    table = pd.read_parquet(out.with_suffix(".parquet"))
    pd.testing.assert_frame_equal(without_seconds(table), serial_table)


def test_an_unreachable_scheduler_is_one_line_and_status_2(manifest, capsys):
    address = f"tcp://127.0.0.1:{free_port()}"
    assert main(["benchmark", str(manifest), "--scheduler", address]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0
    assert f"cannot reach the Dask scheduler at {address}" in err and "dask scheduler" in err


def test_a_scheduler_without_workers_is_refused(study, tmp_path, monkeypatch):
    import fsengine._compute.cluster as cluster

    monkeypatch.setattr(cluster, "CONNECT_TIMEOUT", 3)
    folder = tmp_path / "empty"
    folder.mkdir()
    empty = Cluster(folder, n_workers=0)
    try:
        with pytest.raises(FSEngineError, match="has no worker"):
            run_study(study, scheduler=empty.address)
    finally:
        empty.close()
