"""Preprocessing every microarray and RNA-seq tutorial starts with, declared once.

:data:`PREPROCESSING` is a specification like a method's (:class:`fsengine.spec.MethodSpec`):
its parameters give the command line's options, the checks and the run record. The steps
run in this order on a samples x genes matrix:

1. ``floor`` and ``ceiling``: values below / above are set to them (thresholding raw
   Affymetrix intensities, commonly 20 and 16,000);
2. ``transform``: ``log2`` of value + ``offset``; ``log-cpm``, log2 of counts per
   million plus 1 (each sample's values over its total, times 10^6); or ``log1p-cpm``,
   the natural log of counts per million plus 1 (scanpy's ``normalize_total(target_sum=1e6)``
   then ``log1p``: the scale scanpy's fold changes assume);
3. ``min_variance``: genes whose variance (ddof = 0) is below it are dropped.

The defaults change nothing. A sparse matrix stays sparse through steps that keep a zero
at zero (thresholds around 0, the counts-per-million transforms, log2 with an offset of
1, the variance filter); otherwise it is made dense. A matrix on disk (an AnnData file
read backed) stays there: the steps make a view that transforms each block of genes as it
is read, with the same operations value by value (the same numbers, bit for bit), after a
pass over the file for each cell's total (counts per million) and one for the genes'
variances or constant genes. :func:`looks_unlogged` says when values
look like raw intensities or counts, :func:`looks_like_counts` when they look like raw
counts of single cells (non-negative integers, mostly zeros), and
:func:`suggested_preprocessing` which step to take; :func:`counts_warning` names the rankers
that assume normalised values (:attr:`fsengine.spec.MethodSpec.parametric`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import replace

import numpy as np

from fsengine._compute.sparse import as_columns, column_constant, densified, is_backed, is_sparse
from fsengine.data.dataset import Dataset
from fsengine.errors import FSEngineError
from fsengine.io.backed import Transform
from fsengine.methods.rankers import RANKER_SPECS
from fsengine.spec import Choice, MethodSpec, Real

__all__ = [
    "PREPROCESSING",
    "counts_warning",
    "looks_like_counts",
    "looks_unlogged",
    "parametric_rankers",
    "preprocess",
    "preprocessing_notes",
    "preprocessing_params",
    "preprocessing_text",
    "raw_counts_zeros",
    "suggested_preprocessing",
]

#: Raw counts: non-negative integers whose share of zeros is at least this
#: (:func:`looks_like_counts`; single-cell UMI counts: about 90 %).
COUNTS_ZERO_SHARE = 0.5
#: ... and whose largest value is at least this (0/1/2: discrete levels, not counts).
COUNTS_HIGHEST = 3
#: The transforms that take counts, by name: what each computes from counts per million.
CPM_TRANSFORMS = {"log-cpm": np.log2, "log1p-cpm": np.log}

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
                "log1p-cpm": "ln(counts per million + 1): counts, as scanpy's "
                "normalize_total then log1p",
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
    low, high = settings["floor"], settings["ceiling"]
    if low > high:
        raise FSEngineError(
            f"must not exceed the ceiling ({high:g}), got {low:g}", parameter="floor"
        )
    if is_backed(dataset.X):
        return _preprocess_backed(dataset, settings)
    if is_sparse(dataset.X) and _keeps_zeros(settings):
        return _preprocess_sparse(dataset, settings)
    X = densified(dataset.X, dataset.source or "the data")  # a sparse matrix: a new one
    X = np.array(X, dtype=np.float64, order="F", copy=True if X is dataset.X else None)
    names = list(dataset.feature_names)
    notes = list(dataset.notes)
    if low > -math.inf or high < math.inf:
        np.clip(X, low, high, out=X)
        notes.append(f"thresholded to [{low:g}, {high:g}]")
    if settings["transform"] == "log2":
        shifted = X + settings["offset"]
        _check_positive(shifted, dataset, names, "log2", settings["offset"])
        X = np.asfortranarray(np.log2(shifted))
        notes.append(f"log2(value + {settings['offset']:g})")
    elif settings["transform"] in CPM_TRANSFORMS:
        if (X < 0).any():
            _raise_at(X < 0, X, dataset, names, "log-CPM needs counts (no negative value)")
        factor = _per_million(X.sum(axis=1), dataset, settings["transform"], notes)
        X = np.asfortranarray(CPM_TRANSFORMS[settings["transform"]](X * factor[:, None] + 1))
        notes.append(_transform_note(settings["transform"]))
    if settings["min_variance"] > 0:
        keep = _variance_kept(X.var(axis=0), settings["min_variance"])
        dropped = X.shape[1] - int(keep.sum())
        X = np.asfortranarray(X[:, keep])
        names = [n for n, k in zip(names, keep) if k]
        notes.append(f"{dropped} genes of variance below {settings['min_variance']:g} dropped")
    constant = tuple(n for n, j in zip(names, range(X.shape[1])) if np.ptp(X[:, j]) == 0)
    return _preprocessed(dataset, X, names, constant, notes, settings)


def _preprocessed(dataset, X, names, constant, notes, settings) -> Dataset:
    text = preprocessing_text(settings)
    return replace(
        dataset,
        X=X,
        feature_names=tuple(names),
        constant_features=constant,
        notes=(*notes, "preprocessing: " + text),
        preprocessing=text,
    )


def _transform_note(transform: str) -> str:
    return (
        "log2(counts per million + 1)" if transform == "log-cpm" else "ln(counts per million + 1)"
    )


def _keeps_zeros(settings: Mapping) -> bool:
    """Whether every step maps 0 to 0, so that a sparse matrix can stay sparse:
    thresholds around 0, no transform or a counts-per-million one."""
    return settings["floor"] <= 0 <= settings["ceiling"] and settings["transform"] in (
        "none",
        *CPM_TRANSFORMS,
    )


def _variance_kept(variances: np.ndarray, least: float) -> np.ndarray:
    keep = variances >= least
    if not keep.any():
        raise FSEngineError(
            f"drops every gene ({len(keep)} of {len(keep)} have a lower variance)",
            parameter="min_variance",
        )
    return keep


def _per_million(totals: np.ndarray, dataset: Dataset, transform: str, notes: list) -> np.ndarray:
    """Each sample's factor to counts per million, 10^6 / its total. A sample without
    counts: log-CPM is refused, naming it; log1p-CPM keeps it at 0 and notes it, as scanpy's
    ``normalize_total`` does."""
    empty = totals <= 0
    if empty.any():
        row = int(np.flatnonzero(empty)[0])
        if transform == "log-cpm":
            raise FSEngineError(
                f"sample {_sample(dataset, row)} has no counts: log-CPM is undefined"
            )
        notes.append(
            f"{int(empty.sum())} samples without counts (the first: {_sample(dataset, row)}) "
            "stay 0, as scanpy's normalize_total leaves them"
        )
    return 1e6 / np.where(empty, 1.0, totals)


def _preprocess_sparse(dataset: Dataset, settings: Mapping) -> Dataset:
    """:func:`preprocess` on a sparse matrix whose steps keep a zero at zero: only the
    stored values change (a CSC matrix comes out)."""
    X = as_columns(dataset.X, dataset.source or "the data").copy()
    names = list(dataset.feature_names)
    notes = list(dataset.notes)
    low, high = settings["floor"], settings["ceiling"]
    if low > -math.inf or high < math.inf:
        np.clip(X.data, low, high, out=X.data)
        notes.append(f"thresholded to [{low:g}, {high:g}]")
    transform = settings["transform"]
    if transform in CPM_TRANSFORMS:
        if (X.data < 0).any():
            k = int(np.flatnonzero(X.data < 0)[0])
            column = int(np.searchsorted(X.indptr, k, side="right") - 1)
            raise FSEngineError(
                f"log-CPM needs counts (no negative value): gene {names[column]!r}, sample "
                f"{_sample(dataset, int(X.indices[k]))} is {X.data[k]:g}"
            )
        totals = np.bincount(X.indices, weights=X.data, minlength=X.shape[0])
        factor = _per_million(totals, dataset, transform, notes)
        X.data = CPM_TRANSFORMS[transform](X.data * factor[X.indices] + 1)
        notes.append(_transform_note(transform))
    if settings["min_variance"] > 0:
        n, stored = X.shape[0], np.diff(X.indptr)
        column_of = np.repeat(np.arange(X.shape[1]), stored)
        means = np.bincount(column_of, weights=X.data, minlength=X.shape[1]) / n
        deviations = X.data - means[column_of]  # the zeros' deviations are -mean each
        squares = np.bincount(column_of, weights=deviations**2, minlength=X.shape[1])
        variances = (squares + (n - stored) * means**2) / n
        keep = _variance_kept(variances, settings["min_variance"])
        dropped = X.shape[1] - int(keep.sum())
        X = X[:, np.flatnonzero(keep)]
        names = [n for n, k in zip(names, keep) if k]
        notes.append(f"{dropped} genes of variance below {settings['min_variance']:g} dropped")
    X.eliminate_zeros()
    constant = tuple(n for n, c in zip(names, column_constant(X)) if c)
    return _preprocessed(dataset, X, names, constant, notes, settings)


def _preprocess_backed(dataset: Dataset, settings: Mapping) -> Dataset:
    """:func:`preprocess` on a matrix on disk: a view that applies the steps to each block
    read (:meth:`fsengine.io.backed.BackedColumns.transformed`), with the in-memory path's
    operations, its checks and its notes; the matrix stays on disk."""
    X = dataset.X
    names = list(dataset.feature_names)
    notes = list(dataset.notes)
    low, high = settings["floor"], settings["ceiling"]
    thresholds = {"low": low, "high": high}
    clipped = X
    if low > -math.inf or high < math.inf:
        clipped = X.transformed(Transform(low, high))
        notes.append(f"thresholded to [{low:g}, {high:g}]")
    transform = settings["transform"]
    final = clipped
    if transform == "log2":
        offset = settings["offset"]
        profile = clipped.profile()
        if ((profile.low + offset) <= 0).any():
            _raise_backed_positive(clipped, dataset, names, offset, profile)
        final = X.transformed(Transform(**thresholds, kind="log2", offset=offset))
        notes.append(f"log2(value + {offset:g})")
    elif transform in CPM_TRANSFORMS:
        profile = clipped.profile()
        if (profile.low < 0).any():
            row, column, value = _first_backed(clipped, profile.low < 0, lambda b: b < 0)
            raise FSEngineError(
                f"log-CPM needs counts (no negative value): gene {names[column]!r}, sample "
                f"{_sample(dataset, row)} is {value:g}"
            )
        factor = _per_million(clipped.row_totals(), dataset, transform, notes)
        final = X.transformed(Transform(**thresholds, kind=transform, factor=factor))
        notes.append(_transform_note(transform))
    if settings["min_variance"] > 0:
        keep = _variance_kept(final.profile(variances=True).variances, settings["min_variance"])
        dropped = final.shape[1] - int(keep.sum())
        final = final.take(np.flatnonzero(keep))
        names = [n for n, k in zip(names, keep) if k]
        notes.append(f"{dropped} genes of variance below {settings['min_variance']:g} dropped")
    constant = tuple(n for n, c in zip(names, column_constant(final)) if c)
    return _preprocessed(dataset, final, names, constant, notes, settings)


def _first_backed(X, columns: np.ndarray, test) -> tuple[int, int, float]:
    """(row, column, value) of the first value of the matrix on disk ``X`` for which
    ``test`` holds, among the columns marked in ``columns``: by columns, then rows, when
    it is stored sparse (the order of a CSC matrix's stored values), else by rows, then
    columns (numpy's ``nonzero`` on the dense matrix)."""
    found = None
    candidates = np.flatnonzero(columns)
    for lo in range(0, len(candidates), 64):
        chosen = candidates[lo : lo + 64]
        block = X.columns(chosen)
        for j, column in enumerate(chosen.tolist()):
            rows = np.flatnonzero(test(block[:, j]))
            if len(rows) and (found is None or rows[0] < found[0]):
                found = (int(rows[0]), column, float(block[rows[0], j]))
            if X.sparse and found is not None:
                return found
    return found


def _raise_backed_positive(X, dataset, names, offset: float, profile) -> None:
    """:func:`_check_positive`'s error, for a matrix on disk."""
    row, column, value = _first_backed(X, (profile.low + offset) <= 0, lambda b: b + offset <= 0)
    lowest = float((profile.low.min() + offset) - offset)
    raise FSEngineError(
        f"log2 needs positive values: gene {names[column]!r}, sample "
        f"{_sample(dataset, row)} is {(value + offset) - offset:g} (the lowest value "
        f"is {lowest:g})",
        parameter="transform",
        remedy="set a floor above 0 (raw intensities: 20) or an offset above "
        f"{abs(min(lowest, 0.0)):g} with",
        remedy_option="floor",
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


def _extremes(X):
    """(lowest value, highest value, smallest value above 0 or else 0.0: a function) of
    ``X``, None when it has no values; of a matrix on disk, from its profile (one pass
    over the file)."""
    if is_backed(X):
        if X.shape[0] * X.shape[1] == 0:
            return None
        profile = X.profile()
        smallest = profile.smallest_positive if math.isfinite(profile.smallest_positive) else 0.0
        return float(profile.low.min()), float(profile.high.max()), lambda: float(smallest)
    X = _values(X)
    if X.size == 0:
        return None

    def smallest() -> float:  # a copy of the positive values: only when needed
        positive = X[X > 0]
        return float(positive.min()) if positive.size else 0.0

    return float(np.min(X)), float(np.max(X)), smallest


def looks_unlogged(X) -> str | None:
    """A sentence when the values look like raw intensities or counts (not on a log
    scale): the largest value above 1,000 and the values spanning over three orders of
    magnitude, or negative values beside values above 1,000. None otherwise.
    """
    found = _extremes(X)
    if found is None:
        return None
    low, high, smallest_positive = found
    if high <= 1000:
        return None
    if low < 0:
        return (
            f"the values range from {low:,.6g} to {high:,.6g}: they look like raw intensities "
            "with negative background-corrected values; threshold them (floor 20, ceiling "
            "16000 are common) and take log2"
        )
    smallest = smallest_positive()
    if smallest > 0 and high / smallest < 1000:
        return None
    return (
        f"the values range from {low:,.6g} to {high:,.6g}, over three orders of magnitude: "
        "they look unlogged (raw intensities or counts); take log2 (with an offset of 1 if "
        "there are zeros), or log-CPM for counts"
    )


def _count_profile(X) -> tuple[bool, float, float]:
    """(every value a non-negative integer, the share of zeros, the largest value) of
    ``X``, read a block of columns at a time (sparse: its stored values, the others
    zeros; on disk: its profile), stopping at the first value that is not a count."""
    if is_backed(X):
        profile = X.profile()
        size = X.shape[0] * X.shape[1]
        if not size or profile.low.min() < 0 or not profile.integers:
            return False, 0.0, 0.0
        return True, profile.zeros(X.shape[0]) / size, float(profile.high.max())
    if is_sparse(X):
        stored = np.asarray(X.data, dtype=float)
        size = X.shape[0] * X.shape[1]
        if stored.size and ((stored < 0).any() or (stored != np.round(stored)).any()):
            return False, 0.0, 0.0
        zeros = size - int(np.count_nonzero(stored))
        return True, zeros / max(size, 1), float(stored.max()) if stored.size else 0.0
    X = np.asarray(X)
    if X.ndim != 2 or X.size == 0:
        return False, 0.0, 0.0
    width = max(1, 1_000_000 // max(X.shape[0], 1))
    zeros, high = 0, 0.0
    for lo in range(0, X.shape[1], width):
        block = np.asarray(X[:, lo : lo + width], dtype=float)
        if (block < 0).any() or (block != np.round(block)).any():
            return False, 0.0, 0.0
        zeros += int(block.size - np.count_nonzero(block))
        high = max(high, float(block.max()))
    return True, zeros / X.size, high


def parametric_rankers() -> list[str]:
    """The rankers that assume normalised values (:attr:`fsengine.spec.MethodSpec.parametric`:
    scores from class means and variances), in the registry's order."""
    return [name for name, spec in RANKER_SPECS.items() if spec.parametric]


def _listed(names, labels: Mapping[str, str] | None = None) -> str:
    names = [(labels or {}).get(n, n) for n in names]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def raw_counts_zeros(X) -> float | None:
    """The share of zeros when the values look like raw counts (single-cell UMIs, reads):
    every value a non-negative integer, at least :data:`COUNTS_ZERO_SHARE` of them zeros
    and the largest at least :data:`COUNTS_HIGHEST`; None otherwise. One pass over ``X``,
    a block of columns at a time (sparse: its stored values)."""
    counts, zeros, high = _count_profile(X)
    if not counts or zeros < COUNTS_ZERO_SHARE or high < COUNTS_HIGHEST:
        return None
    return zeros


def looks_like_counts(X, labels: Mapping[str, str] | None = None) -> str | None:
    """A sentence when the values look like raw counts (:func:`raw_counts_zeros`), naming
    their share of zeros, the step to take and the rankers that assume normalised values
    (by their names, or by ``labels`` of them: a page's "Welch t"); None otherwise. The
    counterpart of :func:`looks_unlogged` for counts whose largest value is small.
    """
    zeros = raw_counts_zeros(X)
    if zeros is None:
        return None
    return (
        f"the values are non-negative integers, {zeros:.0%} of them zeros: they look like raw "
        "counts (single-cell UMIs or reads); normalise and log-transform them first, as "
        "scanpy's normalize_total then log1p: transform log1p-cpm (ln of counts per million "
        f"+ 1). {_listed(parametric_rankers(), labels)} assume normalised values (scores "
        "from class "
        "means and variances); on raw counts, cells with many counts and a class's zero "
        "variance decide them"
    )


def counts_warning(
    X, methods, zeros: float | None = None, labels: Mapping[str, str] | None = None
) -> str | None:
    """A sentence when ``methods`` include rankers that assume normalised values
    (:func:`parametric_rankers`) and ``X`` looks like raw counts
    (:func:`raw_counts_zeros`); None otherwise.

    Parameters
    ----------
    X : array or scipy sparse matrix, or None
        The values; read only when such a ranker is among ``methods`` and ``zeros`` is
        not given.
    methods : sequence of str
    zeros : float, optional
        :func:`raw_counts_zeros` of ``X`` when known (a page keeps it per data set); with
        it, ``X`` is not read.
    labels : mapping, optional
        How to name the methods (default: their names).
    """
    chosen = [m for m in dict.fromkeys(methods) if m in parametric_rankers()]
    if not chosen:
        return None
    if zeros is None:
        zeros = raw_counts_zeros(X)
    if zeros is None:
        return None
    verb = "assumes" if len(chosen) == 1 else "assume"
    return (
        f"{_listed(chosen, labels)} {verb} normalised values, and the values look like raw "
        "counts "
        f"(non-negative integers, {zeros:.0%} zeros): cells with many counts and genes a "
        "class does not express (zero variance) decide the ranking; preprocess with "
        "transform log1p-cpm (scanpy: normalize_total, then log1p)"
    )


def suggested_preprocessing(X) -> dict:
    """The :data:`PREPROCESSING` parameters :func:`looks_unlogged`'s or
    :func:`looks_like_counts`'s sentence suggests for values ``X`` (``{}`` when the values
    look logged already).

    Negative values beside large ones (background-corrected intensities): floor 20,
    ceiling 16,000 and log2. Non-negative integers with zeros (counts): log-CPM, or, for
    counts whose largest value is small and most of them zeros (single cells), log1p-CPM,
    scanpy's scale. Other values with zeros: log2 with an offset of 1. Else: log2.

    Parameters
    ----------
    X : array-like of float, shape (n_samples, n_features), or a scipy sparse matrix

    Returns
    -------
    dict
        Parameter -> value, only those that differ from the defaults.
    """
    if looks_unlogged(X) is None:
        return {"transform": "log1p-cpm"} if looks_like_counts(X) else {}
    low = _extremes(X)[0]
    if low < 0:
        return {"floor": 20.0, "ceiling": 16000.0, "transform": "log2"}
    if is_backed(X):
        integers = X.profile().integers
    else:
        values = _values(X)
        integers = bool(np.all(values == np.round(values)))
    if low == 0 and integers:
        return {"transform": "log-cpm"}
    if low == 0:
        return {"transform": "log2", "offset": 1.0}
    return {"transform": "log2"}
