"""The Stream page's streams: one per task, kept in the session and in the workspace.

A stream belongs to the task it streams (:func:`dashboard.session.task_key`: the data
set's bytes, how they were read, and the minority class). The Stream, Genes and Export
pages and the report show only the current task's stream; another task's stream is kept
and can be named, but it is never shown, continued or exported under the current data
set's name. Only one stream runs: after another data set (or another minority class)
is loaded, the Stream page pauses it where it is, recorded as stopped under its own data
set (a stream only advances while the Stream page is drawn: its thread starts no chunk
:data:`LEASE_SECONDS` after the page's last tick).

A stream is recorded in the workspace as it goes (stopped at its position until it
reaches the end, then finished), with a snapshot of its selectors and events
(:meth:`fsengine.methods.live.LiveStream.snapshot`, taken every :data:`SNAPSHOT_SECONDS` while it
runs and whenever it pauses or ends). After a reload, a bookmarked link or a server
restart, the newest stream of each task (:func:`dashboard.persistence.pending_streams`)
is brought back when its task is current, as History's Reopen does, and keeps its
record: from its snapshot at once (only the features after the snapshot, if any, are
streamed again), else replayed to its position.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import streamlit as st
from streamlit.runtime.scriptrunner import add_script_run_ctx, get_script_run_ctx

from dashboard import persistence, reruns, session
from fsengine.methods.live import LiveStream
from fsengine.methods.registry import get_method

#: Session key: the task key of the running stream (None when none runs).
RUNNING = "stream_running"
#: A running stream's position is saved this often (a closed tab loses at most this).
RECORD_SECONDS = 2.0
#: Most streams kept in the session (the oldest other task's is dropped first).
MAX_KEPT = 4
#: A running stream's snapshot (selectors and events) is taken this often at most, and
#: never more often than every 20 times the last one took to write.
SNAPSHOT_SECONDS = 10.0
#: While the Stream page ticks, its running stream computes on in a thread of its own,
#: chunk after chunk, and starts no new chunk once this long has passed since the page's
#: last tick (another page, a closed tab); Pause stops it after the chunk in hand.
LEASE_SECONDS = 1.0
#: Seconds a pause waits for the chunk in hand to end (a chunk is time-boxed: 0.6 s at
#: most but for one slow feature).
STOP_WAIT = 1.0


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
    snapshot : dict or None
        The stream's last snapshot (:meth:`LiveStream.snapshot`), written with every
        record; None when its selector's state cannot be written, and once the stream's
        finish is written (``snapshot_stored``).
    snapshot_stored : bool
        The finished stream's snapshot is in the workspace only (read back from there
        when the stream comes back to the session).
    snapshot_at, snapshot_cost : float
        When it was taken (``time.monotonic``), and the seconds it took.
    record_cost : float
        The seconds the last write to the workspace took.
    lock : threading.Lock
        Held while the stream advances: a button press starts a new script run while the
        previous one's tick may still be computing (Streamlit's fast reruns), and a chunk
        may compute off the script thread (:func:`advance_in_background`).
    worker : threading.Thread or None
        The thread that advances it (:func:`advance_in_background`).
    record_pending : bool
        A record asked for while a chunk computed: the chunk's thread writes it.
    lease : float
        Until when (``time.monotonic``) the thread may start another chunk: renewed by
        each tick of the page, 0 once paused.
    ending : bool
        The thread has decided to end (its lease ran out): a tick starts another.
    lease_lock : threading.Lock
        Held while the lease is renewed, and while the thread decides to end.
    wake : threading.Event
        Set to end the thread's wait for its next chunk (a pause).
    progress : threading.Event
        Set by the thread after each chunk (a tick waits for it).
    step : callable or None
        What the thread calls for its next chunk, and ``every``, the least seconds from
        one chunk's start to the next (None: none): the last tick's (the speed may change
        while it runs).
    """

    live: LiveStream
    run_id: int | None
    dataset_name: str
    dataset: dict
    recorded: tuple | None = None
    recorded_at: float = 0.0
    snapshot: dict | None = None
    snapshot_stored: bool = False
    snapshot_at: float = -math.inf
    snapshot_cost: float = 0.0
    record_cost: float = 0.0
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)
    worker: threading.Thread | None = field(default=None, repr=False, compare=False)
    record_pending: bool = False
    lease: float = 0.0
    wake: threading.Event = field(default_factory=threading.Event, repr=False, compare=False)
    progress: threading.Event = field(default_factory=threading.Event, repr=False, compare=False)
    step: Callable[[LiveStream], None] | None = field(default=None, repr=False, compare=False)
    every: float | None = None
    ending: bool = False
    lease_lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

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
    return session.state.streams()


