"""A persistent workspace store for the dashboard: a reload of the tab, a bookmarked link or a
server restart brings back the user's data sets, settings and finished runs.

Pure Python (no Streamlit): the pages keep a workspace id (in the URL) and call a
:class:`Store`, usually the process-wide :func:`default_store`.

Layout
------
One SQLite database file, ``workspaces.sqlite3``, in the store's folder: the environment
variable ``FSENGINE_WORKSPACE_DIR``, else ``~/.fsengine/workspaces``; missing folders are
created with mode 0o700 and the database file with 0o600. WAL journal, a busy timeout and a
connection per call, so any thread may call any method. Every write is one transaction, synced
to disk at its commit (``synchronous = FULL``): a process killed at any point, or a power loss
on a disk that honours fsync, leaves every write that had returned and none half-done
(tests/unit/dashboard/test_crash_safety.py kills a writer 50 times).

- ``workspaces``: id, times, and the state (JSON) of each workspace.
- ``datasets``: uploaded files, stored once by the SHA-256 of their bytes (a BLOB; the user's
  file name is only a text column, never part of a path). SQLite's limit on one BLOB (about
  1 GB by default) bounds a data set's size.
- ``dataset_names``: the name each workspace gave a data set (two users may upload the same
  bytes under different names; neither sees the other's).
- ``runs``: one row per run; the result payload is JSON compressed with zlib.
- ``state_refs``: the data-set hashes each workspace's state mentions (what it uses).
- ``evictions``: notices for the workspaces whose things were deleted to stay under the cap.

The schema's version is ``PRAGMA user_version``; the tables are created on first use, and
an older store is migrated once, in one transaction, when it is opened:

- 1 -> 2: a run's result key (``"key"`` in its parameters and payload) holds the run's own
  parameters only; its task is named by the run's record (its data set's SHA-256, the
  reading options ``"dataset"`` and the ``"minority"`` class). Schema 1 began it with the
  task's content digest, or, before 2026-11-25, with the data set's name, size, reading
  and minority class (those fill the record's ``"dataset"`` and ``"minority"`` when it has
  none). A study's key, over data sets of its own, is kept whole.

Security
--------
Workspace ids are ``secrets.token_urlsafe(24)`` (192 random bits) and checked against a strict
regex before any query. An unknown or malformed id opens a fresh workspace: nothing about
other workspaces is revealed. Run ids are integers, but every read or delete of a run also
matches its workspace, so another workspace's run id finds nothing. Payloads and states are
JSON (no pickle): loading them never runs code.

JSON values
-----------
States, run parameters and payloads go through :func:`jsonable`: numpy scalars become Python
numbers, numpy arrays and tuples become lists (so a tuple comes back as a list), sets become
sorted lists, and dict keys become strings (as :func:`json.dumps` makes them). NaN and
infinities round-trip (Python's JSON extension). Anything else (a dataclass, say) is a
TypeError: the caller converts its objects to and from dicts.

Runs that outlive their process
-------------------------------
A run is "running" from :meth:`Store.start_run` until :meth:`Store.finish_run` or
:meth:`Store.stop_run`; meanwhile :meth:`Store.note_reached` keeps how far it got. The runs
started in this process are kept in a module-level set; a "running" run outside it was left
by a process that is gone (a server restart) and is shown, and saved, as "stopped" (with how
far it got) by :meth:`Store.list_runs` and :meth:`Store.load_run`. This assumes one server
process per store folder. Callers should finish or stop a run in a ``finally``.

Disk cap
--------
The stored bytes (data-set blobs plus compressed payloads; see :meth:`Store.total_bytes`) are
kept under a cap: ``FSENGINE_WORKSPACE_CAP_MB`` (MiB, default 2048) or the constructor's
``cap_bytes``. After each write that adds bytes, and when a store is opened over its cap (a
server killed between a write and its eviction, or a lowered cap: then every data set a
workspace uses and the newest run are kept), the store deletes, until under the cap:

1. data sets that no run and no workspace state refers to, unused for an hour (nobody can
   reach them, so nothing is lost);
2. runs, oldest first across all workspaces (not running ones), each with the data sets only
   it referred to;
3. the remaining data sets nothing refers to (recent uploads not yet in a state);
4. data sets referred to only by other workspaces' states, least recently used first, so the
   bound holds even for abandoned workspaces.

The run just written, the data set just stored and the data sets the writing workspace's state
uses are never deleted; if they alone exceed the cap they are kept and the writer's workspace
gets an "over_cap" notice. Each deletion leaves an :class:`Eviction` notice for the workspace
it affected; :meth:`Store.pop_evictions` returns and clears them (show them on every rerun).
SQLite reuses freed pages, and the file is created with incremental auto-vacuum, which the
eviction runs, so the file shrinks too.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import secrets
import sqlite3
import threading
import time
import zlib
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

import fsengine
from fsengine.export.codec import dumps, to_json

#: Environment variable: the store's folder.
ENV_DIR = "FSENGINE_WORKSPACE_DIR"
#: Environment variable: the cap on stored bytes, in MiB.
ENV_CAP_MB = "FSENGINE_WORKSPACE_CAP_MB"
DEFAULT_DIR = Path("~/.fsengine/workspaces")
DEFAULT_CAP_MB = 2048
DB_NAME = "workspaces.sqlite3"
SCHEMA_VERSION = 2

#: A workspace id: ``secrets.token_urlsafe(24)``, 32 characters of the URL-safe alphabet.
WORKSPACE_ID_RE = re.compile(r"\A[A-Za-z0-9_-]{32}\Z")
_SHA_RE = re.compile(r"\A[0-9a-f]{64}\Z")
#: Seconds a connection waits for another writer before giving up.
BUSY_TIMEOUT_S = 30.0
#: Unreferenced data sets younger than this are left for the last resort (step 3).
ORPHAN_GRACE_S = 3600.0
#: Eviction notices older than this are dropped (their workspace never came back).
NOTICE_MAX_AGE_S = 90 * 86400.0

RunStatus = Literal["running", "finished", "stopped"]

# The runs started in this process and not yet finished or stopped: (database path, run id).
_ACTIVE_RUNS: set[tuple[str, int]] = set()
_ACTIVE_LOCK = threading.Lock()

_SCHEMA = """
CREATE TABLE workspaces (
    id TEXT PRIMARY KEY,
    created REAL NOT NULL,
    touched REAL NOT NULL,
    state TEXT NOT NULL DEFAULT '{}'
);
CREATE TABLE datasets (
    sha TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    size INTEGER NOT NULL,
    data BLOB NOT NULL,
    created REAL NOT NULL,
    used REAL NOT NULL
);
CREATE TABLE runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    workspace TEXT NOT NULL REFERENCES workspaces(id),
    kind TEXT NOT NULL,
    title TEXT NOT NULL,
    status TEXT NOT NULL,
    created REAL NOT NULL,
    seconds REAL,
    dataset_sha TEXT,
    dataset_name TEXT,
    version TEXT NOT NULL,
    params TEXT NOT NULL,
    payload BLOB,
    size INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX runs_by_workspace ON runs(workspace, created);
