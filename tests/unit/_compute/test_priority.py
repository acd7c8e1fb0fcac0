"""Runs behind the pages: with ``background_niceness`` set (the dashboard's server sets
10), a run's worker processes and the threads that lower their priority compute at the
process's nice value plus that many steps, and the other threads keep theirs. Checked in
a new process (its own worker processes: the suite's stay as they are), reading each
nice value back from the system."""

import json
import os
import subprocess
import sys

import pytest

from conftest import SLOW_SECONDS

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="a nice value per thread")

PROBE = """
import json, os, threading
from fsengine import set_config
from fsengine._compute.parallel import run_tasks
from fsengine.methods import lower_thread_priority


def nice_of_thread():
    return os.getpriority(os.PRIO_PROCESS, 0)


def lowered_thread():
    seen = []

    def body():
        lower_thread_priority()
        seen.append(nice_of_thread())

    thread = threading.Thread(target=body)
    thread.start()
    thread.join()
    return seen[0]


if __name__ == "__main__":
    set_config(background_niceness=int(os.environ["STEPS"]))
    base = nice_of_thread()
    workers = run_tasks(os.getpriority, [(os.PRIO_PROCESS, 0)] * 4, n_jobs=2)
    print(json.dumps({
        "base": base,
        "workers": workers,
        "thread": lowered_thread(),
        "main_after": nice_of_thread(),
    }))
"""


def _probe(tmp_path, steps: int) -> dict:
    script = tmp_path / "probe.py"
    script.write_text(PROBE)
    done = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        timeout=SLOW_SECONDS,
        env={**os.environ, "STEPS": str(steps)},
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_workers_and_lowered_threads_compute_that_many_steps_below(tmp_path):
    seen = _probe(tmp_path, 3)
    want = min(19, seen["base"] + 3)
    assert seen["workers"] == [want] * 4
    assert seen["thread"] == want
    assert seen["main_after"] == seen["base"]  # the threads that draw pages keep theirs


def test_by_default_nothing_is_lowered(tmp_path):
    seen = _probe(tmp_path, 0)
    assert seen["workers"] == [seen["base"]] * 4
    assert seen["thread"] == seen["main_after"] == seen["base"]