def _take_snapshot(kept: Kept, now: bool) -> None:
    """Take the stream's snapshot when ``now`` or when the last one is old enough."""
    clock = time.monotonic()
    wait = max(SNAPSHOT_SECONDS, 20 * kept.snapshot_cost)
    if kept.snapshot is not None and (
        kept.snapshot["position"],
        kept.snapshot.get("holdout_position"),
    ) == (kept.live.position, kept.live.holdout_position):
        return
    if not now and clock - kept.snapshot_at < wait:
        return
    try:
        kept.snapshot = kept.live.snapshot()
    except TypeError:  # a state the format cannot hold: the stream is replayed instead
        kept.snapshot = None
    kept.snapshot_at = time.monotonic()
    kept.snapshot_cost = kept.snapshot_at - clock


def payload(kept: Kept) -> dict:
    """What the workspace keeps of a stream: enough to bring it back (its settings and,
    when it can be taken, a snapshot to resume from), and its outcome."""
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
        "snapshot": kept.snapshot,
    }


def record(kept: Kept, snapshot: bool = True) -> None:
    """Write the stream to the workspace: finished at its end, else stopped where it is
    (a paused stream, a closed tab and a reset are never shown as finished), with a
    snapshot taken now (``snapshot``), else the last one if recent enough."""
    if not kept.lock.acquire(blocking=False):  # a chunk computes: written after it
        kept.record_pending = True
        return
    try:
        _record(kept, snapshot)
    finally:
        kept.lock.release()


def _record(kept: Kept, snapshot: bool) -> None:
    kept.recorded_at = time.monotonic()
    live = kept.live
    where = (kept.run_id, live.position, live.holdout_position)
    if kept.run_id is None or kept.recorded == where:
        return
    _take_snapshot(kept, snapshot or live.finished)
    began = time.monotonic()
    if live.finished:  # a finish is final: not before the hold-out copy's end
        if persistence.finish_run(kept.run_id, payload(kept), live.seconds) and (
            persistence.store() is not None
        ):
            kept.snapshot = None  # the workspace holds it (tens of MB on 20,000 cells)
            kept.snapshot_stored = True
    else:
        persistence.stop_run(kept.run_id, payload(kept), live.seconds)
    kept.recorded = where
    kept.record_cost = time.monotonic() - began


def busy(kept: Kept) -> bool:
    """Whether a chunk of the stream computes (:func:`advance_in_background`)."""
    return kept.worker is not None and kept.worker.is_alive()


def advance_in_background(kept: Kept, chunk, wait: float, every: float | None = None) -> bool:
    """Keep the stream advancing by ``chunk(live)`` in a thread of its own while the page
    ticks, and wait up to ``wait`` seconds for its next chunk to end; returns whether none
    ended by then (the page then draws the stream as it was, and stays live: Pause,
    another page).

    Each call renews the thread's lease (:data:`LEASE_SECONDS`): the thread computes
    chunk after chunk, one every ``every`` seconds at most (None: back to back, as fast as
    the selector goes), also while the page draws, until the stream and its hold-out copy
    are finished, or the lease runs out (the page is no longer drawn), or
    :func:`stop_advancing`. One thread at a time; a record asked for meanwhile is written
    after the chunk.

    Parameters
    ----------
    kept : Kept
    chunk : callable
        ``chunk(live)`` advances the :class:`~fsengine.methods.live.LiveStream` a time-boxed step.
    wait : float
        Seconds to wait for a chunk to end.
    every : float, optional
        Least seconds from the start of one chunk to the start of the next.

    Returns
    -------
    bool
        Whether no chunk ended within ``wait``.
    """
    kept.step, kept.every = chunk, every  # the thread takes them at its next chunk
    kept.progress.clear()
    with kept.lease_lock:
        kept.lease = time.monotonic() + LEASE_SECONDS
        going_on = busy(kept) and not kept.ending
        if not going_on:
            kept.ending = False
            kept.wake.clear()
    if not going_on:
        ctx = get_script_run_ctx()

        def ends() -> bool:
            with kept.lease_lock:
                kept.ending = (
                    kept.live.finished or kept.wake.is_set() or time.monotonic() >= kept.lease
                )
                return kept.ending

        def run() -> None:
            while True:
                began = time.monotonic()
                with kept.lock:
                    if not kept.live.finished:
                        kept.step(kept.live)
                kept.progress.set()
                if kept.record_pending:
                    kept.record_pending = False
                    try:
                        record(kept)
                    except Exception:  # noqa: BLE001 - the session may be gone; the next record
                        pass
                if ends():
                    return
                if kept.every is not None:
                    kept.wake.wait(max(0.0, kept.every - (time.monotonic() - began)))
                    if ends():
                        return

        kept.worker = threading.Thread(target=run, name="fsengine-stream-chunk", daemon=True)
        add_script_run_ctx(kept.worker, ctx)  # its record reads the session
        kept.worker.start()
    return not kept.progress.wait(wait)


