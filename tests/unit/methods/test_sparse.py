"""Sparse matrices (issue 30, point 3): the rankers that score each gene alone and every
online selector read a CSR or CSC matrix a dense block of columns at a time, never whole,
and decide exactly as on the dense matrix; the loader keeps an AnnData file's sparse X
sparse when asked; the command line selects on it; the layers and gene-name columns of an
AnnData file are read by name.

The truth is the dense matrix: every score, event and selection on the sparse copy must
equal the dense run's, bit for bit, with blocks of a few columns (so that many blocks
are joined)."""

import anndata
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import sparse

import fsengine._compute.sparse as sparse_blocks
import fsengine.methods.online._stream as stream_module
from fsengine import FSEngineError, load_dataset, run_selection
from fsengine._compute.sparse import as_columns, column_constant, stable_order
from fsengine.cli import main
from fsengine.config import config_context
from fsengine.data.task import Task
from fsengine.export.writers import selection_to_csv
from fsengine.methods.rankers import RANKER_SPECS, marker_table, score_features
from fsengine.methods.registry import ONLINE_METHODS, RANKER_METHODS, get_method
from fsengine.sklearn import OnlineSelector, RankerSelector

N_SAMPLES, N_GENES = 120, 90


def counts_like(seed: int = 0, n: int = N_SAMPLES, p: int = N_GENES, density: float = 0.2):
    """Integer counts, most of them exact zeros, with a few genes shifted in the minority
    (1 for the first 15 samples), and some all-zero genes."""
    rng = np.random.default_rng(seed)
    y = np.zeros(n, dtype=np.int8)
    y[:15] = 1
    rate = np.full((n, p), 2.0)
    rate[:15, :6] *= 4
    X = rng.poisson(rate) * (rng.random((n, p)) < density)
    X[:, [10, 40]] = 0
    return np.asfortranarray(X, dtype=np.float64), y, [f"g{j}" for j in range(p)]


class Widths(list):
    """The widths of the dense blocks a stream made, and (``addresses``) where each was."""

    def __init__(self, width: int):
        super().__init__()
        self.width = width
        self.addresses = []

    def clear(self):
        super().clear()
        self.addresses.clear()


@pytest.fixture(params=[1, 7], ids=["1 column", "7 columns"])
def small_blocks(monkeypatch, request):
    """Blocks of at most 1 or 7 columns of 120 samples, and a record of every dense block
    the stream makes (one column of the buffer is a block ``np.ascontiguousarray`` does
    not copy)."""
    monkeypatch.setattr(sparse_blocks, "BLOCK_ELEMENTS", request.param * N_SAMPLES)
    widths = Widths(request.param)
    original = stream_module.dense_block

    def recording(X, columns, rows=None, out=None):
        block = original(X, columns, rows, out)
        widths.append(block.shape[1])
        widths.addresses.append(block.__array_interface__["data"][0])
        return block

    monkeypatch.setattr(stream_module, "dense_block", recording)
    return widths


@pytest.mark.parametrize("method", RANKER_METHODS)
@pytest.mark.parametrize("kind", [sparse.csr_matrix, sparse.csc_array])
def test_every_ranker_scores_a_sparse_matrix_as_the_dense_one(method, kind, small_blocks):
    X, y, _ = counts_like()
    dense = score_features(method, X, y)
    assert np.array_equal(score_features(method, kind(X), y), dense)
    assert np.array_equal(get_method(method).scores(kind(X), y), dense)


def test_the_columnwise_rankers_are_those_whose_score_is_their_columns_alone():
    """A columnwise ranker's score of a gene does not change when the other genes do; the
    others (k-means over all genes, ReliefF's distances, MI's shared tie noise) are not
    marked so."""
    X, y, _ = counts_like(1)
    other = X.copy()
    other[:, 1:] = counts_like(2)[0][:, 1:]
    for method in RANKER_METHODS:
        if RANKER_SPECS[method].columnwise:
            assert score_features(method, X, y)[0] == score_features(method, other, y)[0]
    assert {m for m in RANKER_METHODS if RANKER_SPECS[m].columnwise} == {
        "fisher",
        "s2n",
        "pcc",
        "hellinger",
        "welch",
        "wilcoxon",
    }


