"""Crash safety of the workspace store: a process writing the way the dashboard's server
does (tests/crash_writer.py, through dashboard.workspace.Store) is killed with SIGKILL at
seeded points of each kind of write, 50 kills in all; after each, the store is opened again
as a restarted server opens it and checked:

- the database passes ``PRAGMA integrity_check`` and ``foreign_key_check``;
- every run the writer had reported finished is there, finished, with the very payload it
  wrote (by SHA-256), unless the cap evicted it and left a notice saying so;
- no run or data set is half-written: every payload decompresses and parses, every stored
  size is its blob's, every data set's bytes hash to its key;
- a stream is back at a position it had saved: at least the last one reported saved, and
  one the writer wrote (never a mix of two saves);
- every upload reported stored is there (under the default cap), and the workspace's state
  is the last one saved or the one being saved;
- under a small cap, the store is under it again once opened.

The kill points: after a seeded number of completed writes (1 to 25), for half the seeds as
the next write starts (0 to 3 ms after it says so), for the others 0 to 30 ms after the
last one ended.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import threading
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from conftest import ROOT, SLOW_SECONDS
from dashboard.workspace import DB_NAME, Store

WRITER = ROOT / "tests" / "crash_writer.py"
KINDS = ("stream", "compare", "upload", "evict")
KILLS = 50
#: The cap of the "evict" kind: a few of the writer's payloads and uploads.
SMALL_CAP = 6_000_000
#: What the writer reports when a write has returned (the kill counts these).
DONE = ("saved", "noted", "finished", "stored", "state_saved")
#: What it reports when a write starts.
WRITING = ("saving", "finishing", "storing", "state")


@dataclass
class Reported:
    """What the writers of one store folder told their user, over all kills so far."""

    finished: dict[int, str] = field(default_factory=dict)
    finishing: dict[int, set[str]] = field(default_factory=dict)
    saved: dict[int, int] = field(default_factory=dict)
    saving: dict[int, set[int]] = field(default_factory=dict)
    stored: set[str] = field(default_factory=set)
    states: list[tuple[str, str, bool]] = field(default_factory=list)  # workspace, sha, saved
    #: The kills that landed while a write was under way (its start reported, not its end).
    inside_writes: int = 0


def digest(payload) -> str:
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


def kill_during_writes(kind: str, folder: Path, seed: int, reported: Reported) -> None:
    """Start a writer, SIGKILL it at the seed's point, and add what it reported."""
    rng = random.Random(seed)
    writes_before_kill = rng.randint(1, 25)
    delay = rng.uniform(0.0, 0.03)
    on_a_start = seed % 2 == 0  # killed as a write starts, else a while after one ends
    args = [sys.executable, str(WRITER), kind, str(folder), str(seed)]
    if kind == "evict":
        args.append(str(SMALL_CAP))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    child = subprocess.Popen(args, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, env=env)
    lines: list[dict] = []
    enough = threading.Event()

    def read() -> None:
        done = 0
        for line in child.stdout:
            lines.append(json.loads(line))
            what = next(iter(lines[-1]))
            done += what in DONE
            if done >= writes_before_kill and (not on_a_start or what in WRITING):
                enough.set()
        enough.set()  # the writer ended by itself (the test then fails below)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        assert enough.wait(SLOW_SECONDS), "the writer reported no writes"
        assert child.poll() is None, f"the writer ended by itself (code {child.returncode})"
        threading.Event().wait(delay / 10 if on_a_start else delay)
        os.kill(child.pid, signal.SIGKILL)
    finally:
        if child.poll() is None:
            child.kill()
        child.wait(SLOW_SECONDS)
        reader.join(SLOW_SECONDS)
    assert child.returncode == -signal.SIGKILL
    workspace = lines[0]["ready"]
    reported.inside_writes += next(iter(lines[-1])) in WRITING
    for line in lines[1:]:
        ((what, value),) = line.items()
        if what == "saving":
            reported.saving.setdefault(value[0], set()).add(value[1])
        elif what == "saved":
            reported.saved[value[0]] = value[1]
        elif what == "finishing":
            reported.finishing.setdefault(value[0], set()).add(value[1])
        elif what == "finished":
            reported.finished[value[0]] = value[1]
        elif what == "stored":
            reported.stored.add(value)
        elif what == "state":
            reported.states.append((workspace, value, False))
        elif what == "state_saved":
            reported.states[-1] = (workspace, value, True)


