"""The order of the samples is no part of the data: permuting the rows of X (the labels
with them) must leave every registered method's result unchanged.

Parametrized by the registry (:data:`fsengine.methods.registry.REGISTRY`): every online selector
and every ranker, with its default parameters, and also with ``ties="average"`` where its
specification has a ``ties`` parameter (the order-invariant neighbourhoods of issue 40).
The data are small but tie-heavy, as users' data are: sparse log1p counts, raw integer
counts, a slice of SRBCT rounded to one decimal, and discrete values in -2..2. Each is
scored in its own order and under seeded permutations of its rows; a ranker's scores
must be equal bit for bit, an online selector's selection (its columns, in order) equal.

K-OFSD, SFSF (its k-nearest model) and OSFS-ET keep the authors' tie rule by default
(equal distances to the lower sample index: which K samples of a tied run are "nearest"
is decided by row order), so they are checked with ``ties="average"`` only, selected
through their specification; nothing is asserted about their default.
"""

from __future__ import annotations

import functools

import numpy as np
import pandas as pd
import pytest

from conftest import SAMPLE
from fsengine.methods.registry import REGISTRY
from tests.synthetic import sparse_log_counts

#: Seeds of the row permutations tried on every data set.
PERMUTATION_SEEDS = (0, 1, 2)
#: Methods whose default is the authors' order-dependent tie rule, kept by design: checked
#: with ties="average" (their invariant variant) only.
ORDER_DEPENDENT_BY_DESIGN = ("kofsd", "sfsf", "osfs-et", "ofs-a3m", "ofs-density")
DATA = ("log_counts", "raw_counts", "rounded_microarray", "discrete")


@functools.cache
def data_set(name: str) -> tuple[np.ndarray, np.ndarray]:
    """The tie-heavy data set ``name``: (X, y), y of {0, 1} with 1 the minority."""
    if name == "log_counts":
        X, y, _ = sparse_log_counts(n=500, p=50, rare_share=0.04, n_up=10, seed=1)
        return X, y
    if name == "raw_counts":
        X, y, _ = sparse_log_counts(n=400, p=40, rare_share=0.05, n_up=8, seed=2)
        return np.rint(np.expm1(X)), y  # the integer counts themselves
    if name == "rounded_microarray":
        frame = pd.read_parquet(SAMPLE)
        y = (frame.pop("label").to_numpy() == 2).astype(np.int64)  # BL, 11 of 83
        return np.round(frame.to_numpy(dtype=float)[:, ::40], 1), y  # 58 genes
    if name == "discrete":
        rng = np.random.default_rng(7)
        n, p = 200, 30
        y = np.zeros(n, dtype=np.int64)
        y[rng.choice(n, 24, replace=False)] = 1
        X = rng.integers(-2, 3, (n, p)).astype(float)
        X[:, :6] = np.clip(X[:, :6] + y[:, None] * rng.integers(0, 3, (n, 6)), -2, 2)
        return X, y
    raise KeyError(name)


def cases():
    """(method, parameters) pairs: each method's defaults, and ties="average" where its
    specification has that parameter; K-OFSD, SFSF and OSFS-ET with ties="average" only."""
    for name, method in REGISTRY.items():
        if name not in ORDER_DEPENDENT_BY_DESIGN:
            yield pytest.param(name, {}, id=name)
        if name in ORDER_DEPENDENT_BY_DESIGN or "ties" in method.spec.parameters:
            yield pytest.param(name, {"ties": "average"}, id=f"{name}-ties=average")


def result(name: str, params: dict, X: np.ndarray, y: np.ndarray):
    """What must not depend on the row order: a ranker's scores, an online selector's
    selected columns (in selection order)."""
    run = REGISTRY[name].select(X, y, [f"g{j}" for j in range(X.shape[1])], params=params)
    return run.scores if run.scores is not None else run.selection.columns


@pytest.mark.parametrize("data", DATA)
@pytest.mark.parametrize("name, params", list(cases()))
def test_permuting_the_samples_changes_nothing(name, params, data):
    X, y = data_set(data)
    expected = result(name, params, X, y)
    for seed in PERMUTATION_SEEDS:
        rows = np.random.default_rng(seed).permutation(len(y))
        got = result(name, params, X[rows], y[rows])
        if REGISTRY[name].online:
            assert got == expected, f"permutation {seed}: selected {got}, in row order {expected}"
        else:
            differ = np.flatnonzero(got != expected)
            assert len(differ) == 0, (
                f"permutation {seed}: {len(differ)} of {len(got)} scores differ, the first "
                f"(feature {differ[0]}) {got[differ[0]]!r} against {expected[differ[0]]!r}"
            )


def test_the_data_are_tie_heavy():
    """Every data set has ties in almost every column, and in the counts most values are
    zeros, of both classes in every gene: where a rule that takes the first of equal values
    would bite."""
    for name in DATA:
        X, y = data_set(name)
        tied = [len(np.unique(column)) < len(column) for column in X.T]
        assert np.mean(tied) > 0.9, name
        assert 0 < y.sum() < len(y) / 2, name
        if name.endswith("counts"):
            assert np.mean(X == 0) > 0.8, name
            assert all(0 < y[column == 0].sum() < (column == 0).sum() for column in X.T), name
