"""Class labels: one rule for which labels a selection can be made on, and one message.

Every path that turns class labels into the one-versus-rest 0/1 vector the methods take
(``Dataset.binarise``, the scikit-learn selectors, a selector's ``start``) goes through
:func:`one_versus_rest` or :func:`check_binary`, so a label set is accepted or refused
the same way everywhere.
"""

from __future__ import annotations

import numpy as np

from fsengine.errors import FSEngineError

__all__ = [
    "MIN_MINORITY",
    "MIN_PROTOCOL_MINORITY",
    "check_binary",
    "default_minority",
    "default_minority_reason",
    "one_versus_rest",
]

#: Fewest samples of the minority class: a sample's neighbours must be able to include
#: its own class, and a stratified split must put one in each half.
MIN_MINORITY = 2
#: Fewest minority samples for the 50/50 protocol: a training half must hold MIN_MINORITY.
MIN_PROTOCOL_MINORITY = 2 * MIN_MINORITY


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
        The class to select for. Default: :func:`default_minority` (the smallest class
        the 50/50 comparison can use, ties to the first in label order).

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
        minority = default_minority(labels)
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
    """The class a selection is for when none is named: the one rule of the library, the
    command line and the dashboard.

    The smallest class that the 50/50 protocol can use (at least
    :data:`MIN_PROTOCOL_MINORITY` samples: :data:`MIN_MINORITY` in each half), ties to the
    first in label order (sorted as ``numpy.unique`` sorts); when no class has that many,
    the smallest class a selection can use (:data:`MIN_MINORITY`), else the smallest. Only
    a minority is taken (no more samples than the rest together): a two-class set with 3
    and 30 samples defaults to the 3.
    :func:`default_minority_reason` says why when the default is not the smallest class.

    Parameters
    ----------
    labels : array of labels

    Returns
    -------
    object
        The class, as a Python scalar.
    """
    classes, counts = np.unique(np.asarray(labels), return_counts=True)
    minority = 2 * counts <= counts.sum()  # a minority: no more samples than the rest
    for least in (MIN_PROTOCOL_MINORITY, MIN_MINORITY):
        usable = (counts >= least) & minority
        if usable.any():
            return _scalar(classes[np.flatnonzero(usable)[np.argmin(counts[usable])]])
    return _scalar(classes[np.argmin(counts)])


def _scalar(value):
    """A numpy scalar as the Python one (object arrays hold Python objects already)."""
    return value.item() if isinstance(value, np.generic) else value


def default_minority_reason(labels) -> str | None:
    """Why :func:`default_minority` is not simply the smallest class, in a sentence (None
    when it is the smallest and the protocol can use it)."""
    classes, counts = np.unique(np.asarray(labels), return_counts=True)
    chosen = default_minority(labels)
    smallest = int(counts.min())
    if smallest >= MIN_PROTOCOL_MINORITY:
        return None
    small = [_scalar(c) for c, n in zip(classes, counts) if n == smallest]
    named = ", ".join(map(str, small))
    which = f"class {named} has" if len(small) == 1 else f"classes {named} have"
    samples = f"{smallest} sample{'s' if smallest != 1 else ''}"
    need = f"the 50/50 protocol needs {MIN_PROTOCOL_MINORITY}, {MIN_MINORITY} in each half"
    count = dict(zip(classes.tolist(), counts.tolist()))[chosen]
    if count >= MIN_PROTOCOL_MINORITY:
        return (
            f"The smallest {which} only {samples}, too few for a comparison ({need}). The "
            f"default is class {chosen} ({count} samples), the smallest class the protocol "
            "can use."
        )
    if chosen in small:
        return f"No minority class has enough samples for a comparison ({need})."
    return (
        f"No minority class has enough samples for a comparison ({need}), and the smallest {which} "
        f"only {samples}; the default is class {chosen} ({count} samples), the smallest "
        "class a selection can use."
    )


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
            remedy="binarise them with fsengine.data.labels.one_versus_rest(labels, minority)",
        )
    _check_counts(int(np.sum(y == 1)), len(y), 1)
    return y.astype(np.int8)