def test_a_ranker_that_needs_every_gene_is_refused_when_the_dense_copy_does_not_fit(
    monkeypatch,
):
    X, y, _ = counts_like()
    monkeypatch.setattr(sparse_blocks, "available_memory", lambda: 100_000)
    with pytest.raises(FSEngineError) as caught:
        score_features("relieff", sparse.csc_array(X), y)
    text = caught.value.describe()
    assert "120 x 90" in text and "relieff scores a gene with the others' values" in text
    assert "fisher, s2n, pcc" in text
    # the columnwise ones never need the dense copy
    assert np.array_equal(
        score_features("fisher", sparse.csc_array(X), y), score_features("fisher", X, y)
    )


@pytest.mark.parametrize("method", ONLINE_METHODS)
def test_every_online_selector_streams_a_sparse_matrix_as_the_dense_one(method, small_blocks):
    """The same events (actions, sets, scores) in natural and in random order, from dense
    blocks of at most 1 or 7 columns, each made in the memory of the one before."""
    X, y, names = counts_like()
    selector = get_method(method)
    for order, seed in (("natural", None), ("random", 3)):
        on_dense = selector.select(X, y, names, order=order, seed=seed, events=True)
        small_blocks.clear()
        on_sparse = selector.select(
            sparse.csc_matrix(X), y, names, order=order, seed=seed, events=True
        )
        assert max(small_blocks) == small_blocks.width and sum(small_blocks) == N_GENES
        assert len(set(small_blocks.addresses)) == 1  # every block made in one buffer
        assert repr(on_sparse.events) == repr(on_dense.events)
        assert repr(on_sparse.selection) == repr(on_dense.selection)
        quiet = selector.select(sparse.csr_matrix(X), y, names, order=order, seed=seed)
        assert repr(quiet.selection) == repr(on_dense.selection)


def test_marker_table_on_a_sparse_matrix_equals_the_dense_one(small_blocks):
    X, y, _ = counts_like()
    logged = np.log1p(X)
    for test in ("welch", "wilcoxon"):
        dense = marker_table(logged, y, test)
        on_sparse = marker_table(sparse.csr_matrix(logged), y, test)
        for key, values in dense.items():
            assert np.array_equal(on_sparse[key], values, equal_nan=True), (test, key)


@given(
    st.lists(
        st.lists(st.sampled_from([0.0, 0.0, 1.0, -2.5, 3.0]), min_size=5, max_size=5),
        min_size=1,
        max_size=6,
    )
)
@settings(max_examples=200, deadline=None)
def test_constant_columns_by_their_definition(rows):
    """One value over all rows, zeros stored or not: the dense definition."""
    X = np.array(rows, dtype=float)
    csc = sparse.csc_array(X)
    csc.data[csc.data == 1.0] = 0.0  # an explicitly stored zero
    dense = csc.toarray()
    expected = (dense == dense[0]).all(axis=0)
    assert np.array_equal(column_constant(as_columns(csc)), expected)


def test_a_missing_value_in_a_sparse_matrix_is_named_by_row_and_column():
    X = sparse.csr_matrix(np.array([[0.0, 1.0, 0.0], [2.0, 0.0, np.nan]]))
    with pytest.raises(FSEngineError, match=r"a missing value \(NaN\) at row 2, column 3"):
        as_columns(X)
    with pytest.raises(FSEngineError, match="row 2, column 3"):
        score_features("fisher", X, np.array([0, 1]))


