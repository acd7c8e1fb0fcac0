"""The live stream as the Stream page runs it (issue 41, point 4): its hold-out copy
streams without events and still decides as with them; every hold-out G-mean is 1-NN on
what the copy had selected, computed here independently; and a stream advanced by one
thread can be read by another (the page draws while the stream computes)."""

import threading
import time

import numpy as np
import pytest

from conftest import SAMPLE
from fsengine import load_dataset, run_selection
from fsengine.evaluation import classify, stratified_splits
from fsengine.methods.live import LiveStream
from fsengine.methods.online import stream_events
from fsengine.methods.registry import ONLINE_METHODS, get_method


@pytest.fixture(scope="module")
def srbct():
    return load_dataset(SAMPLE)


@pytest.mark.parametrize("method", ONLINE_METHODS)
def test_a_selector_without_events_decides_as_with_them(srbct, method):
    """step_many(events=False) leaves the selected set the events give after every block,
    and the final selection is the command line's."""
    y = srbct.binarise(2)
    loud = get_method(method).selector().start(y, n_features=srbct.n_features)
    quiet = get_method(method).selector().start(y, n_features=srbct.n_features)
    names = list(srbct.feature_names)
    for lo in range(0, srbct.n_features, 300):
        columns = list(range(lo, min(lo + 300, srbct.n_features)))
        events = loud.step_many(srbct.X[:, columns], [names[c] for c in columns], columns)
        assert (
            quiet.step_many(srbct.X[:, columns], [names[c] for c in columns], columns, events=False)
            == []
        )
        assert quiet.selected_columns == events[-1].selected_columns
    assert quiet.finish().features == run_selection(srbct, 2, method).selection.features


def test_every_hold_out_gmean_is_1nn_on_the_training_half_selection_of_its_step(srbct):
    """Each point of the hold-out curve, recomputed from scratch: K-OFSD streamed over the
    training half alone (its events, with scores, give the set after each step), 1-NN
    trained on that half and scored on the other."""
    live = LiveStream(srbct, 2, "kofsd")
    while not live.done:
        live.advance(max_features=400)
    y = srbct.binarise(2)
    train, test = stratified_splits(y, 1, 0)[0]
    selector = get_method("kofsd").selector().start(y[train], n_features=srbct.n_features)
    sets = [
        e.selected_columns
        for e in stream_events(selector, srbct.X[train], list(srbct.feature_names))
    ]
    assert live.gmean_steps == list(range(400, srbct.n_features, 400)) + [srbct.n_features]
    for step, shown in zip(live.gmean_steps, live.gmeans):
        columns = list(sets[step - 1])
        X = srbct.X[:, columns]
        expected = (
            classify("1nn", X[train], y[train], X[test], y[test])["gmean"] if columns else 0.0
        )
        assert shown == pytest.approx(expected), step


def test_a_stream_read_while_another_thread_advances_it_is_whole(srbct):
    """What a page reads while a chunk computes: every feature the position counts has its
    event and its point on the curves, and each curve pairs its lists."""
    live = LiveStream(srbct, 2, "kofsd")
    worker = threading.Thread(
        target=lambda: [live.advance(max_features=7) for _ in range(400) if not live.done]
    )
    worker.start()
    reads = 0
    while worker.is_alive():
        position = live.position
        assert len(live.events) >= position
        curves = live.curves()
        assert len(curves["step"]) == len(curves["size"]) == len(curves["score"]) >= position
        assert len(curves["gmean_step"]) == len(curves["gmean"])
        reads += 1
        # A page reads now and then; a loop that never sleeps would hold the GIL for
        # 5 ms after each of the worker's kernel calls (minutes on SRBCT).
        time.sleep(0.0005)
    worker.join()
    assert live.done and reads
    expected = run_selection(srbct, 2, "kofsd", events=True).events
    assert [e.selected for e in live.events] == [e.selected for e in expected]
    assert np.array_equal(live.curves()["size"], [len(e.selected) for e in expected])


def _independent_gmean(srbct, columns) -> float:
    """1-NN on ``columns``, trained on the stratified training half, scored on the other."""
    y = srbct.binarise(2)
    train, test = stratified_splits(y, 1, 0)[0]
    X = srbct.X[:, list(columns)]
    return classify("1nn", X[train], y[train], X[test], y[test])["gmean"] if columns else 0.0


def _training_half_selection(srbct, method="kofsd") -> tuple[int, ...]:
    y = srbct.binarise(2)
    train, _ = stratified_splits(y, 1, 0)[0]
    return tuple(
        get_method(method)
        .select(srbct.X[train], y[train], list(srbct.feature_names))
        .selection.columns
    )


def _main_stream_done_with_the_copy_behind(srbct) -> LiveStream:
    """A stream whose copy takes no time while the main stream runs (holdout_share=0),
    advanced in calls without time, the last of which moves the copy by its first chunk."""
    live = LiveStream(srbct, 2, "kofsd")
    live.holdout_share = 0.0
    while not live.done:
        live.advance(max_seconds=1e-9)
        if not live.done:
            assert live.holdout_position == 0 and live.gmeans == [] and live.holdout_lags
            assert f"after 0 of 2,308 features, behind the main stream ({live.position:,})" in (
                live.holdout_lag_note()
            )
    return live


def test_a_hold_out_copy_with_no_share_waits_for_the_main_streams_end(srbct):
    """holdout_share=0: the copy takes no time while the main stream runs (no G-mean yet,
    and the page is told it lags), then catches up; the main stream's events and the final
    G-mean are those of a stream whose copy followed every step."""
    live = _main_stream_done_with_the_copy_behind(srbct)
    assert 0 < live.holdout_position < live.total  # a call without time: still a feature
    assert not live.finished and "after the main stream's end" in live.holdout_lag_note()
    live.advance()
    assert live.finished and live.holdout_lag_note() == ""
    assert live.gmean_steps[-1] == live.total
    assert live.holdout_selected == tuple(
        srbct.feature_names[c] for c in _training_half_selection(srbct)
    )
    assert live.current_gmean() == pytest.approx(
        _independent_gmean(srbct, _training_half_selection(srbct))
    )
    expected = run_selection(srbct, 2, "kofsd", events=True).events
    assert [(e.action, e.selected) for e in live.events] == [
        (e.action, e.selected) for e in expected
    ]


def test_a_lagging_hold_out_copy_comes_back_from_a_snapshot_where_it_was(srbct):
    stopped = _main_stream_done_with_the_copy_behind(srbct)
    resumed = LiveStream(srbct, 2, "kofsd")
    resumed.resume(stopped.snapshot())
    assert (resumed.position, resumed.holdout_position) == (2308, stopped.holdout_position)
    assert resumed.done and not resumed.finished
    resumed.advance()
    assert resumed.finished
    assert resumed.current_gmean() == pytest.approx(
        _independent_gmean(srbct, _training_half_selection(srbct))
    )
