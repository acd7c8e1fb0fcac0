"""History page: every run of this workspace, to reopen or delete."""

import datetime as dt

import pandas as pd
import streamlit as st

from dashboard import messages, persistence, reruns, running, session, streams
from fsengine import FSEngineError

#: The page that shows each kind of run.
PAGE_OF = {
    "compare": "dashboard/pages/compare.py",
    "sweep-k": "dashboard/pages/sweep.py",
    "sweep-values": "dashboard/pages/sweep.py",
    "sweep-top": "dashboard/pages/sweep.py",
    "stream": "dashboard/pages/stream.py",
    "stability": "dashboard/pages/genes.py",
    "benchmark": "dashboard/pages/benchmark.py",
}
#: The store of widget values of each page a run can reopen.
WIDGETS_OF = {
    "dashboard/pages/compare.py": "compare_widgets",
    "dashboard/pages/sweep.py": "sweep_widgets",
    "dashboard/pages/genes.py": "genes_widgets",
    "dashboard/pages/benchmark.py": "benchmark_widgets",
}


def _size(n: int | None) -> str:
    """Bytes as text: "512 B", "1.5 KB", "3.0 MB", "2.1 GB" (GB the largest unit); "-"
    for None."""
    if n is None:
        return "-"
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} GB"


def _reached(run) -> str:
    """Where an unfinished run got to (its last progress, "40 of 300 (split 3/20 kofsd)"),
    "" for a finished run or one that noted none."""
    return run.params.get("reached", "") if run.status != "finished" else ""


def _runs_table(runs) -> pd.DataFrame:
    """The table of ``runs`` (:class:`dashboard.workspace.RunInfo`), a row each in their
    order: when each started (local time), what it is, how far it got and what it stores."""
    return pd.DataFrame(
        {
            "started": [
                dt.datetime.fromtimestamp(r.created).strftime("%Y-%m-%d %H:%M") for r in runs
            ],
            "kind": [r.kind for r in runs],
            "run": [r.title for r in runs],
            "status": [r.status for r in runs],
            "reached": [_reached(r) for r in runs],
            "time (s)": [r.seconds for r in runs],
            "data set": [r.dataset_name or "-" for r in runs],
            "stored": [_size(r.size) for r in runs],
            "fsengine": [r.version for r in runs],
        }
    )


def _run_heading(run) -> str:
    """The selected run in bold with its status, and where it got to when unfinished:
    "**Compare K-OFSD: 2 splits**: stopped, at 3 of 5 (split 2/2)"."""
    reached = _reached(run)
    return f"**{run.title}**: {run.status}" + (f", at {reached}" if reached else "")


def _can_reopen(run) -> bool:
    """Whether ``run`` has something to reopen: its result, or (a stream) where it was."""
    return run.status == "finished" or run.kind == "stream"


def _stopped_note(run) -> str | None:
    """What a stopped run keeps (a stream: where it was; any other: nothing); None for a
    run that is not stopped."""
    if run.status != "stopped":
        return None
    if run.kind == "stream":
        return (
            "A stopped stream keeps where it was: Reopen brings it back there, and Start on "
            "the Stream page continues it."
        )
    return "A stopped run was interrupted (Stop, a closed tab or a restart): it has no result."


def _storage_text(total: int, cap: int) -> str:
    """How much of the server's cap the workspaces' runs take."""
    return (
        f"Stored: {_size(total)} of a {_size(cap)} cap for all workspaces on this server "
        "(FSENGINE_WORKSPACE_CAP_MB); the oldest runs are removed first when it is full, "
        "and you are told."
    )


def _stream_widget_values(stream: dict) -> dict:
    """The Stream page's widget values of a stored stream: its method, order, seed (when it
    has one) and the method's parameters."""
    return {
        "stream_method": stream["method"],
        "stream_order": stream["order"],
        **({"stream_seed": stream["seed"]} if stream.get("seed") is not None else {}),
        **{f"stream_{stream['method']}_{k}": v for k, v in stream["params"].items()},
    }


