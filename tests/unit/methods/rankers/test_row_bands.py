"""A CSR file on disk read a band of rows at a time (no column copy): its first pass
(:meth:`BackedColumns.profile`) and Welch's moments (:func:`group_moments_by_rows`) give
the bits of the definitions written out here on the dense matrix, and of the reading by
columns; a file whose rows are out of order, hold a column twice or a value that is not
finite is read by columns instead, with the same results and messages."""

from __future__ import annotations

import math

import anndata
import h5py
import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import sparse

from fsengine import FSEngineError, load_dataset, run_selection
from fsengine.data.task import Task
from fsengine.io.backed import BackedColumns, Transform
from fsengine.methods.rankers import _markers as markers
from fsengine.methods.rankers._markers import group_moments as moments
from fsengine.methods.rankers._markers import welch_statistic

VALUES = st.one_of(
    st.integers(-3, 40).map(float),
    st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False, width=32),
    st.sampled_from([0.0, -0.0, 0.5, 1e-300, 3.25]),
)


def _write_csr(path, data, indices, indptr, shape, index_type=np.int32):
    """X alone, as anndata encodes a CSR matrix, with the arrays exactly as given."""
    with h5py.File(path, "w") as f:
        group = f.create_group("X")
        group.attrs["encoding-type"] = "csr_matrix"
        group.attrs["encoding-version"] = "0.1.0"
        group.attrs["shape"] = np.asarray(shape)
        group["data"] = data
        group["indices"] = np.asarray(indices, dtype=index_type)
        group["indptr"] = np.asarray(indptr, dtype=np.int64)
    return path


@st.composite
def csr_matrices(draw, max_n=40, max_p=25):
    """(dense float64 truth, CSR of it with some explicit zeros, the stored dtype)."""
    n, p = draw(st.integers(2, max_n)), draw(st.integers(1, max_p))
    density = draw(st.sampled_from([0.0, 0.1, 0.5, 1.0]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    mask = rng.random((n, p)) < density
    values = draw(st.lists(VALUES, min_size=int(mask.sum()), max_size=int(mask.sum())))
    dtype = draw(st.sampled_from([np.float32, np.float64]))
    dense = np.zeros((n, p))
    dense[mask] = np.asarray(values, dtype=dtype)  # explicit zeros where 0.0 was drawn
    rows, columns = np.nonzero(mask)
    indptr = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=n))])
    data = dense[rows, columns].astype(dtype)
    return dense, (data, columns, indptr), dtype


def _profile_by_definition(dense):
    """Each column's extremes, non-zeros, least positive value and integer flag, and each
    row's total added in column order, from the dense values."""
    totals = np.zeros(dense.shape[0])
    for j in range(dense.shape[1]):
        totals = totals + dense[:, j]
    positive = np.where(dense > 0, dense, np.inf).min(axis=0)
    return {
        "low": dense.min(axis=0),
        "high": dense.max(axis=0),
        "nonzero": np.count_nonzero(dense, axis=0),
        "column_positive": positive,
        "column_integers": (dense == np.round(dense)).all(axis=0),
        "row_totals": totals,
    }


def _same_bits(a, b) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes()


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    drawn=csr_matrices(), index_type=st.sampled_from([np.int32, np.int64]), band=st.integers(1, 60)
)
def test_the_first_pass_by_rows_is_the_definition(tmp_path_factory, drawn, index_type, band):
    dense, (data, columns, indptr), _ = drawn
    path = _write_csr(
        tmp_path_factory.mktemp("rows") / "x.h5", data, columns, indptr, dense.shape, index_type
    )
    with BackedColumns.open(path, elements=band) as matrix:
        assert matrix.reads_rows()
        profile = matrix.profile()
        assert matrix.copy_bytes == 0  # no column copy was made
    truth = _profile_by_definition(dense)
    for name, values in truth.items():
        found = getattr(profile, name)
        assert np.array_equal(found, values), name
        if name in ("low", "high", "column_positive", "row_totals"):
            assert _same_bits(np.asarray(found, dtype=float) + 0.0, values + 0.0), name
    assert profile.integers == bool(truth["column_integers"].all())
    assert profile.smallest_positive == (
        truth["column_positive"].min() if dense.shape[1] else math.inf
    )


