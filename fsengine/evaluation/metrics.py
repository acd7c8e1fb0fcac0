"""Metrics and classifiers of the evaluation protocol.

Metrics are on the minority class (label 1): G-mean = sqrt(TPR x TNR), the minority
class's F1, and ROC AUC. Classifiers (scikit-learn):

* ``1nn``: 1-nearest neighbour, Euclidean distance on the selected features as they
  are (MATLAB's ``fitcknn`` default, as in the K-OFSD paper);
* ``svm``: linear SVM, ``SVC(kernel="linear", C=1)``, on features standardised with the
  training half's means and standard deviations.

AUC uses the SVM's decision function; for 1-NN, whose output is a hard label, it is
the AUC of that label, (TPR + TNR) / 2.
"""

from __future__ import annotations

import math

import numpy as np

from fsengine._compute.sparse import dense_block
from fsengine.errors import FSEngineError

__all__ = [
    "CLASSIFIERS",
    "METRICS",
    "classify",
    "confusion",
    "f1_minority",
    "gmean",
    "make_classifier",
    "roc_auc",
    "score_columns",
    "split_record",
]

#: The classifiers every selection is scored with.
CLASSIFIERS = ("1nn", "svm")


METRICS = ("gmean", "f1", "auc")


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


def split_record(
    method: str, split: int, columns: list[int], seconds: float, halves, names, **extra
) -> dict:
    """One record of a split: ``method``, ``split``, ``n_features``, ``seconds``, every
    metric of every classifier (:func:`score_columns`), ``features`` (names joined by
    ';'), then ``extra`` (a sweep's value).

    Parameters
    ----------
    halves : tuple
        (X_train, y_train, X_test, y_test).
    names : sequence of str
        Feature names, by column.
    """
    return {
        "method": method,
        "split": split,
        "n_features": len(columns),
        "seconds": seconds,
        **score_columns(*halves, columns),
        "features": ";".join(names[c] for c in columns),
        **extra,
    }


def score_columns(X_train, y_train, X_test, y_test, columns: list[int]) -> dict:
    """Every metric of every classifier on the selected columns (``<metric>_<classifier>``).

    The halves may be sparse: only the selected columns are made dense
    (:func:`fsengine._compute.sparse.dense_block`)."""
    record = {}
    train, test = dense_block(X_train, columns), dense_block(X_test, columns)
    for classifier in CLASSIFIERS:
        scores = classify(classifier, train, y_train, test, y_test)
        for metric, value in scores.items():
            record[f"{metric}_{classifier}"] = value
    return record