def test_a_sparse_task_selects_and_evaluates_as_the_dense_task():
    from fsengine.evaluation import evaluate

    X, y, names = counts_like()
    dense, on_sparse = Task(X, y, names), Task(sparse.csr_matrix(X), y, names)
    assert on_sparse.is_sparse and on_sparse.X.format == "csc" and not dense.is_sparse
    assert np.array_equal(on_sparse.dense().X, X) and dense.dense() is dense
    for method in ("saola", "fisher"):
        top = None if get_method(method).online else 5
        assert repr(run_selection(on_sparse, None, method, top=top).selection) == repr(
            run_selection(dense, None, method, top=top).selection
        )
    methods = ("saola", "fisher")

    def without_time(evaluation):
        return [{k: v for k, v in r.items() if k != "seconds"} for r in evaluation.records]

    records = without_time(evaluate(on_sparse, None, methods, n_splits=3, n_jobs=1))
    assert records == without_time(evaluate(dense, None, methods, n_splits=3, n_jobs=1))
    assert len(records) == 6


def test_a_sparse_task_over_joblibs_memmapping_size_runs_on_worker_processes():
    """joblib hands a worker process an array of over 1 MB as a memmap (a sparse matrix's
    values here: 1.7 MB): every ranker and SAOLA give on two processes the records and
    selections of one process; the selections on the whole data run in a worker as a
    dashboard's cancellable run does (the kernels refused a memmap: the dashboard's
    Compare of a 20,000-cell file failed in its workers)."""
    from fsengine._compute.parallel import Cancellation, cancellable
    from fsengine.evaluation import evaluate
    from fsengine.evaluation.comparison import whole_data_runs

    X, y, names = counts_like(seed=3, n=2000, p=600)
    task = Task(sparse.csr_matrix(X), y, names)
    assert task.X.data.nbytes > 2**20
    methods = (*RANKER_METHODS, "saola")

    def without_time(evaluation):
        return [{k: v for k, v in r.items() if k != "seconds"} for r in evaluation.records]

    serial = evaluate(task, None, methods, n_splits=2, top=5, n_jobs=1)
    parallel = evaluate(task, None, methods, n_splits=2, top=5, n_jobs=2)
    assert without_time(parallel) == without_time(serial)
    assert len(serial.records) == 2 * len(methods)
    alone = {m: run_selection(task, None, m, top=None if m == "saola" else 5) for m in methods}
    with cancellable(Cancellation()):
        on_workers, _ = whole_data_runs(task, None, methods, top=5)
    for method in methods:
        assert repr(on_workers[method]) == repr(alone[method].selection), method


def test_the_scikit_learn_selectors_take_sparse_input():
    X, y, _ = counts_like()
    for selector in (RankerSelector("welch", k=5), OnlineSelector("saola")):
        on_dense = selector.fit(X, y).get_support(indices=True)
        on_sparse = selector.fit(sparse.csr_matrix(X), y).get_support(indices=True)
        assert np.array_equal(on_sparse, on_dense)
        assert sparse.issparse(selector.transform(sparse.csr_matrix(X)))


@pytest.fixture
def counts_file(tmp_path):
    """An AnnData file: X log1p(counts) as CSR, the counts in layers['counts'], gene
    symbols in var['symbol'] (the var_names are Ensembl-like ids), the class in obs."""
    X, y, names = counts_like()
    adata = anndata.AnnData(
        X=sparse.csr_matrix(np.log1p(X)),
        obs=pd.DataFrame(
            {"cell_type": np.where(y == 1, "rare", "common")},
            index=[f"cell{i}" for i in range(len(y))],
        ),
        var=pd.DataFrame(
            {"symbol": [f"SYM{j}" for j in range(len(names))]},
            index=[f"ENSG{j:05d}" for j in range(len(names))],
        ),
    )
    adata.layers["counts"] = sparse.csc_matrix(X)
    path = tmp_path / "counts.h5ad"
    adata.write_h5ad(path)
    return path, X


