"""Reopening a stopped stream shows its saved state at once (issue 40, point 6): a new
session of the workspace (a reload, a server restart) brings the stream back from its
snapshot without streaming a feature again, and Start continues it to the selection of
the command line."""

from apptest_helpers import rerun_until, session, stream_at_max_speed, workspace_id

from dashboard import workspace
from fsengine import run_selection
from fsengine.methods.live import LiveStream


def _metrics(at) -> dict:
    return {m.label: m.value for m in at.metric}


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

    calls = []
    advance = LiveStream.advance
    monkeypatch.setattr(
        LiveStream, "advance", lambda self, *a, **k: calls.append(k) or advance(self, *a, **k)
    )
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
