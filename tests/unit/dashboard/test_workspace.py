"""The dashboard's workspace store (dashboard/workspace.py): ids, data sets, state, runs, the
disk cap, persistence and threads."""

import hashlib
import json
import math
import os
import stat
import threading
import time
import uuid
import zlib
from pathlib import Path

import numpy as np
import pytest

import fsengine
from dashboard import workspace
from dashboard.workspace import (
    WORKSPACE_ID_RE,
    Eviction,
    RunInfo,
    Store,
    WorkspaceStoreError,
    jsonable,
    new_workspace_id,
)
from fsengine.evaluation import Evaluation


@pytest.fixture
def store(tmp_path):
    return Store(tmp_path / "store", cap_bytes=10**9)


@pytest.fixture(autouse=True)
def _no_runs_left_active():
    yield
    with workspace._ACTIVE_LOCK:
        workspace._ACTIVE_RUNS.clear()


def _new_process():
    """What a server restart forgets: the runs this process had running."""
    with workspace._ACTIVE_LOCK:
        workspace._ACTIVE_RUNS.clear()


def _files(root):
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


def _incompressible(n, seed=0):
    """A payload whose JSON compresses to about n bytes."""
    rng = np.random.default_rng(seed)
    return {"blob": rng.bytes(n).hex()}  # hex halves under zlib: 2n chars -> ~n bytes


# ---------------------------------------------------------------- ids


def test_ids_are_long_random_and_url_safe():
    ids = {new_workspace_id() for _ in range(200)}
    assert len(ids) == 200
    for i in ids:
        assert WORKSPACE_ID_RE.match(i)
        assert len(i) * 6 >= 128  # base64url: 6 bits per character (192 bits here)
    # Every position varies (not a counter or a timestamp with a random tail).
    for position in range(32):
        assert len({i[position] for i in ids}) > 10


#: A UUID's shape (36 characters with hyphens), not an id's: fixed, so that every test
#: process collects the same tests.
UUID_SHAPED = str(uuid.UUID(int=0x5D1E3C2A8F4B4C6E9A7D2B1F0E9C8A76))


@pytest.mark.parametrize(
    "bad",
    ["", "x" * 500, "../../etc/passwd", "A" * 31, "A" * 33, "A" * 31 + "/", "A" * 31 + "\n",
     UUID_SHAPED, "a%2e%2e" + "b" * 25, None, 12345, b"A" * 32],
)  # fmt: skip
def test_malformed_ids_are_rejected(bad):
    assert not workspace.is_workspace_id(bad)


@pytest.mark.parametrize("bad", ["", "x" * 500, "../../etc/passwd", UUID_SHAPED, "A" * 32, None])
def test_unknown_or_malformed_ids_open_a_fresh_workspace(store, bad):
    mine, new = store.open_workspace(None)
    assert new
    store.save_state(mine, {"secret": 1})
    fresh, new = store.open_workspace(bad)
    assert new and fresh != bad and fresh != mine and WORKSPACE_ID_RE.match(fresh)
    assert store.load_state(fresh) == {}
    assert store.list_runs(fresh) == []
    assert store.open_workspace(mine) == (mine, False)
    assert store.load_state(mine) == {"secret": 1}


def test_state_of_unknown_workspaces_cannot_be_written(store):
    # An id is only ever made by open_workspace: a caller cannot fixate a chosen one.
    for bad in ("A" * 32, "../x", ""):
        with pytest.raises(KeyError) as info:
            store.save_state(bad, {"a": 1})
        assert bad not in str(info.value) or bad == ""
        with pytest.raises(KeyError):
            store.start_run(bad, "evaluate", None, "t", {})
    assert store.open_workspace("A" * 32)[1]


# ---------------------------------------------------------------- data sets


def test_data_sets_are_stored_once_by_hash(store):
    raw = b"gene1,gene2,label\n1,2,a\n3,4,b\n"
    sha = store.put_dataset(raw, "one.csv")
    assert sha == hashlib.sha256(raw).hexdigest()
    before = store.total_bytes()
    assert before == len(raw)
    assert store.put_dataset(raw, "two.csv") == sha  # the same bytes under another name
    assert store.total_bytes() == before  # counted once
    with store._read() as conn:
        assert conn.execute("SELECT COUNT(*) FROM datasets").fetchone()[0] == 1
    assert store.get_dataset(sha) == (raw, "one.csv")  # the first name stays
    assert store.get_dataset("0" * 64) is None
    assert store.get_dataset("../../etc/passwd") is None


