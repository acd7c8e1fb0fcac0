"""The store's migration from schema 1 to 2 (dashboard/workspace.py's docstring): each of
schema 1's three forms of a result key, written by hand as the pages of that time built
them, comes out as the run's own parameters, its task named by its record; the migration
is one transaction and happens once."""

import sqlite3

import pytest

from dashboard import workspace
from dashboard.session import TaskKey, stored_task_key
from dashboard.workspace import Store

DIGEST = "8f3c860e7f9265db1c911fe09ff8fd2a75281de2684b2a84bdd6532deecea926"
PARAMS = [["fisher", "s2n"], 2, 0, None, []]


@pytest.fixture(autouse=True)
def _no_runs_left_active():
    yield
    with workspace._ACTIVE_LOCK:
        workspace._ACTIVE_RUNS.clear()


def _schema1_store(folder):
    """A store with one run of each key form, then marked schema 1 (the tables of 1 and 2
    are the same)."""
    store = Store(folder, cap_bytes=10**9)
    wid, _ = store.open_workspace(None)
    sha = store.put_dataset(b"gene,diagnosis\n1,a\n", "cohort.csv", workspace_id=wid)
    other = store.put_dataset(b"gene,diagnosis\n2,b\n", "other.csv", workspace_id=wid)
    third = store.put_dataset(b"gene,diagnosis\n3,c\n", "third.csv", workspace_id=wid)
    reading = {"label": None, "transpose": False, "drop_constant": True}
    remembered = {"label": None, "transpose": True, "drop_constant": False}
    store.save_state(
        wid,
        {
            "dataset": {"sha": sha, "name": "cohort.csv", **reading},
            "readings": {third: {"name": "third.csv", **remembered, "label_column": "diagnosis"}},
        },
    )
    record = {"dataset": {**reading, "samples": None}, "minority": "rare"}
    runs = {}
    forms = {
        "digest": (sha, [DIGEST, *PARAMS], record),
        # before 2026-11-25: name, samples, features, transpose, drop constant, label
        # column, minority class; the record had neither reading nor class
        "named": (sha, ["cohort.csv", 30, 12, False, True, "diagnosis", "rare", *PARAMS], {}),
        "named, another data set": (
            other, ["other.csv", 4, 2, True, False, "diagnosis", "b", *PARAMS], {}
        ),
        "study": (None, ["benchmark", [["SRBCT", "ab" * 32]], ["fisher"], 2, 0], {}),
        # 2026-11-25, between the digest and the reading in the record
        "digest, class alone": (sha, [DIGEST, *PARAMS], {"minority": "rare"}),
        # read then without dropping the constant genes, which the state now drops
        "named, read otherwise": (
            sha, ["cohort.csv", 30, 12, False, False, "diagnosis", "rare", *PARAMS], {}
        ),
        # a file the state remembers reading with the label found by itself
        "named, remembered": (
            third, ["third.csv", 4, 2, True, False, "diagnosis", "c", *PARAMS], {}
        ),
        # a study before 2026-11-25: its record names the Data page's data set
        "study, name-led": (
            sha, ["cohort.csv", 30, 12, False, True, "diagnosis", "rare", "benchmark",
                  [["SRBCT", "ab" * 32]], ["fisher"], 2, 0], {},
        ),
    }  # fmt: skip
    for name, (run_sha, key, extra) in forms.items():
        params = {"key": key, **extra}
        run = store.start_run(wid, "compare", run_sha, name, params)
        store.finish_run(run, {**params, "result": {"rows": [1.5]}}, 1.0)
        runs[name] = run
    stream = store.start_run(wid, "stream", sha, "stream", {"method": "kofsd", **record})
    store.finish_run(stream, {"method": "kofsd", "position": 3, **record}, 1.0)
    runs["stream"] = stream
    with sqlite3.connect(store.path) as conn:
        conn.execute("PRAGMA user_version = 1")
    return wid, (sha, other, third), runs


