"""The session's side of the workspace: what survives a reload, a bookmarked link and a
server restart.

The URL carries the workspace id (``?ws=...``, :mod:`dashboard.workspace`). On a new
session :func:`begin` opens that workspace (or a fresh one: an unknown or malformed id
reveals nothing) and brings back its data set, minority class, every page's settings and
the results of its finished runs; :func:`save` writes the state back after every script
run. Runs are recorded by :func:`dashboard.running.run_once` (Compare, Sweep, Benchmark) and by the
Stream page: "running" while they run, "finished" with their result, "stopped" when
interrupted (Stop, a closed tab, a server restart).

If the store cannot be used (a read-only home, a full disk), the app keeps working and
says once that nothing is being saved.
"""

from __future__ import annotations

import hashlib
import sqlite3
from typing import Any

import streamlit as st

from dashboard import session
from dashboard.pages import RESULT_KINDS, WIDGET_STORES
from dashboard.session import state
from dashboard.workspace import Store, WorkspaceStoreError, default_store
from fsengine.evaluation import Evaluation
from fsengine.evaluation.stability import StabilityResult
from fsengine.export.codec import dumps, from_json, to_json
from fsengine.methods.registry import RunResult

#: Results restored per page store (the newest).
RESTORED_PER_STORE = 8
_FAILURES = (OSError, sqlite3.Error, WorkspaceStoreError, KeyError, TypeError, ValueError)


def store() -> Store | None:
    """The process's store, or None when it cannot be used (the reason is kept once)."""
    if state.workspace_problem is not None:
        return None
    try:
        return default_store()
    except _FAILURES as exc:
        _fail(exc)
        return None


def _fail(exc: Exception) -> None:
    state.workspace_problem = (
        f"Your work is not being saved ({type(exc).__name__}: {exc}). Set "
        "FSENGINE_WORKSPACE_DIR to a writable folder and restart the app to keep it."
    )


def workspace_id() -> str | None:
    """This session's workspace id (None when nothing can be saved)."""
    return state.workspace


def begin() -> None:
    """Once per session: open the workspace named in the URL (or a fresh one), restore it,
    and put its id in the URL. Call before anything reads the data set."""
    if state.workspace is not None or state.workspace_problem is not None:
        _keep_in_url()
        return
    found = store()
    if found is None:
        return
    requested = st.query_params.get("ws")
    try:
        wid, new = found.open_workspace(requested)
    except _FAILURES as exc:
        _fail(exc)
        return
    state.workspace = wid
    if new and requested:
        state.tell(
            "The workspace in this link was not found (it may have been removed to stay "
            "under the disk cap): this is a new, empty workspace."
        )
    if not new:
        _restore(found, wid)
    _keep_in_url()


def _keep_in_url() -> None:
    wid = workspace_id()
    if wid and st.query_params.get("ws") != wid:
        st.query_params["ws"] = wid


def _tuples(value):
    """JSON lists back to the tuples the pages' keys and range sliders use."""
    if isinstance(value, list):
        return tuple(_tuples(v) for v in value)
    return value


def widget_values(saved: dict) -> dict:
    """Widget values from JSON: a range slider's pair back to a tuple, lists kept."""
    values = {}
    for key, value in saved.items():
        pair = (
            isinstance(value, list)
            and len(value) == 2
            and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value)
        )
        values[key] = tuple(value) if pair else value
    return values


