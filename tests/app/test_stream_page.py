"""The Stream page under AppTest: step, run to the end, pause, reset, other selectors."""

import base64
import json

import numpy as np
import pytest
from apptest_helpers import SAMPLE_K, held_stream, rerun_until, wait_until
from streamlit.testing.v1 import AppTest

from conftest import ROOT, SLOW_SECONDS
from dashboard import streams
from fsengine import run_selection
from fsengine.evaluation import classify, stratified_splits
from fsengine.methods.registry import ONLINE_METHODS, get_method


@pytest.fixture
def page():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=SLOW_SECONDS).run()
    at.switch_page("dashboard/pages/stream.py").run()
    assert not at.exception
    return at


def _metrics(at):
    return {m.label: m.value for m in at.metric}


def _chart(at):
    return json.loads(at.get("plotly_chart")[0].proto.spec)


def _array(values):
    """A trace's data: a list, or plotly's base64-encoded numpy array."""
    if isinstance(values, dict):
        return np.frombuffer(base64.b64decode(values["bdata"]), dtype=values["dtype"])
    return np.asarray(values)


def _selected_table(at):
    return next(d.value for d in at.dataframe if "rank" in d.value.columns)


HOLDOUT = "hold-out G-mean (1-NN, selected on the training half), measured at each refresh"


def _run_to_end(at):
    at.select_slider(key="stream_speed").set_value("max").run()
    at.button(key="stream_start").click().run()
    rerun_until(
        at,
        lambda: _metrics(at).get("Features streamed", "").startswith("2308 /"),
        "the stream did not finish",
    )
    return at


def test_step_takes_one_feature_and_draws_it(page):
    page.button(key="stream_step").click().run()
    assert _metrics(page)["Features streamed"] == "1 / 2308"
    traces = {t["name"]: t for t in _chart(page)["data"]}
    assert set(traces) == {"selected features", "dependency of the set", HOLDOUT}
    page.button(key="stream_step").click().run()
    assert _metrics(page)["Features streamed"] == "2 / 2308"


def test_run_to_the_end_matches_the_command_line(page, srbct):
    _run_to_end(page)
    expected = run_selection(srbct, 2, "kofsd", k=SAMPLE_K).selection
    assert _metrics(page)["Selected"] == str(len(expected))
    table = _selected_table(page)
    assert list(table["feature"]) == list(expected.features)
    assert list(table["score"]) == list(expected.scores)
    traces = {t["name"]: t for t in _chart(page)["data"]}
    steps = _array(traces["selected features"]["x"])
    assert steps.tolist() == list(range(1, 2309))
    assert _array(traces["selected features"]["y"])[-1] == len(expected)
    gmean = _array(traces[HOLDOUT]["y"])
    assert 0.0 <= gmean.min() and gmean.max() <= 1.0
    # honest: the last point is 1-NN on what the selector picks from the training half
    y = srbct.binarise(2)
    train, test = stratified_splits(y, 1, 0)[0]
    columns = list(
        get_method("kofsd")
        .select(srbct.X[train], y[train], srbct.feature_names, params={"k": SAMPLE_K})
        .selection.columns
    )
    X = srbct.X[:, columns]
    honest = classify("1nn", X[train], y[train], X[test], y[test])["gmean"]
    assert gmean[-1] == pytest.approx(honest)
    assert _metrics(page)["Hold-out G-mean (1-NN)"] == f"{honest:.3f}"
    labels = [d.label for d in page.get("download_button")]
    assert "Download selected features (CSV)" in labels


def test_pause_stops_and_reset_clears(page):
    page.select_slider(key="stream_speed").set_value("10").run()
    page.button(key="stream_start").click().run()
    page.button(key="stream_pause").click().run()
    streamed = _metrics(page)["Features streamed"]
    page.run()
    assert _metrics(page)["Features streamed"] == streamed  # paused: no progress
    page.button(key="stream_reset").click().run()
    assert "Features streamed" not in _metrics(page)
    assert any("Press Start" in i.value for i in page.info)