def stop_advancing(kept: Kept, wait: float = STOP_WAIT) -> bool:
    """Stop the stream's thread after the chunk in hand (a pause), waiting up to ``wait``
    seconds for it; returns whether it still computes."""
    with kept.lease_lock:
        kept.lease = 0.0
        kept.wake.set()
    if busy(kept):
        kept.worker.join(wait)
    return busy(kept)


def record_if_due(kept: Kept) -> None:
    """:func:`record` when the last write is :data:`RECORD_SECONDS` old, or 20 times the
    last write's time (a large snapshot) if longer."""
    if time.monotonic() - kept.recorded_at >= max(RECORD_SECONDS, 20 * kept.record_cost):
        record(kept, snapshot=False)


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
    from_workspace = saved is None  # pended by the session's start, or finished and stored
    if from_workspace:
        readable, saved = persistence.stored_payload(run_id)
        if not readable:  # kept pending: the workspace may be readable at the next run
            return None
        if saved is None:  # no longer in the workspace (deleted, or its size cap)
            persistence.pending_streams().pop(key, None)
            return None
    try:
        live = _stream(saved)
    except Exception:  # noqa: BLE001 - a record that no longer replays is left in History
        persistence.pending_streams().pop(key, None)
        return None
    position = int(saved.get("position", live.total) or 0)
    snapshot = saved.get("snapshot")
    if snapshot and int(snapshot.get("position", 0)) <= position:
        try:
            live.resume(snapshot)  # seconds, whatever the position
        except (ValueError, KeyError, TypeError):
            live = _stream(saved)  # replayed below
    if position > live.position:
        with st.spinner(f"Bringing back your stream ({position - live.position:,} features) ..."):
            live.advance(max_features=position - live.position)
    kept = Kept(live, run_id, session.current().name, dict(saved.get("dataset") or {}))
    if live.finished and from_workspace:
        kept.snapshot_stored = True  # kept by the workspace, not in memory
    elif snapshot and snapshot.get("position") == live.position:
        kept.snapshot = snapshot
    kept.recorded = (run_id, live.position, live.holdout_position)
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
        with reruns.uninterrupted():  # never out of the session and not yet pending
            old_key = next(iter(streams))
            old = streams.pop(old_key)
            stop_advancing(old)
            record(old)
            if old.run_id is not None and old.live.position:
                saved = None if old.snapshot_stored else payload(old)  # None: read it back
                persistence.pending_streams()[old_key] = (old.run_id, saved)


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
        stop_advancing(previous)
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
        stop_advancing(kept)
        record(kept)
    set_running(False)


def is_running() -> bool:
    """Whether the current task's stream is running."""
    return st.session_state.get(RUNNING) == session.task_key()


def set_running(running: bool) -> None:
    """Run (or pause) the current task's stream; a pause stops its thread after the chunk
    in hand (:func:`stop_advancing`)."""
    st.session_state[RUNNING] = session.task_key() if running else None
    kept = None if running else _kept().get(session.task_key())
    if kept is not None:
        stop_advancing(kept)


def pause_others() -> Kept | None:
    """Pause a running stream of another task, recording where it stopped; returns it."""
    running = st.session_state.get(RUNNING)
    if running is None or running == session.task_key():
        return None
    with reruns.uninterrupted():  # paused and recorded where it stopped
        st.session_state[RUNNING] = None
        kept = _kept().get(running)
        if kept is not None:
            stop_advancing(kept)
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
        stop_advancing(kept)
        record(kept)
        _kept().pop(key)
    persistence.pending_streams()[key] = (run_id, saved)