def check_store(kind: str, folder: Path, reported: Reported) -> None:
    """What a restarted server must find (the module's docstring)."""
    path = folder / DB_NAME
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []

    cap = SMALL_CAP if kind == "evict" else None
    store = Store(folder, cap_bytes=cap)  # as a restarted server opens it
    if kind == "evict":
        assert store.total_bytes() <= SMALL_CAP

    with sqlite3.connect(path) as conn:
        workspaces = [w for (w,) in conn.execute("SELECT id FROM workspaces")]
        for workspace in workspaces:
            store.list_runs(workspace)  # a restarted server's view: running runs become stopped
        runs = {
            run_id: (status, payload, size, workspace)
            for run_id, status, payload, size, workspace in conn.execute(
                "SELECT id, status, payload, size, workspace FROM runs"
            )
        }
        evicted = {
            json.loads(run)["id"]
            for (run,) in conn.execute("SELECT run FROM evictions WHERE run IS NOT NULL")
        }
        datasets = conn.execute("SELECT sha, size, data FROM datasets").fetchall()

    assert all(status in ("finished", "stopped") for status, *_ in runs.values())
    payloads = {}
    for run_id, (status, blob, size, _) in runs.items():
        assert size == len(blob or b""), f"run {run_id}: size {size} for {len(blob or b'')} bytes"
        if blob is not None:
            payloads[run_id] = json.loads(zlib.decompress(blob))
        assert status != "finished" or blob is not None, f"run {run_id} finished without a result"
    for sha, size, data in datasets:
        assert hashlib.sha256(data).hexdigest() == sha and size == len(data)

    for run_id, expected in reported.finished.items():
        if run_id in evicted:
            continue
        assert run_id in runs, f"run {run_id} was reported finished and is gone without a notice"
        assert runs[run_id][0] == "finished"
        assert digest(payloads[run_id]) == expected
    for run_id, (status, *_rest) in runs.items():
        if status == "finished":  # finished only by a finish the writer made
            assert digest(payloads[run_id]) in reported.finishing.get(run_id, set())

    for run_id, position in reported.saved.items():
        if run_id in evicted or run_id in reported.finished:
            continue
        assert run_id in runs, f"stream run {run_id} saved at {position} is gone without a notice"
        status, *_ = runs[run_id]
        assert status == "stopped"
        back = payloads[run_id]["position"]
        assert back >= position and back in reported.saving[run_id]
        assert len(payloads[run_id]["snapshot"]["trace"]) > 0

    if kind != "evict":
        present = {sha for sha, _, _ in datasets}
        assert reported.stored <= present
        for workspace in {w for w, _, _ in reported.states}:
            last = [(sha, saved) for w, sha, saved in reported.states if w == workspace]
            now = store.load_state(workspace).get("dataset")
            sha, saved = last[-1]
            before = [s for s, ok in last if ok]
            allowed = {sha} if saved else {sha, *before[-1:]}
            assert now in allowed


@pytest.mark.parametrize("kind", KINDS)
def test_a_killed_writer_leaves_a_whole_store(kind, tmp_path):
    """The kills of one kind (50 over the four kinds), on one store folder that grows from
    kill to kill, each followed by the checks of a restarted server."""
    reported = Reported()
    seeds = [seed for seed in range(KILLS) if KINDS[seed % len(KINDS)] == kind]
    for seed in seeds:
        kill_during_writes(kind, tmp_path, seed, reported)
        check_store(kind, tmp_path, reported)
    # The kills hit the writes they were meant for.
    # How many kills landed inside a write depends on the machine's pace: reported only.
    print(f"{kind}: {reported.inside_writes} of {len(seeds)} kills inside a write")
    if kind in ("stream", "evict"):
        assert reported.saved
    if kind in ("compare", "evict"):
        assert reported.finished
    if kind in ("upload", "evict"):
        assert reported.stored


def test_a_store_opened_over_its_cap_is_brought_under_it(tmp_path):
    """A server killed between a write and its eviction (two transactions) leaves the store
    over its cap; the next server to open it evicts at once."""
    big = Store(tmp_path, cap_bytes=10_000_000)
    workspace, _ = big.open_workspace(None)
    for i in range(5):
        big.put_dataset(random.Random(i).randbytes(1_000_000), f"{i}.csv", workspace_id=workspace)
    assert big.total_bytes() == 5_000_000
    small = Store(tmp_path, cap_bytes=2_500_000)
    assert small.total_bytes() <= 2_500_000


def test_a_store_opened_over_its_cap_keeps_what_is_in_use(tmp_path):
    """As a write's eviction keeps the writer's data set and run, the eviction at open
    keeps every data set a workspace uses and the newest run (the over_cap case)."""
    store = Store(tmp_path, cap_bytes=1_000)
    workspace, _ = store.open_workspace(None)
    used = store.put_dataset(b"u" * 2_000, "used.csv", workspace_id=workspace)
    store.save_state(workspace, {"dataset": used})
    assert store.get_dataset(used) is not None  # kept when written, over the cap
    Store(tmp_path, cap_bytes=1_000)  # a restart
    assert store.get_dataset(used) is not None
    store.save_state(workspace, {})  # no longer used: the next opening deletes it
    Store(tmp_path, cap_bytes=1_000)
    assert store.get_dataset(used) is None
