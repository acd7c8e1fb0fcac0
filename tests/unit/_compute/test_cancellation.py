"""A cancelled run ends its worker processes at once (issue 40, point 5): tasks that would
sleep far longer than the suite's bound are killed, the run raises RunCancelled, and the
pool serves the next run as before."""

import os
import threading
import time
from pathlib import Path

import pytest

from conftest import SLOW_SECONDS
from fsengine._compute.parallel import Cancellation, RunCancelled, cancellable, run_tasks


def _sleep_in_a_worker(folder: str, i: int) -> int:
    """Write this process's id to ``folder/i`` (whole: written beside, then renamed), then
    sleep until the file ``folder/release`` exists: longer than any test waits, unless the
    test releases it (when it fails, so that no worker outlives it)."""
    Path(folder, f".{i}").write_text(str(os.getpid()))
    Path(folder, f".{i}").rename(Path(folder, str(i)))
    while not Path(folder, RELEASE).exists():
        time.sleep(0.05)
    return i


RELEASE = "release"


def _started(folder: Path) -> list[Path]:
    """The files of the tasks that have started (their process id written whole)."""
    return [p for p in folder.iterdir() if p.name.isdigit()]


def _pid(_: int) -> int:
    return os.getpid()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a killed child not reaped yet is a zombie: gone all the same
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except OSError:
        return False


def _wait_for(condition, what: str) -> None:
    deadline = time.monotonic() + SLOW_SECONDS
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


def _run_in_thread(token: Cancellation, function, tasks, n_jobs):
    outcome = {}

    def run():
        try:
            with cancellable(token):
                outcome["result"] = run_tasks(function, tasks, n_jobs=n_jobs)
        except BaseException as exc:  # noqa: BLE001 - the test reads it
            outcome["error"] = exc

    thread = threading.Thread(target=run)
    thread.start()
    return thread, outcome


@pytest.mark.parametrize("n_jobs", [2, 1])
def test_cancel_kills_the_workers_of_a_running_run(tmp_path, n_jobs):
    token = Cancellation()
    thread, outcome = _run_in_thread(
        token, _sleep_in_a_worker, [(str(tmp_path), i) for i in range(4)], n_jobs
    )
    try:
        _wait_for(lambda: _started(tmp_path), "no task started")
        pids = {int(p.read_text()) for p in _started(tmp_path)}
        assert os.getpid() not in pids  # even one job computes in a worker: it can be killed
        token.cancel()
        thread.join(SLOW_SECONDS)
        assert not thread.is_alive()
        assert isinstance(outcome.get("error"), RunCancelled), outcome
        _wait_for(lambda: not any(_alive(pid) for pid in pids), f"workers {pids} still alive")
    finally:  # a failed test leaves no run holding the worker processes
        Path(tmp_path, RELEASE).touch()
        token.cancel()
        thread.join(SLOW_SECONDS)
    # the next run gets a new pool
    assert run_tasks(abs, [(-1,), (-2,), (3,)], n_jobs=2) == [1, 2, 3]


def test_a_cancelled_token_stops_a_run_before_it_starts():
    token = Cancellation()
    token.cancel()
    with pytest.raises(RunCancelled), cancellable(token):
        run_tasks(abs, [(1,)], n_jobs=2)


def test_without_a_token_one_job_runs_in_this_process_as_before():
    assert run_tasks(_pid, [(0,), (1,)], n_jobs=1) == [os.getpid()] * 2
    with cancellable(Cancellation()):
        assert os.getpid() not in run_tasks(_pid, [(0,)], n_jobs=1)


def test_cancel_calls_the_registered_stop_once_and_at_once_when_late():
    token, calls = Cancellation(), []
    with token.on_cancel(lambda: calls.append("a")):
        token.cancel()
        token.cancel()
    assert calls == ["a"]
    with token.on_cancel(lambda: calls.append("b")):
        pass
    assert calls == ["a", "b"]
