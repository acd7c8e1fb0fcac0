"""Class labels: one rule for which labels a selection can be made on, and one message.

Every path that turns class labels into the one-versus-rest 0/1 vector the methods take
(``Dataset.binarise``, the scikit-learn selectors, a selector's ``start``) goes through
:func:`one_versus_rest` or :func:`check_binary`, so a label set is accepted or refused
the same way everywhere.
"""

from __future__ import annotations

import numpy as np

from fsengine.errors import FSEngineError

#: Fewest samples of the minority class: a sample's neighbours must be able to include
#: its own class, and a stratified split must put one in each half.
MIN_MINORITY = 2


def _check_counts(minority_count: int, n_samples: int, minority) -> None:
    """The one rule: at least MIN_MINORITY minority samples and at least one other sample."""
    if minority_count < MIN_MINORITY:
        raise FSEngineError(
            f"{minority!r} names a class of only {minority_count} sample"
            f"{'s' if minority_count != 1 else ''}; at least {MIN_MINORITY} are needed (a "
            "sample's neighbours must be able to include its own class)",
            parameter="minority",
            remedy="choose a larger class as the minority",
        )
    if minority_count == n_samples:
        raise FSEngineError(
            f"{minority!r} is the class of every sample: there is nothing to tell apart",
            parameter="minority",
            remedy="choose a data set with at least two classes",
        )


def one_versus_rest(labels, minority=None) -> np.ndarray:
    """Binary labels (1 = minority, 0 = rest) from class labels.

    Parameters
    ----------
    labels : array of labels, shape (n_samples,)
    minority : label, optional
        The class to select for. Default: the smallest class, ties to the first in
        label order (:func:`default_minority`).

    Returns
    -------
    ndarray of int8

    Raises
    ------
    FSEngineError
        With ``parameter="minority"``: an unknown class, fewer than
        :data:`MIN_MINORITY` samples of it, or every sample of it.
    """
    labels = np.asarray(labels)
    if labels.ndim != 1:
        raise FSEngineError(f"labels must be one-dimensional, got shape {labels.shape}")
    classes, counts = np.unique(labels, return_counts=True)
    if minority is None:
        minority = classes[np.argmin(counts)]  # the first of the smallest
    matches = classes == minority
    if not matches.any():
        raise FSEngineError(
            f"{minority!r} is not a class of the labels (the classes are "
            f"{', '.join(map(repr, classes.tolist()))})",
            parameter="minority",
        )
    _check_counts(int(counts[matches][0]), len(labels), minority)
    return (labels == minority).astype(np.int8)


def default_minority(labels):
    """The class a selection is for when none is named: the smallest class, ties to the
    first in label order (sorted as ``numpy.unique`` sorts)."""
    classes, counts = np.unique(np.asarray(labels), return_counts=True)
    return classes[np.argmin(counts)].item()


def check_binary(y) -> np.ndarray:
    """Check 0/1 labels (1 = minority) by the same rule and return them as int8.

    Raises
    ------
    FSEngineError
        For labels that are not one-dimensional, not 0/1, or break the rule of
        :func:`one_versus_rest`.
    """
    y = np.asarray(y)
    if y.ndim != 1:
        raise FSEngineError(f"labels must be one-dimensional, got shape {y.shape}")
    values = set(np.unique(y).tolist())
    if not values <= {0, 1}:
        raise FSEngineError(
            "labels must be binary: 1 for the minority class, 0 for the rest "
            f"(got values {sorted(values)[:5]})",
            remedy="binarise them with fsengine.labels.one_versus_rest(labels, minority)",
        )
    _check_counts(int(np.sum(y == 1)), len(y), 1)
    return y.astype(np.int8)
