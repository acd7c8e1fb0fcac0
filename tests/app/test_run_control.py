"""How runs start, report and end on the pages (issue 40, point 5), under AppTest.

Before a run the page says how long it will take (the library's estimate,
:mod:`fsengine.methods.estimates`, for the same task), and a run estimated past a minute starts
only once confirmed. A running run can be cancelled from History (in another session of
the workspace, as from a second tab), which ends it as stopped with how far it got; and
History never shows a run as running that no one computes.
"""

import threading
import time

import numpy as np
import pandas as pd
from apptest_helpers import click, session, workspace_id

from conftest import SLOW_SECONDS
from dashboard import workspace
from fsengine._compute.parallel import current_cancellation
from fsengine.data.task import Task
from fsengine.evaluation import protocol_defaults
from fsengine.methods.estimates import density_of, evaluate_seconds, is_counts


def _sparse_csv(n: int, p: int, seed: int = 3) -> bytes:
    """Sparse log counts, a 10 % 'rare' class with genes 0-4 up in it."""
    rng = np.random.default_rng(seed)
    X = np.where(rng.random((n, p)) < 0.1, np.log1p(rng.poisson(3.0, (n, p)) + 1.0), 0.0)
    rare = np.arange(n) < n // 10
    X[rare, :5] += 2.0
    frame = pd.DataFrame(X.round(3), columns=[f"g{j}" for j in range(p)])
    frame["cell"] = np.where(rare, "rare", "common")
    return frame.to_csv(index=False).encode()


def _upload(at, name: str, data: bytes) -> None:
    at.switch_page("dashboard/pages/data.py").run()
    at.file_uploader(key="uploader").set_value((name, data, "text/csv")).run()
    assert not at.exception and not at.error


def _runs(at, kind: str = "compare"):
    return [r for r in workspace.default_store().list_runs(workspace_id(at)) if r.kind == kind]


def _texts(elements) -> str:
    return " ".join(e.value for e in elements)


def test_a_long_comparison_says_its_time_and_waits_for_a_confirmation():
    at = session()
    _upload(at, "cells.csv", _sparse_csv(1500, 200))
    at.switch_page("dashboard/pages/compare.py").run()
    methods = ["sfsf", "osfs-et", "kofsd"]
    at.multiselect(key="compare_methods").set_value(methods).run()
    at.slider(key="compare_splits").set_value(50).run()
    # the authors' tie rule: the pages propose the faster order-invariant one on these
    # mostly-zero data (a cost model of its own)
    for m in methods:
        at.selectbox(key=f"compare_{m}_ties").set_value("index").run()
    task = at.session_state["data"].dataset
    # the page's estimate is the library's for the same task and the defaults the pages
    # propose for it (K below the halves' minority), with the rule chosen
    y = Task.from_dataset(task, at.session_state["minority"]).y
    params = {
        m: {
            **{name: value for name, (value, _) in protocol_defaults(y, m, X=task.X).items()},
            "ties": "index",
        }
        for m in methods
    }
    X = task.X
    expected = evaluate_seconds(
        X.shape[0],
        X.shape[1],
        methods,
        density=density_of(X),
        counts=is_counts(X),
        params=params,
        n_splits=50,
    )
    assert expected.long  # the case of the test: past a minute
    assert f"Estimated time: {expected.text()}" in _texts(at.caption)

    click(at, "Run comparison")
    assert "would take" in _texts(at.warning) and expected.text() in _texts(at.warning)
    assert any(b.label == "Run anyway" for b in at.button)
    assert not _runs(at)  # nothing started
    assert "compare_results_computed" not in at.session_state

    click(at, "Don't run")
    assert "would take" not in _texts(at.warning)
    assert not any(b.label == "Run anyway" for b in at.button)
    assert not _runs(at)


def test_a_short_comparison_says_its_time_and_starts_at_once():
    at = session(page="dashboard/pages/compare.py")  # the bundled SRBCT, 83 x 2308
    at.multiselect(key="compare_methods").set_value(["fisher"]).run()
    at.slider(key="compare_splits").set_value(2).run()
    assert "Estimated time: " in _texts(at.caption)
    click(at, "Run comparison")
    assert not any(b.label == "Run anyway" for b in at.button)
    assert [r.status for r in _runs(at)] == ["finished"]


def _blocking_evaluate(*args, progress=None, **kwargs):
    """A comparison that reports its first step and then computes until cancelled."""
    token = current_cancellation()
    assert token is not None  # the page runs it cancellable
    progress(1, 40, "split 1/20 fisher")
    deadline = time.monotonic() + SLOW_SECONDS
    while time.monotonic() < deadline:
        progress(1, 40, "split 1/20 fisher")  # raises once cancelled
        time.sleep(0.05)
    raise AssertionError("never cancelled")


