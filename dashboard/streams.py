"""The Stream page's streams: one per task, kept in the session and in the workspace.

A stream belongs to the task it streams (:func:`dashboard.session.task_key`: the data
set's bytes, how they were read, and the minority class). The Stream, Genes and Export
pages and the report show only the current task's stream; another task's stream is kept
and can be named, but it is never shown, continued or exported under the current data
set's name. Only one stream runs: after another data set (or another minority class)
is loaded, the Stream page pauses it where it is, recorded as stopped under its own data
set (a stream only advances while the Stream page is drawn).

A stream is recorded in the workspace as it goes (stopped at its position until it
reaches the end, then finished). After a reload, a bookmarked link or a server restart,
the newest stream of each task (:func:`dashboard.persistence.pending_streams`) is
replayed to the position it had reached when its task is current, as History's Reopen
does, and keeps its record.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

import streamlit as st

from dashboard import persistence, session
from fsengine.live import LiveStream
from fsengine.methods import get_method

#: Session key: task key -> :class:`Kept`.
STORE = "streams"
#: Session key: the task key of the running stream (None when none runs).
RUNNING = "stream_running"
#: A running stream's position is saved this often (a closed tab loses at most this).
RECORD_SECONDS = 2.0
#: Most streams kept in the session (the oldest other task's is dropped first).
MAX_KEPT = 4


@dataclass
class Kept:
    """A stream and what the page keeps with it.

    Attributes
    ----------
    live : LiveStream
    run_id : int or None
        Its record in the workspace (None when nothing is saved).
    dataset_name : str
        The data set's name as loaded.
    dataset : dict
        How the data set was read: label, transpose, drop_constant.
    recorded : tuple or None
        (run id, position) last written to the workspace.
    recorded_at : float
        When (``time.monotonic``).
    lock : threading.Lock
        Held while the stream advances: a button press starts a new script run while the
        previous one's tick may still be computing (Streamlit's fast reruns).
    """

    live: LiveStream
    run_id: int | None
    dataset_name: str
    dataset: dict
    recorded: tuple | None = None
    recorded_at: float = 0.0
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def describe(self) -> str:
        """ "K-OFSD on leukemia.csv (minority 1), stopped at 1,200 of 7,129 features"."""
        live = self.live
        label = get_method(live.method).spec.label
        where = (
            "finished" if live.done else f"stopped at {live.position:,} of {live.total:,} features"
        )
        return f"{label} on {self.dataset_name} (minority {live.minority}), {where}"


def settings(method: str, order: str, seed: int | None, params: dict) -> tuple:
    """A stream's settings as the Stream page's boxes give them: the selector, the order,
    the seed (None in natural order: it plays no part) and the parameters."""
    return (method, order, seed if order == "random" else None, tuple(sorted(params.items())))


def settings_of(live: LiveStream) -> tuple:
    """The :func:`settings` a stream runs with (also a stream brought back from the
    workspace, whose record keeps them)."""
    return settings(live.method, live.order_name, live.seed, live.params)


def settings_text(method: str, order: str, seed: int | None, params: dict) -> str:
    """ "K-OFSD (k=5, natural order)": a stream's settings in words."""
    spec = get_method(method).spec
    order_text = f"{order} order" + (f", seed {seed}" if order == "random" else "")
    return f"{spec.label} ({', '.join(filter(None, (spec.settings_text(params), order_text)))})"


def run_text(live: LiveStream) -> str:
    """:func:`settings_text` of a stream."""
    return settings_text(live.method, live.order_name, live.seed, live.params)


def _kept() -> dict[tuple, Kept]:
    return st.session_state.setdefault(STORE, {})


def payload(kept: Kept) -> dict:
    """What the workspace keeps of a stream: enough to replay it, and its outcome."""
    live = kept.live
    last = live.events[-1] if live.events else None
    return {
        "method": live.method,
        "params": live.params,
        "order": live.order_name,
        "seed": live.seed,
        "minority": live.minority,
        "position": live.position,
        "total": live.total,
        "selected": list(last.selected) if last else [],
        "fallback": bool(live.done and live.selection().fallback),
        "holdout_gmean": live.current_gmean() if live.gmeans else None,
        "dataset": dict(kept.dataset),
    }


def record(kept: Kept) -> None:
    """Write the stream to the workspace: finished at its end, else stopped where it is
    (a paused stream, a closed tab and a reset are never shown as finished)."""
    kept.recorded_at = time.monotonic()
    live = kept.live
    if kept.run_id is None or kept.recorded == (kept.run_id, live.position):
        return
    if live.done:
        persistence.finish_run(kept.run_id, payload(kept), live.seconds)
    else:
        persistence.stop_run(kept.run_id, payload(kept), live.seconds)
    kept.recorded = (kept.run_id, live.position)