def _restore(found: Store, wid: str) -> None:
    saved = found.load_state(wid)
    data = saved.get("dataset")
    if data:
        stored = found.get_dataset(data["sha"], workspace_id=wid)
        if stored is None:
            state.tell(
                f"The data set {data.get('name')!r} of this workspace is no longer stored "
                "(removed to stay under the disk cap); the sample is loaded instead."
            )
        else:
            try:
                session.load_into_session(stored[0], stored[1], **stored_options(found, wid, data))
            except Exception as exc:  # noqa: BLE001 - a stored file that no longer loads
                state.tell(f"The saved data set could not be read: {exc}")
            else:
                state.choose_minority(saved.get("minority"))
                if isinstance(saved.get("class_names"), dict):
                    state.class_names = saved["class_names"]
    if isinstance(saved.get("readings"), dict):
        st.session_state[session.READINGS] = dict(saved["readings"])
    for name in WIDGET_STORES:
        if isinstance(saved.get("widgets", {}).get(name), dict):
            st.session_state[name] = widget_values(saved["widgets"][name])
        others = saved.get("widgets_by_task", {}).get(name)
        if isinstance(others, dict):
            session.other_tasks(name).update(
                {mark: widget_values(values) for mark, values in others.items()}
            )
    newest: dict[str, list[int]] = {}  # page store -> run ids, newest first
    runs = found.list_runs(wid)
    for run in runs:
        target = RESULT_KINDS.get(run.kind)
        if run.status == "finished" and target is not None:
            newest.setdefault(target, []).append(run.id)
    _pend_streams(found, wid, runs)
    for ids in newest.values():
        for run_id in reversed(ids[:RESTORED_PER_STORE]):  # oldest first: newest ends last
            put_back(found, wid, run_id)
    st.session_state["_saved_state"] = dumps(saved, strict=False, sort_keys=True)


def known_reading(raw: bytes) -> dict | None:
    """:func:`dashboard.session.load_into_session`'s options that read ``raw`` as it was
    last read in this workspace (:func:`dashboard.session.remembered`), its sample sheet
    fetched from the session or the store; None for a file not read here before, or
    whose sheet is no longer stored (it is then read as a new file)."""
    record = session.remembered(hashlib.sha256(raw).hexdigest())
    if not record:
        return None
    options = session.read_options(record)
    sheet = record.get("samples")
    if sheet:
        loaded = state.data
        if loaded is not None and loaded.samples_sha256 == sheet:
            options["samples"] = loaded.samples
        else:
            found, wid = store(), workspace_id()
            stored = found.get_dataset(sheet, workspace_id=wid) if found and wid else None
            if stored is None:
                return None
            options["samples"] = stored[0]
    return options


def stored_options(found: Store, wid: str, data: dict) -> dict:
    """:func:`dashboard.session.load_into_session`'s options from a stored record of
    :attr:`dashboard.session.LoadedData.options`, with the sample sheet's bytes fetched
    from the store (``samples``: its SHA-256). Older records read as without a sheet,
    preprocessing and groups.

    Raises
    ------
    LookupError
        When the record names a sheet the store no longer has.
    """
    options = session.read_options(data)
    sheet = data.get("samples")
    if sheet:
        stored = found.get_dataset(sheet, workspace_id=wid)
        if stored is None:
            raise LookupError(
                f"its sample sheet {data.get('samples_name')!r} is no longer stored; upload "
                "it again"
            )
        options["samples"] = stored[0]
    return options


#: Session key: task key -> (run id, payload) of the newest stored stream of each task,
#: replayed when its task is current (:func:`dashboard.streams.current`); a payload of None
#: is read from the workspace then.
PENDING_STREAMS = "streams_pending"


def pending_streams() -> dict:
    """The stored streams waiting to be brought back, by task key (see
    :func:`dashboard.session.task_key`)."""
    return st.session_state.setdefault(PENDING_STREAMS, {})


def _pend_streams(found: Store, wid: str, runs) -> None:
    """Keep the newest stream of each task (finished, or stopped past its start) to be
    brought back when its task is current (:func:`dashboard.streams.current` reads its
    payload then, a snapshot of tens of MB on 20,000 cells). A finished stream is past
    its start without reading it; a stopped one is read for its position."""
    pending = pending_streams()
    seen = set()
    for run in runs:  # newest first
        if run.kind != "stream" or run.status == "running" or not run.dataset_sha:
            continue
        key = session.stored_task_key(run.dataset_sha, run.params)
        if key in seen:
            continue
        if run.status != "finished":
            loaded = found.load_run(wid, run.id)
            if not (loaded is not None and loaded[1] and int(loaded[1].get("position") or 0)):
                continue
        pending[key] = (run.id, None)
        seen.add(key)