def _open(found, wid, run) -> str | None:
    """Bring back the run's data set, minority class and page settings; returns its page
    (None, with the reason shown, when it cannot be reopened)."""
    loaded = found.load_run(wid, run.id)
    if loaded is None:
        st.error("This run is no longer stored.")
        return None
    info, payload = loaded
    params = (payload or info.params or {}).get("dataset") or {}
    current = session.state.data
    read_otherwise = current is not None and (
        (bool(params) and session.read_options(params) != session.read_options(current.options))
        or (params.get("samples") or None) != current.samples_sha256
    )
    if info.dataset_sha and (info.dataset_sha != persistence.dataset_sha() or read_otherwise):
        stored = found.get_dataset(info.dataset_sha, workspace_id=wid)
        if stored is None:
            st.error(
                f"The data set of this run ({info.dataset_name}) is no longer stored; "
                "upload it again to rerun."
            )
            return None
        try:
            options = persistence.stored_options(found, wid, params)
            session.load_into_session(stored[0], stored[1], **options)
        except (LookupError, FSEngineError) as exc:
            st.error(f"The data set of this run could not be read: {messages.describe(exc)}")
            return None
    minority = (payload or info.params).get("minority")
    session.state.choose_minority(minority)
    widgets = (payload or {}).get("widgets") or info.params.get("widgets")
    page = PAGE_OF[info.kind]
    if widgets:
        name = WIDGETS_OF.get(page)
        if name:  # the run's task's settings, the ones they replace kept with theirs
            session.replace_widgets(name, persistence.widget_values(widgets))
    if info.kind == "stream":
        stream = payload or info.params
        saved = session.widget_store("stream_widgets")  # the run's task's
        saved.update(_stream_widget_values(stream))
        streams.reopen(run.id, stream, info.dataset_sha or persistence.dataset_sha())
    else:
        persistence.put_back(found, wid, run.id)
    return page


def _workspace():
    """The workspace store and id of this session; without them, say why and stop the page.

    Returns
    -------
    (Store, str)
    """
    found, wid = persistence.store(), persistence.workspace_id()
    if found is None or wid is None:
        st.warning(session.state.workspace_problem or "Nothing is being saved in this session.")
        st.stop()
    return found, wid


def _listed_runs(found, wid: str) -> list:
    """Draw what the page lists and return the workspace's runs, newest first; without
    any, say so and stop the page."""
    st.caption(
        "Every run of this workspace, newest first: kept across reloads and server restarts. "
        "Bookmark this page's address to come back to the same workspace; anyone with the "
        "address can open it."
    )
    runs = found.list_runs(wid)
    if not runs:
        st.info("No run yet: run a stream, a comparison or a sweep, and it is listed here.")
        st.stop()
    return runs


def _picked_run(runs):
    """Draw the table of ``runs``, a row selectable; returns the selected run, or None."""
    picked = st.dataframe(
        _runs_table(runs),
        hide_index=True,
        width="stretch",
        on_select="rerun",
        selection_mode="single-row",
        key="history_table",
        column_config={"time (s)": st.column_config.NumberColumn(format="%.2f")},
    )
    rows = picked.selection.rows if picked is not None else []
    return runs[rows[0]] if rows else None


def _run_actions(found, wid: str, run) -> None:
    """Draw the selected run's heading, its Reopen, Delete and (running) Cancel buttons,
    and what a stopped run keeps; acts on the button pressed."""
    st.markdown(_run_heading(run))
    left, right, stop = st.columns([1, 1, 1, 2])[:3]
    if reruns.lasting_button(
        "Reopen",
        key="history_open",
        scope=run.id,
        container=left,
        type="primary",
        disabled=not _can_reopen(run),
        help="Loads its data set and settings and shows its result on its page.",
    ):
        with reruns.uninterrupted():  # data set, class and settings all, or none
            reruns.done("history_open")
            page = _open(found, wid, run)
        if page is not None:
            reruns.switch_page(page)  # (a link clicked meanwhile: its page)
    if right.button("Delete", key="history_delete", disabled=run.status == "running"):
        found.delete_run(wid, run.id)
        reruns.rerun()
    if run.status == "running":
        stop.button(
            "Cancel",
            key="history_cancel",
            icon=":material/stop_circle:",
            help="Stop this run now (its worker processes too); it is kept as stopped.",
            on_click=running.cancel_and_wait,  # before the table is drawn again
            args=(run.id, wid),
        )
    note = _stopped_note(run)
    if note is not None:
        st.caption(note)


def render() -> None:
    """Draw the History page: the workspace's runs, to reopen, cancel or delete."""
    st.title("History")
    found, wid = _workspace()  # none: st.warning and st.stop()
    runs = _listed_runs(found, wid)  # none: st.info and st.stop()
    run = _picked_run(runs)
    if run is None:
        st.caption("Select a run (the box at the left of its row) to reopen or delete it.")
    else:
        _run_actions(found, wid, run)
    st.caption(_storage_text(found.total_bytes(), found.cap_bytes))


# Streamlit runs a page as __main__; imported (a test), the page only defines.
if __name__ == "__main__":
    render()