def record_if_due(kept: Kept) -> None:
    """:func:`record` when the last write is :data:`RECORD_SECONDS` old."""
    if time.monotonic() - kept.recorded_at >= RECORD_SECONDS:
        record(kept)


def current() -> Kept | None:
    """The current task's stream, brought back from the workspace (replayed to its
    position) when the session does not hold it yet; None when it has none."""
    key = session.task_key()
    kept = _kept().get(key)
    if kept is not None:
        return kept
    pending = persistence.pending_streams().get(key)
    if pending is None:
        return None
    run_id, saved = pending
    try:
        live = _stream(saved)
    except Exception:  # noqa: BLE001 - a record that no longer replays is left in History
        persistence.pending_streams().pop(key, None)
        return None
    position = int(saved.get("position", live.total) or 0)
    if position:
        with st.spinner(f"Bringing back your stream ({position:,} features) ..."):
            live.advance(max_features=position)
    kept = Kept(live, run_id, session.current().name, dict(saved.get("dataset") or {}))
    kept.recorded = (run_id, live.position)
    _keep(key, kept)
    # dropped from the pending ones only once kept: a click during the replay stops this
    # script run, and the next run replays it again
    persistence.pending_streams().pop(key, None)
    return kept


def _stream(saved: dict) -> LiveStream:
    return LiveStream(
        session.current_task(),
        None,
        saved["method"],
        order=saved.get("order", "natural"),
        seed=saved.get("seed"),
        params=saved.get("params") or {},
    )


def _keep(key: tuple, kept: Kept) -> None:
    streams = _kept()
    streams.pop(key, None)
    streams[key] = kept
    while len(streams) > MAX_KEPT:  # the oldest goes back to the workspace's pending ones
        old_key = next(iter(streams))
        old = streams.pop(old_key)
        record(old)
        if old.run_id is not None and old.live.position:
            persistence.pending_streams()[old_key] = (old.run_id, payload(old))


def start(method: str, order: str, seed: int | None, params: dict) -> Kept:
    """A new stream of the current task (it replaces the task's previous one, whose
    record stays in the workspace), recorded as started.

    Raises
    ------
    FSEngineError
        When the method refuses its parameters or the task: nothing is recorded.
    """
    loaded = session.current()
    live = LiveStream(session.current_task(), None, method, order=order, seed=seed, params=params)
    previous = _kept().get(session.task_key())
    if previous is not None:
        record(previous)
    kept = Kept(live, None, loaded.name, loaded.options)
    spec = get_method(method).spec
    kept.run_id = persistence.start_run(
        "stream",
        f"{spec.label} ({spec.settings_text(live.params) or 'no parameters'}), "
        f"{live.order_name} order ({loaded.name}, minority {live.minority})",
        payload(kept),
    )
    record(kept)  # stopped at 0 until it goes further
    _keep(session.task_key(), kept)
    return kept


def reset() -> None:
    """Drop the current task's stream from the page (its record stays in History)."""
    kept = _kept().pop(session.task_key(), None)
    if kept is not None:
        record(kept)
    set_running(False)


def is_running() -> bool:
    """Whether the current task's stream is running."""
    return st.session_state.get(RUNNING) == session.task_key()


def set_running(running: bool) -> None:
    """Run (or pause) the current task's stream."""
    st.session_state[RUNNING] = session.task_key() if running else None


def pause_others() -> Kept | None:
    """Pause a running stream of another task, recording where it stopped; returns it."""
    running = st.session_state.get(RUNNING)
    if running is None or running == session.task_key():
        return None
    st.session_state[RUNNING] = None
    kept = _kept().get(running)
    if kept is not None:
        record(kept)
    return kept


def others() -> list[Kept]:
    """The streams the session keeps for other tasks (other data sets or minority classes)."""
    key = session.task_key()
    return [kept for other, kept in _kept().items() if other != key]


def reopen(run_id: int, saved: dict, dataset_sha: str) -> None:
    """Bring back a stored stream (History's Reopen) once its task is current: replayed
    to its position, keeping its record."""
    key = session.stored_task_key(dataset_sha, saved)
    if st.session_state.get(RUNNING) == key:
        st.session_state[RUNNING] = None  # reopened paused, not playing
    kept = _kept().get(key)
    if kept is not None and kept.run_id == run_id:
        return  # already here
    if kept is not None:
        record(kept)
        _kept().pop(key)
    persistence.pending_streams()[key] = (run_id, saved)