def test_the_stream_computes_between_ticks_and_stops_when_the_page_is_not_drawn(page, monkeypatch):
    """Speed 1: a feature a tick, computed by the stream's own thread, also after the page
    is drawn. AppTest draws no tick by itself (as a browser on another page): the thread
    stops on its own once no tick renewed its lease, the stream neither finished nor
    lost, and the next tick goes on from there. The streams' clock is the test's: it
    stands still until the thread has gone on after the drawing, then passes the lease
    (on the real clock a slow drawing could outlast the lease)."""
    import time
    from types import SimpleNamespace

    clock = SimpleNamespace(now=time.monotonic())
    monkeypatch.setattr(streams, "time", SimpleNamespace(monotonic=lambda: clock.now))
    page.select_slider(key="stream_speed").set_value("1").run()
    page.button(key="stream_start").click().run()
    shown = int(_metrics(page)["Features streamed"].split(" /")[0])
    (kept,) = page.session_state["streams"].values()
    wait_until(lambda: kept.live.position > shown, "no chunk after the drawing")
    clock.now += streams.LEASE_SECONDS + 1  # no tick renewed the lease
    kept.worker.join(SLOW_SECONDS)
    assert not kept.worker.is_alive()  # stopped by itself
    stopped = kept.live.position
    assert shown < stopped < kept.live.total  # went on after the drawing, then stopped
    events = list(kept.live.events)
    assert len(events) == stopped
    page.run()  # a tick: its thread goes on from there
    wait_until(lambda: kept.live.position > stopped, "the tick did not go on")
    assert kept.live.events[:stopped] == events
    streams.stop_advancing(kept, SLOW_SECONDS)  # the test's clock renews no lease


def test_a_speed_changed_while_it_streams_is_the_one_it_goes_on_at(page, monkeypatch):
    """Speed 1 (a feature a chunk), then max while it streams: the stream's thread takes
    the new speed at a next chunk and keeps it. Each chunk's feature bound is logged; the
    thread's lease is made long, so that however slow the machine, it goes on after the
    page's run (the test stops it)."""
    from fsengine.methods.live import LiveStream

    bounds: list = []
    advance = LiveStream.advance

    def logged(live, *args, **kwargs):
        bounds.append(kwargs.get("max_features"))
        return advance(live, *args, **kwargs)

    monkeypatch.setattr(LiveStream, "advance", logged)
    monkeypatch.setattr(streams, "LEASE_SECONDS", SLOW_SECONDS)
    page.select_slider(key="stream_speed").set_value("1").run()
    page.button(key="stream_start").click().run()
    (kept,) = page.session_state["streams"].values()
    try:
        wait_until(lambda: len(bounds) >= 2, "two chunks at speed 1")
        page.select_slider(key="stream_speed").set_value("max").run()
        wait_until(lambda: None in bounds, "a chunk at speed max")
    finally:
        streams.stop_advancing(kept, SLOW_SECONDS)
    first_max = bounds.index(None)
    assert first_max >= 2 and set(bounds[:first_max]) == {1}
    assert set(bounds[first_max:]) == {None}  # never back to the old speed


def test_pause_stops_the_streams_thread_at_once(page):
    page.select_slider(key="stream_speed").set_value("1").run()
    page.button(key="stream_start").click().run()
    page.button(key="stream_pause").click().run()
    (kept,) = page.session_state["streams"].values()
    assert not streams.busy(kept)  # nothing computes the stream any more
    assert _metrics(page)["Features streamed"] == f"{kept.live.position} / 2308"


def test_the_run_survives_a_page_switch(page):
    page.button(key="stream_step").click().run()
    page.button(key="stream_step").click().run()
    page.switch_page("dashboard/pages/data.py").run()
    page.switch_page("dashboard/pages/stream.py").run()
    assert _metrics(page)["Features streamed"] == "2 / 2308"


@pytest.mark.parametrize("method", ["ofs-fpd", "cie-osfs", "sfs-fi", "ossfs-dd"])
def test_other_selectors_run_to_the_same_result_as_the_library(page, srbct, method):
    page.selectbox(key="stream_method").set_value(method).run()
    _run_to_end(page)
    table = _selected_table(page)
    assert list(table["feature"]) == list(run_selection(srbct, 2, method).selection.features)


def test_changed_settings_ask_for_a_reset(page):
    page.button(key="stream_step").click().run()
    page.slider(key="stream_kofsd_k").set_value(SAMPLE_K - 1).run()
    assert any("Reset" in i.value for i in page.info)


def test_settings_survive_a_page_switch(page):
    page.select_slider(key="stream_speed").set_value("max").run()
    page.slider(key="stream_kofsd_k").set_value(4).run()
    page.selectbox(key="stream_method").set_value("cie-osfs").run()
    page.slider(key="stream_cie-osfs_bins").set_value(5).run()
    page.switch_page("dashboard/pages/data.py").run()
    page.switch_page("dashboard/pages/stream.py").run()
    assert page.select_slider(key="stream_speed").value == "max"
    assert page.selectbox(key="stream_method").value == "cie-osfs"
    assert page.slider(key="stream_cie-osfs_bins").value == 5
    page.selectbox(key="stream_method").set_value("kofsd").run()
    assert page.slider(key="stream_kofsd_k").value == 4  # kept while hidden
    assert not page.exception


def test_k_at_or_above_the_minority_size_shows_a_warning(page):
    page.slider(key="stream_kofsd_k").set_value(11).run()  # SRBCT class 2: 11 samples
    assert any("at or above the minority class size (11)" in w.value for w in page.warning)
    page.slider(key="stream_kofsd_k").set_value(10).run()
    assert not page.warning


