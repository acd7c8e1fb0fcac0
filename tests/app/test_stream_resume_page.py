"""Reopening a stopped stream shows its saved state at once (issue 40, point 6): a new
session of the workspace (a reload, a server restart) brings the stream back from its
snapshot without streaming a feature again, and Start continues it to the selection of
the command line."""

from apptest_helpers import rerun_until, session, stream_at_max_speed, workspace_id

from dashboard import streams, workspace
from fsengine import run_selection
from fsengine.methods.live import LiveStream


def _metrics(at) -> dict:
    return {m.label: m.value for m in at.metric}


def _counted_advances(monkeypatch) -> list:
    """From now on, every call of LiveStream.advance is appended to the list returned."""
    calls = []
    advance = LiveStream.advance
    monkeypatch.setattr(
        LiveStream, "advance", lambda self, *a, **k: calls.append(k) or advance(self, *a, **k)
    )
    return calls


def test_a_stopped_stream_comes_back_without_recomputing(monkeypatch, srbct):
    first = session(page="dashboard/pages/stream.py")  # the bundled SRBCT: 2,308 features
    first.select_slider(key="stream_speed").set_value("100").run()
    first.button(key="stream_start").click().run()
    (kept,) = first.session_state["streams"].values()
    # a tick's chunk is time-boxed: 100 features or fewer, as many runs as that takes
    rerun_until(first, lambda: kept.live.position >= 100, "the stream did not advance")
    first.button(key="stream_pause").click().run()
    position = kept.live.position
    assert 100 <= position < 2308
    shown = first.dataframe[0].value
    wid = workspace_id(first)

    calls = _counted_advances(monkeypatch)
    workspace.reset_default_store()  # as after a server restart
    again = session(wid, "dashboard/pages/stream.py")
    assert _metrics(again)["Features streamed"] == f"{position} / 2308"
    assert calls == []  # nothing streamed again
    assert again.dataframe[0].value.equals(shown)  # the latest events as they were

    stream_at_max_speed(again)
    (live,) = [k.live for k in again.session_state["streams"].values()]
    assert calls and live.done
    expected = run_selection(srbct, 2, "kofsd", **live.params).selection
    assert live.selection().features == expected.features


def test_a_finished_stream_leaves_its_snapshot_to_the_workspace_and_comes_back_from_it(
    monkeypatch, srbct
):
    first = session(page="dashboard/pages/stream.py")
    stream_at_max_speed(first)
    (kept,) = first.session_state["streams"].values()
    assert kept.live.finished
    # once the finish is written, the session no longer holds the snapshot (tens of MB on
    # 20,000 cells); the workspace does
    assert kept.snapshot is None and kept.snapshot_stored
    shown = first.dataframe[0].value
    selected = kept.live.selection().features
    wid = workspace_id(first)

    calls = _counted_advances(monkeypatch)
    workspace.reset_default_store()  # as after a server restart
    again = session(wid, "dashboard/pages/stream.py")
    assert _metrics(again)["Features streamed"] == "2308 / 2308"
    assert calls == []  # from the stored snapshot: nothing streamed again
    assert again.dataframe[0].value.equals(shown)
    (back,) = again.session_state["streams"].values()
    assert back.live.selection().features == selected
    assert back.snapshot is None and back.snapshot_stored
    assert selected == run_selection(srbct, 2, "kofsd", **back.live.params).selection.features


def test_a_new_session_reads_a_finished_streams_payload_only_on_its_page(monkeypatch):
    """A session's start pends each task's newest stream without reading a finished one's
    payload (a snapshot of tens of MB on 20,000 cells); the Stream page reads it once."""
    first = session(page="dashboard/pages/stream.py")
    stream_at_max_speed(first)
    (kept,) = first.session_state["streams"].values()
    wid = workspace_id(first)

    read = []
    load_run = workspace.Store.load_run
    monkeypatch.setattr(
        workspace.Store,
        "load_run",
        lambda self, w, run_id: read.append(run_id) or load_run(self, w, run_id),
    )
    workspace.reset_default_store()  # as after a server restart
    again = session(wid, "dashboard/pages/data.py")
    assert kept.run_id not in read
    assert list(again.session_state["streams_pending"].values()) == [(kept.run_id, None)]
    again.switch_page("dashboard/pages/stream.py").run()
    assert _metrics(again)["Features streamed"] == "2308 / 2308"
    assert read.count(kept.run_id) == 1


def test_a_finished_stream_sent_back_to_the_workspace_comes_back_from_it(monkeypatch, srbct):
    """With room for one stream in the session, a stream on another minority class sends
    the finished one back to the workspace's pending streams without its payload; choosing
    its class again reads it from the workspace, without streaming a feature again."""
    monkeypatch.setattr(streams, "MAX_KEPT", 1)
    at = session(page="dashboard/pages/stream.py")
    first_class = at.session_state["minority"]
    stream_at_max_speed(at)
    (kept,) = at.session_state["streams"].values()
    selected = kept.live.selection().features
    shown = at.dataframe[0].value

    other = next(c for c in srbct.class_counts() if c != first_class)
    at.switch_page("dashboard/pages/data.py").run()
    at.selectbox(key="minority_select").set_value(other).run()
    at.switch_page("dashboard/pages/stream.py").run()
    stream_at_max_speed(at)
    assert len(at.session_state["streams"]) == 1
    ((run_id, saved),) = at.session_state["streams_pending"].values()
    assert run_id == kept.run_id and saved is None  # no snapshot held in the session

    calls = _counted_advances(monkeypatch)
    at.switch_page("dashboard/pages/data.py").run()
    at.selectbox(key="minority_select").set_value(first_class).run()
    at.switch_page("dashboard/pages/stream.py").run()
    assert not at.exception
    assert calls == []
    assert _metrics(at)["Features streamed"] == "2308 / 2308"
    assert at.dataframe[0].value.equals(shown)
    back = next(k for k in at.session_state["streams"].values() if k.live.minority == first_class)
    assert back.live.selection().features == selected


def test_a_stored_stream_stays_pending_while_the_workspace_cannot_be_read(monkeypatch):
    """Reads of the workspace that fail when the stream's task is current leave the
    stream pending (not dropped, and the saving not turned off): the next run that can
    read it brings it back."""
    import sqlite3

    first = session(page="dashboard/pages/stream.py")
    stream_at_max_speed(first)
    wid = workspace_id(first)
    workspace.reset_default_store()
    loads = []

    def failing(self, *args, **kwargs):
        loads.append(args)
        raise sqlite3.OperationalError("database is locked")

    again = session(wid)  # the Data page: the finished stream pended, not read
    monkeypatch.setattr(workspace.Store, "load_run", failing)
    again.switch_page("dashboard/pages/stream.py").run()  # its reads fail
    assert len(loads) >= 1 and not again.exception
    assert not again.session_state["streams"]
    assert list(again.session_state["streams_pending"].values())[0][1] is None
    assert "workspace_problem" not in again.session_state  # the saving goes on
    monkeypatch.undo()
    again.run()
    assert _metrics(again)["Features streamed"] == "2308 / 2308"
    assert not again.session_state["streams_pending"]