def test_an_anndata_layer_and_a_var_column_are_read_by_name(counts_file):
    path, X = counts_file
    on_x = load_dataset(path, sparse=True)
    assert np.array_equal(on_x.X.toarray(), np.log1p(X)) and on_x.feature_names[0] == "ENSG00000"
    counts = load_dataset(path, layer="counts", gene_names="symbol")
    assert isinstance(counts.X, np.ndarray) and np.array_equal(counts.X, X)
    assert counts.feature_names[:2] == ("SYM0", "SYM1")
    assert "matrix: layers['counts']" in counts.notes
    assert counts.constant_features == ("SYM10", "SYM40")
    dropped = load_dataset(path, layer="counts", drop_constant=True, sparse=True)
    assert dropped.dropped_features == ("ENSG00010", "ENSG00040") and dropped.n_features == 88
    assert np.array_equal(dropped.X.toarray(), np.delete(X, [10, 40], axis=1))


def test_a_missing_layer_or_var_column_is_named_with_those_the_file_has(counts_file, tmp_path):
    path, _ = counts_file
    with pytest.raises(FSEngineError, match=r"has no layer 'raw'; its layers: 'counts'"):
        load_dataset(path, layer="raw")
    with pytest.raises(FSEngineError, match=r"has no var column 'gene'; its var columns: 'symbol'"):
        load_dataset(path, gene_names="gene")
    table = tmp_path / "table.csv"
    table.write_text("a,b,label\n1,2,x\n3,4,y\n")
    with pytest.raises(FSEngineError, match=r"layer applies to AnnData \(.h5ad\) files"):
        load_dataset(table, layer="counts")


def test_the_command_line_selects_on_the_sparse_file_as_on_its_dense_copy(
    counts_file, tmp_path, capsys
):
    path, X = counts_file
    dense = Task.from_dataset(load_dataset(path, layer="counts"), "rare")
    for method, extra in (("saola", []), ("wilcoxon", ["--top", "5"])):
        out = tmp_path / f"{method}.csv"
        argv = ["select", str(path), "--layer", "counts", "--minority", "rare"]
        assert main([*argv, "--method", method, "--out", str(out), *extra]) == 0
        top = 5 if extra else None
        expected = run_selection(dense, None, method, top=top).selection
        assert out.read_text() == selection_to_csv(expected)
    assert main(["select", str(path), "--layer", "raw", "--out", str(tmp_path / "x.csv")]) == 2
    assert "has no layer 'raw'" in capsys.readouterr().err


def test_select_on_an_anndata_object_keeps_its_sparse_x(counts_file, small_blocks):
    """fsengine.adata.select on an object with a sparse X: no dense copy of X (the stream's
    blocks are 7 columns), the same var columns as on a dense copy of the object."""
    from fsengine.adata import select

    path, _ = counts_file
    on_sparse = anndata.read_h5ad(path)
    on_dense = on_sparse.copy()
    on_dense.X = on_dense.X.toarray()
    select(on_sparse, "cell_type", "rare", "saola")
    assert small_blocks and max(small_blocks) <= 7
    select(on_dense, "cell_type", "rare", "saola")
    assert sparse.issparse(on_sparse.X)
    assert on_sparse.var.equals(on_dense.var)


def test_preprocessing_a_sparse_data_set_gives_the_dense_result(counts_file):
    from fsengine.data.preprocess import preprocess

    path, X = counts_file
    kept = load_dataset(path, layer="counts", sparse=True)
    logged = preprocess(kept, {"transform": "log2", "offset": 1.0})
    assert np.array_equal(logged.X, np.log2(X + 1.0))