def test_history_cancels_a_running_comparison_and_shows_how_far_it_got(monkeypatch):
    import fsengine.evaluation

    owner = session(page="dashboard/pages/compare.py")
    owner.multiselect(key="compare_methods").set_value(["fisher"]).run()
    wid = workspace_id(owner)
    monkeypatch.setattr(fsengine.evaluation, "evaluate", _blocking_evaluate)
    button = next(b for b in owner.button if b.label == "Run comparison")
    pressed = threading.Thread(target=lambda: button.click().run())
    pressed.start()
    deadline = time.monotonic() + SLOW_SECONDS
    while not [r for r in _runs(owner) if r.status == "running"]:
        assert time.monotonic() < deadline and pressed.is_alive(), _runs(owner)
        time.sleep(0.1)

    history = session(wid, "dashboard/pages/history.py")
    table = history.dataframe[0].value
    assert list(table["status"]) == ["running"]
    history.session_state["history_table"] = {"selection": {"rows": [0], "columns": []}}
    history.run()
    click(history, "Cancel")
    pressed.join(SLOW_SECONDS)
    assert not pressed.is_alive()
    monkeypatch.undo()

    (run,) = _runs(owner)
    assert run.status == "stopped"
    assert run.params["reached"] == "1 of 21 (split 1/20 fisher)"
    table = history.dataframe[0].value
    assert list(table["status"]) == ["stopped"]
    assert list(table["reached"]) == ["1 of 21 (split 1/20 fisher)"]
    # the owner's page says it stopped, and how far it got; no result, no exception
    assert not owner.exception
    said = _texts(owner.warning)
    assert "was stopped after" in said and "1 of 21 (split 1/20 fisher)" in said
    assert not owner.get("plotly_chart")


def test_a_running_record_no_one_computes_is_shown_stopped_with_how_far_it_got():
    """A server that died mid-run left its record "running" with the progress it noted:
    History shows it stopped, at that point (the store is reopened as after a restart)."""
    at = session(page="dashboard/pages/history.py")
    wid = workspace_id(at)
    store = workspace.default_store()
    run_id = store.start_run(wid, "compare", None, "Compare K-OFSD", {"key": []})
    store.note_reached(run_id, "12 of 300 (split 1/20 kofsd)")
    workspace._ACTIVE_RUNS.discard((str(store.path), run_id))  # its process is gone
    at.run()
    table = at.dataframe[0].value
    assert list(table["status"]) == ["stopped"]
    assert list(table["reached"]) == ["12 of 300 (split 1/20 kofsd)"]


def test_a_long_stream_says_its_time_and_starts_once_confirmed_with_a_small_first_step(
    monkeypatch,
):
    from fsengine.methods.estimates import stream_seconds
    from fsengine.methods.live import FIRST_CHUNK
    from fsengine.methods.online._stream import StreamingSelector

    at = session()
    _upload(at, "cells.csv", _sparse_csv(3000, 150))
    at.switch_page("dashboard/pages/stream.py").run()
    at.selectbox(key="stream_method").set_value("sfsf").run()
    # the authors' tie rule: on counts the slow case (the pages propose "average")
    at.selectbox(key="stream_sfsf_ties").set_value("index").run()
    X = at.session_state["data"].dataset.X
    params = {
        key.removeprefix("stream_sfsf_"): value
        for key, value in at.session_state["stream_widgets"].items()
        if key.startswith("stream_sfsf_")
    }
    expected = stream_seconds(
        "sfsf", X.shape[0], X.shape[1], density_of(X), params, counts=is_counts(X)
    )
    assert expected.long  # the case of the test
    assert f"The whole stream's computation: {expected.text()}" in _texts(at.caption)

    at.button(key="stream_start").click().run()
    assert "would compute for" in _texts(at.warning)
    state = at.session_state
    assert "stream_running" not in state or not state["stream_running"]
    assert "streams" not in state or not state["streams"]  # nothing started
    assert not _runs(at, "stream")
    click(at, "Don't start")
    assert "would compute for" not in _texts(at.warning)

    # the features of each block a selector is handed with events, and which selector (an
    # earlier test's stream thread may still compute in this process under load)
    handed = []
    step_many = StreamingSelector.step_many

    def recorded(self, block, names, columns, events=True):
        if events:
            handed.append((self, len(names)))
        return step_many(self, block, names, columns, events)

    monkeypatch.setattr(StreamingSelector, "step_many", recorded)
    at.button(key="stream_start").click().run()
    click(at, "Start anyway")
    (kept,) = at.session_state["streams"].values()
    live = kept.live
    assert live.expected_feature_seconds == expected.high / 150
    at.button(key="stream_pause").click().run()
    if kept.worker is not None:
        kept.worker.join(SLOW_SECONDS)
    widths = [width for selector, width in handed if selector is live.selector]
    # the first block is cut to what the estimate says fits in a tick (at least a
    # feature); the blocks after it are sized from the measured cost, which a fast
    # machine makes larger (how many ran before the Pause depends on the machine)
    assert widths[0] == max(1, min(FIRST_CHUNK, int(0.2 / live.expected_feature_seconds)))
    assert live.position == sum(widths) >= 1
    at.button(key="stream_pause").click().run()
    assert not at.exception