def _widget_keys(at) -> set:
    keys = set()
    for kind in ("slider", "selectbox", "number_input", "text_input", "checkbox"):
        keys |= {w.key for w in getattr(at, kind) if w.key}
    return keys


@pytest.mark.parametrize("method", ONLINE_METHODS)
def test_every_parameter_of_the_spec_has_its_widget(page, method):
    page.selectbox(key="stream_method").set_value(method).run()
    spec = get_method(method).spec
    applying = {n for n, p in spec.parameters.items() if p.applies(spec.defaults())}
    keys = _widget_keys(page)
    assert {f"stream_{method}_{n}" for n in applying} <= keys
    assert not {f"stream_{method}_{n}" for n in set(spec.parameters) - applying} & keys


def test_conditional_parameters_follow_their_choice_and_reach_the_run(page, srbct):
    page.selectbox(key="stream_kofsd_card").set_value("distance").run()
    assert {"stream_kofsd_gamma1", "stream_kofsd_gamma2"} <= _widget_keys(page)
    page.slider(key="stream_kofsd_gamma1").set_value(0.8).run()
    page.selectbox(key="stream_kofsd_metric").set_value("euclidean").run()
    _run_to_end(page)
    (live,) = [kept.live for kept in page.session_state["streams"].values()]
    assert live.params["card"] == "distance" and live.params["gamma1"] == 0.8
    assert live.params["metric"] == "euclidean"
    expected = run_selection(
        srbct, 2, "kofsd", k=SAMPLE_K, card="distance", gamma1=0.8, metric="euclidean"
    )
    assert list(_selected_table(page)["feature"]) == list(expected.selection.features)


@pytest.mark.parametrize("method", ["ofs-a3m", "ofs-density"])
def test_the_printed_variant_is_offered_and_reaches_the_run(page, srbct, method):
    """OFS-A3M's and OFS-Density's ``variant="paper"`` from the page; the tolerance lambda
    is offered only with it (OFS-Density)."""
    page.selectbox(key="stream_method").set_value(method).run()
    tolerance = f"stream_{method}_tolerance"
    assert tolerance not in _widget_keys(page)
    page.selectbox(key=f"stream_{method}_variant").set_value("paper").run()
    params = {"variant": "paper"}
    if method == "ofs-density":
        page.slider(key=tolerance).set_value(0.1).run()
        params["tolerance"] = 0.1
    else:
        assert tolerance not in _widget_keys(page)
    _run_to_end(page)
    (live,) = [kept.live for kept in page.session_state["streams"].values()]
    assert {k: live.params[k] for k in params} == params
    expected = run_selection(srbct, 2, method, **params)
    assert list(_selected_table(page)["feature"]) == list(expected.selection.features)
    assert expected.selection.features != run_selection(srbct, 2, method).selection.features


def test_the_score_labels_keep_their_capitals(page):
    for method, label in (("ofs-fpd", "Mean correlation of S"), ("cie-osfs", "H(D|SF), bits")):
        page.selectbox(key="stream_method").set_value(method).run()
        page.button(key="stream_reset").click().run()
        page.button(key="stream_step").click().run()
        assert label in _metrics(page)


def test_a_stream_that_ends_between_two_ticks_stops_its_timer(page, monkeypatch):
    """The chunks compute off the script thread: a stream can end between two runs of the
    page. The next run shows it ended and stops (before, the page stayed 'running' and its
    timer reran it every 0.25 s for ever). The chunks are held until Start's run is over
    (on a fast machine the stream would end within it), and the thread's lease (how long
    it computes on without a run of the page) is long enough for any machine to finish."""
    monkeypatch.setattr(streams, "LEASE_SECONDS", SLOW_SECONDS)
    release = held_stream(monkeypatch)
    page.select_slider(key="stream_speed").set_value("max").run()
    page.button(key="stream_start").click().run()
    assert page.session_state["stream_running"] is not None  # not ended within Start's run
    (kept,) = page.session_state["streams"].values()
    release.set()
    wait_until(lambda: kept.live.finished, "the stream did not end")  # no run meanwhile
    page.run()
    assert page.session_state["stream_running"] is None
    assert _metrics(page)["Features streamed"] == "2308 / 2308"
    page.run()
    assert page.session_state["stream_running"] is None