def stored_payload(run_id: int) -> tuple[bool, dict | None]:
    """The stored payload of this workspace's run ``run_id``.

    Returns
    -------
    (bool, dict or None)
        Whether the workspace could be read, and the payload: None when the run is gone
        (deleted, or its size cap) or has none. A failed read does not stop the saving.
    """
    found, wid = store(), workspace_id()
    if found is None or wid is None:
        return False, None
    try:
        loaded = found.load_run(wid, run_id)
    except _FAILURES:
        return False, None
    return True, (None if loaded is None else (loaded[1] or None))


def put_back(found: Store, wid: str, run_id: int) -> tuple[str, tuple, dict] | None:
    """Put a finished run's result back into its page's result store; returns (page
    store, key, payload) or None."""
    loaded = found.load_run(wid, run_id)
    if loaded is None:
        return None
    info, payload = loaded
    target = RESULT_KINDS.get(info.kind)
    if target is None or not payload:
        return None
    key = _tuples(payload["key"])
    if info.dataset_sha and key[:1] != (session.STUDY_KEY,):  # on one task: the record's
        key = (session.stored_task_key(info.dataset_sha, payload), *key)
    state.results(target)[key] = decode(payload["result"])
    return target, key, payload


def save() -> None:
    """Write the workspace's state (data set, minority, how each data set was read, every
    page's settings per task) when it changed; store the current data set's bytes once."""
    session.remember_reading()  # also when nothing can be saved: the session keeps it
    found, wid = store(), workspace_id()
    loaded = state.data
    if found is None or wid is None or loaded is None:
        return
    sha = loaded.sha256
    try:
        if st.session_state.get("_stored_sha") != sha:
            found.put_dataset(loaded.raw, loaded.name, workspace_id=wid)
            st.session_state["_stored_sha"] = sha
        sheet = loaded.samples_sha256
        if sheet and st.session_state.get("_stored_sheet") != sheet:
            # the state names its SHA-256 too, which keeps it from eviction
            found.put_dataset(loaded.samples, loaded.samples_name or "sheet", workspace_id=wid)
            st.session_state["_stored_sheet"] = sheet
        current = {
            "dataset": {
                "sha": sha,
                "name": loaded.name,
                **loaded.options,
            },
            "minority": state.minority,
            "class_names": state.class_names,
            "readings": st.session_state.get(session.READINGS, {}),
            "widgets": {name: st.session_state.get(name, {}) for name in WIDGET_STORES},
            "widgets_by_task": {
                name: st.session_state.get(f"{name}_by_task", {}) for name in WIDGET_STORES
            },
        }
        text = dumps(current, strict=False, sort_keys=True)
        if st.session_state.get("_saved_state") != text:
            found.save_state(wid, current)
            st.session_state["_saved_state"] = text
    except _FAILURES as exc:
        _fail(exc)


def dataset_sha() -> str | None:
    """The current data set's SHA-256 (its key in the store), None before one is loaded."""
    loaded = state.data
    return None if loaded is None else loaded.sha256


def start_run(kind: str, title: str, params: dict, datasets: str | None = None) -> int | None:
    """Record a run as running (None when nothing can be saved).

    Parameters
    ----------
    kind, title : str
        What runs, and its title in History.
    params : dict
        Its parameters (JSON-able).
    datasets : str, optional
        For a run over several data sets (a study): their names, shown in History's data
        set column instead of the current data set's.
    """
    found, wid = store(), workspace_id()
    if found is None or wid is None:
        return None
    save()  # the data set must be stored before a run refers to it
    try:
        if datasets is not None:
            return found.start_run(wid, kind, None, title, params, dataset_name=datasets)
        return found.start_run(wid, kind, dataset_sha(), title, params)
    except _FAILURES as exc:
        _fail(exc)
        return None


