"""A rerun the app asks for itself (dashboard.reruns) never loses the user's click.

The CI failure this comes from: the data-directory browser test clicked the Data page's
link while K-OFSD streamed; the browser stayed on the Stream page for 10 minutes. The
stream had ended in the meantime, and the page's ``st.rerun()`` (record the end, draw it)
was merged with the pending click under the Stream page.

The later tests queue a link's click while a run, or a widget's callback, is halfway
(Streamlit ends either at its next use of the session state): a press, a class chosen or
a setting changed just before the click is never lost, and a run is never recorded
twice or left "running" (the loaded fresh-clone run's failure of 2 December)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from apptest_helpers import held_stream, open_page, session, wait_until, workspace_id
from streamlit.proto.WidgetStates_pb2 import WidgetStates
from streamlit.runtime.scriptrunner import RerunData, get_script_run_ctx
from streamlit.runtime.scriptrunner_utils.script_requests import (
    ScriptRequests,
    ScriptRequestType,
)

from conftest import SLOW_SECONDS
from dashboard import reruns, streams
from dashboard import session as session_module
from dashboard.pages import PAGES
from dashboard.reruns import request_unless_pending

CLICK = RerunData(page_script_hash="data-page", query_string="ws=a")  # a sidebar link
OWN = RerunData(page_script_hash="stream-page", query_string="ws=a")  # the page's rerun
DATA = "dashboard/pages/data.py"
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


def _page_hash(at, page: str) -> str:
    """The script hash of ``page`` (a file under dashboard/pages/), read while ``at`` runs
    (Streamlit's pages are known inside a run of the app)."""
    found = []
    real = session_module.current

    def current_and_look():
        ctx = get_script_run_ctx()
        found.extend(
            page_hash
            for page_hash, info in ctx.pages_manager.get_pages().items()
            if str(info.get("script_path", "")).endswith(page)
        )
        return real()

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(session_module, "current", current_and_look)
        at.run()
    return found[0]


def _click_a_link_once(monkeypatch, module, name: str, page_hash: str) -> list:
    """Wrap ``module.name`` so that its first call in a script run, once done, queues a
    click on the link of the page ``page_hash``, as Streamlit's server thread queues one
    that arrives at that moment: the script's next use of its session state (or next
    element) ends the run. Returns the clicks queued (one at most)."""
    real = getattr(module, name)
    clicked = []

    def call_then_click(*args, **kwargs):
        result = real(*args, **kwargs)
        ctx = get_script_run_ctx()
        if not clicked and ctx is not None and ctx.script_requests is not None:
            ctx.script_requests.request_rerun(
                RerunData(page_script_hash=page_hash, query_string=ctx.query_string)
            )
            clicked.append(page_hash)
        return result

    monkeypatch.setattr(module, name, call_then_click)
    return clicked


def _runs_of(at, kind: str) -> list:
    from dashboard import workspace

    return [r for r in workspace.default_store().list_runs(workspace_id(at)) if r.kind == kind]


@pytest.mark.parametrize("moment", ["callback", "start"])
def test_start_with_a_link_clicked_at_once_streams_once(monkeypatch, moment):
    """Start pressed, and another page's link clicked while Streamlit runs the widgets'
    callbacks ("callback": it ends a callback at its first use of the session state when
    a click waits), or while the run for the press starts the stream ("start": the
    loaded fresh-clone run's failure in the data-directory browser test; it ends a run
    likewise). The Data page is drawn; the Stream page opened again streams, and
    History holds that one stream, not a second one or a record left running."""
    from streamlit.runtime.state.session_state import SessionState

    from dashboard import persistence

    monkeypatch.setattr(streams, "LEASE_SECONDS", SLOW_SECONDS)
    held_stream(monkeypatch)
    at = open_page("dashboard/pages/stream.py")
    where = {"callback": (SessionState, "_reset_triggers"), "start": (persistence, "start_run")}
    clicked = _click_a_link_once(monkeypatch, *where[moment], _page_hash(at, DATA))
    at.button(key="stream_start").click().run()
    assert clicked and not at.exception
    assert [t.value for t in at.title] == ["Data"]
    at.switch_page("dashboard/pages/stream.py").run()
    assert not at.exception
    assert at.session_state[streams.RUNNING] is not None
    (kept,) = at.session_state["streams"].values()
    assert [r.id for r in _runs_of(at, "stream")] == [kept.run_id]
    at.run()
    assert [r.id for r in _runs_of(at, "stream")] == [kept.run_id]  # taken once


def test_a_link_clicked_while_the_comparison_starts_runs_it_once(monkeypatch):
    """Run comparison pressed, another page's link clicked while the run for the press
    was recording the comparison: Compare opened again shows the comparison, computed
    once, and History holds that one run, finished."""
    from dashboard import persistence

    at = session(page="dashboard/pages/compare.py")
    at.multiselect(key="compare_methods").set_value(["fisher"]).run()
    at.slider(key="compare_splits").set_value(2).run()
    clicked = _click_a_link_once(monkeypatch, persistence, "start_run", _page_hash(at, DATA))
    next(b for b in at.button if b.label == "Run comparison").click().run()
    assert clicked and not at.exception
    assert [t.value for t in at.title] == ["Data"]
    at.switch_page("dashboard/pages/compare.py").run()
    assert not at.exception
    wait_until(lambda: all(r.status != "running" for r in _runs_of(at, "compare")), "no end")
    at.run()
    assert [r.status for r in _runs_of(at, "compare")] == ["finished"]
    assert at.session_state["compare_results_computed"] == 1


def test_a_class_chosen_as_a_link_is_clicked_is_the_next_pages_class(monkeypatch):
    """The minority class chosen on the Data page, and the Compare page's link clicked
    while Streamlit runs the choice's callback (the CI failure of issue 43: Compare
    found with the class not chosen): Compare runs on the class chosen."""
    from streamlit.runtime.state.session_state import SessionState

    at = open_page(DATA)
    chosen = at.session_state["minority"]
    other = next(c for c in at.session_state["data"].dataset.class_counts() if c != chosen)
    compare = _page_hash(at, "dashboard/pages/compare.py")
    clicked = _click_a_link_once(monkeypatch, SessionState, "_reset_triggers", compare)
    at.selectbox(key="minority_select").set_value(other).run()
    assert clicked and not at.exception
    assert [t.value for t in at.title] == ["Compare"]
    assert at.session_state["minority"] == other
    monkeypatch.undo()
    at.switch_page(DATA).run()
    assert at.session_state["minority"] == other
    assert at.selectbox(key="minority_select").value == other


def test_a_setting_changed_as_a_link_is_clicked_is_kept_for_the_page(monkeypatch):
    """Compare's number of splits changed, and the Data page's link clicked while its
    callback runs: Compare opened again shows the number chosen, not the one before."""
    from streamlit.runtime.state.session_state import SessionState

    at = open_page("dashboard/pages/compare.py")
    before = at.slider(key="compare_splits").value
    chosen = 3 if before != 3 else 4
    clicked = _click_a_link_once(monkeypatch, SessionState, "_reset_triggers", _page_hash(at, DATA))
    at.slider(key="compare_splits").set_value(chosen).run()
    assert clicked and not at.exception
    assert [t.value for t in at.title] == ["Data"]
    monkeypatch.undo()
    at.switch_page("dashboard/pages/compare.py").run()
    assert not at.exception
    assert at.slider(key="compare_splits").value == chosen


def test_a_link_clicked_while_a_run_reopens_leaves_no_half_reopened_run(monkeypatch):
    """History's Reopen, and the Data page's link clicked while it brings the run back
    (after reading the run, before its class and settings): the run is reopened whole,
    its class and its Compare settings, not the data set alone."""
    from dashboard import workspace

    at = session(page="dashboard/pages/compare.py")
    at.multiselect(key="compare_methods").set_value(["fisher"]).run()
    at.slider(key="compare_splits").set_value(2).run()
    next(b for b in at.button if b.label == "Run comparison").click().run()
    ran_on = at.session_state["minority"]
    at.switch_page(DATA).run()
    classes = at.session_state["data"].dataset.class_counts()
    at.selectbox(key="minority_select").set_value(next(c for c in classes if c != ran_on)).run()
    at.switch_page("dashboard/pages/compare.py").run()
    at.slider(key="compare_splits").set_value(5).run()  # the other class's own settings
    at.switch_page("dashboard/pages/history.py").run()
    at.session_state["history_table"] = {"selection": {"rows": [0], "columns": []}}
    at.run()
    clicked = _click_a_link_once(monkeypatch, workspace.Store, "load_run", _page_hash(at, DATA))
    next(b for b in at.button if b.label == "Reopen").click().run()
    assert clicked and not at.exception
    monkeypatch.undo()
    assert [t.value for t in at.title] == ["Data"]  # the link clicked last
    assert at.session_state["minority"] == ran_on
    at.switch_page("dashboard/pages/compare.py").run()
    assert at.slider(key="compare_splits").value == 2


def test_a_file_read_as_a_link_is_clicked_is_the_data_set_of_the_next_page(monkeypatch):
    """A file uploaded, and Compare's link clicked while it is read (the reading's spinner
    is an element, where Streamlit ends a callback when a click waits): Compare opens
    on the file uploaded, not on the data set before it."""
    from test_task_settings import ALPHA

    from dashboard.memory import DATASETS

    at = open_page(DATA)
    compare = _page_hash(at, "dashboard/pages/compare.py")
    DATASETS.clear()  # read now, not taken from an earlier test's reading in this process
    clicked = _click_a_link_once(monkeypatch, session_module, "load_dataset", compare)
    at.file_uploader(key="uploader").set_value((*ALPHA, "text/csv")).run()
    assert clicked and not at.exception
    assert [t.value for t in at.title] == ["Compare"]
    assert at.session_state["data"].name == ALPHA[0]


def test_compute_selection_pressed_just_before_another_page_link_computes_it():
    """Export's Compute selection pressed, then the Data page's link clicked before the
    server ran Export for it (Streamlit runs the Data page with the press): Export
    opened again computes the selection (once), as Start and Run comparison do."""
    at = open_page("dashboard/pages/export.py")
    at.button(key="export_compute").click()
    at.switch_page(DATA).run()
    assert not at.exception
    at.switch_page("dashboard/pages/export.py").run()
    assert not at.exception
    assert not any("Press Compute selection" in i.value for i in at.info)
    assert at.get("download_button")
    (selection,) = at.session_state["export_results"]["results"].values()
    at.run()
    (again,) = at.session_state["export_results"]["results"].values()
    assert again is selection  # taken once


def test_a_press_kept_for_a_button_its_page_no_longer_draws_never_fires_by_itself():
    """Reopen pressed, then the Data page's link clicked before History ran for it (the
    press is kept); History drawn again with no run selected (no Reopen button): the
    press goes. Selecting that run again later does not reopen it by itself."""
    at = session(page="dashboard/pages/compare.py")
    at.multiselect(key="compare_methods").set_value(["fisher"]).run()
    at.slider(key="compare_splits").set_value(2).run()
    next(b for b in at.button if b.label == "Run comparison").click().run()
    at.switch_page("dashboard/pages/history.py").run()
    selected = {"selection": {"rows": [0], "columns": []}}
    at.session_state["history_table"] = selected
    at.run()
    next(b for b in at.button if b.label == "Reopen").click()
    at.switch_page(DATA).run()
    assert not at.exception
    at.switch_page("dashboard/pages/history.py")
    at.session_state["history_table"] = {"selection": {"rows": [], "columns": []}}
    at.run()
    assert not any(b.label == "Reopen" for b in at.button)
    at.session_state["history_table"] = selected
    at.run()
    assert not at.exception
    assert [t.value for t in at.title] == ["History"]


def _press(widget_id: str) -> WidgetStates:
    states = WidgetStates()
    state = states.widgets.add()
    state.id, state.trigger_value = widget_id, True
    return states


def test_streamlit_puts_an_earlier_waiting_click_after_a_later_one():
    """Why :class:`dashboard.reruns.PressClock` reverses the order of the callbacks of one
    run: two clicks merged by the request queue (the second arrives before the script
    took the first) come out with the earlier click's trigger last, and Streamlit calls
    the callbacks in that order. Should a release keep the clicks' order, this fails."""
    requests = ScriptRequests()
    slider = WidgetStates()
    moved = slider.widgets.add()
    moved.id, moved.double_value = "speed", 1.0
    later = _press("start")
    later.widgets.extend(slider.widgets)
    requests.request_rerun(RerunData(widget_states=_press("reset"), page_script_hash="s"))
    requests.request_rerun(RerunData(widget_states=later, page_script_hash="s"))
    assert [w.id for w in _next_run(requests).widget_states.widgets] == [
        "start",
        "speed",
        "reset",
    ]


def test_the_press_clock_orders_runs_then_reverses_callbacks_within_a_run(monkeypatch):
    """Presses whose callbacks ran in different runs come in the runs' order; those of
    one run in the reverse of the callbacks' order (the earlier click's last)."""
    runs = [SimpleNamespace(cursors={}) for _ in range(3)]
    current = []
    monkeypatch.setattr(reruns, "get_script_run_ctx", lambda: current[-1])
    clock = reruns.PressClock()
    ticks = {}
    for run, names in zip(runs, (["reset"], ["start", "pause"], ["step"])):
        current.append(run)
        for name in names:
            ticks[name] = clock.tick()
    assert sorted(ticks, key=ticks.get) == ["reset", "pause", "start", "step"]


def _click_at_the_next_runs_start(monkeypatch, widget_id: str) -> list:
    """Click ``widget_id`` as the next run of the Stream page begins (when it reads the
    kept stream, before its buttons): Streamlit ends that run and takes both clicks in
    the run after it. Returns the list the click is appended to once made."""
    real, clicked = streams.current, []

    def current_with_a_click():
        ctx = get_script_run_ctx()
        if not clicked:
            ctx.script_requests.request_rerun(
                RerunData(
                    widget_states=_press(widget_id),
                    page_script_hash=ctx.page_script_hash,
                    query_string=ctx.query_string,
                )
            )
            clicked.append(widget_id)
        return real()

    monkeypatch.setattr(streams, "current", current_with_a_click)
    return clicked


def test_reset_then_start_before_the_reset_was_done_streams(monkeypatch):
    """Reset pressed, and Start clicked while the run for Reset began (Streamlit ends it
    before it reaches the Reset button; the press is kept): the next run takes both
    presses, and does them in the order they were made, Reset then Start. The stream
    runs. (The loaded data-directory browser test's failure of 3 December: Start was done
    first, then the Reset dropped the stream just started; the page said 'Press Start'.)"""
    monkeypatch.setattr(streams, "LEASE_SECONDS", SLOW_SECONDS)
    held_stream(monkeypatch)
    at = open_page("dashboard/pages/stream.py")
    clicked = _click_at_the_next_runs_start(monkeypatch, at.button(key="stream_start").id)
    at.button(key="stream_reset").click().run()
    assert clicked and not at.exception
    assert at.session_state[streams.RUNNING] is not None
    (kept,) = at.session_state["streams"].values()
    assert [r.id for r in _runs_of(at, "stream")] == [kept.run_id]
    assert not any("Press Start" in info.value for info in at.info)


def test_reset_then_start_anyway_before_the_reset_was_done_streams(monkeypatch):
    """As Reset then Start, with a long stream's question answered "Start anyway": the
    answer is done where it was pressed, after the Reset (it was done first, as Start's,
    and the Reset dropped the stream it started)."""
    from dashboard import running

    monkeypatch.setattr(streams, "LEASE_SECONDS", SLOW_SECONDS)
    held_stream(monkeypatch)
    long = SimpleNamespace(long=True, high=3600.0, text=lambda: "about an hour")
    monkeypatch.setattr(running, "estimate_for", lambda seconds: long)
    at = open_page("dashboard/pages/stream.py")
    at.button(key="stream_start").click().run()
    assert any("would compute for" in w.value for w in at.warning)
    assert not at.session_state["streams"]
    clicked = _click_at_the_next_runs_start(monkeypatch, at.button(key="stream_confirm_start").id)
    at.button(key="stream_reset").click().run()
    assert clicked and not at.exception
    assert at.session_state[streams.RUNNING] is not None
    (kept,) = at.session_state["streams"].values()
    assert [r.id for r in _runs_of(at, "stream")] == [kept.run_id]
    assert not any("would compute for" in w.value for w in at.warning)


#: The AppTest element lists of the widget kinds the pages draw.
_WIDGET_KINDS = (
    "selectbox",
    "radio",
    "multiselect",
    "select_slider",
    "slider",
    "number_input",
    "checkbox",
    "toggle",
    "text_input",
)


def _starts_at_its_value(widget) -> bool:
    """Whether a browser new to ``widget`` (one that never got a value set from the code)
    draws it at the value its key holds: its default is that value."""
    proto, value = widget.proto, widget.value
    kind = type(widget).__name__
    if kind in ("Selectbox", "Radio"):
        return (proto.default if proto.HasField("default") else None) == widget.index
    if kind == "Multiselect":
        return list(proto.default) == list(widget.indices)
    values = list(value) if isinstance(value, (tuple, list)) else [value]
    if kind == "SelectSlider":
        shown = [widget.format_func(v) for v in values]
        return [proto.options[int(i)] for i in proto.default] == shown
    if kind == "Slider":
        return list(proto.default) == [float(v) for v in values]
    if kind in ("NumberInput", "TextInput"):
        return (proto.default if proto.HasField("default") else None) == value
    return proto.default == value  # a checkbox or a toggle


def _keyed_widgets(at) -> list:
    return [w for kind in _WIDGET_KINDS for w in getattr(at, kind) if w.key]


def _drawn_again(at, script: str) -> None:
    """Open another page and ``script`` again: Streamlit forgets the widgets a run does not
    draw, and the page sets their remembered values from the code."""
    other = next(page.script for page in PAGES if page.script != script)
    at.switch_page(other).run()
    at.switch_page(script).run()
    assert not at.exception


@pytest.mark.parametrize("script", [page.script for page in PAGES])
def test_a_browser_new_to_a_widget_starts_it_at_the_value_its_key_holds(script):
    """The loaded data-directory browser test of 3 December streamed K-OFSD with K = 1 and
    alpha = 0: the Stream page's first run set the remembered values and was ended by a
    click before its elements reached the browser; the next run sent no value (the keys
    held them already), and the browser, new to the widgets, started them at their
    defaults, the lowest value and the first option, and sent those back as a change.
    Every keyed widget of every page now starts at the value its key holds."""
    at = open_page(script)
    _drawn_again(at, script)
    wrong = [w.key for w in _keyed_widgets(at) if not _starts_at_its_value(w)]
    assert wrong == []


@pytest.mark.parametrize(
    ("script", "changes"),
    [
        (
            "dashboard/pages/sweep.py",
            [("slider", "sweep_splits", 7), ("selectbox", "sweep_method", "ofs-fpd")],
        ),
        (
            "dashboard/pages/export.py",
            [("selectbox", "export_method", "fisher"), ("number_input", "export_top", 12)],
        ),
        (
            "dashboard/pages/genes.py",
            [
                ("selectbox", "genes_stability_method", "ofs-fpd"),
                ("slider", "genes_stability_orders", 9),
            ],
        ),
        (
            "dashboard/pages/benchmark.py",
            [
                ("radio", "benchmark_engine", "serial"),
                ("select_slider", "benchmark_alpha", 0.01),
                ("slider", "benchmark_splits", 5),
            ],
        ),
    ],
)
def test_a_pages_changed_settings_are_where_a_new_browser_starts_them(script, changes):
    """Settings changed away from their defaults (and from the widgets' first option or
    lowest value), drawn again from the code after a page switch: each widget starts at
    its value."""
    at = open_page(script)
    for kind, key, value in changes:
        getattr(at, kind)(key=key).set_value(value).run()
        assert not at.exception
    _drawn_again(at, script)
    for kind, key, value in changes:
        assert getattr(at, kind)(key=key).value == value, key
    wrong = [w.key for w in _keyed_widgets(at) if not _starts_at_its_value(w)]
    assert wrong == []


def test_changed_settings_are_where_a_new_browser_starts_the_widgets():
    """Settings the user changed (a class that is not the first, another selector, order
    and speed, a method removed), drawn again from the code after a page switch, are where
    a browser new to the widgets starts them."""
    at = open_page("dashboard/pages/data.py")
    classes = at.selectbox(key="minority_select").options
    at.selectbox(key="minority_select").select_index(len(classes) - 1).run()
    _drawn_again(at, "dashboard/pages/data.py")
    box = at.selectbox(key="minority_select")
    assert box.index == len(classes) - 1 and box.proto.default == box.index

    at.switch_page("dashboard/pages/stream.py").run()
    at.selectbox(key="stream_method").set_value("ofs-fpd").run()
    at.radio(key="stream_order").set_value("random").run()
    at.number_input(key="stream_seed").set_value(7).run()
    at.select_slider(key="stream_speed").set_value("max").run()
    _drawn_again(at, "dashboard/pages/stream.py")
    assert at.selectbox(key="stream_method").value == "ofs-fpd"
    assert at.radio(key="stream_order").value == "random"
    assert at.number_input(key="stream_seed").value == 7
    assert at.select_slider(key="stream_speed").value == "max"
    wrong = [w.key for w in _keyed_widgets(at) if not _starts_at_its_value(w)]
    assert wrong == []

    at.switch_page("dashboard/pages/compare.py").run()
    methods = at.multiselect(key="compare_methods")
    kept = methods.value[1:]
    methods.unselect(methods.value[0]).run()
    _drawn_again(at, "dashboard/pages/compare.py")
    assert at.multiselect(key="compare_methods").value == kept
    wrong = [w.key for w in _keyed_widgets(at) if not _starts_at_its_value(w)]
    assert wrong == []