def test_a_slow_step_of_a_stream_computes_off_the_page_and_pause_answers_at_once(monkeypatch):
    """A feature that takes longer than a tick (K-OFSD's first on 20,000 cells: 22 s)
    computes off the script thread: the page is drawn meanwhile and Pause answers at once;
    the pause is recorded when the step ends."""
    from fsengine.methods.live import LiveStream

    release = threading.Event()
    advance = LiveStream.advance

    def slow(self, *args, **kwargs):
        release.wait(SLOW_SECONDS)
        return advance(self, max_features=1)

    at = session(page="dashboard/pages/stream.py")
    at.select_slider(key="stream_speed").set_value("1").run()
    monkeypatch.setattr(LiveStream, "advance", slow)
    at.button(key="stream_start").click().run()  # drawn while the step computes
    assert "Computing the next features" in _texts(at.caption)
    (kept,) = at.session_state["streams"].values()
    assert kept.live.position == 0
    at.button(key="stream_pause").click().run()  # answers before the step ends
    assert not at.session_state["stream_running"]
    assert kept.worker.is_alive()
    release.set()
    kept.worker.join(SLOW_SECONDS)
    monkeypatch.undo()
    assert kept.live.position == 1
    (run,) = _runs(at, "stream")
    _, payload = workspace.default_store().load_run(workspace_id(at), run.id)
    assert (run.status, payload["position"]) == ("stopped", 1)  # written after the step


def test_run_pressed_just_before_another_page_link_runs_when_its_page_is_back():
    """Run comparison pressed, then another page's link clicked before the server ran
    Compare for it: the press reaches the Data page, where no button reads it; its
    callback keeps it for these settings, and Compare opened again runs it (once)."""
    at = session(page="dashboard/pages/compare.py")
    at.multiselect(key="compare_methods").set_value(["fisher"]).run()
    at.slider(key="compare_splits").set_value(2).run()
    next(b for b in at.button if b.label == "Run comparison").click()
    at.switch_page("dashboard/pages/data.py").run()
    assert not at.exception and not _runs(at)
    at.switch_page("dashboard/pages/compare.py").run()
    assert not at.exception
    assert [r.status for r in _runs(at)] == ["finished"]
    assert at.session_state["compare_results_computed"] == 1
    at.run()
    assert at.session_state["compare_results_computed"] == 1  # taken once


def test_a_run_computes_on_the_task_of_its_start_whatever_the_session_moves_to(monkeypatch):
    """The minority class changed while a comparison waits or computes (its page left):
    the run's thread still gets the task it was started for."""
    import streamlit as st

    import fsengine.evaluation
    from dashboard import session as dashboard_session

    at = session(page="dashboard/pages/compare.py")
    at.multiselect(key="compare_methods").set_value(["fisher"]).run()
    at.slider(key="compare_splits").set_value(2).run()
    started = at.session_state["minority"]
    classes = at.session_state["data"].dataset.class_counts()
    other = next(c for c in classes if str(c) != str(started))
    seen = {}
    real = fsengine.evaluation.evaluate

    def evaluate_after_a_change(task, *args, **kwargs):
        st.session_state["minority"] = other  # the session moves on (on the run's thread)
        seen["given"], seen["asked"] = task.minority, dashboard_session.current_task().minority
        st.session_state["minority"] = started
        return real(task, *args, **kwargs)

    monkeypatch.setattr(fsengine.evaluation, "evaluate", evaluate_after_a_change)
    click(at, "Run comparison")
    assert not at.exception
    assert seen == {"given": started, "asked": started}
    assert [r.status for r in _runs(at)] == ["finished"]