def test_each_key_form_becomes_the_runs_parameters_with_its_task_in_its_record(tmp_path):
    wid, (sha, other, third), runs = _schema1_store(tmp_path / "store")
    store = Store(tmp_path / "store", cap_bytes=10**9)  # opened again: migrated
    with sqlite3.connect(store.path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 2

    def stored(name):
        info, payload = store.load_run(wid, runs[name])
        assert info.params["key"] == payload["key"]
        assert payload["result"] == {"rows": [1.5]}
        return info, payload

    cohort = TaskKey.of(sha, None, False, True, "rare")
    info, payload = stored("digest")
    assert payload["key"] == PARAMS
    assert stored_task_key(info.dataset_sha, payload) == cohort
    info, payload = stored("named")  # the state's reading of its data set
    assert payload["key"] == PARAMS
    assert stored_task_key(info.dataset_sha, payload) == cohort
    assert stored_task_key(info.dataset_sha, info.params) == cohort
    info, payload = stored("named, another data set")  # the key's own reading
    assert payload["key"] == PARAMS
    assert stored_task_key(info.dataset_sha, payload) == TaskKey.of(
        other, "diagnosis", True, False, "b"
    )
    _, payload = stored("study")
    assert payload["key"] == ["benchmark", [["SRBCT", "ab" * 32]], ["fisher"], 2, 0]
    info, payload = stored("digest, class alone")  # the state's reading of its data set
    assert payload["key"] == PARAMS
    assert stored_task_key(info.dataset_sha, payload) == cohort
    info, payload = stored("named, read otherwise")  # its own: not the state's
    assert payload["key"] == PARAMS
    assert stored_task_key(info.dataset_sha, payload) == TaskKey.of(
        sha, "diagnosis", False, False, "rare"
    )
    info, payload = stored("named, remembered")  # the label found by itself, as read then
    assert stored_task_key(info.dataset_sha, payload) == TaskKey.of(third, None, True, False, "c")
    info, payload = stored("study, name-led")  # whole from "benchmark", no reading added
    assert payload["key"] == ["benchmark", [["SRBCT", "ab" * 32]], ["fisher"], 2, 0]
    assert "dataset" not in payload and "dataset" not in info.params
    _, payload = store.load_run(wid, runs["stream"])
    assert "key" not in payload and payload["position"] == 3
    for name in ("digest", "named"):  # the cap counts the rewritten payloads' bytes
        info, _ = store.load_run(wid, runs[name])
        assert info.size == len(store_blob(store, runs[name]))


def store_blob(store, run_id) -> bytes:
    with sqlite3.connect(store.path) as conn:
        return conn.execute("SELECT payload FROM runs WHERE id = ?", (run_id,)).fetchone()[0]


def test_the_migration_happens_once(tmp_path):
    wid, (sha, _, _), _ = _schema1_store(tmp_path / "store")
    store = Store(tmp_path / "store", cap_bytes=10**9)
    # a run's parameters of schema 2 that look like a name-led key of schema 1
    lookalike = ["a page", 30, 12, False, True, "diagnosis", "rare", "the rest"]
    run = store.start_run(wid, "compare", sha, "later", {"key": lookalike})
    store.finish_run(run, {"key": lookalike, "result": 1}, 1.0)
    again = Store(tmp_path / "store", cap_bytes=10**9)
    info, payload = again.load_run(wid, run)
    assert payload == {"key": lookalike, "result": 1} and info.params == {"key": lookalike}


def test_a_failed_migration_leaves_schema_1_untouched(tmp_path, monkeypatch):
    wid, _, runs = _schema1_store(tmp_path / "store")
    with sqlite3.connect(tmp_path / "store" / workspace.DB_NAME) as conn:
        before = conn.execute("SELECT params, payload FROM runs ORDER BY id").fetchall()

    def fail(*args):
        raise OSError("disk full")

    monkeypatch.setattr(workspace, "_schema2_key", fail)
    with pytest.raises(OSError):
        Store(tmp_path / "store", cap_bytes=10**9)
    with sqlite3.connect(tmp_path / "store" / workspace.DB_NAME) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 1
        assert conn.execute("SELECT params, payload FROM runs ORDER BY id").fetchall() == before