def test_the_run_record_and_its_command_line_name_the_layer_and_the_gene_column(
    counts_file, tmp_path
):
    from fsengine.export.writers import select_arguments

    path, _ = counts_file
    task = Task.from_dataset(
        load_dataset(path, layer="counts", gene_names="symbol", sparse=True), "rare"
    )
    result = run_selection(task, None, "saola")
    assert result.params["layer"] == "counts" and result.params["gene_names"] == "symbol"
    argv = select_arguments(result.params, str(path))
    assert argv[argv.index("--layer") + 1] == "counts"
    assert argv[argv.index("--gene-names") + 1] == "symbol"
    out = tmp_path / "again.csv"
    assert main([*argv, "--out", str(out)]) == 0
    assert out.read_text() == selection_to_csv(result.selection)


@settings(max_examples=300, deadline=None)
@given(
    n=st.integers(1, 90),
    b=st.integers(1, 4),
    share=st.floats(0.0, 1.0),
    seed=st.integers(0, 10**6),
    axis=st.sampled_from([0, 1]),
    continuous=st.booleans(),
    compiled=st.booleans(),
)
def test_stable_order_is_numpy_s_stable_argsort(n, b, share, seed, axis, continuous, compiled):
    """Lines of counts (mostly zeros, or mostly not; runs of ties longer and shorter than
    the kernel's insertion sort takes) or of continuous values, negative values, -0.0
    beside 0.0: the order of every line is numpy's stable argsort's, index for index, in
    numpy and in the compiled kernels."""
    rng = np.random.default_rng(seed)
    values = rng.integers(-3, 4, size=(n, b)).astype(float)
    if continuous:
        values *= rng.random((n, b))
    values[rng.random((n, b)) > share] = 0.0
    values[rng.random((n, b)) < 0.1] = -0.0
    values = values if axis == 0 else values.T.copy()
    expected = np.argsort(values, axis=axis, kind="stable")
    with config_context(compiled=compiled):
        got = stable_order(values, axis=axis)
    assert got.dtype == np.int64 and got.shape == values.shape
    assert np.array_equal(got, expected)


def _csc_with_stored_zeros(X: np.ndarray, rng) -> sparse.csc_array:
    """X as CSC with some of its zeros stored explicitly, as files hold them."""
    rows, cols = np.nonzero((X != 0) | (rng.random(X.shape) < 0.2))
    return sparse.csc_array((X[rows, cols], (rows, cols)), shape=X.shape)


@settings(max_examples=300, deadline=None)
@given(
    n=st.integers(4, 70),
    b=st.integers(1, 5),
    n_classes=st.integers(2, 4),
    zeros=st.floats(0.0, 1.0),
    scale=st.sampled_from([1.0, 0.37, 1e6, 1e150]),
    seed=st.integers(0, 10**6),
)
def test_fisher_and_s2n_read_a_sparse_matrix_by_its_non_zeros_bit_for_bit(
    n, b, n_classes, zeros, scale, seed
):
    """Fisher and S2N score a CSC matrix from its non-zeros (two classes; S2N's one-versus-
    rest classes too) with the dense scores' bits: stored zeros and -0.0, any order of the
    rows, constant and flat columns, and values near the top of the double range."""
    rng = np.random.default_rng(seed)
    X = rng.integers(-3, 4, size=(n, b)).astype(float) * scale * rng.random((n, b)).round(1)
    X[rng.random((n, b)) < zeros] = 0.0
    X[rng.random((n, b)) < 0.1] = -0.0
    y = rng.integers(0, n_classes, size=n)
    y[:n_classes] = np.arange(n_classes)
    permutation = rng.permutation(n)
    for method in ("fisher", "s2n"):
        dense = score_features(method, X, y)
        with pytest.MonkeyPatch.context() as patch:
            if n_classes == 2 or method == "s2n":  # no dense block at all
                patch.setattr(sparse_blocks, "dense_columns", None)
            for matrix, labels in (
                (_csc_with_stored_zeros(X, rng), y),
                (sparse.csr_matrix(X[permutation]), y[permutation]),
            ):
                assert np.array_equal(score_features(method, matrix, labels), dense)
