"""Heavy runs of several users on one server wait for a free slot (dashboard/run_queue.py)
under AppTest: a comparison pressed while the server's slot is taken waits, saying how
many runs are ahead; one cancelled while it waits ends stopped and leaves the queue; the
first computes as soon as the slot is free, and its time counts from then."""

from __future__ import annotations

import threading
import time

from apptest_helpers import session, workspace_id

from conftest import SLOW_SECONDS
from dashboard import running, workspace
from dashboard.run_queue import RunQueue
from fsengine._compute.parallel import Cancellation


def _press_run(at) -> threading.Thread:
    at.multiselect(key="compare_methods").set_value(["fisher"]).run()
    at.slider(key="compare_splits").set_value(2).run()
    button = next(b for b in at.button if b.label == "Run comparison")
    pressed = threading.Thread(target=lambda: button.click().run(), daemon=True)
    pressed.start()
    return pressed


def _queued(wid: str, ahead: int) -> running.ActiveRun:
    deadline = time.monotonic() + SLOW_SECONDS
    while True:
        found = [r for r in running.active_runs(wid) if r.ahead == ahead]
        if found:
            return found[0]
        assert time.monotonic() < deadline, [r.ahead for r in running.active_runs(wid)]
        time.sleep(0.05)


def _runs(wid: str):
    return [r for r in workspace.default_store().list_runs(wid) if r.kind == "compare"]


def test_runs_wait_for_a_free_slot_and_a_cancelled_one_leaves_the_queue(monkeypatch):
    queue = RunQueue(limit=1)
    monkeypatch.setattr(running, "RUNS", queue)
    holding, release = threading.Event(), threading.Event()

    def another_users_run() -> None:
        with queue.slot(Cancellation(), lambda n: None):
            holding.set()
            release.wait(SLOW_SECONDS)

    holder = threading.Thread(target=another_users_run, daemon=True)
    holder.start()
    assert holding.wait(SLOW_SECONDS)

    first, second = (
        session(page="dashboard/pages/compare.py"),
        session(page="dashboard/pages/compare.py"),
    )
    first_wid, second_wid = workspace_id(first), workspace_id(second)
    assert first_wid != second_wid
    first_pressed = _press_run(first)
    _queued(first_wid, ahead=1)
    second_pressed = _press_run(second)
    waiting = _queued(second_wid, ahead=2)
    assert queue.waiting == 2
    assert running._waiting_text(2) == (
        "waiting for a free slot: 2 runs of this server ahead (1 computes at a time; "
        "Cancel leaves the queue)"
    )
    assert [r.status for r in _runs(first_wid)] == ["running"]

    # The second user cancels while waiting: stopped, out of the queue; the first waits on.
    running.cancel_run(waiting.run_id, second_wid)
    second_pressed.join(SLOW_SECONDS)
    assert not second_pressed.is_alive()
    assert queue.waiting == 1 and _queued(first_wid, ahead=1)
    assert [r.status for r in _runs(second_wid)] == ["stopped"]
    assert "was stopped after" in " ".join(w.value for w in second.warning)
    assert not second.exception

    # The slot is given back: the first computes and finishes.
    waited = time.monotonic()
    release.set()
    holder.join(SLOW_SECONDS)
    first_pressed.join(SLOW_SECONDS)
    assert not first_pressed.is_alive() and not first.exception
    (run,) = _runs(first_wid)
    assert run.status == "finished"
    assert run.seconds <= time.monotonic() - waited  # its time, not its wait
    assert queue.computing == queue.waiting == 0
