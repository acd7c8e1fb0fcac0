"""The evaluation protocol (fsengine.evaluation) and the `evaluate` / `sweep` commands.

Metrics against confusion matrices and AUCs worked out by hand (and scikit-learn's
roc_auc_score), splits against their definition (class counts, sizes, disjointness),
reproducibility, the paper's rule for the rankers' number of features (checked with
K-OFSD run here on each training half), a leakage detector that records every row any
selector, ranker, scaler or classifier is trained on (and is shown to catch deliberate
leaks), the sweeps, and the command line.

Tests named ``test_bug_...`` demonstrate defects of the library; they fail until the
library is fixed.
"""

import csv
import io
import math
import re
import statistics

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score
from sklearn.neighbors import KNeighborsClassifier
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

import fsengine.evaluation.comparison as comparison
import fsengine.evaluation.metrics as evaluation_metrics
import fsengine.evaluation.sweeps as sweeps
import fsengine.methods.registry as methods
from conftest import SAMPLE
from fsengine import Dataset, FSEngineError
from fsengine._compute.progress import terminal_progress
from fsengine.cli import main
from fsengine.evaluation import (
    classify,
    confusion,
    evaluate,
    f1_minority,
    gmean,
    protocol_minority_sizes,
    protocol_warnings,
    roc_auc,
    stratified_splits,
    sweep_k,
    sweep_top,
    training_size,
)
from fsengine.export.writers import summary_table
from fsengine.methods.online import run_kofsd
from fsengine.methods.registry import get_method

METRIC_FIELDS = [f"{m}_{c}" for c in ("1nn", "svm") for m in ("gmean", "f1", "auc")]


# ------------------------------------------------------------------------------- helpers


def without_seconds(records):
    """Records minus the wall-clock selection time (the one field that cannot repeat)."""
    return [{k: v for k, v in r.items() if k != "seconds"} for r in records]


class FakeClock:
    """Stand-in for the ``time`` module in fsengine.evaluation: every call is 0.25 s later."""

    def __init__(self):
        self.now = 0.0

    def perf_counter(self):
        self.now += 0.25
        return self.now


class FakeTTY(io.StringIO):
    def isatty(self):
        return True


def by_method(records):
    """{method: [record of split 0, split 1, ...]}."""
    out = {}
    for r in records:
        out.setdefault(r["method"], []).append(r)
    return out


def unique_dataset(n_minority=10, n_majority=30, n_features=12, seed=0):
    """Synthetic data whose every value is a distinct integer: column j holds
    j * 1000 + a permutation of 0..n-1, so any part of any row names its sample (and a
    standardised row does too, after undoing the standardisation and rounding).
    Columns 0-2 put the minority ("rare") on top; the rest are noise."""
    rng = np.random.default_rng(seed)
    n = n_minority + n_majority
    rare = np.arange(n) < n_minority
    X = np.empty((n, n_features))
    for j in range(n_features):
        ranks = rng.permutation(n)
        if j < 3:
            ranks[rare] = n_majority + rng.permutation(n_minority)
            ranks[~rare] = rng.permutation(n_majority)
        X[:, j] = 1000 * j + ranks
    assert len(np.unique(X)) == X.size
    labels = np.where(rare, "rare", "common")
    return Dataset(
        np.asfortranarray(X),
        labels,
        tuple(f"g{j}" for j in range(n_features)),
        "label",
        source="unique.csv",
    )


# ------------------------------------------------------------------ metrics, by hand


def test_confusion_counts_minority_as_positive():
    # true 1 1 1 0 0 0 0 0, predicted 1 1 0 0 0 0 1 1:
    # TP = 2 (pos 0, 1), FN = 1 (pos 2), TN = 3 (pos 3, 4, 5), FP = 2 (pos 6, 7)
    assert confusion([1, 1, 1, 0, 0, 0, 0, 0], [1, 1, 0, 0, 0, 0, 1, 1]) == (2, 1, 3, 2)


@pytest.mark.parametrize(
    "y_true,y_pred,expected_gmean,expected_f1",
    [
        # TP=2 FN=1 TN=3 FP=2: G = sqrt(2/3 * 3/5) = sqrt(0.4); F1 = 4 / (4 + 2 + 1) = 4/7
        ([1, 1, 1, 0, 0, 0, 0, 0], [1, 1, 0, 0, 0, 0, 1, 1], math.sqrt(0.4), 4 / 7),
        # TP=1 FN=1 TN=2 FP=0: G = sqrt(1/2 * 1) = 0.70710678; F1 = 2 / (2 + 0 + 1) = 2/3
        ([1, 1, 0, 0], [1, 0, 0, 0], math.sqrt(0.5), 2 / 3),
        # TP=2 FN=0 TN=7 FP=1: G = sqrt(1 * 7/8) = 0.93541435; F1 = 4 / (4 + 1 + 0) = 4/5
        ([1, 0, 0, 0, 0, 0, 0, 0, 0, 1], [1, 1, 0, 0, 0, 0, 0, 0, 0, 1], math.sqrt(7 / 8), 0.8),
        # TP=1 FN=2 TN=4 FP=1: G = sqrt(1/3 * 4/5) = sqrt(4/15) = 0.51639778; F1 = 2 / (2+1+2) = 2/5
        ([0, 1, 1, 1, 0, 0, 0, 0], [0, 1, 0, 0, 1, 0, 0, 0], math.sqrt(4 / 15), 0.4),
        # perfect: TP=3 FN=0 TN=2 FP=0: G = 1, F1 = 6/6 = 1
        ([1, 0, 1, 0, 1], [1, 0, 1, 0, 1], 1.0, 1.0),
    ],
)
def test_gmean_and_minority_f1_by_hand(y_true, y_pred, expected_gmean, expected_f1):
    assert gmean(y_true, y_pred) == pytest.approx(expected_gmean, abs=1e-15)
    assert f1_minority(y_true, y_pred) == pytest.approx(expected_f1, abs=1e-15)
    # numpy arrays (int8, as evaluate uses) give the same numbers
    as_int8 = np.array(y_true, dtype=np.int8), np.array(y_pred, dtype=np.int8)
    assert gmean(*as_int8) == pytest.approx(expected_gmean, abs=1e-15)


