"""A rerun the app asks for itself (dashboard.reruns) never loses the user's click.

The CI failure this comes from: the data-directory browser test clicked the Data page's
link while K-OFSD streamed; the browser stayed on the Stream page for 10 minutes. The
stream had ended in the meantime, and the page's ``st.rerun()`` (record the end, draw it)
was merged with the pending click under the Stream page."""

from __future__ import annotations

import pytest
from apptest_helpers import held_stream, open_page, wait_until
from streamlit.runtime.scriptrunner import RerunData, get_script_run_ctx
from streamlit.runtime.scriptrunner_utils.script_requests import (
    ScriptRequests,
    ScriptRequestType,
)

from conftest import SLOW_SECONDS
from dashboard import streams
from dashboard.pages import PAGES
from dashboard.reruns import request_unless_pending

CLICK = RerunData(page_script_hash="data-page", query_string="ws=a")  # a sidebar link
OWN = RerunData(page_script_hash="stream-page", query_string="ws=a")  # the page's rerun
TIMER = RerunData(page_script_hash="stream-page", fragment_id="tick", is_auto_rerun=True)


def _next_run(requests: ScriptRequests) -> RerunData:
    """What the script runner runs next, as it asks at its next element."""
    request = requests.on_scriptrunner_yield()
    assert request is not None and request.type is ScriptRequestType.RERUN
    return request.rerun_data


def test_streamlit_merges_a_click_under_the_last_requests_page():
    """Why dashboard.reruns exists: with plain ``request_rerun`` (``st.rerun()``) the
    page's own rerun, arriving after the click, wins the page. Should a Streamlit release
    keep the click, this fails and the workaround can go."""
    requests = ScriptRequests()
    requests.request_rerun(CLICK)
    requests.request_rerun(OWN)
    assert _next_run(requests).page_script_hash == "stream-page"


def test_a_pending_click_on_another_page_is_kept():
    requests = ScriptRequests()
    requests.request_rerun(CLICK)
    assert request_unless_pending(requests, OWN) is False
    assert _next_run(requests).page_script_hash == "data-page"


def test_a_pending_timer_tick_becomes_a_run_of_the_whole_page():
    requests = ScriptRequests()
    requests.request_rerun(TIMER)
    assert requests.on_scriptrunner_yield() is None  # a tick waits for the run to end
    assert request_unless_pending(requests, OWN) is True
    run = _next_run(requests)  # the page's rerun ends the run at once
    assert run.page_script_hash == "stream-page"
    assert run.fragment_id_queue == [] and not run.is_fragment_scoped_rerun


def test_with_nothing_pending_the_page_reruns():
    requests = ScriptRequests()
    assert request_unless_pending(requests, OWN) is True
    assert _next_run(requests).page_script_hash == "stream-page"


def test_a_stopping_script_is_not_rerun():
    requests = ScriptRequests()
    requests.request_stop()
    assert request_unless_pending(requests, OWN) is False
    assert requests.on_scriptrunner_yield().type is ScriptRequestType.STOP


def test_a_click_on_the_data_page_as_the_stream_ends_opens_the_data_page(monkeypatch):
    """The whole app: a stream ends between two runs of the Stream page; while the next
    run records the end, the user's click on the Data page's link arrives (queued at that
    moment, as Streamlit's server thread queues it). The page drawn next is the Data page,
    not the Stream page again (as it was with ``st.rerun()``)."""
    monkeypatch.setattr(streams, "LEASE_SECONDS", SLOW_SECONDS)
    release = held_stream(monkeypatch)
    record = streams.record
    clicked = []

    def record_then_click(kept, *args, **kwargs):
        record(kept, *args, **kwargs)
        ctx = get_script_run_ctx()
        if clicked or ctx is None or not kept.live.finished:
            return
        data_page = next(
            page_hash
            for page_hash, info in ctx.pages_manager.get_pages().items()
            if str(info.get("script_path", "")).endswith("dashboard/pages/data.py")
        )
        ctx.script_requests.request_rerun(
            RerunData(page_script_hash=data_page, query_string=ctx.query_string)
        )
        clicked.append(data_page)

    monkeypatch.setattr(streams, "record", record_then_click)
    at = open_page("dashboard/pages/stream.py")
    at.select_slider(key="stream_speed").set_value("max").run()
    at.button(key="stream_start").click().run()
    assert at.session_state["stream_running"] is not None and not clicked
    (kept,) = at.session_state["streams"].values()
    release.set()
    wait_until(lambda: kept.live.finished, "the stream did not end")  # no run meanwhile
    at.run()
    assert clicked, "the run after the end did not record it"
    assert not at.exception
    assert [t.value for t in at.title] == ["Data"]


def _values_sent(at) -> list[str]:
    """The keys of the enabled widgets whose value this run sends to the browser, which
    puts it in place of the one it shows (``set_value``). A disabled widget is left out:
    Streamlit sends its value back itself, and the user cannot change it."""
    sent = []

    def walk(node) -> None:
        proto = getattr(node, "proto", None)
        if getattr(proto, "set_value", False) and not getattr(proto, "disabled", False):
            sent.append(getattr(node, "key", None) or proto.id)
        for child in getattr(node, "children", {}).values():
            walk(child)

    walk(at.main)
    walk(at.sidebar)
    return sent


@pytest.mark.parametrize("script", [page.script for page in PAGES])
def test_a_rerun_sends_no_widget_value_back(script):
    """The cause of a lost second click (a Compare method removed, then another removed
    before the first removal's run had ended: the first came back): every run set every
    widget's remembered value, and each run sent them all to the browser, which put the
    value of the first click in place of the second. A run now sends a widget's value only
    when the code changes it."""
    at = open_page(script)
    at.run()
    assert not at.exception
    assert _values_sent(at) == []


def test_a_removed_method_is_not_sent_back():
    at = open_page("dashboard/pages/compare.py")
    methods = at.multiselect(key="compare_methods")
    first = methods.value[0]
    methods.unselect(first).run()
    assert not at.exception
    assert first not in at.multiselect(key="compare_methods").value
    assert _values_sent(at) == []
    at.switch_page("dashboard/pages/data.py").run()
    at.switch_page("dashboard/pages/compare.py").run()  # drawn again: its remembered value, sent
    assert first not in at.multiselect(key="compare_methods").value
    assert "compare_methods" in _values_sent(at)
