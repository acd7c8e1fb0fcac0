"""Helpers shared by the AppTest modules: open a page, click a button, read figures."""

import json
import threading
import time

from streamlit.testing.v1 import AppTest

from conftest import ROOT, SLOW_SECONDS
from dashboard import streams

#: K-OFSD's K on the dashboard's pages for the sample (SRBCT, minority class 2 of 11
#: samples): a training half holds as few as 6 of them, at or below the paper's K = 7, so
#: the pages start at the largest K below 6 (fsengine.evaluation.protocol_defaults; the
#: count is checked by hand in tests/unit/evaluation/test_protocol_defaults.py).
SAMPLE_K = 5


def open_page(page: str) -> AppTest:
    """A new session of the app, switched to ``page`` (a file under views/)."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=SLOW_SECONDS).run()
    at.switch_page(page).run()
    assert not at.exception
    return at


def click(at: AppTest, label: str) -> None:
    """Click the button labelled ``label`` and run the script."""
    next(b for b in at.button if b.label == label).click().run()
    assert not at.exception


def stream_at_max_speed(at: AppTest) -> None:
    """On the Stream page: speed "max", press Start, rerun until the stream stops (for
    :data:`SLOW_SECONDS` at most: how many reruns that takes depends on the machine)."""
    at.select_slider(key="stream_speed").set_value("max").run()
    at.button(key="stream_start").click().run()
    rerun_until(at, lambda: not at.session_state["stream_running"], "the stream did not end")


def rerun_until(at: AppTest, done, what: str) -> None:
    """Run the script again until ``done()`` holds: as many runs as this machine needs
    (AppTest does not tick fragments by itself), for :data:`SLOW_SECONDS` at most, then
    fail with ``what``."""
    deadline = time.monotonic() + SLOW_SECONDS
    while not done():
        assert time.monotonic() < deadline, what
        at.run()


def wait_until(done, what: str) -> None:
    """Wait (no run of the script) until ``done()`` holds, for :data:`SLOW_SECONDS` at
    most, then fail with ``what``."""
    deadline = time.monotonic() + SLOW_SECONDS
    while not done():
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


def held_stream(monkeypatch) -> threading.Event:
    """Hold the Stream page's chunks (they compute off the script thread) until the
    returned event is set: a stream started then cannot end within the run that started
    it, however fast the machine. Set within :data:`SLOW_SECONDS`."""
    release = threading.Event()
    advance = streams.advance_in_background

    def held(kept, chunk, *args, **kwargs):
        def chunk_when_released(live) -> None:
            release.wait(SLOW_SECONDS)
            chunk(live)

        return advance(kept, chunk_when_released, *args, **kwargs)

    monkeypatch.setattr(streams, "advance_in_background", held)
    return release


def figures(at: AppTest) -> list[dict]:
    """Every plotly chart on the page, as figure JSON."""
    return [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]


def session(ws: str | None = None, page: str | None = None) -> AppTest:
    """A new session of the app, in workspace ``ws`` if given, switched to ``page``."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=SLOW_SECONDS)
    if ws is not None:
        at.query_params["ws"] = ws
    at.run()
    if page:
        at.switch_page(page).run()
    assert not at.exception
    return at


def workspace_id(at: AppTest) -> str:
    """The workspace id the session put in its address (``?ws=``)."""
    found = at.query_params["ws"]
    return found[0] if isinstance(found, list) else found