@pytest.mark.parametrize(
    "y_pred,expected_f1",
    [
        # all majority: TP=0 -> TPR = 0 -> G = 0; F1 = 0 / (0 + 0 + 2) = 0
        ([0, 0, 0, 0, 0, 0], 0.0),
        # all minority: TN=0 -> TNR = 0 -> G = 0; TP=2 FP=4 FN=0: F1 = 4 / (4 + 4) = 1/2
        ([1, 1, 1, 1, 1, 1], 0.5),
    ],
)
def test_gmean_is_zero_when_one_class_is_never_predicted(y_pred, expected_f1):
    y_true = [1, 1, 0, 0, 0, 0]
    assert gmean(y_true, y_pred) == 0.0
    assert f1_minority(y_true, y_pred) == pytest.approx(expected_f1)


@pytest.mark.parametrize(
    "y_true,scores,expected",
    [
        # pos {0.9, 0.4}, neg {0.4, 0.1, 0.5}; pairs won: 0.9 beats all 3; 0.4 ties 0.4 (1/2),
        # beats 0.1 (1), loses to 0.5 (0) -> (3 + 1.5) / 6 = 0.75
        ([1, 1, 0, 0, 0], [0.9, 0.4, 0.4, 0.1, 0.5], 0.75),
        # every score tied: 4 half-wins / 4 pairs = 0.5
        ([1, 0, 1, 0], [2.0, 2.0, 2.0, 2.0], 0.5),
        # perfect and reversed
        ([1, 1, 0, 0], [3, 4, 1, 2], 1.0),
        ([1, 1, 0, 0], [1, 2, 3, 4], 0.0),
        # pos {1, 3}, neg {1, 2, 2}: 1 ties 1 (1/2), loses to 2, 2 (0); 3 beats all (3)
        # -> 3.5 / 6 = 7/12
        ([1, 0, 0, 1, 0], [1, 1, 2, 3, 2], 7 / 12),
        # hard labels: true 1 1 1 0 0 0 0 0, predicted 1 1 0 0 0 0 1 1 (TPR 2/3, TNR 3/5):
        # pos scores {1,1,0}, neg {0,0,0,1,1}: a predicted-1 positive beats 3 negatives and ties
        # 2 -> 4 each; the predicted-0 positive ties 3 -> 1.5; (4 + 4 + 1.5) / 15 = 19/30
        # = (2/3 + 3/5) / 2, the 1-NN AUC of the module docstring
        ([1, 1, 1, 0, 0, 0, 0, 0], [1, 1, 0, 0, 0, 0, 1, 1], 19 / 30),
    ],
)
def test_roc_auc_by_hand_with_ties_counting_half(y_true, scores, expected):
    assert roc_auc(y_true, scores) == pytest.approx(expected, abs=1e-15)


@pytest.mark.parametrize("seed", range(6))
def test_roc_auc_matches_scikit_learn_on_random_data(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 60))
    y = rng.permutation(np.r_[1, 0, rng.integers(0, 2, n - 2)])
    scores = rng.normal(size=n)
    if seed % 2:  # coarse scores: many ties
        scores = np.round(scores)
    assert roc_auc(y, scores) == pytest.approx(roc_auc_score(y, scores), abs=1e-12)


@pytest.mark.parametrize("y_true", [[1, 1, 1], [0, 0]])
def test_roc_auc_needs_both_classes(y_true):
    with pytest.raises(FSEngineError, match="both classes"):
        roc_auc(y_true, np.arange(len(y_true)))


def test_one_nn_scores_by_hand():
    # train on x = 0, 1 (class 0) and 10, 11 (class 1); test x = 0.4 -> nearest 0 (class 0),
    # 10.6 -> 11 (class 1), 5.4 -> 1 at 4.4 rather than 10 at 4.6 (class 0).
    # true 0, 1, 1: TP=1 FN=1 TN=1 FP=0 -> G = sqrt(1/2), F1 = 2/3, AUC = (1/2 + 1) / 2
    scores = classify(
        "1nn",
        np.array([[0.0], [1], [10], [11]]),
        np.array([0, 0, 1, 1]),
        np.array([[0.4], [10.6], [5.4]]),
        np.array([0, 1, 1]),
    )
    assert scores == pytest.approx({"gmean": math.sqrt(0.5), "f1": 2 / 3, "auc": 0.75})


def test_svm_auc_uses_the_decision_function():
    # One feature, minority on top: the linear SVM's decision function increases with x,
    # so its AUC is the AUC of x itself. Test x: 2 (0), 6 (1), 4.5 (0), 5 (1), 7 (0):
    # pos {6, 5} vs neg {2, 4.5, 7}: 6 beats 2, 4.5 (2); 5 beats 2, 4.5 (2) -> 4/6
    X_train, y_train = np.array([[1.0], [2], [3], [8], [9]]), np.array([0, 0, 0, 1, 1])
    X_test, y_test = np.array([[2.0], [6], [4.5], [5], [7]]), np.array([0, 1, 0, 1, 0])
    assert classify("svm", X_train, y_train, X_test, y_test)["auc"] == pytest.approx(4 / 6)


def test_no_feature_predicts_the_majority_class():
    scores = classify(
        "svm", np.zeros((4, 0)), np.array([0, 0, 1, 1]), np.zeros((3, 0)), np.array([0, 1, 1])
    )
    assert scores == {"gmean": 0.0, "f1": 0.0, "auc": 0.5}


# ------------------------------------------------------------------------------- splits

SYNTHETIC_LABELS = {
    "srbct-like": np.r_[np.zeros(72, int), np.ones(11, int)],
    "odd classes": np.r_[np.zeros(15, int), np.ones(7, int)],
    "interleaved": np.tile([0, 0, 0, 1], 6),
    "three classes": np.r_[np.zeros(9, int), np.ones(5, int), np.full(8, 2)],
    "balanced odd n": np.r_[np.zeros(13, int), np.ones(12, int)],
}