def test_the_default_speed_streams_any_data_set_in_about_eight_seconds(page):
    """The default speed paces the stream to end 8 s after Start: 32 ticks of 0.25 s,
    SRBCT's 2,308 genes 73 a tick when the machine keeps up (test_live_pacing checks that
    arithmetic on a clock of its own). How many a tick of this page computes depends on
    the machine (a tick's computation is time-boxed), so here: the stream is paced from
    the first tick, its end at most 8 s after it, and it advances."""
    assert page.select_slider(key="stream_speed").value == "about 8 s"
    page.button(key="stream_start").click().run()
    (kept,) = page.session_state["streams"].values()
    assert kept.live.pace_seconds == 8.0  # paced, not 'max' or 1 a tick
    wait_until(lambda: kept.live.position > 0, "the stream never advanced")
    streamed, total = _metrics(page)["Features streamed"].split(" / ")
    assert total == "2308" and 0 <= int(streamed) <= 2308


def _captions(at) -> list[str]:
    return [c.value for c in at.caption]


def test_a_zero_hold_out_gmean_and_an_empty_selection_are_explained(page, srbct):
    """OFS-FPD on SRBCT: its first two genes fall with class BL (neither enters S), the
    third enters S on the training half, where 1-NN on it recognises no held-out BL sample.
    The causes are computed here from the data, not read from the stream."""
    y = srbct.binarise(2)
    train, test = stratified_splits(y, 1, 0)[0]
    page.selectbox(key="stream_method").set_value("ofs-fpd").run()
    page.button(key="stream_step").click().run()
    assert np.corrcoef(srbct.X[train, 0], y[train])[0, 1] <= 0
    assert _metrics(page)["Selected"] == "0"
    assert _metrics(page)["Hold-out G-mean (1-NN)"] == "0.000"
    captions = _captions(page)
    assert any(
        c.startswith("OFS-FPD has no gene selected after 1 of 2,308 features")
        and "1 irrelevant (did not enter S (not relevant))" in c
        for c in captions
    ), captions
    assert any("no gene is selected on the training half yet" in c for c in captions), captions
    for _ in range(2):
        page.button(key="stream_step").click().run()
    # the training half's S after three genes, and 1-NN on it, by hand
    corr = [np.corrcoef(srbct.X[train, j], y[train])[0, 1] for j in range(3)]
    assert [c > 0 for c in corr] == [False, False, True]
    distances = np.abs(srbct.X[test, 2][:, None] - srbct.X[train, 2][None, :])
    predicted = y[train][np.argmin(distances, axis=1)]
    minority = int(y[test].sum())
    assert int(np.sum(predicted[y[test] == 1])) == 0
    assert _metrics(page)["Hold-out G-mean (1-NN)"] == "0.000"
    captions = _captions(page)
    assert any(
        f"recognises none of the {minority} held-out minority samples (class 2)" in c
        and f"minority recall is 0 of {minority}" in c
        for c in captions
    ), captions


def test_start_pressed_just_before_another_page_link_starts_the_stream(page):
    """Start pressed, then another page's link clicked before the server ran the Stream
    page for it: Streamlit runs the other page with the press, which no button there
    reads. Its callback keeps it: the Stream page opened next starts the stream. Kept
    for another task (the minority class changed on the Data page), it is dropped."""
    page.button(key="stream_step").click().run()  # a stream at 1 of 2308, paused
    assert page.session_state[streams.RUNNING] is None
    page.button(key="stream_start").click()
    page.switch_page("dashboard/pages/data.py").run()  # the press reaches the Data page
    assert not page.exception
    page.switch_page("dashboard/pages/stream.py").run()
    assert page.session_state[streams.RUNNING] is not None
    page.button(key="stream_pause").click().run()
    assert page.session_state[streams.RUNNING] is None

    page.button(key="stream_start").click()
    page.switch_page("dashboard/pages/data.py").run()
    minority = page.selectbox(key="minority_select")
    minority.set_value(next(o for o in minority.options if o != minority.value)).run()
    page.switch_page("dashboard/pages/stream.py").run()
    assert not page.exception
    assert page.session_state[streams.RUNNING] is None


def test_the_speed_stays_when_the_stream_says_it_needs_longer(page, monkeypatch):
    """A stream whose computation needs longer than 8 s says so under the speed, and the
    speed stays "about 8 s": its label never changes (the browser sends a choice back by
    its label; a label gone since, Streamlit took the first option, 1 feature a tick: a
    Step on one data set made the next data set's stream take minutes instead of 8 s)."""
    from fsengine.methods.live import LiveStream

    monkeypatch.setattr(LiveStream, "estimated_seconds", lambda self, paced: 180.0)
    page.button(key="stream_step").click().run()  # a stream that says it needs 3 min
    page.run()  # drawn with that stream
    options = page.select_slider(key="stream_speed").options
    assert options == ["1", "10", "100", "about 8 s", "max"]
    assert "This stream needs about 3 min here, not 8 s." in _captions(page)
    page.button(key="stream_step").click().run()  # the browser sends the speed back
    assert page.select_slider(key="stream_speed").value == "about 8 s"
    assert page.session_state["stream_speed"] == "about 8 s"
    assert _metrics(page)["Features streamed"] == "2 / 2308"
