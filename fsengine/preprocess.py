"""Preprocessing every microarray and RNA-seq tutorial starts with, declared once.

:data:`PREPROCESSING` is a specification like a method's (:class:`fsengine.spec.MethodSpec`):
its parameters give the command line's options, the checks and the run record. The steps
run in this order on a samples x genes matrix:

1. ``floor`` and ``ceiling``: values below / above are set to them (thresholding raw
   Affymetrix intensities, commonly 20 and 16,000);
2. ``transform``: ``log2`` of value + ``offset``, or ``log-cpm``, log2 of counts per
   million plus 1 (each sample's values over its total, times 10^6);
3. ``min_variance``: genes whose variance (ddof = 0) is below it are dropped.

The defaults change nothing. :func:`looks_unlogged` says when values look like raw
intensities or counts, and which step to take.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import replace

import numpy as np

from fsengine._compute.sparse import densified
from fsengine.data import Dataset
from fsengine.errors import FSEngineError
from fsengine.spec import Choice, MethodSpec, Real

PREPROCESSING = MethodSpec(
    "preprocess",
    "Preprocessing",
    "the usual first steps of microarray and RNA-seq analyses",
    "preprocessing",
    "thresholding, a log transform and a variance filter, in that order",
    parameters={
        "floor": Real(
            -math.inf,
            "values below it are set to it (raw intensities: often 20)",
            label="Floor",
        ),
        "ceiling": Real(
            math.inf,
            "values above it are set to it (raw intensities: often 16000)",
            label="Ceiling",
        ),
        "transform": Choice(
            "none",
            "a log transform after the thresholds",
            label="Transform",
            choices={
                "none": "the values as they are",
                "log2": "log2(value + offset): intensities",
                "log-cpm": "log2(counts per million + 1): counts",
            },
        ),
        "offset": Real(
            0.0,
            "added before log2 (1 for data with zeros)",
            label="Offset",
            low=0.0,
            when=("transform", ("log2",)),
        ),
        "min_variance": Real(
            0.0,
            "genes whose variance (after the transform) is below it are dropped",
            label="Minimum variance",
            low=0.0,
            flag="min-variance",
        ),
    },
)


def preprocess(dataset: Dataset, params: Mapping | None = None) -> Dataset:
    """The data set after :data:`PREPROCESSING`'s steps with ``params`` (see the module).

    Parameters
    ----------
    dataset : Dataset
    params : mapping, optional
        Parameters of :data:`PREPROCESSING`; missing ones take their defaults (which change
        nothing).

    Returns
    -------
    Dataset
        A new data set (``dataset`` itself when nothing changes), with a note per step; a
        sparse matrix comes out dense, when it fits in memory.

    Raises
    ------
    FSEngineError
        A bad parameter, a log of a value that is not positive (naming the gene and the
        sample, and the floor or offset that would avoid it), or a filter that drops every
        gene.
    """
    settings = PREPROCESSING.check(dict(params or {}))
    if settings == PREPROCESSING.defaults():
        return dataset
    X = densified(dataset.X, dataset.source or "the data")  # a sparse matrix: a new one
    X = np.array(X, dtype=np.float64, order="F", copy=True if X is dataset.X else None)
    names = list(dataset.feature_names)
    notes = list(dataset.notes)
    low, high = settings["floor"], settings["ceiling"]
    if low > high:
        raise FSEngineError(
            f"must not exceed the ceiling ({high:g}), got {low:g}", parameter="floor"
        )
    if low > -math.inf or high < math.inf:
        np.clip(X, low, high, out=X)
        notes.append(f"thresholded to [{low:g}, {high:g}]")
    if settings["transform"] == "log2":
        shifted = X + settings["offset"]
        _check_positive(shifted, dataset, names, "log2", settings["offset"])
        X = np.asfortranarray(np.log2(shifted))
        notes.append(f"log2(value + {settings['offset']:g})")
    elif settings["transform"] == "log-cpm":
        if (X < 0).any():
            _raise_at(X < 0, X, dataset, names, "log-CPM needs counts (no negative value)")
        totals = X.sum(axis=1, keepdims=True)
        if (totals <= 0).any():
            row = int(np.flatnonzero(totals[:, 0] <= 0)[0])
            raise FSEngineError(
                f"sample {_sample(dataset, row)} has no counts: log-CPM is undefined"
            )
        X = np.asfortranarray(np.log2(X / totals * 1e6 + 1))
        notes.append("log2(counts per million + 1)")
    if settings["min_variance"] > 0:
        keep = X.var(axis=0) >= settings["min_variance"]
        if not keep.any():
            raise FSEngineError(
                f"drops every gene ({X.shape[1]} of {X.shape[1]} have a lower variance)",
                parameter="min_variance",
            )
        dropped = X.shape[1] - int(keep.sum())
        X = np.asfortranarray(X[:, keep])
        names = [n for n, k in zip(names, keep) if k]
        notes.append(f"{dropped} genes of variance below {settings['min_variance']:g} dropped")
    constant = tuple(n for n, j in zip(names, range(X.shape[1])) if np.ptp(X[:, j]) == 0)
    text = preprocessing_text(settings)
    return replace(
        dataset,
        X=X,
        feature_names=tuple(names),
        constant_features=constant,
        notes=(*notes, "preprocessing: " + text),
        preprocessing=text,
    )


def preprocessing_text(settings: Mapping) -> str:
    """The steps in effect, as a line for notes, records and the report ("none" when
    nothing is done)."""
    spec = PREPROCESSING
    record = spec.record(spec.check(dict(settings)))
    defaults = spec.record(spec.defaults())
    changed = {k: v for k, v in record.items() if v != defaults.get(k)}
    return ", ".join(f"{k}={v}" for k, v in changed.items()) or "none"


def preprocessing_params(text: str) -> dict:
    """The :data:`PREPROCESSING` parameters of a line of :func:`preprocessing_text` (as a run
    record keeps it): ``"floor=20.0, transform=log2, offset=0.0"`` -> ``{"floor": 20.0,
    "transform": "log2", "offset": 0.0}``; ``{}`` for "" or "none".

    Raises
    ------
    FSEngineError
        A part that is not ``name=value`` of a preprocessing parameter.
    """
    params = {}
    for part in filter(None, (p.strip() for p in (text or "").split(","))):
        name, _, value = part.partition("=")
        if part == "none" and not params:
            continue
        if name not in PREPROCESSING.parameters or not value:
            raise FSEngineError(
                f"{part!r} is not a step of the preprocessing "
                f"({', '.join(PREPROCESSING.parameters)})",
                parameter="preprocessing",
            )
        try:
            params[name] = PREPROCESSING.parameters[name].parse(value)
        except ValueError:
            raise FSEngineError(f"{part!r} has a bad value", parameter="preprocessing") from None
    checked = PREPROCESSING.check(params)
    return {name: checked[name] for name in params}


def preprocessing_notes(dataset: Dataset) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """``dataset.notes`` split into the loader's and the steps of :func:`preprocess` ("log2(value
    + 0)", "2 genes of variance below 0.5 dropped"), its closing "preprocessing: ..." line
    left out (:attr:`Dataset.preprocessing` says it): to show the steps once."""
    notes = dataset.notes
    if not dataset.preprocessing or not notes or not notes[-1].startswith("preprocessing: "):
        return notes, ()
    params = preprocessing_params(dataset.preprocessing)
    steps = (
        ("floor" in params or "ceiling" in params)
        + (params.get("transform", "none") != "none")
        + (params.get("min_variance", 0) > 0)
    )
    return notes[: len(notes) - 1 - steps], notes[len(notes) - 1 - steps : -1]


def _sample(dataset: Dataset, row: int) -> str:
    return repr(dataset.sample_names[row]) if dataset.sample_names else f"in row {row + 1}"


def _raise_at(bad: np.ndarray, X: np.ndarray, dataset: Dataset, names: Sequence[str], what: str):
    row, column = (int(i[0]) for i in np.nonzero(bad))
    raise FSEngineError(
        f"{what}: gene {names[column]!r}, sample {_sample(dataset, row)} is {X[row, column]:g}"
    )


def _check_positive(shifted, dataset, names, step: str, offset: float) -> None:
    bad = shifted <= 0
    if bad.any():
        lowest = float(shifted.min() - offset)
        row, column = (int(i[0]) for i in np.nonzero(bad))
        raise FSEngineError(
            f"{step} needs positive values: gene {names[column]!r}, sample "
            f"{_sample(dataset, row)} is {shifted[row, column] - offset:g} (the lowest value "
            f"is {lowest:g})",
            parameter="transform",
            remedy="set a floor above 0 (raw intensities: 20) or an offset above "
            f"{abs(min(lowest, 0.0)):g} with",  # abs: never "-0"
            remedy_option="floor",
        )


def _values(X) -> np.ndarray:
    """The values of ``X`` as floats; of a sparse matrix, its stored values and a zero for
    the others (the same minimum, maximum and integer check, without a dense copy)."""
    if hasattr(X, "tocsc"):
        stored = np.asarray(X.data, dtype=float)
        return np.append(stored, 0.0) if X.nnz < X.shape[0] * X.shape[1] else stored
    return np.asarray(X, dtype=float)


def looks_unlogged(X) -> str | None:
    """A sentence when the values look like raw intensities or counts (not on a log
    scale): the largest value above 1,000 and the values spanning over three orders of
    magnitude, or negative values beside values above 1,000. None otherwise.
    """
    X = _values(X)
    if X.size == 0:
        return None
    high = float(np.max(X))
    if high <= 1000:
        return None
    low = float(np.min(X))
    if low < 0:
        return (
            f"the values range from {low:,.6g} to {high:,.6g}: they look like raw intensities "
            "with negative background-corrected values; threshold them (floor 20, ceiling "
            "16000 are common) and take log2"
        )
    positive = X[X > 0]
    smallest = float(positive.min()) if positive.size else 0.0
    if smallest > 0 and high / smallest < 1000:
        return None
    return (
        f"the values range from {low:,.6g} to {high:,.6g}, over three orders of magnitude: "
        "they look unlogged (raw intensities or counts); take log2 (with an offset of 1 if "
        "there are zeros), or log-CPM for counts"
    )


def suggested_preprocessing(X) -> dict:
    """The :data:`PREPROCESSING` parameters :func:`looks_unlogged`'s sentence suggests for
    values ``X`` (``{}`` when the values look logged already).

    Negative values beside large ones (background-corrected intensities): floor 20,
    ceiling 16,000 and log2. Non-negative integers with zeros (counts): log-CPM. Other
    values with zeros: log2 with an offset of 1. Else: log2.

    Parameters
    ----------
    X : array-like of float, shape (n_samples, n_features)

    Returns
    -------
    dict
        Parameter -> value, only those that differ from the defaults.
    """
    if looks_unlogged(X) is None:
        return {}
    X = _values(X)
    low = float(np.min(X))
    if low < 0:
        return {"floor": 20.0, "ceiling": 16000.0, "transform": "log2"}
    if low == 0 and bool(np.all(X == np.round(X))):
        return {"transform": "log-cpm"}
    if low == 0:
        return {"transform": "log2", "offset": 1.0}
    return {"transform": "log2"}