def _csc_twin(path, dense, dtype):
    """The same values stored CSC (read by columns straight from the file)."""
    stored = sparse.csc_matrix(dense.astype(dtype))
    with h5py.File(path, "w") as f:
        group = f.create_group("X")
        group.attrs["encoding-type"] = "csc_matrix"
        group.attrs["encoding-version"] = "0.1.0"
        group.attrs["shape"] = np.asarray(dense.shape)
        group["data"], group["indices"], group["indptr"] = (
            stored.data,
            stored.indices,
            stored.indptr,
        )
    return path


def test_rows_out_of_order_or_with_a_column_twice_are_read_by_columns(tmp_path):
    """Row 0 stores columns 2, 0; row 1 column 1 twice (duplicates add, as scipy and the
    in-memory reader add them): the profile and Welch of the canonical matrix."""
    data = np.array([5.0, 1.0, 2.0, 3.0, 4.0, 7.0])
    columns = np.array([2, 0, 1, 1, 0, 2])
    indptr = np.array([0, 2, 4, 5, 6])
    path = _write_csr(tmp_path / "odd.h5", data, columns, indptr, (4, 3))
    dense = np.array([[1.0, 0, 5.0], [0, 5.0, 0], [4.0, 0, 0], [0, 0, 7.0]])
    twin = _csc_twin(tmp_path / "twin.h5", dense, np.float64)
    with BackedColumns.open(path) as odd, BackedColumns.open(twin) as canonical:
        found, truth = odd.profile(), canonical.profile()
        for name in ("low", "high", "nonzero", "row_totals", "column_positive"):
            assert np.array_equal(getattr(found, name), getattr(truth, name)), name
        y = np.array([1, 0, 1, 0])
        assert _same_bits(welch_statistic(odd, y), welch_statistic(dense, y))


def test_a_value_that_is_not_finite_is_named_as_the_reading_by_columns_names_it(tmp_path):
    dense = np.array([[1.0, 0, 0], [0, 0, np.inf], [2.0, np.nan, 0]])
    stored = sparse.csr_matrix(dense)
    path = _write_csr(tmp_path / "bad.h5", stored.data, stored.indices, stored.indptr, (3, 3))
    twin = _csc_twin(tmp_path / "twin.h5", dense, np.float64)
    messages = []
    for source in (path, twin):
        with (
            BackedColumns.open(source, name="m.h5") as matrix,
            pytest.raises(FSEngineError) as caught,
        ):
            matrix.profile()
        messages.append(str(caught.value))
    assert messages[0] == messages[1] == ("m.h5's X has a missing value (NaN) at row 3, column 2")


def _welch_by_definition(dense, y):
    """Welch's t of each column written out: means, ddof-1 variances, (m1 - m0) /
    sqrt(v1/n1 + v0/n0), in exact rational arithmetic rounded once per step."""
    from fractions import Fraction

    group = y == 1
    out = []
    for column in dense.T:
        stats = []
        for members in (column[group], column[~group]):
            exact = [Fraction(float(v)) for v in members]
            mean = sum(exact) / len(exact)
            scatter = sum((v - Fraction(float(mean))) ** 2 for v in exact)
            stats.append(
                (
                    float(mean),
                    float(scatter) / (len(exact) - 1) if len(exact) > 1 else 0.0,
                    len(exact),
                )
            )
        (m1, v1, n1), (m0, v0, n0) = stats
        with np.errstate(divide="ignore", invalid="ignore"):
            out.append((np.float64(m1) - m0) / np.sqrt(np.float64(v1) / n1 + v0 / n0))
    return np.asarray(out)