def test_each_workspace_sees_its_own_name_for_shared_bytes(store):
    alice, _ = store.open_workspace(None)
    bob, _ = store.open_workspace(None)
    raw = b"a,b\n1,2\n"
    sha = store.put_dataset(raw, "alice-private-name.csv", workspace_id=alice)
    assert store.put_dataset(raw, "bob.csv", workspace_id=bob) == sha
    assert store.total_bytes() == len(raw)
    assert store.get_dataset(sha, workspace_id=alice) == (raw, "alice-private-name.csv")
    assert store.get_dataset(sha, workspace_id=bob) == (raw, "bob.csv")
    run = store.start_run(bob, "evaluate", sha, "t", {})
    assert store.list_runs(bob)[0].dataset_name == "bob.csv"
    store.stop_run(run)


def test_a_workspace_lists_its_own_data_sets_and_only_those(store):
    alice, _ = store.open_workspace(None)
    bob, _ = store.open_workspace(None)
    shared = b"a,b\n1,2\n"
    mine = b"x,label\n1,a\n2,b\n"
    shared_sha = store.put_dataset(shared, "b-shared.csv", workspace_id=alice)
    mine_sha = store.put_dataset(mine, "A-mine.csv", workspace_id=alice)
    store.put_dataset(shared, "bob-name.csv", workspace_id=bob)
    store.put_dataset(b"nobody's", "anonymous.csv")  # no workspace: listed nowhere
    listed = store.list_datasets(alice)
    assert [(d.name, d.sha, d.size) for d in listed] == [
        ("A-mine.csv", mine_sha, len(mine)),  # by name, case aside
        ("b-shared.csv", shared_sha, len(shared)),
    ]
    assert all(isinstance(d.created, float) for d in listed)
    assert [(d.name, d.sha) for d in store.list_datasets(bob)] == [("bob-name.csv", shared_sha)]
    assert store.list_datasets("A" * 32) == [] == store.list_datasets("../x")
    with store._write() as conn:  # as an eviction deletes it
        conn.execute("DELETE FROM datasets WHERE sha = ?", (mine_sha,))
    assert [d.sha for d in store.list_datasets(alice)] == [shared_sha]


def test_a_hostile_name_is_only_text(tmp_path):
    root = tmp_path / "a" / "b" / "store"
    store = Store(root, cap_bytes=10**9)
    ws, _ = store.open_workspace(None)
    outside = _files(tmp_path)
    inside = _files(root)
    for name in ("../../evil.csv", "/tmp/evil.csv", "..\\..\\evil.csv", "evil\x00.csv"):
        sha = store.put_dataset(name.encode() + b",x\n1,2\n", name, workspace_id=ws)
        assert store.get_dataset(sha)[1] == name
        assert store.get_dataset(sha, workspace_id=ws)[1] == name
    # No new file anywhere but the database's own (WAL and shared-memory files).
    assert set(_files(tmp_path)) - set(outside) <= {
        f"a/b/store/{workspace.DB_NAME}{suffix}" for suffix in ("", "-wal", "-shm")
    }
    assert all(name.startswith(workspace.DB_NAME) for name in _files(root))
    assert all(name.startswith(workspace.DB_NAME) for name in inside)
    assert not list(tmp_path.rglob("*evil*"))


