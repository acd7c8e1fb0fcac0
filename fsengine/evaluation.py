"""Evaluation protocol of the K-OFSD paper (Zhou et al. 2017, section 4.1), and sweeps.

R random stratified 50/50 splits (default 20, seeded): every selector and ranker
sees only the training half; a classifier trained on the training half's selected
features is scored on the test half. Rankers get as many features as an online selector
(``count_from``, default K-OFSD: the paper's rule) selected on the same split, unless a
fixed ``top`` is given.

Metrics are on the minority class (label 1): G-mean = sqrt(TPR x TNR), the minority
class's F1, and ROC AUC. Classifiers (scikit-learn):

* ``1nn``: 1-nearest neighbour, Euclidean distance on the selected features as they
  are (MATLAB's ``fitcknn`` default, as in the paper);
* ``svm``: linear SVM, ``SVC(kernel="linear", C=1)``, on features standardised with the
  training half's means and standard deviations.

AUC uses the SVM's decision function; for 1-NN, whose output is a hard label, it is
the AUC of that label, (TPR + TNR) / 2.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from fsengine.data import Dataset
from fsengine.errors import FSEngineError, is_integer_in
from fsengine.labels import MIN_MINORITY
from fsengine.methods import get_method
from fsengine.parallel import run_tasks
from fsengine.rankers import rank_features
from fsengine.runs import run_selection

CLASSIFIERS = ("1nn", "svm")
METRICS = ("gmean", "f1", "auc")
#: The methods of the K-OFSD paper's comparison (Tables 3 and 4).
PAPER_METHODS = ("kofsd", "fisher", "s2n", "pcc", "relieff", "mi")
#: The online selector whose count of features the rankers get by default (the paper's rule).
COUNT_FROM = "kofsd"

Progress = Callable[[int, int, str], None]


def confusion(y_true, y_pred) -> tuple[int, int, int, int]:
    """(TP, FN, TN, FP) with the minority class (1) as positive."""
    y_true = np.asarray(y_true) == 1
    y_pred = np.asarray(y_pred) == 1
    return (
        int(np.sum(y_true & y_pred)),
        int(np.sum(y_true & ~y_pred)),
        int(np.sum(~y_true & ~y_pred)),
        int(np.sum(~y_true & y_pred)),
    )


def gmean(y_true, y_pred) -> float:
    """G-mean = sqrt(TP / (TP + FN) x TN / (TN + FP)); 0 when a class is never predicted
    right (and a rate whose class is absent counts as 0)."""
    tp, fn, tn, fp = confusion(y_true, y_pred)
    tpr = tp / (tp + fn) if tp + fn else 0.0
    tnr = tn / (tn + fp) if tn + fp else 0.0
    return math.sqrt(tpr * tnr)


def f1_minority(y_true, y_pred) -> float:
    """F1 of the minority class, 2 TP / (2 TP + FP + FN); 0 when it is never predicted
    and never present."""
    tp, fn, _, fp = confusion(y_true, y_pred)
    return 2 * tp / (2 * tp + fp + fn) if tp + fp + fn else 0.0


def roc_auc(y_true, scores) -> float:
    """Area under the ROC curve of ``scores`` for the minority class (ties count half)."""
    y_true = np.asarray(y_true) == 1
    scores = np.asarray(scores, dtype=float)
    pos, neg = scores[y_true], scores[~y_true]
    if len(pos) == 0 or len(neg) == 0:
        raise FSEngineError("AUC needs both classes in the test half")
    greater = (pos[:, None] > neg[None, :]).sum()
    equal = (pos[:, None] == neg[None, :]).sum()
    return float((greater + 0.5 * equal) / (len(pos) * len(neg)))


def make_classifier(name: str):
    """A fresh classifier: "1nn" or "svm" (see the module docstring)."""
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC

    if name == "1nn":
        return KNeighborsClassifier(n_neighbors=1)
    if name == "svm":
        return make_pipeline(StandardScaler(), SVC(kernel="linear", C=1.0))
    raise FSEngineError(f"unknown classifier {name!r}; choose one of {', '.join(CLASSIFIERS)}")


def classify(name: str, X_train, y_train, X_test, y_test) -> dict:
    """Train classifier ``name`` on the training half, score it on the test half.

    With no feature at all, every test sample is predicted as the majority class
    (G-mean 0, AUC 0.5).

    Returns
    -------
    dict with "gmean", "f1", "auc"
    """
    if X_train.shape[1] == 0:
        predicted, scores = np.zeros(len(y_test), dtype=int), np.zeros(len(y_test))
    else:
        model = make_classifier(name).fit(X_train, y_train)
        predicted = model.predict(X_test)
        scores = model.decision_function(X_test) if name == "svm" else predicted
    return {
        "gmean": gmean(y_test, predicted),
        "f1": f1_minority(y_test, predicted),
        "auc": roc_auc(y_test, scores),
    }


def training_size(n_samples: int) -> int:
    """The size of a split's training half in the protocol: ceil(n / 2) samples (the
    K-OFSD paper, section 4.1), the rest being the test half.

    Parameters
    ----------
    n_samples : int

    Returns
    -------
    int
    """
    return math.ceil(n_samples / 2)


def stratified_splits(y, n_splits: int = 20, seed: int = 0) -> list[tuple[np.ndarray, np.ndarray]]:
    """``n_splits`` random stratified halves: ceil(n / 2) samples to train, the rest to test.

    Both halves keep the class ratio (up to one sample per class); the same seed gives
    the same splits.
    """
    y = np.asarray(y)
    if not is_integer_in(n_splits, 1):
        raise FSEngineError(
            f"the number of splits must be a positive integer, got {n_splits!r}",
            parameter="splits",
        )
    _, counts = np.unique(y, return_counts=True)
    if counts.min() < 2:
        raise FSEngineError("each class needs at least 2 samples to appear in both halves")
    n_minority = int(np.sum(y == 1))
    if set(np.unique(y).tolist()) <= {0, 1} and n_minority < MIN_PROTOCOL_MINORITY:
        raise FSEngineError(
            f"the minority class has {n_minority} samples: a 50/50 split leaves "
            f"{n_minority // 2}-{n_minority - n_minority // 2} of them in the training half, "
            f"and selection needs at least {MIN_MINORITY} to learn from, so the G-means "
            "would mean nothing",
            parameter="minority",
            remedy=f"choose a class with at least {MIN_PROTOCOL_MINORITY} samples as the minority",
        )
    from sklearn.model_selection import StratifiedShuffleSplit

    n_train = training_size(len(y))
    splitter = StratifiedShuffleSplit(
        n_splits=n_splits, train_size=n_train, test_size=len(y) - n_train, random_state=seed
    )
    return list(splitter.split(np.zeros((len(y), 1)), y))


def select_on(
    method: str,
    X_train: np.ndarray,
    y_train: np.ndarray,
    names: Sequence[str],
    n_features: int | None = None,
    **params,
) -> list[int]:
    """Column indices that ``method`` selects from the training half alone.

    Online methods stream the columns in natural order; rankers keep their
    ``n_features`` best (ties to the lower index).
    """
    chosen = get_method(method)
    if not chosen.online and n_features is None:
        raise FSEngineError(f"{method} is a ranker: it needs a number of features")
    outcome = chosen.select(
        X_train, y_train, names, params=params, top=None if chosen.online else n_features
    )
    return list(outcome.selection.columns)


def protocol_minority_sizes(y, n_splits: int = 20, seed: int = 0) -> tuple[range, range]:
    """How many minority samples the training and the test halves of the protocol hold.

    Parameters
    ----------
    y : array of 0/1
    n_splits, seed : int
        The splits of :func:`stratified_splits`.

    Returns
    -------
    (range of training-half counts, range of test-half counts), inclusive of both ends
    as ``range(low, high + 1)``.
    """
    y = np.asarray(y)
    splits = stratified_splits(y, n_splits, seed)
    train = [int(y[t].sum()) for t, _ in splits]
    test = [int(y[t].sum()) for _, t in splits]
    return range(min(train), max(train) + 1), range(min(test), max(test) + 1)


def _span(counts: range) -> str:
    return f"{counts[0]}" if len(counts) == 1 else f"{counts[0]}-{counts[-1]}"


#: Fewest minority samples for the protocol: a training half must hold MIN_MINORITY.
MIN_PROTOCOL_MINORITY = 2 * MIN_MINORITY


def protocol_warnings(
    y, methods: Sequence[str] = (), params: dict | None = None, n_splits: int | None = None
) -> list[str]:
    """What makes the 50/50 protocol weak for these labels and methods, in words.

    Parameters
    ----------
    y : array of 0/1
        One-versus-rest labels (1 = minority) of the whole data set.
    methods : sequence of str
        Methods to check against the training halves (K-OFSD: K at or above the
        training half's minority size, :meth:`fsengine.methods.Method.warnings`).
    params : dict, optional
        Parameters per method.
    n_splits : int, optional
        Number of splits (a single split is warned about).

    Returns
    -------
    list of str
        Empty when nothing is wrong. A minority too small to run at all is an error of
        :func:`stratified_splits`, not a warning.
    """
    y = np.asarray(y)
    n_minority, n = int(np.sum(y == 1)), len(y)
    if n_minority < MIN_PROTOCOL_MINORITY:
        return [
            f"the minority class has {n_minority} samples: the 50/50 protocol needs at least "
            f"{MIN_PROTOCOL_MINORITY} (2 in each training half); choose a larger class"
        ]
    train, test = protocol_minority_sizes(y, n_splits or 20)
    warnings = []
    if test[0] < 5:
        warnings.append(
            f"a test half holds only {_span(test)} minority samples: each one moves the "
            "minority recall (and so the G-mean) by a large step; use many splits and read "
            "the standard deviations"
        )
    train_y = np.zeros(training_size(n), dtype=np.int8)
    train_y[: train[0]] = 1
    for method in dict.fromkeys(methods):
        chosen = get_method(method)
        try:
            found = chosen.warnings(train_y, (params or {}).get(method, {}))
        except FSEngineError:
            continue  # a bad parameter is reported when the run starts
        warnings += [
            f"{method} on a training half ({_span(train)} minority samples of "
            f"{len(train_y)}): {text}"
            for text in found
        ]
    if n_splits == 1:
        warnings.append("a single split gives no standard deviation; use 10 or more")
    return warnings


@dataclass(frozen=True)
class Evaluation:
    """Results of :func:`evaluate`: one record per method and split.

    Attributes
    ----------
    records : list of dict
        method, split, n_features, seconds (selection time), features (names joined
        by ';') and ``<metric>_<classifier>`` for every metric and classifier.
    params : dict
        Data set, minority class, splits, seed, methods and their parameters.
    """

    records: list[dict]
    params: dict = field(default_factory=dict)

    def summary(self, by: tuple[str, ...] = ("method",)) -> list[dict]:
        """Mean and standard deviation (over splits) of every metric, the number of
        features and the time, per group of records (keys ``<name>_mean`` / ``_std``).

        Parameters
        ----------
        by : tuple of str
            Record fields that define a group, in the order first seen: ("method",)
            for :func:`evaluate`, ("k",) for :func:`sweep_k`, ("method", "top") for
            :func:`sweep_top`.
        """
        groups: dict[tuple, list[dict]] = {}
        for record in self.records:
            groups.setdefault(tuple(record[b] for b in by), []).append(record)
        columns = ["n_features", "seconds"] + [f"{m}_{c}" for c in CLASSIFIERS for m in METRICS]
        rows = []
        for key, mine in groups.items():
            row = {**dict(zip(by, key)), "splits": len(mine)}
            for column in columns:
                values = np.array([r[column] for r in mine], dtype=float)
                row[f"{column}_mean"] = float(values.mean())
                row[f"{column}_std"] = float(values.std(ddof=1)) if len(values) > 1 else 0.0
            rows.append(row)
        return rows


def feature_frequencies(records: list[dict], **where) -> list[tuple[str, int]]:
    """How many records (splits) selected each feature, most often first (ties by name).

    Parameters
    ----------
    records : list of dict
        Records of :func:`evaluate` or a sweep (their ``features`` field: names joined
        by ';').
    **where
        Keep only records whose fields equal these values, e.g. ``k=7``.

    Returns
    -------
    list of (feature, count)
    """
    counts: dict[str, int] = {}
    for record in records:
        if all(record.get(field) == value for field, value in where.items()):
            for name in filter(None, record["features"].split(";")):
                counts[name] = counts.get(name, 0) + 1
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))


def _check_methods(methods: Sequence[str]) -> list[str]:
    methods = list(dict.fromkeys(methods))
    if not methods:
        raise FSEngineError("no method to evaluate")
    for method in methods:
        try:
            get_method(method)
        except FSEngineError as exc:
            raise FSEngineError(exc.problem, parameter="methods") from None
    return methods


def method_settings(methods: Sequence[str], params: dict, n_samples: int) -> dict[str, dict]:
    """Every parameter in effect for each method (defaults filled in), checked against
    a training half of ``n_samples``; FSEngineError names a bad one."""
    settings = {}
    for method in methods:
        spec = get_method(method).spec
        settings[method] = spec.record(spec.check(params.get(method, {}), n_samples=n_samples))
    return settings


def _is_ranker(method: str) -> bool:
    return not get_method(method).online


def _check_count_from(count_from: str) -> str:
    if not get_method(count_from).online:
        raise FSEngineError(
            f"must be an online selector (it sets the rankers' number of "
            f"features), got the ranker {count_from}",
            parameter="count_from",
        )
    return count_from


def _score_columns(X_train, y_train, X_test, y_test, columns: list[int]) -> dict:
    """Every metric of every classifier on the selected columns (``<metric>_<classifier>``)."""
    record = {}
    for classifier in CLASSIFIERS:
        scores = classify(classifier, X_train[:, columns], y_train, X_test[:, columns], y_test)
        for metric, value in scores.items():
            record[f"{metric}_{classifier}"] = value
    return record


def evaluate_split(
    X: np.ndarray,
    y: np.ndarray,
    names: list[str],
    train: np.ndarray,
    test: np.ndarray,
    split: int,
    methods: list[str],
    top: int | None,
    params: dict,
    count_from: str = COUNT_FROM,
) -> list[dict]:
    """The records of one split of the protocol (section 4.1 of the K-OFSD paper): every
    method selects on the training half and is scored on the test half.

    Parameters
    ----------
    X, y, names
        The whole data set: matrix, binary labels (1: minority), feature names.
    train, test : ndarray of int
        The split's rows (:func:`stratified_splits`).
    split : int
        The split's number, written into its records.
    methods : list of str
        Registered methods.
    top : int, optional
        Features given to each ranker; None: as many as ``count_from`` selects on this
        training half.
    params : dict
        Each method's parameters, by method name.
    count_from : str, default COUNT_FROM
        The online selector whose count the rankers get.

    Returns
    -------
    list of dict
        One record per method (the fields of :attr:`Evaluation.records`).
    """
    X_train, X_test = X[train], X[test]
    y_train, y_test = y[train], y[test]
    chosen: dict[str, tuple[list[int], float]] = {}
    for method in methods:
        if _is_ranker(method):
            continue
        start = time.perf_counter()
        columns = select_on(method, X_train, y_train, names, **params.get(method, {}))
        chosen[method] = (columns, time.perf_counter() - start)
    count = top
    if count is None and any(_is_ranker(m) for m in methods):
        if count_from in chosen:
            count = len(chosen[count_from][0])
        else:
            count = len(
                select_on(count_from, X_train, y_train, names, **params.get(count_from, {}))
            )
    for method in methods:
        if _is_ranker(method):
            start = time.perf_counter()
            columns = select_on(method, X_train, y_train, names, count, **params.get(method, {}))
            chosen[method] = (columns, time.perf_counter() - start)
    records = []
    for method in methods:
        columns, seconds = chosen[method]
        record = {
            "method": method,
            "split": split,
            "n_features": len(columns),
            "seconds": seconds,
            **_score_columns(X_train, y_train, X_test, y_test, columns),
            "features": ";".join(names[c] for c in columns),
        }
        records.append(record)
    return records


def _progress_per_task(progress: Progress | None, total: int, labels: Callable[[int], list[str]]):
    """An ``on_done(i)`` for :func:`run_tasks` that reports task i's items one by one
    (``labels(i)``: one message per item, e.g. per method of a split)."""
    if progress is None:
        return None
    done = [0]

    def on_done(i: int) -> None:
        for label in labels(i):
            done[0] += 1
            progress(done[0], total, label)

    return on_done


def evaluate(
    dataset: Dataset,
    minority,
    methods: Sequence[str] = PAPER_METHODS,
    *,
    n_splits: int = 20,
    seed: int = 0,
    top: int | None = None,
    params: dict | None = None,
    progress: Progress | None = None,
    n_jobs: int | None = None,
    count_from: str = COUNT_FROM,
) -> Evaluation:
    """The paper's protocol: selection on the training half, 1-NN and SVM on the test half.

    Parameters
    ----------
    dataset : Dataset
    minority : label or str
        The class to select for (one versus rest).
    methods : sequence of str
        Online selectors and rankers (see :data:`fsengine.runs.METHODS`).
    n_splits : int, default 20
        Number of random stratified 50/50 splits R.
    seed : int, default 0
        Seed of the splits.
    top : int, optional
        Give every ranker this many features; default: as many as ``count_from``
        selected on the same split (run for the count even if not in ``methods``).
    params : dict, optional
        Parameters per method, e.g. ``{"kofsd": {"k": 5}, "relieff": {"n_neighbors": 7}}``.
    progress : callable, optional
        Called as ``progress(done, total, message)`` as each split finishes (``done``
        counts methods x splits).
    n_jobs : int, optional
        Worker processes for the splits (default: every available core; 1 = serial).
        The records are the same whatever the number (``seconds`` apart).
    count_from : str, default "kofsd"
        The online selector whose number of selected features the rankers get when
        ``top`` is None (the K-OFSD paper's rule: K-OFSD's).

    Returns
    -------
    Evaluation
    """
    methods = _check_methods(methods)
    count_from = _check_count_from(count_from)
    params = {m: dict(p) for m, p in (params or {}).items()}
    label = dataset.resolve_class(minority)
    y = dataset.binarise(label)
    settings = method_settings(methods, params, training_size(len(y)))
    if top is not None and not is_integer_in(top, 1, dataset.n_features):
        raise FSEngineError(f"top must be an integer from 1 to {dataset.n_features}, got {top!r}")
    splits = stratified_splits(y, n_splits, seed)
    names = list(dataset.feature_names)
    tasks = [
        (dataset.X, y, names, train, test, split, methods, top, params, count_from)
        for split, (train, test) in enumerate(splits)
    ]
    on_done = _progress_per_task(
        progress,
        len(splits) * len(methods),
        lambda i: [f"split {i + 1}/{len(splits)} {m}" for m in methods],
    )
    records = [
        r
        for split_records in run_tasks(evaluate_split, tasks, n_jobs, on_done)
        for r in split_records
    ]
    run_params = {
        "data": dataset.source,
        "label_column": dataset.label_column,
        "minority": label,
        "methods": methods,
        "splits": n_splits,
        "seed": seed,
        "top": top,
        "count_from": count_from,
        "params": params,
        "settings": settings,
    }
    for record in records:
        record["settings"] = get_method(record["method"]).spec.settings_text(
            settings[record["method"]]
        )
    return Evaluation(records, run_params)


def whole_data_selections(
    dataset: Dataset,
    minority,
    methods: Sequence[str],
    top: int | None = None,
    params: dict | None = None,
    count_from: str = COUNT_FROM,
) -> tuple[dict[str, tuple[str, ...]], int | None]:
    """Each method's selected features on the whole data set, by the protocol's rule.

    Rankers keep ``top`` features or, when it is None, as many as ``count_from``
    selects on the whole data (none if it selects none). For comparing what the methods
    pick (e.g. the dashboard's Jaccard heat map), not for measuring accuracy.

    Returns
    -------
    (selections by method, the rankers' number of features)
    """
    params = params or {}
    methods = _check_methods(methods)
    runs = {}
    if top is None and any(_is_ranker(m) for m in methods):
        count_from = _check_count_from(count_from)
        runs[count_from] = run_selection(
            dataset, minority, count_from, events=False, **params.get(count_from, {})
        )
        top = len(runs[count_from].selection)
    selections = {}
    for method in methods:
        ranker = _is_ranker(method)
        if ranker and top == 0:
            selections[method] = ()
            continue
        if method not in runs:
            runs[method] = run_selection(
                dataset,
                minority,
                method,
                top=top if ranker else None,
                events=False,
                **params.get(method, {}),
            )
        selections[method] = runs[method].selection.features
    return selections, top


def _sweep_values_split(
    X: np.ndarray,
    y: np.ndarray,
    names: list[str],
    train: np.ndarray,
    test: np.ndarray,
    split: int,
    method: str,
    parameter: str,
    values: list,
    params: dict,
) -> list[dict]:
    """An online method for every value of ``parameter`` on one split
    (:meth:`fsengine.methods.Method.selections_over`: K-OFSD shares one sorted pass
    over every K); ``seconds`` is the whole time divided by the number of values."""
    X_train, X_test = X[train], X[test]
    y_train, y_test = y[train], y[test]
    start = time.perf_counter()
    selections = get_method(method).selections_over(
        X_train, y_train, names, parameter, values, params
    )
    seconds = (time.perf_counter() - start) / len(values)
    records = []
    for value in values:
        columns = list(selections[value].columns)
        records.append(
            {
                "method": method,
                "split": split,
                "n_features": len(columns),
                "seconds": seconds,
                **_score_columns(X_train, y_train, X_test, y_test, columns),
                "features": ";".join(names[c] for c in columns),
                parameter: value,
            }
        )
    return records


def sweep_values(
    dataset: Dataset,
    minority,
    method: str,
    parameter: str,
    values: Sequence,
    *,
    n_splits: int = 20,
    seed: int = 0,
    progress: Progress | None = None,
    n_jobs: int | None = None,
    params: dict | None = None,
) -> Evaluation:
    """An online selector over the values of one parameter, under the same protocol.

    Parameters
    ----------
    dataset, minority, n_splits, seed, progress, n_jobs
        As :func:`evaluate`.
    method : str
        An online selector.
    parameter : str
        The parameter swept (K-OFSD's ``k``: the paper's Figs. 2-7).
    values : sequence
        Its values; each is checked against the method's specification first.
    params : dict, optional
        The method's other parameters.

    Returns
    -------
    Evaluation
        Records carry a field named ``parameter`` and come in the order value, then
        split. The splits run on ``n_jobs`` processes (default: every available core).
    """
    chosen = get_method(method)
    if not chosen.online:
        raise FSEngineError(
            f"a parameter sweep is for online selectors; {method} is a "
            "ranker (sweep its number of features with sweep_top)",
            parameter="method",
        )
    values = list(values)
    if not values:
        raise FSEngineError(f"no value of {parameter} to sweep")
    params = dict(params or {})
    if parameter in params:
        raise FSEngineError(
            "is swept: give its values, not a single value", parameter=parameter, method=method
        )
    label = dataset.resolve_class(minority)
    y = dataset.binarise(label)
    values = [
        chosen.spec.check({**params, parameter: v}, n_samples=len(y))[parameter] for v in values
    ]  # check the parameters first
    distinct = list(dict.fromkeys(values))
    splits = stratified_splits(y, n_splits, seed)
    names = list(dataset.feature_names)
    tasks = [
        (dataset.X, y, names, train, test, split, method, parameter, distinct, params)
        for split, (train, test) in enumerate(splits)
    ]
    on_done = _progress_per_task(
        progress,
        len(values) * len(splits),
        lambda i: [f"{parameter}={v} split {i + 1}/{len(splits)} {method}" for v in values],
    )
    by_split = run_tasks(_sweep_values_split, tasks, n_jobs, on_done)
    settings = {
        v: chosen.spec.settings_text(
            chosen.spec.check({**params, parameter: v}, n_samples=training_size(len(y)))
        )
        for v in distinct
    }
    records = [
        {**by_split[split][distinct.index(v)], "settings": settings[v]}
        for v in values
        for split in range(len(splits))
    ]
    return Evaluation(
        records,
        {
            "data": dataset.source,
            "minority": label,
            "method": method,
            "parameter": parameter,
            "values": values,
            "splits": n_splits,
            "seed": seed,
            "params": params,
            "settings": settings,
        },
    )


def sweep_k(
    dataset: Dataset,
    minority,
    ks: Sequence[int] = range(1, 11),
    *,
    n_splits: int = 20,
    seed: int = 0,
    progress: Progress | None = None,
    n_jobs: int | None = None,
    **params,
) -> Evaluation:
    """K-OFSD over a range of K (the paper's Figs. 2-7): :func:`sweep_values` on ``k``.

    Records carry a ``k`` field and come in the order K, then split; ``params`` are
    K-OFSD's other parameters.
    """
    ks = [int(k) for k in ks]
    if not ks:
        raise FSEngineError("no K to sweep")
    if "k" in params:
        raise FSEngineError("give the values of K as ks, not k")
    result = sweep_values(
        dataset,
        minority,
        "kofsd",
        "k",
        ks,
        n_splits=n_splits,
        seed=seed,
        progress=progress,
        n_jobs=n_jobs,
        params=params,
    )
    return Evaluation(
        result.records,
        {
            "data": dataset.source,
            "minority": result.params["minority"],
            "ks": ks,
            "splits": n_splits,
            "seed": seed,
            "params": params,
        },
    )


def _sweep_top_split(
    X: np.ndarray,
    y: np.ndarray,
    names: list[str],
    train: np.ndarray,
    test: np.ndarray,
    split: int,
    methods: list[str],
    tops: list[int],
    params: dict,
) -> list[dict]:
    """Every ranker's scores on one split, then each top-k of its ranking, scored."""
    X_train, X_test = X[train], X[test]
    y_train, y_test = y[train], y[test]
    records = []
    for method in methods:
        start = time.perf_counter()
        ranking = rank_features(
            get_method(method).scores(X_train, y_train, **params.get(method, {}))
        ).tolist()
        seconds = time.perf_counter() - start
        for t in tops:
            columns = ranking[:t]
            records.append(
                {
                    "method": method,
                    "split": split,
                    "n_features": len(columns),
                    "seconds": seconds,
                    **_score_columns(X_train, y_train, X_test, y_test, columns),
                    "features": ";".join(names[c] for c in columns),
                    "top": t,
                }
            )
    return records


def sweep_top(
    dataset: Dataset,
    minority,
    methods: Sequence[str],
    tops: Sequence[int],
    *,
    n_splits: int = 20,
    seed: int = 0,
    params: dict | None = None,
    progress: Progress | None = None,
    n_jobs: int | None = None,
) -> Evaluation:
    """Rankers over a range of top-k under the same protocol; records carry ``top``.

    Each ranker scores each split once and every top-k is taken from that ranking; the
    splits run on ``n_jobs`` processes (default: every available core). Records come in
    the order top-k, split, method; ``seconds`` is the ranking's time.
    """
    methods = _check_methods(methods)
    online = [m for m in methods if not _is_ranker(m)]
    if online:
        raise FSEngineError(
            f"a top-k sweep is for rankers; {', '.join(online)} choose their own number of features"
        )
    tops = [int(t) for t in tops]
    if not tops:
        raise FSEngineError("no top-k to sweep")
    label = dataset.resolve_class(minority)
    y = dataset.binarise(label)
    bad = [t for t in tops if not is_integer_in(t, 1, dataset.n_features)]
    if bad:
        raise FSEngineError(
            f"top must be an integer from 1 to {dataset.n_features}, got {bad[0]!r}"
        )
    params = {m: dict(p) for m, p in (params or {}).items()}
    splits = stratified_splits(y, n_splits, seed)
    names = list(dataset.feature_names)
    tasks = [
        (dataset.X, y, names, train, test, split, methods, tops, params)
        for split, (train, test) in enumerate(splits)
    ]
    on_done = _progress_per_task(
        progress,
        len(tops) * len(methods) * len(splits),
        lambda i: [f"top {t} split {i + 1}/{len(splits)} {m}" for m in methods for t in tops],
    )
    by_split = run_tasks(_sweep_top_split, tasks, n_jobs, on_done)
    settings = method_settings(methods, params, training_size(len(y)))
    records = []
    for i, _t in enumerate(tops):
        for split in range(len(splits)):
            for j in range(len(methods)):
                record = by_split[split][j * len(tops) + i]
                spec = get_method(record["method"]).spec
                records.append(
                    {**record, "settings": spec.settings_text(settings[record["method"]])}
                )
    return Evaluation(
        records,
        {
            "data": dataset.source,
            "minority": label,
            "methods": methods,
            "tops": tops,
            "splits": n_splits,
            "seed": seed,
            "params": params,
            "settings": settings,
        },
    )