@settings(
    max_examples=50, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(drawn=csr_matrices(max_n=30), seed=st.integers(0, 2**32 - 1), band=st.integers(1, 40))
def test_welch_by_rows_is_welch_by_columns_and_in_memory_in_any_row_order(
    tmp_path_factory, drawn, seed, band
):
    dense, (data, columns, indptr), dtype = drawn
    n, p = dense.shape
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.3).astype(int)
    y[0], y[1] = 1, 0
    folder = tmp_path_factory.mktemp("welch")
    path = _write_csr(folder / "x.h5", data, columns, indptr, (n, p))
    order = rng.permutation(n)
    shuffled = sparse.csr_matrix(dense[order].astype(dtype))
    permuted = _write_csr(folder / "p.h5", shuffled.data, shuffled.indices, shuffled.indptr, (n, p))
    in_memory = welch_statistic(dense, y)
    with BackedColumns.open(path, elements=band) as matrix:
        by_rows = welch_statistic(matrix, y)
        assert matrix.copy_bytes == 0
        by_columns = welch_statistic(matrix.stored_columns(slice(None)), y)
    with BackedColumns.open(permuted, elements=band) as matrix:
        assert _same_bits(welch_statistic(matrix, y[order]), by_rows)
    assert _same_bits(by_rows, in_memory) and _same_bits(by_rows, by_columns)
    truth = _welch_by_definition(dense, y)
    finite = np.isfinite(truth)
    assert np.allclose(by_rows[finite], truth[finite], rtol=1e-9, atol=0)


def test_a_view_of_some_columns_transformed_is_scored_as_by_columns(tmp_path):
    """Counts per million and a log (the transform needs each value's row), some columns
    dropped: the same bits as the view's columns read one block at a time."""
    rng = np.random.default_rng(5)
    counts = sparse.random(300, 40, density=0.2, format="csr", random_state=rng)
    counts.data = np.ceil(counts.data * 20).astype(np.float32)
    path = _write_csr(tmp_path / "c.h5", counts.data, counts.indices, counts.indptr, counts.shape)
    totals = np.asarray(counts.sum(axis=1)).ravel()
    factor = np.divide(1e6, totals, out=np.zeros_like(totals), where=totals > 0)
    y = (np.arange(300) % 9 == 0).astype(int)
    keep = np.array([39, 0, 7, 8, 20, 3])
    with BackedColumns.open(path, elements=500) as matrix:
        view = matrix.transformed(Transform(kind="log1p-cpm", factor=factor)).take(keep)
        assert view.reads_rows()
        by_rows = welch_statistic(view, y)
        assert matrix.copy_bytes == 0
        by_columns = welch_statistic(view.columns(slice(None)), y)
    assert _same_bits(by_rows, by_columns)
    assert list(np.argsort(-by_rows)) == list(np.argsort(-by_columns))


def test_values_near_the_top_of_the_double_range_take_the_sums_fallback(tmp_path, monkeypatch):
    dense = np.zeros((12, 3))
    dense[::2, 0] = 4e150
    dense[1::3, 1] = -3e150
    dense[:, 2] = np.arange(12)
    stored = sparse.csr_matrix(dense)
    path = _write_csr(tmp_path / "h.h5", stored.data, stored.indices, stored.indptr, dense.shape)
    y = (np.arange(12) < 5).astype(int)
    in_memory = welch_statistic(dense, y)
    by_columns = []
    monkeypatch.setattr(
        markers, "group_moments", lambda X, group: by_columns.append(X.shape) or moments(X, group)
    )
    with BackedColumns.open(path) as matrix:
        assert _same_bits(welch_statistic(matrix, y), in_memory)
    assert by_columns == [(12, 2)]  # the two huge columns, and those only


def test_a_csr_file_is_ranked_by_welch_without_a_column_copy(tmp_path):
    """The whole path (load, drop constant genes, preprocess, rank) on a CSR .h5ad file:
    the in-memory selection and scores, and no column copy on disk."""
    rng = np.random.default_rng(11)
    counts = sparse.random(400, 60, density=0.1, format="csr", random_state=rng)
    counts.data = np.ceil(counts.data * 9).astype(np.float32)
    counts = sparse.csr_matrix(counts.multiply(np.arange(60) != 5))  # gene 5 constant: dropped
    obs = pd.DataFrame({"cell_type": np.where(np.arange(400) % 40 == 0, "rare", "common")})
    obs.index = [f"c{i}" for i in range(400)]
    path = tmp_path / "cells.h5ad"
    anndata.AnnData(X=counts, obs=obs).write_h5ad(path)
    backed = load_dataset(path, label="cell_type", backed=True, drop_constant=True)
    memory = load_dataset(path, label="cell_type", sparse=True, drop_constant=True)
    results = [
        run_selection(Task.from_dataset(ds, "rare"), None, "welch", top=15)
        for ds in (backed, memory)
    ]
    assert results[0].selection == results[1].selection
    assert _same_bits(results[0].scores, results[1].scores)
    assert backed.X.copy_bytes == 0
