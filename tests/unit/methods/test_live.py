"""The Stream page's engine: the live stream's selection is the command line's, and its
hold-out G-mean is computed with selection on the training half only."""

import math

import numpy as np
import pytest

from conftest import SAMPLE
from fsengine import load_dataset, run_selection
from fsengine.data.dataset import Dataset
from fsengine.evaluation import classify, stratified_splits
from fsengine.methods.live import LiveStream
from fsengine.methods.registry import ONLINE_METHODS, get_method


@pytest.fixture(scope="module")
def srbct():
    return load_dataset(SAMPLE)


@pytest.mark.parametrize("method", ONLINE_METHODS)
def test_holdout_gmean_selects_on_the_training_half_only(srbct, method):
    live = LiveStream(srbct, 2, method)
    while not live.done:
        live.advance(max_features=700)
    y = srbct.binarise(2)
    train, test = stratified_splits(y, 1, 0)[0]
    # Independent path: the method on the training samples alone, then 1-NN.
    columns = list(
        get_method(method)
        .select(srbct.X[train], y[train], list(srbct.feature_names))
        .selection.columns
    )
    X = srbct.X[:, columns]
    expected = classify("1nn", X[train], y[train], X[test], y[test])["gmean"] if columns else 0.0
    assert live.current_gmean() == pytest.approx(expected)
    assert len(live.gmeans) == 4  # one refresh per chunk of 700 (2308 features)
    # The selection shown and exported is the command line's, on all samples.
    assert live.selection().features == run_selection(srbct, 2, method).selection.features


def test_holdout_gmean_ignores_the_test_samples(srbct):
    """Changing the held-out samples' gene values cannot change what was selected."""
    y = srbct.binarise(2)
    _, test = stratified_splits(y, 1, 0)[0]
    X = srbct.X.copy()
    X[test] = np.random.default_rng(0).permutation(X[test].ravel()).reshape(X[test].shape)
    changed = Dataset(
        X=X, labels=srbct.labels, feature_names=srbct.feature_names, label_column="label"
    )
    first, second = LiveStream(srbct, 2), LiveStream(changed, 2)
    for live in (first, second):
        live.advance()
    assert first.holdout_selected == second.holdout_selected
    assert first.selection().features != second.selection().features


def test_no_holdout_when_the_minority_cannot_be_split():
    rng = np.random.default_rng(1)
    ds = Dataset(
        X=rng.normal(size=(20, 6)),
        labels=np.array([1] * 3 + [0] * 17),
        feature_names=tuple(f"g{i}" for i in range(6)),
        label_column="label",
    )
    live = LiveStream(ds, 1)
    live.advance()
    assert live.done and math.isnan(live.current_gmean())
    assert "3 samples" in live.holdout_problem and live.gmeans == []


@pytest.mark.parametrize("scored", [True, False])
def test_rejections_are_scored_as_the_command_line_traces_them_up_to_a_size(
    srbct, scored, monkeypatch
):
    """Up to SCORED_REJECTIONS_MAX_SAMPLES samples a stream's events are the command line's
    trace (every rejected feature scored with the set); above, those scores are left empty
    (NaN) where a test stopped early, and every decision and set score is the same."""
    import fsengine.methods.live as live_module

    monkeypatch.setattr(live_module, "SCORED_REJECTIONS_MAX_SAMPLES", 1000 if scored else 10)
    live = LiveStream(srbct, 2, "kofsd")
    while not live.done:
        live.advance(max_features=1000)
    trace = run_selection(srbct, 2, "kofsd", events=True).events
    assert [(e.action, e.selected, e.selected_score) for e in live.events] == [
        (e.action, e.selected, e.selected_score) for e in trace
    ]
    live_scores = [e.set_score_with_feature for e in live.events if e.action == "rejected"]
    trace_scores = [e.set_score_with_feature for e in trace if e.action == "rejected"]
    if scored:
        assert live_scores == trace_scores
    else:
        assert any(math.isnan(s) for s in live_scores)
        assert all(math.isnan(a) or a == b for a, b in zip(live_scores, trace_scores))
