"""LiveStream says why its hold-out G-mean is 0 and why nothing is selected (issue 29, 5).

The data sets are made by hand around the hold-out split the stream uses
(``stratified_splits(y, 1, 0)``), so that the cause is known before the stream runs; each
test computes the cause again on its own (1-NN by numpy distances, correlations by numpy)
and checks that the sentence names it.
"""

from __future__ import annotations

import numpy as np

from conftest import SAMPLE
from fsengine import load_dataset
from fsengine.data.task import Task
from fsengine.evaluation import classify, stratified_splits
from fsengine.methods.live import LiveStream

#: 40 samples, 10 of the minority class: the hold-out split puts 5 of them in each half.
Y = np.array([1] * 10 + [0] * 30)


def _halves():
    train, test = stratified_splits(Y, 1, 0)[0]
    return np.sort(train), np.sort(test)


def _one_nn(X_train, y_train, X_test) -> np.ndarray:
    """1-NN predictions by squared Euclidean distances (the first nearest on a tie)."""
    d = ((X_test[:, None, :] - X_train[None, :, :]) ** 2).sum(axis=2)
    return y_train[np.argmin(d, axis=1)]


def _recalls(live: LiveStream, X: np.ndarray) -> tuple[int, int, int, int]:
    """(minority recognised, held-out minority, rest recognised, held-out rest) of 1-NN on
    the columns the training half selected, computed here."""
    train, test = _halves()
    columns = list(live.train_selector.selected_columns)
    if columns:
        predicted = _one_nn(X[np.ix_(train, columns)], Y[train], X[np.ix_(test, columns)])
    else:
        predicted = np.zeros(len(test), dtype=int)
    truth = Y[test]
    return (
        int(np.sum((predicted == 1) & (truth == 1))),
        int(np.sum(truth == 1)),
        int(np.sum((predicted == 0) & (truth == 0))),
        int(np.sum(truth == 0)),
    )


def _far_minority() -> np.ndarray:
    """Gene x0: the training half's minority samples far above everything (100..104), its
    majority at 0..14; the held-out minority samples among the majority's values, so that
    each one's nearest training sample is of the majority. Gene x1 falls with the class."""
    train, test = _halves()
    X = np.zeros((len(Y), 2))
    for values, rows in (
        (np.arange(15.0), train[Y[train] == 0]),
        (100.0 + np.arange(5), train[Y[train] == 1]),
        (np.arange(15.0) + 0.5, test[Y[test] == 0]),
        (3.0 * np.arange(5) + 0.2, test[Y[test] == 1]),
    ):
        X[rows, 0] = values
    X[:, 1] = -Y + np.linspace(0.0, 0.1, len(Y))
    return X


def test_a_zero_gmean_names_the_held_out_minority_none_recognised():
    X = _far_minority()
    live = LiveStream(Task.from_arrays(X, Y), None, "ofs-fpd")
    live.advance()
    recognised, minority, rest_right, rest = _recalls(live, X)
    assert live.holdout_selected  # the training half selected a gene ...
    assert recognised == 0 and minority == 5  # ... on which 1-NN misses every minority sample
    assert live.current_gmean() == 0.0
    note = live.holdout_note()
    assert f"recognises none of the {minority} held-out minority samples" in note
    assert f"minority recall is 0 of {minority}" in note
    assert f"the other classes: {rest_right} of {rest}" in note
    assert "geometric mean of the two recalls" in note


def test_a_zero_gmean_names_an_empty_training_half_selection():
    # x0 falls with the class on every half: OFS-FPD admits only positive correlations
    X = np.column_stack([-Y + np.linspace(0.0, 0.3, len(Y)), -2.0 * Y + np.cos(np.arange(40))])
    train, _ = _halves()
    correlations = [np.corrcoef(X[train, j], Y[train])[0, 1] for j in range(2)]
    assert max(correlations) < 0
    live = LiveStream(Task.from_arrays(X, Y), None, "ofs-fpd")
    live.advance(max_features=1)
    assert live.current_gmean() == 0.0
    note = live.holdout_note()
    assert "no gene is selected on the training half yet" in note
    assert "after 1 of 2 features" in note
    assert f"none of the {_recalls(live, X)[1]} held-out minority samples" in note


def test_a_zero_gmean_names_the_rest_none_recognised():
    # the training minority spread over the values where the held-out majority lies
    train, test = _halves()
    X = np.zeros((len(Y), 1))
    X[train[Y[train] == 1], 0] = 10.0 * np.arange(5)
    X[train[Y[train] == 0], 0] = 1000.0 + np.arange(15)
    X[test[Y[test] == 0], 0] = 10.0 * (np.arange(15) % 5) + 0.1
    X[test[Y[test] == 1], 0] = 10.0 * np.arange(5) + 0.2
    live = LiveStream(Task.from_arrays(X, Y), None, "ofs-fpd", params={"relevance": "absolute"})
    live.advance()
    recognised, minority, rest_right, rest = _recalls(live, X)
    assert live.holdout_selected and rest_right == 0
    assert live.current_gmean() == 0.0
    note = live.holdout_note()
    assert f"recognises none of the {rest} held-out samples of the other classes" in note
    assert f"(the minority: {recognised} of {minority})" in note


def test_no_note_when_the_gmean_is_above_zero_and_the_gmean_is_classify_s():
    srbct = load_dataset(SAMPLE)
    live = LiveStream(srbct, 2, "kofsd")
    live.advance()
    assert live.current_gmean() > 0 and live.holdout_note() == ""
    y = srbct.binarise(2)
    train, test = stratified_splits(y, 1, 0)[0]
    columns = list(live.train_selector.selected_columns)
    X = srbct.X[:, columns]
    expected = classify("1nn", X[train], y[train], X[test], y[test])["gmean"]
    assert live.current_gmean() == expected


def test_no_hold_out_is_said_as_before():
    y = np.array([1, 1, 1] + [0] * 20)
    X = np.arange(23.0)[:, None] * np.array([[1.0, -1.0]])
    live = LiveStream(Task.from_arrays(X, y), None, "ofs-fpd")
    live.advance()
    assert live.holdout_problem
    assert live.holdout_note() == f"No hold-out G-mean: {live.holdout_problem}."


def test_an_empty_selection_is_explained_by_the_decisions_so_far():
    X = np.column_stack([-Y + 0.01 * np.arange(40), -Y * 3.0 + np.sin(np.arange(40)), -Y])
    irrelevant = sum(np.corrcoef(X[:, j], Y)[0, 1] <= 0 for j in range(3))
    live = LiveStream(Task.from_arrays(X, Y), None, "ofs-fpd")
    assert live.selection_note() == ""  # nothing streamed yet
    live.advance(max_features=2)
    assert live.selection_note() == (
        "OFS-FPD has no gene selected after 2 of 3 features. Its decisions: "
        "2 irrelevant (did not enter S (not relevant))."
    )
    live.advance()
    assert irrelevant == 3
    assert live.selection_note().startswith(
        "OFS-FPD has no gene selected in the whole stream of 3 features. Its decisions: "
        "3 irrelevant"
    )


def test_no_selection_note_once_a_gene_is_selected():
    live = LiveStream(Task.from_arrays(_far_minority(), Y), None, "ofs-fpd")
    live.advance()
    assert live.events[-1].selected and live.selection_note() == ""