def check_splits(y, splits, n_splits):
    y = np.asarray(y)
    n = len(y)
    assert len(splits) == n_splits
    for train, test in splits:
        assert len(train) == math.ceil(n / 2) and len(test) == n - math.ceil(n / 2)
        assert set(train).isdisjoint(test)
        assert sorted([*train, *test]) == list(range(n))
        for c in np.unique(y):
            n_c = int(np.sum(y == c))
            for half in (train, test):
                assert int(np.sum(y[half] == c)) in (n_c // 2, (n_c + 1) // 2)
    assert len({frozenset(train.tolist()) for train, _ in splits}) == n_splits


def test_srbct_splits_keep_the_class_ratio(srbct):
    y = srbct.binarise(2)
    assert np.sum(y) == 11 and len(y) == 83
    splits = stratified_splits(y, 10, seed=0)
    check_splits(y, splits, 10)
    for train, test in splits:  # 83 -> 42 + 41; 11 minority -> 6 + 5
        assert (np.sum(y[train]), np.sum(y[test])) == (6, 5)


@pytest.mark.parametrize("name", SYNTHETIC_LABELS)
def test_synthetic_splits_keep_the_class_ratio(name):
    y = SYNTHETIC_LABELS[name]
    check_splits(y, stratified_splits(y, 6, seed=3), 6)


@pytest.mark.parametrize("name", SYNTHETIC_LABELS)
def test_same_seed_same_splits_other_seed_other_splits(name):
    y = SYNTHETIC_LABELS[name]

    def as_sets(splits):
        return [(sorted(tr.tolist()), sorted(te.tolist())) for tr, te in splits]

    assert as_sets(stratified_splits(y, 5, seed=7)) == as_sets(stratified_splits(y, 5, seed=7))
    assert as_sets(stratified_splits(y, 5, seed=7)) != as_sets(stratified_splits(y, 5, seed=8))


@pytest.mark.parametrize(
    "y,n_splits,fragment",
    [
        ([0, 0, 1, 1], 0, "positive integer"),
        ([0, 0, 1, 1], True, "positive integer"),
        ([0, 0, 1, 1], 2.0, "positive integer"),
        ([0, 0, 0, 1], 2, "at least 2 samples"),
    ],
)
def test_split_errors(y, n_splits, fragment):
    with pytest.raises(FSEngineError, match=fragment):
        stratified_splits(np.array(y), n_splits)


def test_stratified_splits_accepts_classes_not_numbered_from_0():
    """Regression: labels {0, 2} are two valid classes of 8 samples each; np.bincount once
    counted an empty class 1 and the function said a class had fewer than 2 samples."""
    y = np.repeat([0, 2], 8)
    check_splits(np.repeat([0, 1], 8), stratified_splits(np.repeat([0, 1], 8), 3, seed=0), 3)
    check_splits(y, stratified_splits(y, 3, seed=0), 3)


# --------------------------------------------------------------- evaluate: reproducible

SMALL_METHODS = ["kofsd", "fisher", "relieff"]


def test_same_seed_same_records_and_table(srbct, monkeypatch):
    monkeypatch.setattr(comparison, "time", FakeClock())  # selection times repeat too
    first = evaluate(srbct, 2, SMALL_METHODS, n_splits=3, seed=4, n_jobs=1)  # the fake clock
    second = evaluate(srbct, 2, SMALL_METHODS, n_splits=3, seed=4, n_jobs=1)  # is in-process
    assert len(first.records) == 9
    assert first.records == second.records
    assert summary_table(first.summary()) == summary_table(second.summary())
    assert all(r["seconds"] == 0.25 for r in first.records)


def test_same_seed_same_records_with_the_real_clock(srbct):
    first = evaluate(srbct, 2, SMALL_METHODS, n_splits=2, seed=4)
    second = evaluate(srbct, 2, SMALL_METHODS, n_splits=2, seed=4)
    assert without_seconds(first.records) == without_seconds(second.records)


def test_other_seed_other_records(srbct, monkeypatch):
    for module in (comparison, sweeps):  # the clocks of evaluate and the sweeps
        monkeypatch.setattr(module, "time", FakeClock())
    first = evaluate(srbct, 2, SMALL_METHODS, n_splits=3, seed=4)
    other = evaluate(srbct, 2, SMALL_METHODS, n_splits=3, seed=5)
    assert first.records != other.records
    assert [r["features"] for r in first.records] != [r["features"] for r in other.records]
    assert summary_table(first.summary()) != summary_table(other.summary())


def test_records_hold_every_field_and_params(srbct):
    result = evaluate(srbct, 2, ["kofsd", "fisher", "kofsd"], n_splits=2, seed=1)
    assert [(r["method"], r["split"]) for r in result.records] == [
        ("kofsd", 0),
        ("fisher", 0),
        ("kofsd", 1),
        ("fisher", 1),
    ]  # duplicate dropped
    for r in result.records:
        assert set(r) == {
            "method",
            "split",
            "n_features",
            "seconds",
            "features",
            "settings",
            *METRIC_FIELDS,
        }
        expected = (
            "k=7, alpha=0.5, card=imbalanced, variant=reference" if r["method"] == "kofsd" else ""
        )
        assert r["settings"].startswith(expected)
        assert r["n_features"] == len(r["features"].split(";"))
        assert all(0.0 <= r[f] <= 1.0 for f in METRIC_FIELDS)
    assert result.params["methods"] == ["kofsd", "fisher"]
    assert (result.params["splits"], result.params["seed"], result.params["minority"]) == (2, 1, 2)


def test_records_carry_the_parameters_that_produced_them(srbct):
    result = evaluate(srbct, 2, ["kofsd", "relieff"], n_splits=2, params={"kofsd": {"k": 4}})
    assert result.params["settings"]["kofsd"]["k"] == 4
    assert result.params["settings"]["relieff"] == get_method("relieff").spec.record(
        get_method("relieff").spec.defaults()
    )
    kofsd = [r for r in result.records if r["method"] == "kofsd"]
    assert all(r["settings"].startswith("k=4, ") for r in kofsd)


def test_protocol_refuses_a_minority_that_cannot_fill_a_training_half():
    y = np.zeros(30, dtype=int)
    y[:3] = 1
    with pytest.raises(FSEngineError) as caught:
        stratified_splits(y)
    assert caught.value.parameter == "minority"
    assert "3 samples" in caught.value.problem and "at least 4" in caught.value.remedy


def test_protocol_warnings_name_the_training_half_sizes(srbct):
    y = srbct.binarise(2)  # 11 BL samples: 6 in each training half, 5 in each test half
    train, test = protocol_minority_sizes(y, 20)
    counts = [(int(y[a].sum()), int(y[b].sum())) for a, b in stratified_splits(y, 20)]
    assert (list(train), list(test)) == (
        sorted({a for a, _ in counts}),
        sorted({b for _, b in counts}),
    )
    warnings = protocol_warnings(y, ["kofsd", "fisher"], {"kofsd": {"k": 7}})
    assert (
        len(warnings) == 1
        and "K = 7" in warnings[0]
        and "(6 minority samples of 42)" in warnings[0]
    )
    assert protocol_warnings(y, ["kofsd"], {"kofsd": {"k": 3}}) == []


def slow_one_nn(X_train, y_train, X_test):
    """1-NN by its definition: the label of the training row at the least Euclidean distance."""
    predicted = []
    for row in X_test:
        distances = [math.dist(row, other) for other in X_train]
        predicted.append(int(y_train[distances.index(min(distances))]))
    return predicted


def test_one_nn_metrics_of_a_record_recomputed_by_definition(srbct):
    y = srbct.binarise(2)
    result = evaluate(srbct, 2, ["kofsd", "fisher"], n_splits=2, seed=2)
    splits = stratified_splits(y, 2, seed=2)
    names = list(srbct.feature_names)
    for r in result.records:
        train, test = splits[r["split"]]
        columns = [names.index(f) for f in r["features"].split(";")]
        X = srbct.X[:, columns]
        predicted = slow_one_nn(X[train], y[train], X[test])
        truth = y[test].tolist()
        tp = sum(t == 1 and p == 1 for t, p in zip(truth, predicted))
        fn = sum(t == 1 and p == 0 for t, p in zip(truth, predicted))
        tn = sum(t == 0 and p == 0 for t, p in zip(truth, predicted))
        fp = sum(t == 0 and p == 1 for t, p in zip(truth, predicted))
        tpr, tnr = tp / (tp + fn), tn / (tn + fp)
        assert r["gmean_1nn"] == pytest.approx(math.sqrt(tpr * tnr), abs=1e-12)
        assert r["f1_1nn"] == pytest.approx(2 * tp / (2 * tp + fp + fn), abs=1e-12)
        assert r["auc_1nn"] == pytest.approx((tpr + tnr) / 2, abs=1e-12)


def test_summary_is_mean_and_sample_sd_per_method(srbct):
    result = evaluate(srbct, 2, ["kofsd", "pcc"], n_splits=3, seed=0)
    rows = result.summary()
    assert [row["method"] for row in rows] == ["kofsd", "pcc"]
    for row in rows:
        mine = by_method(result.records)[row["method"]]
        assert row["splits"] == 3
        for column in ["n_features", "seconds", *METRIC_FIELDS]:
            values = [float(r[column]) for r in mine]
            assert row[f"{column}_mean"] == pytest.approx(statistics.fmean(values), abs=1e-12)
            assert row[f"{column}_std"] == pytest.approx(statistics.stdev(values), abs=1e-12)


def test_progress_is_called_after_every_method_and_split(srbct):
    calls = []
    evaluate(srbct, 2, ["kofsd", "fisher"], n_splits=3, progress=lambda *a: calls.append(a))
    assert [(d, t) for d, t, _ in calls] == [(i, 6) for i in range(1, 7)]
    assert calls[0][2] == "split 1/3 kofsd" and calls[-1][2] == "split 3/3 fisher"


# ---------------------------------------------- rankers get as many features as K-OFSD

RANKER_SET = ["fisher", "s2n", "pcc", "relieff", "mi"]


def test_rankers_get_kofsds_count_on_every_split(srbct):
    result = evaluate(srbct, 2, ["kofsd", *RANKER_SET], n_splits=4, seed=0)
    groups = by_method(result.records)
    counts = [r["n_features"] for r in groups["kofsd"]]
    assert len(set(counts)) > 1  # the count really varies between splits
    for ranker in RANKER_SET:
        assert [r["n_features"] for r in groups[ranker]] == counts


@pytest.mark.parametrize("kofsd_params", [{}, {"k": 3, "alpha": 0.6}])
def test_rankers_get_kofsds_count_when_kofsd_is_not_listed(srbct, kofsd_params):
    y = srbct.binarise(2)
    params = {"kofsd": kofsd_params} if kofsd_params else None
    result = evaluate(srbct, 2, ["fisher", "pcc"], n_splits=3, seed=6, params=params)
    expected = []
    for train, _ in stratified_splits(y, 3, seed=6):
        selection, _ = run_kofsd(srbct.X[train], y[train], **kofsd_params)
        expected.append(len(selection.columns))
    for ranker, records in by_method(result.records).items():
        assert [r["n_features"] for r in records] == expected, ranker


def test_fixed_top_gives_every_ranker_that_many(srbct):
    plain = evaluate(srbct, 2, ["kofsd", "fisher", "mi"], n_splits=2, seed=0)
    fixed = evaluate(srbct, 2, ["kofsd", "fisher", "mi"], n_splits=2, seed=0, top=3)
    for r in fixed.records:
        if r["method"] != "kofsd":
            assert r["n_features"] == 3
    assert [r["features"] for r in by_method(fixed.records)["kofsd"]] == [
        r["features"] for r in by_method(plain.records)["kofsd"]
    ]


@pytest.mark.parametrize("top", [0, 2309, True, 2.0])
def test_top_out_of_range_is_an_error(srbct, top):
    with pytest.raises(FSEngineError, match="top must be"):
        evaluate(srbct, 2, ["fisher"], n_splits=2, top=top)


# ------------------------------------------------------------------------- no leakage

RECORDED_SOURCES = (
    "select_on",
    "Method.select",
    "stream_selection",
    "StandardScaler.fit",
    "KNeighborsClassifier.fit",
    "SVC.fit",
)


class Recorder:
    """Every matrix a selector, ranker, scaler or classifier is trained on, tagged with
    the split it belongs to (the progress count: evaluate reports after each method of a
    split, and does all of a split's work before its last report)."""

    def __init__(self, n_methods):
        self.n_methods, self.done = n_methods, 0
        self.calls, self.splits, self.scaler = [], None, None

    def progress(self, done, total, message):
        self.done = done

    def add(self, source, X, y=None):
        self.calls.append(
            (
                self.done // self.n_methods,
                source,
                np.array(X, dtype=float),
                None if y is None else np.asarray(y).copy(),
            )
        )


def install_recorders(monkeypatch, rec):
    """Wrap (whatever is in place now) to record the rows each call is given."""
    splits_fn, select_fn = comparison.stratified_splits, comparison.select_on
    method_select, stream_fn = methods.Method.select, methods.stream_selection
    scaler_fit, scaler_fit_transform = StandardScaler.fit, StandardScaler.fit_transform
    knn_fit, svc_fit = KNeighborsClassifier.fit, SVC.fit

    def stratified_splits(*args, **kwargs):
        rec.splits = splits_fn(*args, **kwargs)
        return rec.splits

    def select_on(method, X_train, y_train, *args, **kwargs):
        rec.add("select_on", X_train, y_train)
        return select_fn(method, X_train, y_train, *args, **kwargs)

    def select(self, X, y, *args, **kwargs):
        rec.add("Method.select", X, y)
        return method_select(self, X, y, *args, **kwargs)

    def stream_selection(selector, X, *args, **kwargs):
        rec.add("stream_selection", X, selector.y)
        return stream_fn(selector, X, *args, **kwargs)

    def fit(self, X, y=None, *args, **kwargs):
        rec.add("StandardScaler.fit", X)
        result = scaler_fit(self, X, y, *args, **kwargs)
        rec.scaler = (self.mean_.copy(), self.scale_.copy())
        return result

    def fit_transform(self, X, y=None, **kwargs):
        rec.add("StandardScaler.fit", X)
        return scaler_fit_transform(self, X, y, **kwargs)

    def knn(self, X, y, *args, **kwargs):
        rec.add("KNeighborsClassifier.fit", X, y)
        return knn_fit(self, X, y, *args, **kwargs)

    def svc(self, X, y, *args, **kwargs):
        mean, scale = rec.scaler if rec.scaler is not None else (0.0, 1.0)
        rec.add("SVC.fit", np.asarray(X) * scale + mean, y)  # back to the raw rows
        return svc_fit(self, X, y, *args, **kwargs)

    for name, wrapper in [("stratified_splits", stratified_splits), ("select_on", select_on)]:
        monkeypatch.setattr(comparison, name, wrapper)
    monkeypatch.setattr(methods.Method, "select", select)
    monkeypatch.setattr(methods, "stream_selection", stream_selection)
    monkeypatch.setattr(StandardScaler, "fit", fit)
    monkeypatch.setattr(StandardScaler, "fit_transform", fit_transform)
    monkeypatch.setattr(KNeighborsClassifier, "fit", knn)
    monkeypatch.setattr(SVC, "fit", svc)


def find_leaks(rec, X, y):
    """Every recorded row that is not a training row of its split, and every label vector
    that does not belong to its rows; [] means no leak."""
    sample_of = {value: i for i, row in enumerate(X) for value in row.tolist()}
    problems = []
    for split, source, rows, labels in rec.calls:
        train, test = (set(half.tolist()) for half in rec.splits[split])
        samples = []
        for row in rows:
            rounded = np.rint(row)
            owners = {sample_of.get(v) for v in rounded.tolist()}
            ok = np.allclose(row, rounded, rtol=0, atol=1e-6) and len(owners) == 1
            samples.append(owners.pop() if ok else None)
        for s in samples:
            if s is None:
                problems.append(f"split {split}: {source} saw a row that is no sample")
            elif s in test:
                problems.append(f"split {split}: {source} saw test sample {s}")
            elif s not in train:
                problems.append(f"split {split}: {source} saw sample {s} of neither half")
        if labels is not None and None not in samples and labels.tolist() != y[samples].tolist():
            problems.append(f"split {split}: {source} got labels that are not its rows'")
    return problems


LEAK_METHODS = ["kofsd", "ofs-fpd", "cie-osfs", "fisher", "relieff", "mi", "d-fisher"]


def recorded_run(monkeypatch, methods, leak=None, n_splits=2, seed=0):
    """Evaluate the unique-valued data set with every recorder installed (and ``leak``, a
    function of (monkeypatch, dataset, y) planting a deliberate leak)."""
    ds = unique_dataset()
    y = ds.binarise("rare")
    rec = Recorder(len(methods))
    if leak is not None and leak.__name__ == "leaky_splits":  # must be seen by the recorder
        leak(monkeypatch, ds, y)
    install_recorders(monkeypatch, rec)
    if leak is not None and leak.__name__ != "leaky_splits":  # must wrap the recorders
        leak(monkeypatch, ds, y)
    result = evaluate(
        ds, "rare", methods, n_splits=n_splits, seed=seed, progress=rec.progress, n_jobs=1
    )  # the recorders patch this process
    return rec, ds, y, result


def test_no_row_of_the_test_half_reaches_any_training(monkeypatch):
    rec, ds, y, result = recorded_run(monkeypatch, LEAK_METHODS, n_splits=3)
    assert find_leaks(rec, ds.X, y) == []
    # the recorders saw everything there is to see, on every split
    seen = {(split, source) for split, source, _, _ in rec.calls}
    assert seen == {(s, source) for s in range(3) for source in RECORDED_SOURCES}
    assert [(sorted(a), sorted(b)) for a, b in rec.splits] == [
        (sorted(a), sorted(b)) for a, b in stratified_splits(y, 3, seed=0)
    ]
    for _split, source, rows, _ in rec.calls:  # selectors get the whole training half
        if source in ("select_on", "Method.select", "stream_selection"):
            assert rows.shape == (20, 12)
    assert len(result.records) == 3 * len(LEAK_METHODS)


def test_no_leak_when_rankers_need_kofsds_count_unlisted(monkeypatch):
    rec, ds, y, _ = recorded_run(monkeypatch, ["fisher", "mi"])
    assert find_leaks(rec, ds.X, y) == []
    assert sum(source == "stream_selection" for _, source, _, _ in rec.calls) == 2  # K-OFSD's count


def leaky_splits(monkeypatch, ds, y):
    real = comparison.stratified_splits

    def splits(*args, **kwargs):  # one test sample slips into the training half
        return [(np.append(train, test[0]), test) for train, test in real(*args, **kwargs)]

    monkeypatch.setattr(comparison, "stratified_splits", splits)


def leaky_selection(monkeypatch, ds, y):
    real = comparison.select_on

    def select_on(method, X_train, y_train, *args, **kwargs):  # selects on all the data
        return real(method, ds.X, y, *args, **kwargs)

    monkeypatch.setattr(comparison, "select_on", select_on)


def leaky_ranker(monkeypatch, ds, y):
    real = methods.Method.select

    def select(self, X, y_train, *args, **kwargs):  # ranks on all the data
        if self.online:
            return real(self, X, y_train, *args, **kwargs)
        return real(self, ds.X, y, *args, **kwargs)

    monkeypatch.setattr(methods.Method, "select", select)


def leaky_classifier(monkeypatch, ds, y):
    real = evaluation_metrics.classify

    def classify(name, X_train, y_train, X_test, y_test):  # trains on both halves
        return real(name, np.vstack([X_train, X_test]), np.r_[y_train, y_test], X_test, y_test)

    monkeypatch.setattr(evaluation_metrics, "classify", classify)


@pytest.mark.parametrize(
    "leak,methods,caught_by",
    [
        (leaky_splits, ["kofsd", "fisher"], RECORDED_SOURCES),
        (
            leaky_selection,
            ["kofsd", "cie-osfs", "fisher"],
            ("select_on", "stream_selection", "Method.select"),
        ),
        (leaky_ranker, ["fisher", "relieff"], ("Method.select",)),
        (
            leaky_classifier,
            ["kofsd"],
            ("StandardScaler.fit", "KNeighborsClassifier.fit", "SVC.fit"),
        ),
    ],
)
def test_the_leak_detector_catches_deliberate_leaks(monkeypatch, leak, methods, caught_by):
    rec, ds, y, _ = recorded_run(monkeypatch, methods, leak=leak)
    problems = find_leaks(rec, ds.X, y)
    assert problems
    for source in caught_by:
        for split in range(2):
            assert any(p.startswith(f"split {split}: {source} saw test sample") for p in problems)


# ----------------------------------------------------------------------------- sweeps


def test_sweep_k_equals_evaluate_with_that_k(srbct, monkeypatch):
    for module in (comparison, sweeps):  # the clocks of evaluate and the sweeps
        monkeypatch.setattr(module, "time", FakeClock())
    result = sweep_k(srbct, 2, [3, 5], n_splits=2, seed=1)
    assert [(r["k"], r["split"]) for r in result.records] == [(3, 0), (3, 1), (5, 0), (5, 1)]
    for k in (3, 5):
        alone = evaluate(srbct, 2, ["kofsd"], n_splits=2, seed=1, params={"kofsd": {"k": k}})
        mine = [
            {key: v for key, v in r.items() if key != "k"} for r in result.records if r["k"] == k
        ]
        # One shared pass serves every K, so the time per K differs; nothing else may.
        assert without_seconds(mine) == without_seconds(alone.records)
    assert [row["k"] for row in result.summary(("k",))] == [3, 5]
    assert result.params["ks"] == [3, 5]


def test_sweep_k_passes_other_kofsd_parameters(srbct):
    result = sweep_k(srbct, 2, [4], n_splits=2, seed=0, alpha=0.7)
    alone = evaluate(
        srbct, 2, ["kofsd"], n_splits=2, seed=0, params={"kofsd": {"k": 4, "alpha": 0.7}}
    )
    assert [r["features"] for r in result.records] == [r["features"] for r in alone.records]


def test_sweep_top_gives_each_ranker_exactly_top(srbct, monkeypatch):
    for module in (comparison, sweeps):  # the clocks of evaluate and the sweeps
        monkeypatch.setattr(module, "time", FakeClock())
    result = sweep_top(srbct, 2, ["fisher", "pcc"], [1, 2, 4], n_splits=2, seed=0)
    assert len(result.records) == 3 * 2 * 2
    for r in result.records:
        assert r["n_features"] == r["top"] == len(r["features"].split(";"))
    for top in (1, 2, 4):
        alone = evaluate(srbct, 2, ["fisher", "pcc"], n_splits=2, seed=0, top=top)
        mine = [
            {k: v for k, v in r.items() if k != "top"} for r in result.records if r["top"] == top
        ]
        # One ranking per split serves every top-k, so the times differ; nothing else may.
        assert without_seconds(mine) == without_seconds(alone.records)
    assert [(row["method"], row["top"]) for row in result.summary(("method", "top"))] == [
        ("fisher", 1),
        ("pcc", 1),
        ("fisher", 2),
        ("pcc", 2),
        ("fisher", 4),
        ("pcc", 4),
    ]


@pytest.mark.parametrize("methods", [["kofsd"], ["fisher", "cie-osfs"], ["ofs-fpd"]])
def test_sweep_top_rejects_online_methods(srbct, methods):
    with pytest.raises(FSEngineError, match="a top-k sweep is for rankers"):
        sweep_top(srbct, 2, methods, [1, 2], n_splits=2)


def test_sweep_progress_counts_over_the_whole_sweep(srbct):
    calls = []
    sweep_top(srbct, 2, ["fisher", "pcc"], [1, 2], n_splits=2, progress=lambda *a: calls.append(a))
    assert [(d, t) for d, t, _ in calls] == [(i, 8) for i in range(1, 9)]
    calls.clear()
    sweep_k(srbct, 2, [3, 5], n_splits=2, progress=lambda *a: calls.append(a))
    assert [(d, t) for d, t, _ in calls] == [(i, 4) for i in range(1, 5)]
    assert calls[-1][2] == "k=5 split 2/2 kofsd"


# ------------------------------------------------------------------------ command line

TABLE_TITLES = ["G-mean 1-NN", "G-mean SVM", "F1 (1-NN)", "AUC (SVM)", "#features", "time (s)"]
TABLE_FIELDS = ["gmean_1nn", "gmean_svm", "f1_1nn", "auc_svm", "n_features"]


def _run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def table_rows(out):
    """The table under the heading: header cells and {setting: [cell, ...]}."""
    lines = out.split("\n\n", 1)[1].rstrip("\n").split("\n")
    header = re.split(r"\s{2,}", lines[0].strip())
    rows = [re.split(r"\s{2,}", line.strip()) for line in lines[1:]]
    return header, rows


def check_cells(cells, summary_row):
    for cell, field in zip(cells, TABLE_FIELDS):
        digits = 1 if field == "n_features" else 4
        mean, sd = summary_row[f"{field}_mean"], summary_row[f"{field}_std"]
        assert cell == f"{mean:.{digits}f} +- {sd:.{digits}f}", field
    assert re.fullmatch(r"\d+\.\d{3} \+- \d+\.\d{3}", cells[5])


def test_cli_evaluate_prints_the_summary_in_the_given_order(capsys, srbct):
    methods = ["pcc", "kofsd", "fisher"]
    code, out, err = _run(
        capsys,
        "evaluate",
        SAMPLE,
        "--minority",
        "2",
        "--methods",
        ",".join(methods),
        "--splits",
        "2",
        "--seed",
        "3",
    )
    assert code == 0 and err == ""  # no progress bar: stderr is not a terminal
    assert out.startswith("SRBCT.parquet: 83 x 2308, minority 2 (11 of 83)\n2 stratified")
    header, rows = table_rows(out)
    assert header == ["method", *TABLE_TITLES]
    assert [row[0] for row in rows] == methods
    expected = evaluate(srbct, 2, methods, n_splits=2, seed=3).summary()
    for row, summary_row in zip(rows, expected):
        assert len(row) == 7
        check_cells(row[1:], summary_row)


def test_cli_evaluate_out_writes_one_row_per_method_and_split(capsys, srbct, tmp_path):
    path = tmp_path / "records.csv"
    code, _, _ = _run(
        capsys,
        "evaluate",
        SAMPLE,
        "--minority",
        "2",
        "--methods",
        "kofsd,relieff",
        "--splits",
        "2",
        "--out",
        path,
    )
    assert code == 0
    rows = list(csv.DictReader(path.open(newline="")))
    expected = evaluate(srbct, 2, ["kofsd", "relieff"], n_splits=2, seed=0).records
    assert [(r["method"], r["split"]) for r in rows] == [
        ("kofsd", "0"),
        ("relieff", "0"),
        ("kofsd", "1"),
        ("relieff", "1"),
    ]
    assert list(rows[0])[:2] == ["method", "split"]
    for row, record in zip(rows, expected):
        assert set(row) == set(record)
        assert row["features"] == record["features"]
        assert int(row["n_features"]) == record["n_features"]
        for field in METRIC_FIELDS:
            assert float(row[field]) == record[field]  # full precision
        assert float(row["seconds"]) >= 0


def test_cli_evaluate_options_reach_the_methods(capsys, srbct, tmp_path):
    path = tmp_path / "records.csv"
    code, _, _ = _run(
        capsys,
        "evaluate",
        SAMPLE,
        "--minority",
        "2",
        "--methods",
        "kofsd,mi",
        "--splits",
        "2",
        "--k",
        "3",
        "--bins",
        "5",
        "--estimator",
        "binned",
        "--out",
        path,
    )
    assert code == 0
    expected = evaluate(
        srbct,
        2,
        ["kofsd", "mi"],
        n_splits=2,
        params={"kofsd": {"k": 3}, "mi": {"bins": 5, "estimator": "binned"}},
    ).records
    rows = list(csv.DictReader(path.open(newline="")))
    assert [r["features"] for r in rows] == [r["features"] for r in expected]


def test_cli_sweep_k(capsys, srbct):
    code, out, err = _run(capsys, "sweep", SAMPLE, "--minority", "2", "--k", "3,5", "--splits", "3")
    assert code == 0 and err == ""
    header, rows = table_rows(out)
    assert header == ["setting", *TABLE_TITLES]
    assert [row[0] for row in rows] == ["K=3", "K=5"]
    expected = sweep_k(srbct, 2, [3, 5], n_splits=3).summary(("k",))
    for row, summary_row in zip(rows, expected):
        check_cells(row[1:], summary_row)


def test_cli_sweep_top(capsys, srbct, tmp_path):
    path = tmp_path / "sweep.csv"
    code, out, err = _run(
        capsys,
        "sweep",
        SAMPLE,
        "--minority",
        "2",
        "--methods",
        "fisher,pcc",
        "--top",
        "1..2",
        "--splits",
        "2",
        "--out",
        path,
    )
    assert code == 0 and err == ""
    _, rows = table_rows(out)
    assert [row[0] for row in rows] == ["fisher top 1", "pcc top 1", "fisher top 2", "pcc top 2"]
    expected = sweep_top(srbct, 2, ["fisher", "pcc"], [1, 2], n_splits=2)
    for row, summary_row in zip(rows, expected.summary(("method", "top"))):
        check_cells(row[1:], summary_row)
        assert row[5] == f"{summary_row['top']}.0 +- 0.0"
    records = list(csv.DictReader(path.open(newline="")))
    assert list(records[0])[:3] == ["method", "top", "split"]
    assert [r["features"] for r in records] == [r["features"] for r in expected.records]


@pytest.mark.parametrize(
    "argv,fragment",
    [
        (
            ["evaluate", "--methods", "kofsd,magic"],
            "--methods 'magic' is not a method; choose one of kofsd,",
        ),
        (["evaluate", "--methods", "fisher", "--top", "0"], "top must be an integer"),
        (
            ["evaluate", "--methods", "fisher,pcc", "--top", "3", "--alpha", "0.6"],
            "--alpha applies to kofsd",
        ),
        (["evaluate", "--methods", "kofsd", "--bins", "5"], "--bins applies to"),
        (["evaluate", "--splits", "0", "--methods", "fisher"], "positive integer"),
        (
            ["sweep", "--k", "3", "--methods", "fisher", "--top", "1..2"],
            "--k, --over and --values sweep an online selector",
        ),
        (["sweep", "--methods", "fisher", "--top", "1..x"], "not a range"),
        (["sweep", "--k", "1..x"], "not a range"),
        (["sweep", "--k", "5..3"], "empty range"),
        (["sweep", "--methods", "fisher"], "needs --top"),
        (["sweep", "--top", "1..2"], "give them with --methods"),
        (["sweep", "--methods", "kofsd,fisher", "--top", "1..2"], "a top-k sweep is for rankers"),
        (["sweep", "--k", "3", "--bins", "4"], "--bins applies to"),
    ],
)
def test_cli_errors_are_one_line_with_exit_2(capsys, argv, fragment):
    command, *rest = argv
    code, out, err = _run(capsys, command, SAMPLE, "--minority", "2", "--splits", "2", *rest)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("fsengine: error: ")
    assert fragment in err


# ----------------------------------------------------------------------- progress bar


def test_progress_bar_is_none_when_not_a_terminal():
    assert terminal_progress(io.StringIO()) is None


def test_progress_bar_draws_on_a_terminal():
    stream = FakeTTY()
    progress = terminal_progress(stream, width=8)
    progress(1, 4, "split 1/2 kofsd")
    assert stream.getvalue().startswith("\r[##......] 1/4 ")  # int(8 * 1/4) = 2 filled
    assert "split 1/2 kofsd" in stream.getvalue() and not stream.getvalue().endswith("\n")
    progress(4, 4, "done")
    assert stream.getvalue().split("\r")[-1].startswith("[########] 4/4 ")
    assert stream.getvalue().endswith("\n")


def test_evaluate_draws_the_bar_on_a_terminal(srbct):
    stream = FakeTTY()
    evaluate(srbct, 2, ["kofsd", "fisher"], n_splits=2, progress=terminal_progress(stream))
    frames = stream.getvalue().split("\r")[1:]
    assert [re.search(r"\] (\d+/\d+) ", f).group(1) for f in frames] == ["1/4", "2/4", "3/4", "4/4"]
    assert stream.getvalue().count("\n") == 1


def test_cli_draws_the_bar_when_stderr_is_a_terminal(capsys, monkeypatch):
    stream = FakeTTY()
    monkeypatch.setattr("sys.stderr", stream)
    code = main(
        ["evaluate", str(SAMPLE), "--minority", "2", "--methods", "fisher", "--splits", "2"]
    )
    assert code == 0
    assert "[" + "#" * 30 + "] 2/2" in stream.getvalue()
    assert "fisher" in capsys.readouterr().out


def test_kofsd_options_reach_the_count_when_kofsd_is_not_compared(capsys, srbct):
    """The rankers get K-OFSD's number of features, so --k applies without kofsd listed."""
    from fsengine.cli import main

    assert (
        main(
            [
                "evaluate",
                str(SAMPLE),
                "--minority",
                "2",
                "--methods",
                "fisher",
                "--k",
                "3",
                "--splits",
                "2",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    expected = evaluate(srbct, 2, ["fisher"], n_splits=2, params={"kofsd": {"k": 3}})
    assert f"{expected.summary()[0]['n_features_mean']:.1f}" in out
    default = evaluate(srbct, 2, ["fisher"], n_splits=2)
    assert expected.summary()[0]["n_features_mean"] != default.summary()[0]["n_features_mean"]


def test_whole_data_selections_give_rankers_kofsds_count(srbct):
    from fsengine import run_selection
    from fsengine.evaluation import whole_data_selections

    selections, count = whole_data_selections(srbct, 2, ["fisher", "ofs-fpd"])
    kofsd = run_selection(srbct, 2, "kofsd").selection
    assert count == len(kofsd)
    assert selections["fisher"] == run_selection(srbct, 2, "fisher", top=count).selection.features
    assert selections["ofs-fpd"] == run_selection(srbct, 2, "ofs-fpd").selection.features
    fixed, top = whole_data_selections(srbct, 2, ["pcc"], top=3)
    assert top == 3 and len(fixed["pcc"]) == 3


@pytest.mark.parametrize("n, expected", [(20, 10), (21, 11), (83, 42), (50, 25)])
def test_the_training_half_is_the_size_the_splits_give(n, expected):
    """One rule for the training half (ceil(n / 2), by hand), the one the splits use."""
    y = np.array([1] * 8 + [0] * (n - 8))
    assert training_size(n) == expected
    assert {len(train) for train, _ in stratified_splits(y, 3, seed=1)} == {expected}