def finish_run(
    run_id: int | None, payload: dict, seconds: float, *, found: Store | None = None
) -> bool:
    """Store a finished run's result.

    Parameters
    ----------
    run_id : int or None
        From :func:`start_run`.
    payload : dict
        Its parameters and result.
    seconds : float
        How long it computed.
    found : Store, optional
        The :func:`store`, looked up before the run. Given, nothing here calls Streamlit
        (a run's own thread, with no script run) and a failure is returned, not reported.

    Returns
    -------
    bool
        Whether it was stored (True also when nothing is to be saved).
    """
    quiet = found is not None
    if not quiet:
        found = store()
    if run_id is None or found is None:
        return True
    try:
        found.finish_run(run_id, payload, seconds)
    except _FAILURES as exc:
        if not quiet:
            _fail(exc)
        return False
    return True


def stop_run(
    run_id: int | None,
    payload: dict | None = None,
    seconds: float | None = None,
    *,
    found: Store | None = None,
) -> None:
    """Mark a run as stopped (with what it had, if anything).

    Parameters
    ----------
    run_id : int or None
        From :func:`start_run`.
    payload : dict, optional
        What the run had computed.
    seconds : float, optional
        How long it ran.
    found : Store, optional
        The :func:`store`, looked up before the run. Given, nothing here calls Streamlit:
        after Streamlit's Stop (or a closed tab) every Streamlit call, even reading
        ``st.session_state``, raises again. A failure is then not reported; the store
        shows the run as stopped anyway once it is no longer active.
    """
    if found is not None:
        if run_id is not None:
            try:
                found.stop_run(run_id, payload, seconds)
            except _FAILURES:
                pass
        return
    found = store()
    if run_id is None or found is None:
        return
    try:
        found.stop_run(run_id, payload, seconds)
    except _FAILURES as exc:
        _fail(exc)


def delete_run(run_id: int | None, *, found: Store | None = None, wid: str | None = None) -> None:
    """Remove a run's record (a run the library refused).

    Parameters
    ----------
    run_id : int or None
        From :func:`start_run`.
    found, wid : optional
        The :func:`store` and :func:`workspace_id`, looked up before the run. Given,
        nothing here calls Streamlit (see :func:`stop_run`) and a failure is not reported.
    """
    if run_id is None:
        return
    quiet = found is not None and wid is not None
    if not quiet:
        found, wid = store(), workspace_id()
    if found is None or wid is None:
        return
    try:
        found.delete_run(wid, run_id)
    except _FAILURES as exc:
        if not quiet:
            _fail(exc)


#: The result types a page keeps, as the workspace stores them (:mod:`fsengine.export.codec`).
RESULT_TYPES = (Evaluation, StabilityResult, RunResult)


def encode(result: Any) -> Any:
    """A page's result as JSON-able data (:func:`fsengine.export.codec.to_json`, strict: each
    result type tagged with its ``to_dict``)."""
    return to_json(result)


def decode(data: Any) -> Any:
    """The inverse of :func:`encode` (tuples outside a result come back as lists)."""
    return from_json(data, RESULT_TYPES)


def show_notices() -> None:
    """The workspace's messages: a link not found, things evicted for the disk cap, or
    that nothing is being saved."""
    notice = state.take_notice()
    if notice is not None:
        st.info(notice, icon=":material/info:")
    if state.workspace_problem is not None and not st.session_state.get("_problem_shown"):
        st.warning(state.workspace_problem)
        st.session_state["_problem_shown"] = True
    found, wid = store(), workspace_id()
    if found is None or wid is None:
        return
    try:
        evicted = found.pop_evictions(wid)
    except _FAILURES:
        return
    for notice in evicted:
        st.warning(notice.message, icon=":material/delete_sweep:")