CREATE INDEX runs_by_created ON runs(created);
CREATE INDEX runs_by_dataset ON runs(dataset_sha);
CREATE TABLE state_refs (
    workspace TEXT NOT NULL REFERENCES workspaces(id),
    sha TEXT NOT NULL,
    PRIMARY KEY (workspace, sha)
);
CREATE INDEX state_refs_by_sha ON state_refs(sha);
CREATE TABLE dataset_names (
    workspace TEXT NOT NULL REFERENCES workspaces(id),
    sha TEXT NOT NULL REFERENCES datasets(sha) ON DELETE CASCADE,
    name TEXT NOT NULL,
    PRIMARY KEY (workspace, sha)
);
CREATE INDEX dataset_names_by_sha ON dataset_names(sha);
CREATE TABLE evictions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    workspace TEXT NOT NULL,
    kind TEXT NOT NULL,
    message TEXT NOT NULL,
    created REAL NOT NULL,
    run TEXT,
    dataset_sha TEXT,
    dataset_name TEXT
);
CREATE INDEX evictions_by_workspace ON evictions(workspace);
"""

_RUN_COLUMNS = (
    "r.id, r.kind, r.title, r.status, r.created, r.seconds, r.dataset_name, r.dataset_sha, "
    "r.size, d.size, r.version, r.params"
)
_RUN_FROM = "runs r LEFT JOIN datasets d ON d.sha = r.dataset_sha"
# A data set's display name for a workspace (the parameter): its own, else the first given.
_NAME_OF = (
    "COALESCE((SELECT n.name FROM dataset_names n WHERE n.workspace = ? AND n.sha = d.sha), d.name)"
)


class WorkspaceStoreError(Exception):
    """The store cannot be used (a newer schema, a bad setting)."""


@dataclass(frozen=True)
class RunInfo:
    """One run, without its payload.

    Attributes
    ----------
    id : int
        The run's id (unique in the store, never reused).
    kind : str
        What ran (the caller's word: "evaluate", "stream", ...).
    title : str
        The caller's title for the run.
    status : {"running", "finished", "stopped"}
        "stopped" also for a run whose process is gone.
    created : float
        When it started, seconds since the epoch.
    seconds : float or None
        Its duration, when finished (or stopped with a duration); while running, its
        time so far when last noted (:meth:`Store.note_reached`).
    dataset_name, dataset_sha : str or None
        The data set it ran on (the name as it was at the start).
    size : int
        Bytes of its stored (compressed) payload.
    dataset_size : int or None
        Bytes of its data set, None when that is no longer stored (or there is none).
    version : str
        The fsengine version that ran it.
    params : dict
        The parameters given to :meth:`Store.start_run` (after :func:`jsonable`).
    """

    id: int
    kind: str
    title: str
    status: RunStatus
    created: float
    seconds: float | None
    dataset_name: str | None
    dataset_sha: str | None
    size: int
    dataset_size: int | None
    version: str
    params: dict = field(default_factory=dict)


@dataclass(frozen=True)
class StoredDataset:
    """A data set of a workspace, without its bytes (:meth:`Store.list_datasets`).

    Attributes
    ----------
    sha : str
        Its key (the SHA-256 of its bytes), for :meth:`Store.get_dataset`.
    name : str
        The workspace's name for it (the uploaded file's name).
    size : int
        Bytes.
    created : float
        When these bytes were first stored, seconds since the epoch.
    """

    sha: str
    name: str
    size: int
    created: float


@dataclass(frozen=True)
class Eviction:
    """A notice to a workspace: something of it was deleted to keep the store under its cap,
    or what it just stored is kept over the cap.

    Attributes
    ----------
    kind : {"run", "dataset", "over_cap"}
        A run was deleted, a data set was deleted, or the cap could not be met.
    message : str
        A sentence for the user.
    created : float
        When, seconds since the epoch.
    run : RunInfo or None
        The deleted run (kind "run").
    dataset_sha, dataset_name : str or None
        The deleted data set (kind "dataset").
    """

    kind: Literal["run", "dataset", "over_cap"]
    message: str
    created: float
    run: RunInfo | None = None
    dataset_sha: str | None = None
    dataset_name: str | None = None


def new_workspace_id() -> str:
    """A fresh workspace id: 192 random bits, URL-safe (matches :data:`WORKSPACE_ID_RE`)."""
    return secrets.token_urlsafe(24)


def is_workspace_id(value: object) -> bool:
    """Whether ``value`` has the form of a workspace id (says nothing of its existence)."""
    return isinstance(value, str) and WORKSPACE_ID_RE.match(value) is not None


def jsonable(value: Any) -> Any:
    """``value`` as plain JSON types: :func:`fsengine.export.codec.to_json` in its strict mode.

    Parameters
    ----------
    value : object
        Dicts (keys: str, int, float, bool, None or numpy scalars), lists, tuples, sets,
        numpy arrays and scalars, the JSON types, and the library's result types (saved
        tagged, see :mod:`fsengine.export.codec`).

    Returns
    -------
    object
        Tuples, sets (sorted) and arrays as lists, numpy scalars as Python ones, dict keys
        as strings (``json.dumps``'s rule: True -> "true", None -> "null", 1 -> "1").

    Raises
    ------
    TypeError
        For any other type (the message names it and where it is).
    """
    return to_json(value)


def _dumps(value: Any, where: str) -> str:
    return dumps(value, where=where, separators=(",", ":"))


#: The fields a result key of schema 1 began with before 2026-11-25: the data set's name,
#: samples, features, transpose, drop_constant, label column and minority class.
_V1_NAMED_PREFIX = 7


#: A run's reading options, as a record's ``"dataset"`` keeps them.
_READING_FIELDS = (
    "label",
    "transpose",
    "drop_constant",
    "samples",
    "samples_name",
    "preprocessing",
    "sample_groups",
    "anndata",
)


def _state_readings(state: dict) -> dict[str, list[dict]]:
    """Data set SHA-256 -> the readings a workspace state records of it: the one it
    remembers (with the label column it found), then the current data set's."""
    found: dict[str, list[dict]] = {}
    remembered = state.get("readings")
    if isinstance(remembered, dict):
        for sha, entry in remembered.items():
            if isinstance(entry, dict):
                found.setdefault(sha, []).append(entry)
    data = state.get("dataset")
    if isinstance(data, dict) and data.get("sha"):
        found.setdefault(data["sha"], []).append(data)
    return found


def _reading(candidates: list[dict], named: list | None = None) -> dict | None:
    """The first of ``candidates`` that agrees with a name-led key's transpose,
    drop_constant and label column (``named``; None: any), as reading options."""
    for entry in candidates:
        if named is not None and (
            bool(entry.get("transpose")) != named[3]
            or bool(entry.get("drop_constant")) != named[4]
            or entry.get("label_column", named[5]) != named[5]
            or entry.get("label") not in (None, named[5])
        ):
            continue
        return {k: entry[k] for k in _READING_FIELDS if k in entry}
    return None


def _schema2_key(key: Any, record: dict, candidates: list[dict]) -> tuple[Any, dict]:
    """A schema-1 result key and its run's record (parameters or payload) as schema 2 keeps
    them (the module's docstring). ``candidates``: the workspace state's readings of the
    run's data set (:func:`_state_readings`), for a record that names none."""
    if not isinstance(key, list) or not key or key[0] == "benchmark":
        return key, record
    if isinstance(key[0], str) and _SHA_RE.match(key[0]):  # the task's content digest
        if "dataset" not in record:  # 2026-11-25's records named the class alone
            reading = _reading(candidates)
            if reading is not None:
                record = {**record, "dataset": reading}
        return key[1:], record
    named = (
        len(key) > _V1_NAMED_PREFIX
        and isinstance(key[0], str)
        and all(isinstance(v, int) and not isinstance(v, bool) for v in key[1:3])
        and all(isinstance(v, bool) for v in key[3:5])
    )
    if not named:
        return key, record
    if key[_V1_NAMED_PREFIX] == "benchmark":  # a study's key: its own data sets
        return key[_V1_NAMED_PREFIX:], record
    record = dict(record)
    record.setdefault("minority", key[6])
    record.setdefault(
        "dataset",
        _reading(candidates, key)
        or {"label": key[5], "transpose": key[3], "drop_constant": key[4]},
    )
    return key[_V1_NAMED_PREFIX:], record


def _migrate_run_keys(conn: sqlite3.Connection) -> None:
    """Schema 1 -> 2 (the module's docstring): every run's result key without its task, in
    the caller's transaction."""
    readings = {}  # workspace -> data set -> the state's readings of it
    for wid, text in conn.execute("SELECT id, state FROM workspaces"):
        state = json.loads(text or "{}")
        readings[wid] = _state_readings(state if isinstance(state, dict) else {})
    rows = conn.execute("SELECT id, workspace, dataset_sha, params, payload FROM runs").fetchall()
    for run_id, wid, sha, params_text, blob in rows:
        reading = readings.get(wid, {}).get(sha, [])
        params = json.loads(params_text)
        if not isinstance(params, dict) or "key" not in params:
            continue
        key, params = _schema2_key(params["key"], params, reading)
        params["key"] = key
        conn.execute("UPDATE runs SET params = ? WHERE id = ?", (_dumps(params, "params"), run_id))
        if blob is None:
            continue
        payload = json.loads(zlib.decompress(blob).decode("utf-8"))
        if isinstance(payload, dict) and "key" in payload:
            key, payload = _schema2_key(payload["key"], payload, reading)
            payload["key"] = key
            blob = zlib.compress(_dumps(payload, "payload").encode("utf-8"), 6)
            conn.execute(
                "UPDATE runs SET payload = ?, size = ? WHERE id = ?", (blob, len(blob), run_id)
            )


def _hashes_in(value: Any) -> set[str]:
    """Every SHA-256 hex string (lower case) in a JSON value: the data sets a state uses."""
    if isinstance(value, str):
        return {value} if _SHA_RE.match(value) else set()
    if isinstance(value, dict):
        found = set()
        for v in value.values():
            found |= _hashes_in(v)
        return found
    if isinstance(value, list):
        return set().union(*map(_hashes_in, value)) if value else set()
    return set()


def _human(n: float) -> str:
    """Bytes for people: 1.5 MB (powers of 1024, as the cap's MiB)."""
    for unit in ("bytes", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1024
    raise AssertionError  # unreachable


def _make_dirs(path: Path) -> None:
    """Create ``path`` and its missing parents with mode 0o700."""
    missing = []
    p = path
    while not p.exists():
        missing.append(p)
        p = p.parent
    for p in reversed(missing):
        try:
            p.mkdir(mode=0o700)
        except FileExistsError:  # another process made it meanwhile
            pass
    if not path.is_dir():
        raise WorkspaceStoreError(f"The workspace store's folder {path} is not a folder")


class Store:
    """The workspace store: workspaces, their states, data sets and runs, in one SQLite file.

    Safe to share between threads (each call opens its own connection).

    Parameters
    ----------
    root : Path or None
        The folder of the database; None: ``FSENGINE_WORKSPACE_DIR``, else
        ``~/.fsengine/workspaces``. Created with mode 0o700 when missing.
    cap_bytes : int or None
        The cap on stored bytes; None: ``FSENGINE_WORKSPACE_CAP_MB`` MiB, else 2048 MiB.

    Raises
    ------
    WorkspaceStoreError
        When the cap's variable is not a positive number, the folder is not a folder, or
        the database was written by a newer schema.
    """

    def __init__(self, root: Path | None = None, cap_bytes: int | None = None):
        if root is None:
            root = Path(os.environ.get(ENV_DIR) or DEFAULT_DIR)
        self.root = Path(root).expanduser().resolve()
        if cap_bytes is None:
            cap_bytes = _cap_from_env()
        if cap_bytes <= 0:
            raise WorkspaceStoreError(f"The workspace store's cap must be positive: {cap_bytes}")
        self.cap_bytes = int(cap_bytes)
        self.path = self.root / DB_NAME
        _make_dirs(self.root)
        if not self.path.exists():
            # Create the file ourselves so that it is private (SQLite would use 0o644).
            os.close(os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600))
        self._init_schema()
        # A server killed between a write and its eviction (two transactions), or a lowered
        # cap, leaves the store over its cap: the next one to open it evicts at once, and
        # keeps what the write had kept: every data set a workspace uses, the newest run.
        if self.over_cap():
            with self._read() as conn:
                newest = conn.execute("SELECT MAX(id) FROM runs").fetchone()[0]
            self._enforce_cap(None, keep_run=newest, keep_sha=None, keep_used=True)

    # ---------------------------------------------------------------- connections

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(
            self.path, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=True
        )
        conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
        conn.execute("PRAGMA synchronous = FULL")  # each commit on disk: survives power loss
        conn.execute("PRAGMA foreign_keys = ON")
        conn.execute("PRAGMA journal_size_limit = 67108864")  # WAL file truncated to 64 MB
        return conn

    @contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        """A connection in autocommit mode (each statement sees a consistent snapshot)."""
        conn = self._connect()
        try:
            yield conn
        finally:
            conn.close()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """A connection inside ``BEGIN IMMEDIATE``: writers queue here (busy timeout) rather
        than fail when a read transaction tries to become a write one."""
        conn = self._connect()
        try:
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
        finally:
            conn.close()

    def _init_schema(self) -> None:
        conn = self._connect()
        try:
            # Both must precede the tables: auto_vacuum can only be set on an empty database,
            # and the WAL mode is stored in the file (later connections inherit it).
            if conn.execute("PRAGMA user_version").fetchone()[0] == 0:
                conn.execute("PRAGMA auto_vacuum = INCREMENTAL")
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("BEGIN IMMEDIATE")
            try:
                version = conn.execute("PRAGMA user_version").fetchone()[0]
                if version == 0:
                    # One by one: executescript would COMMIT first.
                    for statement in filter(str.strip, _SCHEMA.split(";")):
                        conn.execute(statement)
                    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
                elif version == 1:
                    _migrate_run_keys(conn)
                    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
                elif version > SCHEMA_VERSION:
                    raise WorkspaceStoreError(
                        f"The workspace store {self.path} was written by a newer fsengine "
                        f"(schema {version}, this one reads {SCHEMA_VERSION})"
                    )
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
        finally:
            conn.close()

    # ---------------------------------------------------------------- workspaces

    def open_workspace(self, workspace_id: str | None) -> tuple[str, bool]:
        """The workspace of ``workspace_id``, or a fresh one.

        Parameters
        ----------
        workspace_id : str or None
            An id from the URL, say. A malformed id is not looked up at all; a well-formed
            one costs one primary-key update (which also marks the workspace as used).

        Returns
        -------
        workspace_id : str
            The id to use from now on: the given one when it exists, else a new one.
        is_new : bool
            Whether a fresh workspace was made (an unknown or malformed id, or None).
        """
        now = time.time()
        if is_workspace_id(workspace_id):
            with self._write() as conn:
                found = conn.execute(
                    "UPDATE workspaces SET touched = ? WHERE id = ?", (now, workspace_id)
                ).rowcount
            if found:
                return workspace_id, False
        fresh = new_workspace_id()
        with self._write() as conn:
            conn.execute(
                "INSERT INTO workspaces (id, created, touched) VALUES (?, ?, ?)", (fresh, now, now)
            )
        return fresh, True

    def save_state(self, workspace_id: str, state: Mapping[str, Any]) -> None:
        """Replace the workspace's state.

        Parameters
        ----------
        workspace_id : str
            An id from :meth:`open_workspace`.
        state : mapping
            JSON-able (see :func:`jsonable`; tuples come back as lists). Every SHA-256 hex
            string in it marks that data set as used by the workspace, which keeps it from
            eviction (save the current data set's hash from :meth:`put_dataset` in it).

        Raises
        ------
        KeyError
            When the workspace does not exist (ids come only from :meth:`open_workspace`,
            so a caller cannot pick one).
        TypeError
            When the state is not JSON-able.
        """
        text = _dumps(dict(state), "state")
        hashes = _hashes_in(json.loads(text))
        if not is_workspace_id(workspace_id):
            raise KeyError("no such workspace")
        with self._write() as conn:
            found = conn.execute(
                "UPDATE workspaces SET state = ?, touched = ? WHERE id = ?",
                (text, time.time(), workspace_id),
            ).rowcount
            if not found:
                raise KeyError("no such workspace")
            conn.execute("DELETE FROM state_refs WHERE workspace = ?", (workspace_id,))
            conn.executemany(
                "INSERT INTO state_refs (workspace, sha) VALUES (?, ?)",
                [(workspace_id, sha) for sha in sorted(hashes)],
            )

    def load_state(self, workspace_id: str) -> dict[str, Any]:
        """The workspace's state: what :meth:`save_state` saved last (tuples as lists), or
        ``{}`` (a new, unknown or malformed workspace)."""
        if not is_workspace_id(workspace_id):
            return {}
        with self._read() as conn:
            row = conn.execute(
                "SELECT state FROM workspaces WHERE id = ?", (workspace_id,)
            ).fetchone()
        return json.loads(row[0]) if row else {}

    # ---------------------------------------------------------------- data sets

    def put_dataset(self, raw: bytes, name: str, *, workspace_id: str | None = None) -> str:
        """Store an uploaded file once, by the SHA-256 of its bytes.

        Parameters
        ----------
        raw : bytes
            The file's bytes.
        name : str
            Its display name, kept as text only (never part of a path): as the workspace's
            name for it when ``workspace_id`` is given, and as the data set's name when these
            bytes are new.
        workspace_id : str or None
            The uploading workspace (pass it from the pages): its name for the data set is
            kept apart from other workspaces' names, it gets the "over_cap" notice if any, and
            the data sets its state uses are kept.

        Returns
        -------
        str
            The SHA-256 hex digest: the data set's key (save it in the workspace's state).

        Raises
        ------
        ValueError
            When the file is larger than SQLite stores in one BLOB.
        """
        raw = bytes(raw)
        sha = hashlib.sha256(raw).hexdigest()
        now = time.time()
        with self._write() as conn:
            limit = conn.getlimit(sqlite3.SQLITE_LIMIT_LENGTH)
            if len(raw) >= limit:
                raise ValueError(
                    f"{name!r} ({_human(len(raw))}) is larger than the workspace store can "
                    f"hold in one piece ({_human(limit)})"
                )
            added = conn.execute(
                "INSERT INTO datasets (sha, name, size, data, created, used) "
                "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (sha) DO NOTHING",
                (sha, str(name), len(raw), raw, now, now),
            ).rowcount
            if not added:
                conn.execute("UPDATE datasets SET used = ? WHERE sha = ?", (now, sha))
            if is_workspace_id(workspace_id):
                conn.execute(
                    "INSERT INTO dataset_names (workspace, sha, name) "
                    "SELECT ?, ?, ? WHERE EXISTS (SELECT 1 FROM workspaces WHERE id = ?) "
                    "ON CONFLICT (workspace, sha) DO UPDATE SET name = excluded.name",
                    (workspace_id, sha, str(name), workspace_id),
                )
        if added:
            self._enforce_cap(workspace_id, keep_run=None, keep_sha=sha)
        return sha

    def get_dataset(self, sha: str, *, workspace_id: str | None = None) -> tuple[bytes, str] | None:
        """A stored data set.

        Parameters
        ----------
        sha : str
            Its key, from :meth:`put_dataset`.
        workspace_id : str or None
            The asking workspace: its own name for the data set is returned when it gave one.

        Returns
        -------
        (bytes, str) or None
            The bytes and the display name (the workspace's, else the first one given), or
            None when unknown, evicted or malformed.
        """
        if not isinstance(sha, str) or not _SHA_RE.match(sha):
            return None
        with self._read() as conn:
            row = conn.execute(
                f"SELECT d.data, {_NAME_OF} FROM datasets d WHERE d.sha = ?",
                (workspace_id if is_workspace_id(workspace_id) else "", sha),
            ).fetchone()
        return (bytes(row[0]), row[1]) if row else None

    def list_datasets(self, workspace_id: str) -> list[StoredDataset]:
        """The data sets the workspace stored (:meth:`put_dataset` with its id) and that are
        still stored, by its name for each (then by hash), without their bytes.

        An unknown or malformed workspace has none; another workspace's uploads are never
        listed, even when they hold the same bytes under another name.
        """
        if not is_workspace_id(workspace_id):
            return []
        with self._read() as conn:
            rows = conn.execute(
                "SELECT n.sha, n.name, d.size, d.created FROM dataset_names n "
                "JOIN datasets d ON d.sha = n.sha WHERE n.workspace = ? "
                "ORDER BY n.name COLLATE NOCASE, n.sha",
                (workspace_id,),
            ).fetchall()
        return [StoredDataset(*row) for row in rows]

    # ---------------------------------------------------------------- runs

    def start_run(
        self,
        workspace_id: str,
        kind: str,
        dataset_sha: str | None,
        title: str,
        params: Mapping[str, Any],
        *,
        dataset_name: str | None = None,
    ) -> int:
        """Record a run as "running" (and as active in this process).

        Parameters
        ----------
        workspace_id : str
            The workspace it belongs to.
        kind : str
            What runs ("evaluate", "stream", ...).
        dataset_sha : str or None
            The data set's key from :meth:`put_dataset` (its name for this workspace is
            recorded with the run).
        title : str
            A title for the list of runs.
        params : mapping
            The run's parameters (JSON-able).
        dataset_name : str, optional
            The data sets it ran on, in words, for a run over several (a study); default:
            the name of ``dataset_sha`` in this workspace.

        Returns
        -------
        int
            The run's id; end it with :meth:`finish_run` or :meth:`stop_run` (in a
            ``finally``).

        Raises
        ------
        KeyError
            When the workspace does not exist.
        """
        params_text = _dumps(dict(params), "params")
        if not is_workspace_id(workspace_id):
            raise KeyError("no such workspace")
        with self._write() as conn:
            if not conn.execute(
                "SELECT 1 FROM workspaces WHERE id = ?", (workspace_id,)
            ).fetchone():
                raise KeyError("no such workspace")
            name = dataset_name
            if dataset_sha is not None and name is None:
                row = conn.execute(
                    f"SELECT {_NAME_OF} FROM datasets d WHERE d.sha = ?",
                    (workspace_id, dataset_sha),
                ).fetchone()
                name = row[0] if row else None
            run_id = conn.execute(
                "INSERT INTO runs (workspace, kind, title, status, created, dataset_sha, "
                "dataset_name, version, params) VALUES (?, ?, ?, 'running', ?, ?, ?, ?, ?)",
                (
                    workspace_id,
                    str(kind),
                    str(title),
                    time.time(),
                    dataset_sha,
                    name,
                    fsengine.__version__,
                    params_text,
                ),
            ).lastrowid
            # Active before the commit: no reader ever sees it running and not active.
            with _ACTIVE_LOCK:
                _ACTIVE_RUNS.add((str(self.path), run_id))
        return run_id

    def finish_run(self, run_id: int, payload: Any, seconds: float | None) -> list[RunInfo]:
        """Store a run's result and mark it "finished".

        Parameters
        ----------
        run_id : int
            From :meth:`start_run`.
        payload : dict
            The result, JSON-able (the caller turns its objects into dicts; see
            :func:`jsonable`); stored compressed.
        seconds : float or None
            The run's duration.

        Returns
        -------
        list of RunInfo
            The runs of the same workspace evicted to make room (also left as notices for
            :meth:`pop_evictions`, which is where the pages should read them). Empty when
            the run no longer exists (deleted while it ran): the payload is dropped.

        Raises
        ------
        TypeError
            When the payload is not JSON-able (the run stays active: stop it).
        """
        return self._end_run(run_id, "finished", payload, seconds)

    def stop_run(
        self, run_id: int, payload: Any = None, seconds: float | None = None
    ) -> list[RunInfo]:
        """Mark a running run "stopped", with a partial result if any.

        Parameters
        ----------
        run_id : int
            From :meth:`start_run`.
        payload : dict or None
            What it had computed (JSON-able), or None.
        seconds : float or None
            How long it ran (None: the time last noted is kept).

        Returns
        -------
        list of RunInfo
            As :meth:`finish_run`. A run already finished is left as it is; a run already
            stopped takes the new partial result (a paused stream saved further on).
        """
        return self._end_run(run_id, "stopped", payload, seconds)

    def note_reached(self, run_id: int, reached: str, seconds: float | None = None) -> None:
        """Note how far a running run got: its parameters' ``reached`` (a sentence, e.g.
        "40 of 300 (split 3/20 kofsd)") and its seconds so far (None: the time since its
        start). History shows both, and keeps them when the run is found stopped (its
        process gone, see "Runs that outlive their process"). A run no longer running is
        left as it is."""
        with self._write() as conn:
            row = conn.execute(
                "SELECT params, created FROM runs WHERE id = ? AND status = 'running'",
                (int(run_id),),
            ).fetchone()
            if row is None:
                return
            params = json.loads(row[0])
            params["reached"] = str(reached)
            if seconds is None:
                seconds = max(0.0, time.time() - row[1])
            conn.execute(
                "UPDATE runs SET params = ?, seconds = ? WHERE id = ? AND status = 'running'",
                (_dumps(params, "params"), float(seconds), int(run_id)),
            )

    def _end_run(
        self, run_id: int, status: RunStatus, payload: Any, seconds: float | None
    ) -> list[RunInfo]:
        blob = None
        if payload is not None:
            blob = zlib.compress(_dumps(payload, "payload").encode("utf-8"), 6)
        seconds = None if seconds is None else float(seconds)
        if seconds is not None and not math.isfinite(seconds):
            seconds = None
        try:
            # A finish wins over anything but deletion; a stop does not undo a finish, and
            # a second stop replaces the partial result (a stream saved further on).
            allowed = ("running", "stopped")
            with self._write() as conn:
                row = conn.execute(
                    "UPDATE runs SET status = ?, payload = ?, size = ?, "
                    "seconds = COALESCE(?, seconds) "
                    f"WHERE id = ? AND status IN ({','.join('?' * len(allowed))}) "
                    "RETURNING workspace",
                    (status, blob, len(blob or b""), seconds, int(run_id), *allowed),
                ).fetchall()  # all rows: a RETURNING statement must end before the COMMIT
        finally:
            with _ACTIVE_LOCK:
                _ACTIVE_RUNS.discard((str(self.path), int(run_id)))
        if not row or blob is None:
            return []
        return self._enforce_cap(row[0][0], keep_run=int(run_id), keep_sha=None)

    def list_runs(self, workspace_id: str) -> list[RunInfo]:
        """The workspace's runs, newest first (without payloads).

        "running" runs that are not active in this process are saved and shown as "stopped".
        An unknown or malformed workspace has none.
        """
        if not is_workspace_id(workspace_id):
            return []
        self._reap(workspace_id)
        with self._read() as conn:
            rows = conn.execute(
                f"SELECT {_RUN_COLUMNS} FROM {_RUN_FROM} WHERE r.workspace = ? "
                "ORDER BY r.created DESC, r.id DESC",
                (workspace_id,),
            ).fetchall()
        return [_run_info(row) for row in rows]

    def load_run(self, workspace_id: str, run_id: int | str) -> tuple[RunInfo, Any] | None:
        """A run of the workspace and its payload.

        Parameters
        ----------
        workspace_id : str
            The workspace asking: another workspace's run is not found.
        run_id : int or str
            The run's id (a decimal string, from a URL, is accepted).

        Returns
        -------
        (RunInfo, payload) or None
            The payload as stored (dicts and lists; None when the run stopped without one),
            or None when the workspace has no such run.
        """
        key = _run_key(run_id)
        if key is None or not is_workspace_id(workspace_id):
            return None
        self._reap(workspace_id)
        with self._read() as conn:
            row = conn.execute(
                f"SELECT {_RUN_COLUMNS}, r.payload FROM {_RUN_FROM} "
                "WHERE r.id = ? AND r.workspace = ?",
                (key, workspace_id),
            ).fetchone()
        if row is None:
            return None
        blob = row[-1]
        payload = None if blob is None else json.loads(zlib.decompress(blob).decode("utf-8"))
        return _run_info(row[:-1]), payload

    def delete_run(self, workspace_id: str, run_id: int | str) -> bool:
        """Delete a run of the workspace; False when it has no such run. A running run may be
        deleted: its :meth:`finish_run` then stores nothing."""
        key = _run_key(run_id)
        if key is None or not is_workspace_id(workspace_id):
            return False
        with self._write() as conn:
            return bool(
                conn.execute(
                    "DELETE FROM runs WHERE id = ? AND workspace = ?", (key, workspace_id)
                ).rowcount
            )

    def _reap(self, workspace_id: str) -> None:
        """Save as "stopped" the workspace's "running" runs that no thread of this process
        runs (their process is gone)."""
        with self._read() as conn:
            running = conn.execute(
                "SELECT id FROM runs WHERE workspace = ? AND status = 'running'", (workspace_id,)
            ).fetchall()
        if not running:
            return
        with self._write() as conn:  # serialised with start/finish: the set is read inside
            ids = conn.execute(
                "SELECT id FROM runs WHERE workspace = ? AND status = 'running'", (workspace_id,)
            ).fetchall()
            with _ACTIVE_LOCK:
                stale = [(i,) for (i,) in ids if (str(self.path), i) not in _ACTIVE_RUNS]
            conn.executemany(
                "UPDATE runs SET status = 'stopped' WHERE id = ? AND status = 'running'", stale
            )

    # ---------------------------------------------------------------- the cap

    def total_bytes(self) -> int:
        """The stored bytes the cap bounds: data-set blobs plus compressed payloads."""
        with self._read() as conn:
            return _total(conn)

    def over_cap(self) -> bool:
        """Whether the store holds more than its cap (only when what is in use exceeds it)."""
        return self.total_bytes() > self.cap_bytes

    def pop_evictions(self, workspace_id: str) -> list[Eviction]:
        """Return and clear the workspace's eviction notices, oldest first."""
        if not is_workspace_id(workspace_id):
            return []
        with self._write() as conn:
            rows = conn.execute(
                "DELETE FROM evictions WHERE workspace = ? "
                "RETURNING id, kind, message, created, run, dataset_sha, dataset_name",
                (workspace_id,),
            ).fetchall()
        rows.sort()
        return [
            Eviction(
                kind=kind,
                message=message,
                created=created,
                run=_run_from_json(run) if run else None,
                dataset_sha=sha,
                dataset_name=name,
            )
            for _, kind, message, created, run, sha, name in rows
        ]

    def _enforce_cap(
        self,
        workspace_id: str | None,
        *,
        keep_run: int | None,
        keep_sha: str | None,
        keep_used: bool = False,
    ) -> list[RunInfo]:
        """Delete until under the cap (the order is in the module's docstring); return the
        evicted runs of ``workspace_id``. ``keep_used``: also keep every data set a
        workspace's state uses (step 4 deletes none)."""
        now = time.time()
        cap = self.cap_bytes
        with self._write() as conn:
            conn.execute("DELETE FROM evictions WHERE created < ?", (now - NOTICE_MAX_AGE_S,))
            total = _total(conn)
            if total <= cap:
                return []
            keep_shas = _kept_datasets(conn, workspace_id, keep_run, keep_sha, keep_used)
            # 1. Data sets nothing refers to, unused for a while: nobody loses anything.
            total = _evict_orphans(conn, total, cap, keep_shas, now - ORPHAN_GRACE_S)
            # 2. Runs, oldest first, with the data sets only they referred to.
            total, evicted_here = _evict_runs(
                conn, total, cap, keep_shas, keep_run, workspace_id, now
            )
            # 3. Any data set nothing refers to (recent uploads not yet in a state).
            total = _evict_orphans(conn, total, cap, keep_shas, math.inf)
            # 4. Data sets only other workspaces' states use, least recently used first.
            total = _evict_used(conn, total, cap, keep_shas, now)
            if total > cap and workspace_id is not None:
                _notice(
                    conn,
                    workspace_id,
                    "over_cap",
                    "With what this workspace is using now, the saved workspaces are over their "
                    f"disk cap ({_human(self.cap_bytes)}): it is kept, but older results will "
                    "be deleted as new ones are saved, and a larger cap needs "
                    f"{ENV_CAP_MB} raised.",
                    now,
                )
        self._vacuum()
        return evicted_here

    def _vacuum(self) -> None:
        """Give freed pages back to the file system (incremental auto-vacuum)."""
        conn = self._connect()
        try:
            conn.execute("PRAGMA incremental_vacuum").fetchall()
        except sqlite3.OperationalError:  # busy: the next eviction will do it
            pass
        finally:
            conn.close()


def _cap_from_env() -> int:
    text = os.environ.get(ENV_CAP_MB, "").strip()
    if not text:
        return DEFAULT_CAP_MB * 1024 * 1024
    try:
        mb = float(text)
    except ValueError:
        mb = math.nan
    if not (math.isfinite(mb) and mb > 0):
        raise WorkspaceStoreError(f"{ENV_CAP_MB} must be a positive number of MiB, not {text!r}")
    return int(mb * 1024 * 1024)


def _kept_datasets(
    conn: sqlite3.Connection,
    workspace_id: str | None,
    keep_run: int | None,
    keep_sha: str | None,
    keep_used: bool,
) -> set[str]:
    """The data sets the cap must not evict: ``keep_sha``, ``keep_run``'s, those
    ``workspace_id``'s state uses and, with ``keep_used``, those any state uses."""
    keep_shas = {keep_sha} if keep_sha else set()
    if keep_run is not None:
        row = conn.execute("SELECT dataset_sha FROM runs WHERE id = ?", (keep_run,)).fetchone()
        if row and row[0]:
            keep_shas.add(row[0])
    if workspace_id is not None:
        keep_shas |= {
            sha
            for (sha,) in conn.execute(
                "SELECT sha FROM state_refs WHERE workspace = ?", (workspace_id,)
            )
        }
    if keep_used:
        keep_shas |= {sha for (sha,) in conn.execute("SELECT sha FROM state_refs")}
    return keep_shas


def _evict_orphans(
    conn: sqlite3.Connection, total: int, cap: int, keep_shas: set[str], older_than: float
) -> int:
    """Delete data sets no run and no state refers to, unused since before ``older_than``,
    least recently used first, until ``total`` is within ``cap``; returns the new total."""
    if total <= cap:
        return total
    orphans = conn.execute(
        "SELECT sha, size FROM datasets d WHERE used < ? "
        "AND NOT EXISTS (SELECT 1 FROM runs r WHERE r.dataset_sha = d.sha) "
        "AND NOT EXISTS (SELECT 1 FROM state_refs s WHERE s.sha = d.sha) "
        "ORDER BY used, sha",
        (older_than,),
    ).fetchall()
    for sha, size in orphans:
        if total <= cap:
            break
        if sha in keep_shas:
            continue
        conn.execute("DELETE FROM datasets WHERE sha = ?", (sha,))
        total -= size
    return total


def _evict_runs(
    conn: sqlite3.Connection,
    total: int,
    cap: int,
    keep_shas: set[str],
    keep_run: int | None,
    workspace_id: str | None,
    now: float,
) -> tuple[int, list[RunInfo]]:
    """Delete finished runs, oldest first (never ``keep_run``), each with the data set only
    it referred to, until ``total`` is within ``cap``; each owner gets a notice. Returns the
    new total and the evicted runs of ``workspace_id``."""
    evicted_here: list[RunInfo] = []
    if total <= cap:
        return total, evicted_here
    candidates = conn.execute(
        f"SELECT {_RUN_COLUMNS}, r.workspace FROM {_RUN_FROM} "
        "WHERE r.status != 'running' AND r.id != ? ORDER BY r.created, r.id",
        (-1 if keep_run is None else keep_run,),
    ).fetchall()
    for row in candidates:
        if total <= cap:
            break
        info, owner = _run_info(row[:-1]), row[-1]
        conn.execute("DELETE FROM runs WHERE id = ?", (info.id,))
        total -= info.size
        _notice(
            conn,
            owner,
            "run",
            f"The run '{info.title}' ({info.kind}, {_when(info.created)}) was "
            "deleted to keep the saved workspaces under their disk cap.",
            now,
            run=info,
        )
        if owner == workspace_id:
            evicted_here.append(info)
        sha = info.dataset_sha
        if sha and sha not in keep_shas and not _referenced(conn, sha):
            size = conn.execute("SELECT size FROM datasets WHERE sha = ?", (sha,)).fetchone()
            if size:
                conn.execute("DELETE FROM datasets WHERE sha = ?", (sha,))
                total -= size[0]
    return total, evicted_here


def _evict_used(
    conn: sqlite3.Connection, total: int, cap: int, keep_shas: set[str], now: float
) -> int:
    """Delete data sets only workspaces' states use (no run), the least recently touched
    workspace's first, until ``total`` is within ``cap``; each workspace using one gets a
    notice. Returns the new total."""
    if total <= cap:
        return total
    used = conn.execute(
        "SELECT d.sha, d.size, MAX(w.touched) AS last FROM datasets d "
        "JOIN state_refs s ON s.sha = d.sha JOIN workspaces w ON w.id = s.workspace "
        "WHERE NOT EXISTS (SELECT 1 FROM runs r WHERE r.dataset_sha = d.sha) "
        "GROUP BY d.sha ORDER BY last, d.sha"
    ).fetchall()
    for sha, size, _ in used:
        if total <= cap:
            break
        if sha in keep_shas:
            continue
        owners = conn.execute(
            f"SELECT s.workspace, {_NAME_OF.replace('?', 's.workspace')} "
            "FROM state_refs s JOIN datasets d ON d.sha = s.sha WHERE s.sha = ?",
            (sha,),
        ).fetchall()
        conn.execute("DELETE FROM datasets WHERE sha = ?", (sha,))
        total -= size
        for owner, name in owners:
            _notice(
                conn,
                owner,
                "dataset",
                f"The data set '{name}' was deleted to keep the saved workspaces "
                "under their disk cap; upload it again to use it.",
                now,
                dataset_sha=sha,
                dataset_name=name,
            )
    return total


def _total(conn: sqlite3.Connection) -> int:
    return conn.execute(
        "SELECT (SELECT COALESCE(SUM(size), 0) FROM datasets) "
        "+ (SELECT COALESCE(SUM(size), 0) FROM runs)"
    ).fetchone()[0]


def _referenced(conn: sqlite3.Connection, sha: str) -> bool:
    return bool(
        conn.execute(
            "SELECT EXISTS (SELECT 1 FROM runs WHERE dataset_sha = ?) "
            "OR EXISTS (SELECT 1 FROM state_refs WHERE sha = ?)",
            (sha, sha),
        ).fetchone()[0]
    )


def _notice(
    conn: sqlite3.Connection,
    workspace_id: str,
    kind: str,
    message: str,
    now: float,
    *,
    run: RunInfo | None = None,
    dataset_sha: str | None = None,
    dataset_name: str | None = None,
) -> None:
    conn.execute(
        "INSERT INTO evictions (workspace, kind, message, created, run, dataset_sha, "
        "dataset_name) VALUES (?, ?, ?, ?, ?, ?, ?)",
        (
            workspace_id,
            kind,
            message,
            now,
            json.dumps(asdict(run)) if run else None,
            dataset_sha,
            dataset_name,
        ),
    )


def _when(timestamp: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(timestamp))


def _run_key(run_id: object) -> int | None:
    """A run id as an int, or None when it is not one (bool, negative, not a number)."""
    if isinstance(run_id, bool):
        return None
    if isinstance(run_id, int):
        return run_id if 0 < run_id < 2**63 else None
    if isinstance(run_id, str) and re.fullmatch(r"[1-9][0-9]{0,17}", run_id):
        return int(run_id)
    return None


def _run_info(row: tuple) -> RunInfo:
    (id_, kind, title, status, created, seconds, name, sha, size, dsize, version, params) = row
    return RunInfo(
        id=id_,
        kind=kind,
        title=title,
        status=status,
        created=created,
        seconds=seconds,
        dataset_name=name,
        dataset_sha=sha,
        size=size,
        dataset_size=dsize,
        version=version,
        params=json.loads(params),
    )


def _run_from_json(text: str) -> RunInfo:
    return RunInfo(**json.loads(text))


_DEFAULT_LOCK = threading.Lock()
_default: Store | None = None


def default_store() -> Store:
    """The process's store, built on the first call from ``FSENGINE_WORKSPACE_DIR`` and
    ``FSENGINE_WORKSPACE_CAP_MB`` and cached (:func:`reset_default_store` forgets it)."""
    global _default
    with _DEFAULT_LOCK:
        if _default is None:
            _default = Store()
        return _default


def reset_default_store() -> None:
    """Forget the cached :func:`default_store` (the next call reads the environment again)."""
    global _default
    with _DEFAULT_LOCK:
        _default = None