def test_folders_and_database_are_private(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv(workspace.ENV_DIR, raising=False)
    monkeypatch.delenv(workspace.ENV_CAP_MB, raising=False)
    store = Store()
    assert store.root == tmp_path / ".fsengine" / "workspaces"
    assert store.cap_bytes == 2048 * 1024 * 1024
    for folder in (tmp_path / ".fsengine", store.root):
        assert stat.S_IMODE(folder.stat().st_mode) & 0o077 == 0
    assert stat.S_IMODE(store.path.stat().st_mode) & 0o077 == 0
    with store._read() as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("PRAGMA user_version").fetchone()[0] == workspace.SCHEMA_VERSION


def test_the_environment_sets_folder_and_cap(tmp_path, monkeypatch):
    monkeypatch.setenv(workspace.ENV_DIR, str(tmp_path / "here"))
    monkeypatch.setenv(workspace.ENV_CAP_MB, "3")
    workspace.reset_default_store()
    try:
        store = workspace.default_store()
        assert store is workspace.default_store()
        assert store.root == tmp_path / "here"
        assert store.path.parent == tmp_path / "here"
        assert store.cap_bytes == 3 * 1024 * 1024
    finally:
        workspace.reset_default_store()
    for bad in ("lots", "-1", "0", "nan"):
        monkeypatch.setenv(workspace.ENV_CAP_MB, bad)
        with pytest.raises(WorkspaceStoreError, match=workspace.ENV_CAP_MB):
            Store(tmp_path / "there")


def test_a_newer_schema_is_refused(tmp_path):
    store = Store(tmp_path, cap_bytes=100)
    with store._read() as conn:
        conn.execute("PRAGMA user_version = 99")
    with pytest.raises(WorkspaceStoreError, match="newer"):
        Store(tmp_path, cap_bytes=100)


# ---------------------------------------------------------------- state and JSON


def test_state_round_trip_with_numpy_and_tuples(store):
    ws, _ = store.open_workspace(None)
    state = {
        "dataset": "ab" * 32,
        "options": {"label": None, "transpose": np.bool_(True), "drop_constant": False},
        "minority": np.int64(2),
        "k": np.float32(0.5),
        "split": (np.int32(3), (1, 2.5, ("a", np.float64(math.nan)))),
        "weights": np.arange(3, dtype=np.int16),
        "matrix": np.eye(2),
        "by_class": {np.int64(1): "one", 2.5: "two", None: "none", False: "no"},
        "inf": math.inf,
        "text": "naïve ✓",
    }
    store.save_state(ws, state)
    back = store.load_state(ws)
    assert back["options"] == {"label": None, "transpose": True, "drop_constant": False}
    assert back["minority"] == 2 and type(back["minority"]) is int
    assert back["k"] == 0.5 and type(back["k"]) is float
    # Tuples come back as lists (documented).
    assert back["split"][0] == 3 and back["split"][1][:2] == [1, 2.5]
    assert back["split"][1][2][0] == "a" and math.isnan(back["split"][1][2][1])
    assert back["weights"] == [0, 1, 2]
    assert back["matrix"] == [[1.0, 0.0], [0.0, 1.0]]
    assert back["by_class"] == {"1": "one", "2.5": "two", "null": "none", "false": "no"}
    assert back["inf"] == math.inf
    assert back["text"] == "naïve ✓"
    assert json.loads(json.dumps(back)) is not None
    store.save_state(ws, {"replaced": 1})
    assert store.load_state(ws) == {"replaced": 1}


def test_objects_that_are_not_json_are_refused_with_their_place(store):
    ws, _ = store.open_workspace(None)
    with pytest.raises(TypeError, match=r"state\['bad'\]\[1\] is a object"):
        store.save_state(ws, {"bad": [1, object()]})
    with pytest.raises(TypeError, match=r"value\['result'\] is a PosixPath"):
        jsonable({"result": Path("x.csv")})
    # The library's result types are saved tagged (fsengine.export.codec), not refused.
    assert jsonable({"result": Evaluation([{"auc": np.float64(0.5)}], {})}) == {
        "result": {"__evaluation__": {"records": [{"auc": 0.5}], "params": {}}}
    }
    assert store.load_state(ws) == {}


# ---------------------------------------------------------------- runs


def test_run_lifecycle(store):
    ws, _ = store.open_workspace(None)
    sha = store.put_dataset(b"x,y\n1,2\n", "data.csv")
    run = store.start_run(ws, "evaluate", sha, "K-OFSD on data", {"k": np.int64(5), "t": (1, 2)})
    [info] = store.list_runs(ws)
    assert (info.id, info.status, info.kind, info.title) == (run, "running", "evaluate",
                                                             "K-OFSD on data")  # fmt: skip
    assert info.version == fsengine.__version__
    assert info.params == {"k": 5, "t": [1, 2]}
    assert info.dataset_name == "data.csv" and info.dataset_sha == sha
    assert info.dataset_size == len(b"x,y\n1,2\n")
    assert abs(info.created - time.time()) < 60 and info.seconds is None
    assert store.load_run(ws, run) == (info, None)

    records = [{"method": "K-OFSD", "split": i, "auc": np.float64(0.75), "n": np.int64(3)}
               for i in range(50)]  # fmt: skip
    payload = {"records": records, "params": {"methods": ("kofsd",)}}
    assert store.finish_run(run, payload, 1.25) == []
    info, back = store.load_run(ws, str(run))  # a URL's string id is accepted
    assert info.status == "finished" and info.seconds == 1.25
    assert back == jsonable(payload)
    assert back["records"][0]["auc"] == 0.75 and back["params"]["methods"] == ["kofsd"]
    with store._read() as conn:
        blob = conn.execute("SELECT payload FROM runs WHERE id = ?", (run,)).fetchone()[0]
    assert info.size == len(blob) < len(json.dumps(back))  # compressed
    assert json.loads(zlib.decompress(blob)) == back

    # A stop after the finish changes nothing.
    store.stop_run(run, {"partial": True})
    assert store.load_run(ws, run)[0].status == "finished"


def test_stopped_runs_keep_their_partial_payload(store):
    ws, _ = store.open_workspace(None)
    run = store.start_run(ws, "stream", None, "stream", {})
    store.stop_run(run, {"selected": [1, 2]}, seconds=0.5)
    info, payload = store.load_run(ws, run)
    assert (info.status, info.seconds, payload) == ("stopped", 0.5, {"selected": [1, 2]})
    # Saved again further on (a paused stream resumed): the newer partial result.
    store.stop_run(run, {"selected": [1, 2, 5]}, seconds=0.9)
    info, payload = store.load_run(ws, run)
    assert (info.status, info.seconds, payload) == ("stopped", 0.9, {"selected": [1, 2, 5]})
    other = store.start_run(ws, "stream", None, "nothing yet", {})
    store.stop_run(other)
    assert store.load_run(ws, other)[1] is None


def test_runs_are_listed_newest_first(store):
    ws, _ = store.open_workspace(None)
    ids = [store.start_run(ws, "evaluate", None, f"run {i}", {}) for i in range(4)]
    for run in ids:
        store.finish_run(run, {"i": run}, 0.0)
    assert [r.id for r in store.list_runs(ws)] == ids[::-1]


def test_a_run_left_running_by_a_gone_process_shows_as_stopped(tmp_path):
    store = Store(tmp_path, cap_bytes=10**9)
    ws, _ = store.open_workspace(None)
    run = store.start_run(ws, "evaluate", None, "interrupted", {})
    live = store.start_run(ws, "evaluate", None, "still going", {})
    assert {r.status for r in store.list_runs(ws)} == {"running"}
    _new_process()  # the server restarts: nothing of this process runs any more ...
    workspace._ACTIVE_RUNS.add((str(store.path), live))  # ... but say one run is a new one
    restarted = Store(tmp_path, cap_bytes=10**9)
    statuses = {r.id: r.status for r in restarted.list_runs(ws)}
    assert statuses == {run: "stopped", live: "running"}
    with restarted._read() as conn:  # saved, not just shown
        assert conn.execute("SELECT status FROM runs WHERE id = ?", (run,)).fetchone() == (
            "stopped",
        )
    assert restarted.load_run(ws, run)[0].status == "stopped"
    # Once its thread is gone too, the other one is stopped as well.
    _new_process()
    assert restarted.load_run(ws, live)[0].status == "stopped"


def test_another_workspace_cannot_load_or_delete_your_run(store):
    mine, _ = store.open_workspace(None)
    theirs, _ = store.open_workspace(None)
    run = store.start_run(mine, "evaluate", None, "mine", {"secret": 1})
    store.finish_run(run, {"result": 1}, 1.0)
    assert store.load_run(theirs, run) is None
    assert store.delete_run(theirs, run) is False
    assert store.list_runs(theirs) == []
    for bad in (None, "../1", -run, True, 1.5, "1 OR 1=1", str(run) + "x"):
        assert store.load_run(mine, bad) is None
        assert store.delete_run(mine, bad) is False
    assert store.load_run(mine, run)[1] == {"result": 1}
    assert store.delete_run(mine, run) is True
    assert store.load_run(mine, run) is None
    assert store.delete_run(mine, run) is False


def test_finishing_a_deleted_run_stores_nothing(store):
    ws, _ = store.open_workspace(None)
    run = store.start_run(ws, "evaluate", None, "t", {})
    assert store.delete_run(ws, run)
    assert store.finish_run(run, {"x": 1}, 1.0) == []
    assert store.list_runs(ws) == [] and store.total_bytes() == 0
    assert (str(store.path), run) not in workspace._ACTIVE_RUNS


# ---------------------------------------------------------------- the cap


def test_eviction_is_oldest_first_and_reported(tmp_path):
    store = Store(tmp_path, cap_bytes=3500)
    ws, _ = store.open_workspace(None)
    other, _ = store.open_workspace(None)
    owners = [ws, other, ws, ws]
    runs = []
    for i, owner in enumerate(owners):
        run = store.start_run(owner, "evaluate", None, f"run {i}", {})
        runs.append(run)
        evicted = store.finish_run(run, _incompressible(1000, seed=i), 1.0)
        assert store.total_bytes() <= store.cap_bytes
    # 4 x ~1000 bytes under a 3500 byte cap: the oldest run (ws's run 0) went.
    assert [r.id for r in evicted] == [runs[0]]
    assert [r.id for r in store.list_runs(ws)] == [runs[3], runs[2]]
    assert [r.id for r in store.list_runs(other)] == [runs[1]]
    notices = store.pop_evictions(ws)
    assert [(n.kind, n.run.id, n.run.title) for n in notices] == [("run", runs[0], "run 0")]
    assert isinstance(notices[0], Eviction) and isinstance(notices[0].run, RunInfo)
    assert "run 0" in notices[0].message
    assert store.pop_evictions(ws) == []  # cleared
    assert store.pop_evictions(other) == []

    # The next one takes the other workspace's run, which only that workspace hears of.
    run = store.start_run(ws, "evaluate", None, "run 4", {})
    assert store.finish_run(run, _incompressible(1000, seed=4), 1.0) == []
    assert store.list_runs(other) == []
    [notice] = store.pop_evictions(other)
    assert notice.run.id == runs[1] and "run 1" in notice.message
    assert store.pop_evictions(ws) == []


def test_eviction_takes_data_sets_nothing_uses_any_more(tmp_path):
    store = Store(tmp_path, cap_bytes=5000)
    ws, _ = store.open_workspace(None)
    old = store.put_dataset(os.urandom(1500), "old.csv")
    run = store.start_run(ws, "evaluate", old, "on old", {})
    store.finish_run(run, _incompressible(500), 1.0)
    current = store.put_dataset(os.urandom(1500), "current.csv", workspace_id=ws)
    store.save_state(ws, {"dataset": current})
    # A new run on the current data set: the old run goes, and with it the old data set.
    second = store.start_run(ws, "evaluate", current, "on current", {})
    [evicted] = store.finish_run(second, _incompressible(1800, seed=1), 1.0)
    assert evicted.id == run
    assert store.get_dataset(old) is None
    assert store.get_dataset(current)[1] == "current.csv"
    assert store.total_bytes() <= store.cap_bytes


def test_unreachable_data_sets_go_before_any_run(tmp_path):
    store = Store(tmp_path, cap_bytes=3000)
    ws, _ = store.open_workspace(None)
    orphan = store.put_dataset(os.urandom(1500), "forgotten.csv")
    with store._write() as conn:  # uploaded two hours ago and never used
        conn.execute("UPDATE datasets SET used = used - 7200 WHERE sha = ?", (orphan,))
    runs = [store.start_run(ws, "evaluate", None, f"r{i}", {}) for i in range(2)]
    for i, run in enumerate(runs):
        assert store.finish_run(run, _incompressible(900, seed=i), 1.0) == []
    assert store.get_dataset(orphan) is None
    assert len(store.list_runs(ws)) == 2 and store.pop_evictions(ws) == []


def test_as_a_last_resort_other_workspaces_data_sets_go_and_they_are_told(tmp_path):
    store = Store(tmp_path, cap_bytes=3000)
    alice, _ = store.open_workspace(None)
    bob, _ = store.open_workspace(None)
    old = store.put_dataset(os.urandom(2000), "alice.csv", workspace_id=alice)
    store.save_state(alice, {"data": {"sha": old}})
    new = store.put_dataset(os.urandom(2000), "bob.csv", workspace_id=bob)
    assert store.get_dataset(old) is None and store.get_dataset(new) is not None
    [notice] = store.pop_evictions(alice)
    assert (notice.kind, notice.dataset_sha, notice.dataset_name) == ("dataset", old, "alice.csv")
    assert "alice.csv" in notice.message
    assert store.pop_evictions(bob) == []
    assert store.load_state(alice) == {"data": {"sha": old}}  # the state is left as it was


def test_what_is_in_use_is_kept_over_the_cap_and_said(tmp_path):
    store = Store(tmp_path, cap_bytes=1000)
    ws, _ = store.open_workspace(None)
    sha = store.put_dataset(os.urandom(2000), "big.csv", workspace_id=ws)
    assert store.get_dataset(sha) is not None  # larger than the cap alone: kept
    [notice] = store.pop_evictions(ws)
    assert notice.kind == "over_cap" and "cap" in notice.message
    store.save_state(ws, {"dataset": sha})
    run = store.start_run(ws, "evaluate", sha, "big", {})
    assert store.finish_run(run, _incompressible(1500), 1.0) == []
    assert store.load_run(ws, run)[0].status == "finished"  # the run just written stays
    assert store.get_dataset(sha) is not None  # and the data set the workspace uses
    assert store.over_cap()
    assert [n.kind for n in store.pop_evictions(ws)] == ["over_cap"]


def test_persistence_across_store_instances(tmp_path):
    first = Store(tmp_path, cap_bytes=10**9)
    ws, _ = first.open_workspace(None)
    sha = first.put_dataset(b"a,b\n1,2\n", "d.csv")
    first.save_state(ws, {"dataset": sha, "minority": 2})
    run = first.start_run(ws, "evaluate", sha, "kept", {"k": 3})
    first.finish_run(run, {"records": [{"auc": 0.9}]}, 2.0)
    del first
    _new_process()
    again = Store(tmp_path, cap_bytes=10**9)  # the server restarted
    assert again.open_workspace(ws) == (ws, False)
    assert again.load_state(ws) == {"dataset": sha, "minority": 2}
    assert again.get_dataset(sha) == (b"a,b\n1,2\n", "d.csv")
    info, payload = again.load_run(ws, run)
    assert (info.status, info.params, payload) == ("finished", {"k": 3},
                                                   {"records": [{"auc": 0.9}]})  # fmt: skip


# ---------------------------------------------------------------- threads


def test_concurrent_writes_from_four_threads(tmp_path):
    store = Store(tmp_path, cap_bytes=10**9)
    errors = []
    ids = []

    def work(t):
        try:
            ws, _ = store.open_workspace(None)
            ids.append(ws)
            for i in range(15):
                sha = store.put_dataset(f"shared\n{i % 3}\n".encode(), f"t{t}.csv")
                store.save_state(ws, {"dataset": sha, "i": i})
                run = store.start_run(ws, "evaluate", sha, f"t{t} r{i}", {"i": i})
                store.list_runs(ws)
                store.finish_run(run, {"t": t, "i": i}, 0.1)
                store.total_bytes()
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert len(set(ids)) == 4
    for ws in ids:
        runs = store.list_runs(ws)
        assert len(runs) == 15 and {r.status for r in runs} == {"finished"}
        assert store.load_state(ws)["i"] == 14
    with store._read() as conn:
        assert conn.execute("SELECT COUNT(*) FROM datasets").fetchone()[0] == 3


def test_concurrent_writes_under_eviction(tmp_path):
    store = Store(tmp_path, cap_bytes=12_000)
    errors = []

    def work(t):
        try:
            ws, _ = store.open_workspace(None)
            for i in range(10):
                run = store.start_run(ws, "evaluate", None, f"t{t} r{i}", {})
                store.finish_run(run, _incompressible(1000, seed=100 * t + i), 0.1)
                store.pop_evictions(ws)
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert store.total_bytes() <= store.cap_bytes
