"""The server-wide queue of heavy runs (dashboard/run_queue.py): at most ``limit`` compute
at once, the others in arrival order, each told how many runs are ahead, and a run
cancelled while it waits leaves the queue without taking a slot."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time

import pytest

from conftest import ROOT, SLOW_SECONDS
from dashboard import run_queue
from dashboard.run_queue import RunQueue
from fsengine._compute.parallel import Cancellation, RunCancelled


def _wait(condition, what: str) -> None:
    deadline = time.monotonic() + SLOW_SECONDS
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.01)


def test_runs_beyond_the_limit_wait_their_turn_in_arrival_order():
    queue = RunQueue(limit=2)
    release = {i: threading.Event() for i in range(5)}
    order: list[int] = []
    told: dict[int, list[int]] = {i: [] for i in range(5)}
    most = [0]

    def run(i: int) -> None:
        with queue.slot(Cancellation(), told[i].append):
            order.append(i)
            most[0] = max(most[0], queue.computing)
            release[i].wait(SLOW_SECONDS)

    threads = []
    for i in range(5):
        threads.append(threading.Thread(target=run, args=(i,), daemon=True))
        threads[-1].start()
        _wait(lambda n=i + 1: queue.computing + queue.waiting == n, f"run {i} queued")
    _wait(lambda: len(order) == 2, "the first two computing")
    assert order == [0, 1] and queue.waiting == 3
    assert told[2] == [2] and told[3] == [3] and told[4] == [4]
    for i in range(5):
        release[i].set()
        admitted = min(i + 3, 5)  # releasing one admits the next in line
        _wait(lambda n=admitted: len(order) >= n, f"run {i} released")
    for thread in threads:
        thread.join(SLOW_SECONDS)
    assert order == [0, 1, 2, 3, 4]
    assert most[0] == 2
    assert told[4][0] == 4 and told[4][-1] == 0 and told[4] == sorted(told[4], reverse=True)
    assert queue.computing == queue.waiting == 0


def test_a_run_cancelled_while_it_waits_leaves_the_queue():
    queue = RunQueue(limit=1)
    holding, release = threading.Event(), threading.Event()

    def hold() -> None:
        with queue.slot(Cancellation(), lambda n: None):
            holding.set()
            release.wait(SLOW_SECONDS)

    first = threading.Thread(target=hold, daemon=True)
    first.start()
    holding.wait(SLOW_SECONDS)
    token, outcome = Cancellation(), {}

    def wait_in_line() -> None:
        try:
            with queue.slot(token, lambda n: None):
                outcome["ran"] = True
        except RunCancelled:
            outcome["cancelled"] = True

    second = threading.Thread(target=wait_in_line, daemon=True)
    second.start()
    _wait(lambda: queue.waiting == 1, "the second run queued")
    token.cancel()
    second.join(SLOW_SECONDS)
    assert outcome == {"cancelled": True} and queue.waiting == 0
    release.set()
    first.join(SLOW_SECONDS)
    with queue.slot(Cancellation(), lambda n: None):  # the slot is free again
        assert queue.computing == 1


def test_a_slot_is_given_back_when_the_run_fails():
    queue = RunQueue(limit=1)
    with pytest.raises(ValueError), queue.slot(Cancellation(), lambda n: None):
        raise ValueError("the run failed")
    assert queue.computing == 0


@pytest.mark.parametrize(("given", "expected"), [("3", 3), ("0", None), ("x", None), ("", None)])
def test_the_limit_is_the_environments_else_half_the_cores(given, expected, monkeypatch):
    monkeypatch.setenv(run_queue.CONCURRENT_RUNS, given)
    monkeypatch.setattr(run_queue, "available_cores", lambda: 8)
    assert RunQueue().limit == (expected if expected is not None else 4)
    monkeypatch.setattr(run_queue, "available_cores", lambda: 1)
    assert RunQueue().limit == (expected if expected is not None else 1)


_BLAS_PROBE = """
import json, sys
import numpy
from threadpoolctl import threadpool_info
from dashboard.run_queue import one_blas_thread
if sys.argv[1] == "limit":
    one_blas_thread()
    one_blas_thread()
import scipy.linalg  # scipy's own BLAS, loaded after the call
print(json.dumps([(i["internal_api"], i["filepath"], i["num_threads"])
                  for i in threadpool_info() if i["user_api"] == "blas"]))
"""


def _blas_threads(mode: str, **environ) -> list:
    """The BLAS libraries of a new process (numpy's loaded before, scipy's after the call
    when ``mode`` is "limit") as (internal api, file, threads), started with none of the
    thread variables but ``environ``."""
    env = {
        k: v for k, v in os.environ.items() if k not in {*run_queue.BLAS_THREADS, "OMP_NUM_THREADS"}
    }
    out = subprocess.run(
        [sys.executable, "-c", _BLAS_PROBE, mode],
        capture_output=True, text=True, check=True, env={**env, **environ}, cwd=ROOT,
        timeout=SLOW_SECONDS,
    )  # fmt: skip
    return json.loads(out.stdout)


def test_the_server_runs_its_blas_on_one_thread_loaded_before_or_after():
    limited = _blas_threads("limit")
    assert len(limited) >= 1 and all(threads == 1 for _, _, threads in limited), limited
    alone = _blas_threads("none")
    assert {path for _, path, _ in limited} == {path for _, path, _ in alone}
    if run_queue.available_cores() > 1:  # the control: OpenBLAS alone takes every core
        assert all(threads > 1 for api, _, threads in alone if api == "openblas"), alone
        # the administrator's own setting stays
        kept = _blas_threads("limit", OPENBLAS_NUM_THREADS="2")
        assert all(threads == 2 for api, _, threads in kept if api == "openblas"), kept
