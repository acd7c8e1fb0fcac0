"""Memory (issue 40, point 7): a sparse data set is held once and never made dense whole.

The dashboard holds what the Data page loads sparse when the file is sparse (an AnnData
file's counts), and the steps it takes on it (the task and its digest, the Data page's
checks, a stream with its hold-out, a comparison and the whole-data selections, the Genes
page's table, box plots and PCA) read a dense block of columns at a time. The check is
tracemalloc's peak (numpy's arrays are traced) against the matrix's dense size, on a
reduced copy of the issue's single-cell file with small blocks, so that a step that makes
the matrix (or a training half of it) dense whole fails. The numbers must stay those of
the dense matrix: the comparison, the stream and the statistics are checked against a run
on the dense copy. benchmarks/bench_dashboard_memory.py measures the real server.
"""

import csv
import gc
import hashlib
import io
import os
import platform
import subprocess
import sys
import tracemalloc
from dataclasses import replace

import numpy as np
import pytest
from scipy import sparse

import fsengine._compute.sparse as sparse_blocks
import fsengine.methods.online._stream as stream_module
from conftest import ROOT
from dashboard.memory import DatasetCache
from fsengine import Dataset, FSEngineError, load_dataset
from fsengine.cli import main
from fsengine.data import task as task_module
from fsengine.data.preprocess import looks_unlogged, suggested_preprocessing
from fsengine.data.task import Task
from fsengine.evaluation import evaluate, sweep_k, sweep_top, whole_data_runs
from fsengine.evaluation.genes import cluster_order, gene_statistics, pca_coordinates
from fsengine.export.writers import records_to_csv
from fsengine.methods.live import LiveStream
from fsengine.pl.gene_figures import gene_box_figure, gene_heatmap_figure, pca_figure
from synthetic import RARE_TYPE, single_cell_anndata, single_cell_counts

N_CELLS, N_GENES = 3000, 400
METHODS = ["fisher", "welch", "saola"]


@pytest.fixture(scope="module")
def cells_path(tmp_path_factory):
    """A reduced single-cell file (3,000 cells x 400 genes, 60 rare cells with 12 markers,
    6 donors) of log1p counts."""
    adata = single_cell_anndata(
        n_cells=N_CELLS, n_genes=N_GENES, n_rare=60, n_markers=12, n_donors=6
    )
    adata.X = sparse.csr_matrix(np.log1p(adata.X.toarray()))  # normalised-like values
    path = tmp_path_factory.mktemp("cells") / "cells.h5ad"
    adata.write_h5ad(path)
    return path


@pytest.fixture(scope="module")
def cells(cells_path) -> Dataset:
    """The reduced file read sparse, as the dashboard reads it."""
    return load_dataset(cells_path, label="cell_type", sample_groups="donor", sparse=True)


@pytest.fixture
def small_blocks(monkeypatch):
    """Dense blocks of 16 columns at the most (the default is 8 MB of values, the whole of
    a small matrix)."""
    monkeypatch.setattr(sparse_blocks, "BLOCK_ELEMENTS", 16 * N_CELLS)
    monkeypatch.setattr(stream_module, "QUIET_BLOCK_ELEMENTS", 16 * N_CELLS)


def dense_bytes(dataset) -> int:
    return 8 * dataset.n_samples * dataset.n_features


def sparse_bytes(X) -> int:
    return X.data.nbytes + X.indices.nbytes + X.indptr.nbytes


def peak_bytes(work) -> tuple[int, object]:
    """tracemalloc's peak above the memory in use before ``work()``, and its result."""
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        result = work()
        return tracemalloc.get_traced_memory()[1] - before, result
    finally:
        tracemalloc.stop()


def dashboard_steps(dataset: Dataset) -> dict:
    """What the dashboard computes on a data set, from the Data page to the Genes page."""
    task = Task.from_dataset(dataset, RARE_TYPE)
    digest = task.digest
    checks = (looks_unlogged(dataset.X), suggested_preprocessing(dataset.X))
    live = LiveStream(task, method="saola")
    while not live.done:
        live.advance(max_features=50)
    # The rankers keep 5 genes (Compare's fixed number): by default they take K-OFSD's
    # count, and K-OFSD's own neighbourhoods (N x N over the samples) would be measured.
    evaluation = evaluate(task, methods=METHODS, n_splits=2, seed=0, top=5, n_jobs=1)
    runs, _ = whole_data_runs(task, None, METHODS, top=5)
    genes = runs["fisher"].features[:5]
    return {
        "digest": digest,
        "checks": checks,
        "stream": [e.selected for e in live.events],
        "holdout": live.gmeans,
        "records": [{k: v for k, v in r.items() if k != "seconds"} for r in evaluation.records],
        "selections": {m: r.features for m, r in runs.items()},
        "statistics": gene_statistics(task, None, genes).to_dict("list"),
        "boxes": gene_box_figure(dataset, RARE_TYPE, genes).to_dict(),
        "pca": pca_figure(dataset, RARE_TYPE, genes),
    }


def test_the_dashboards_steps_never_make_a_sparse_data_set_dense_whole(cells, small_blocks):
    assert sparse.issparse(cells.X)
    dense_size = dense_bytes(cells)
    dashboard_steps(cells)  # imports and kernels loaded (their memory is not the data's)
    peak, _ = peak_bytes(lambda: dashboard_steps(cells))
    # The sparse matrix is an eighth of the dense one; a step that made it (or half of it)
    # dense whole would pass half the dense size on its own.
    assert sparse_bytes(cells.X) < dense_size / 8
    assert peak < dense_size / 2, f"peak {peak / 2**20:.1f} MB, dense {dense_size / 2**20:.1f} MB"


def test_a_finished_stream_keeps_no_block_of_a_sparse_matrix(cells):
    """A page keeps up to four streams a session: once done, neither the main stream nor
    its hold-out copy holds the memory its dense blocks were made in (8 MB each here, as
    on 20,000 cells)."""
    task = Task.from_dataset(cells, RARE_TYPE)
    block = 8 * sparse_blocks.BLOCK_ELEMENTS
    LiveStream(task, method="saola").advance()  # imports and kernels loaded

    def stream():
        live = LiveStream(task, method="saola")
        while not live.finished:
            live.advance(max_features=150)
        gc.collect()
        return live

    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        live = stream()
        kept = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert live.train_selector is not None and live.gmeans  # the hold-out copy streamed
    assert kept < block / 2, f"a finished stream keeps {kept / 2**20:.1f} MB"


def test_the_dashboards_steps_give_the_dense_matrixs_numbers(cells, small_blocks):
    dense = replace(cells, X=np.asfortranarray(cells.X.toarray()))
    on_sparse, on_dense = dashboard_steps(cells), dashboard_steps(dense)
    for key in ("checks", "stream", "holdout", "records", "selections"):
        assert on_sparse[key] == on_dense[key], key
    assert on_sparse["statistics"].keys() == on_dense["statistics"].keys()
    for column, values in on_dense["statistics"].items():
        np.testing.assert_array_equal(on_sparse["statistics"][column], values, err_msg=column)
    assert on_sparse["boxes"] == on_dense["boxes"]
    # The whole matrix's PCA: an iterative solver on the sparse matrix, a full SVD of the
    # standardised copy on a small dense one (each panel's coordinates agree to 1e-9).
    assert len(on_sparse["pca"].data) == len(on_dense["pca"].data)
    for got, want in zip(on_sparse["pca"].data, on_dense["pca"].data):
        np.testing.assert_allclose(np.asarray(got.x), np.asarray(want.x), atol=1e-9)
        np.testing.assert_allclose(np.asarray(got.y), np.asarray(want.y), atol=1e-9)


def test_the_command_lines_evaluate_keeps_a_sparse_file_sparse(cells_path, small_blocks, tmp_path):
    """``fsengine evaluate`` on an AnnData file reads it sparse, as the dashboard does: the
    records of the dense matrix, without its dense copy."""
    out = tmp_path / "records.csv"
    arguments = ["evaluate", str(cells_path), "--label", "cell_type", "--minority", RARE_TYPE]
    arguments += ["--methods", "fisher,saola", "--top", "5", "--splits", "2", "--jobs", "1"]
    main([*arguments, "--out", str(out)])  # imports and kernels loaded
    peak, _ = peak_bytes(lambda: main([*arguments, "--out", str(out)]))
    dense = load_dataset(cells_path, label="cell_type")
    # reading the file peaks at about twice its sparse matrix; a dense copy alone is more
    assert peak < dense.X.nbytes, f"peak {peak / 2**20:.1f} MB"
    expected = evaluate(dense, RARE_TYPE, ["fisher", "saola"], n_splits=2, top=5, n_jobs=1)
    written = records_to_csv(expected.records, ("method", "split"))

    def without_times(text: str) -> list[dict]:
        return [
            {k: v for k, v in row.items() if k != "seconds"}
            for row in csv.DictReader(io.StringIO(text))
        ]

    assert without_times(out.read_text()) == without_times(written)


def test_the_sweeps_on_a_sparse_task_give_the_dense_ones_records(small_blocks):
    """The Sweep page's K sweep (K-OFSD's shared pass over every K, reading a sparse matrix
    a block at a time) and top-k sweep (a columnwise ranker and ReliefF, which makes each
    training half dense) on the sparse matrix: the dense matrix's records."""
    X, obs, _ = single_cell_counts(n_cells=400, n_genes=40, n_rare=30, n_markers=5, n_donors=4)
    y = (obs["cell_type"] == RARE_TYPE).to_numpy().astype(np.int8)
    names = [f"g{j}" for j in range(40)]
    on_sparse = Task(sparse.csc_array(np.log1p(X.toarray())), y, names)
    on_dense = Task(np.asfortranarray(np.log1p(X.toarray())), y, names)

    def records(run):
        return [{k: v for k, v in r.items() if k != "seconds"} for r in run.records]

    for sweep in (
        lambda task: sweep_k(task, ks=[1, 3, 5], n_splits=2, n_jobs=1),
        lambda task: sweep_top(task, None, ["fisher", "relieff"], [2, 5], n_splits=2, n_jobs=1),
    ):
        assert records(sweep(on_sparse)) == records(sweep(on_dense))


def old_digest(task: Task) -> str:
    """The digest as first defined: each array's dtype and shape, then its C-order bytes
    (``tobytes``), then the names (no groups here)."""
    h = hashlib.sha256()
    X = task.X
    stored = (X.data, X.indices, X.indptr) if sparse.issparse(X) else (X,)
    for array in (*map(np.ascontiguousarray, stored), np.ascontiguousarray(task.y)):
        h.update(f"{array.dtype}{array.shape}".encode())
        h.update(array.tobytes())
    h.update("\x00".join(task.names).encode())
    return h.hexdigest()


@pytest.mark.parametrize("form", ["fortran", "c", "sparse"])
def test_a_tasks_digest_is_the_same_and_copies_no_matrix(form, monkeypatch):
    """The digest keys every result the workspace stores: it must not change, and a dense
    matrix in Fortran order (one gene contiguous, as the loader makes it) must not be copied
    whole to compute it (here in blocks of 64 KB; by default 8 MB)."""
    monkeypatch.setattr(task_module, "HASH_BLOCK_BYTES", 64 * 2**10, raising=False)
    rng = np.random.default_rng(3)
    X = rng.poisson(0.4, (2000, 300)).astype(float)
    X = {
        "fortran": np.asfortranarray(X),
        "c": np.ascontiguousarray(X),
        "sparse": sparse.csc_array(X),
    }[form]
    y = np.zeros(2000, dtype=np.int8)
    y[:40] = 1
    task = Task(X, y, tuple(f"g{j}" for j in range(300)))
    peak, digest = peak_bytes(lambda: task.digest)
    assert digest == old_digest(task)
    assert peak < 2000 * 300 * 8 / 4


def test_the_pca_of_a_sparse_matrix_is_that_of_the_dense_one():
    """The whole matrix's PCA on the Genes page: for a sparse (or large) matrix, from the
    matrix as it is; the same coordinates and ratios as scikit-learn's full SVD of the
    standardised dense copy (signs included), constant genes dropped alike."""
    rng = np.random.default_rng(7)
    X = rng.poisson(0.3, (400, 60)).astype(float)
    X[:40, :8] += rng.poisson(3.0, (40, 8))
    X[:, 20] = 0.0  # constant genes are dropped
    X[:, 21] = 2.0
    want = pca_coordinates(X)  # small and dense: scikit-learn's PCA
    assert want[2] == 58
    for form in (sparse.csc_array(X), sparse.csr_matrix(X)):
        got = pca_coordinates(form)
        np.testing.assert_allclose(got[0], want[0], atol=1e-9)
        np.testing.assert_allclose(got[1], want[1], atol=1e-12)
        assert got[2] == want[2]


def test_the_heat_maps_order_of_many_samples_needs_no_pairwise_distances():
    """The Genes page's heat map orders its samples: average linkage keeps every pair's
    distance (1.6 GB and a minute for 20,000 cells, the server's 3.5 GB peak on the issue's
    file). Above LINKAGE_MAX (3,000) samples they are ordered along the first principal
    component: a permutation, computed in a few MB, that puts a group apart at one end."""
    rng = np.random.default_rng(11)
    values = rng.normal(size=(6000, 12))
    apart = rng.choice(len(values), 150, replace=False)
    values[apart, :4] += 6.0
    peak, (rows, columns) = peak_bytes(lambda: cluster_order(values))
    assert sorted(rows) == list(range(len(values))) and sorted(columns) == list(range(12))
    ends = {frozenset(rows[:150].tolist()), frozenset(rows[-150:].tolist())}
    assert frozenset(apart.tolist()) in ends
    assert peak < 20 * values.nbytes  # the pairs' distances alone: 12,000 x as much
    labels = np.where(np.isin(np.arange(len(values)), apart), "rare", "common")
    many = Dataset(values, labels, tuple(f"g{j}" for j in range(12)), "label")
    # the Genes page draws a sample of each class of so many (point 8), clustered within
    figure = gene_heatmap_figure(many, "rare", ["g0", "g1"])
    title = figure.layout.xaxis2.title.text
    assert title.startswith("samples (1,000 of 6,000): grouped by class, rare first"), title


# ---------------------------------------------------------------- the server's data sets
def small_dataset(seed: int = 0, **changes) -> Dataset:
    rng = np.random.default_rng(seed)
    labels = np.array(["a"] * 6 + ["b"] * 14)
    X = sparse.csc_array(rng.poisson(0.5, (20, 8)).astype(float))
    dataset = Dataset(X, labels, tuple(f"g{j}" for j in range(8)), "label")
    return replace(dataset, **changes)


def test_a_data_set_is_read_once_and_shared():
    """The same bytes and options give every session the same object (no copy); the
    options that leave the matrix alone (another groups column, another label of an
    AnnData file) give a data set of their own that holds the same matrix."""
    cache = DatasetCache()
    reads = []

    def read(seed=0, **changes):
        def reading():
            reads.append((seed, changes))
            return small_dataset(seed, **changes)

        return reading

    first = cache.get(("file", None), read(), family="file")
    assert cache.get(("file", None), read(), family="file") is first
    assert len(reads) == 1
    grouped = cache.get(("file", "donor"), read(groups_column="donor"), family="file")
    assert grouped is not first and grouped.groups_column == "donor"
    assert grouped.X is first.X  # the equal matrix, held once
    other = cache.get(("other", None), read(seed=1), family="other")
    assert other.X is not first.X
    same_values = cache.get(("copy", None), read(), family="copy")
    assert same_values.X is not first.X  # another file's bytes: never mixed up
    assert len(reads) == 4


def test_the_data_sets_kept_are_bounded_and_those_in_use_found_again():
    matrix = small_dataset().matrix_bytes
    cache = DatasetCache(max_entries=2, max_bytes=10 * matrix)
    held = [cache.get(k, lambda k=k: small_dataset(k)) for k in range(3)]
    assert len(cache) == 2  # the oldest is no longer kept ...
    assert cache.get(0, lambda: pytest.fail("read again")) is held[0]  # ... but still in use
    del held
    gc.collect()
    bytes_bound = DatasetCache(max_entries=10, max_bytes=2 * matrix)
    for k in range(5):
        bytes_bound.get(k, lambda k=k: small_dataset(k))
    assert len(bytes_bound) == 2 and bytes_bound.kept_bytes() <= 2 * matrix
    reads = []
    bytes_bound.get(0, lambda: reads.append(0) or small_dataset(0))
    assert reads == [0]  # dropped and no longer used: read again


#: The selectors that keep N x N matrices of distances under the authors' tie rule, with
#: the parameters that do, and how many.
PAIRWISE = [
    ("ofs-a3m", {"ties": "index"}, 4),
    ("ofs-density", {"ties": "index"}, 4),
    ("ofs-a3m", {"variant": "paper"}, 4),
    ("sfsf", {"model": "k-nearest", "ties": "index"}, 6),
    ("sfsf", {"model": "radius"}, 6),
    ("osfs-et", {"ties": "index"}, 6),
]


@pytest.mark.parametrize("method, params, matrices", PAIRWISE)
def test_a_stream_whose_distance_matrices_do_not_fit_is_refused_with_their_size(
    method, params, matrices
):
    """Their N x N matrices are counted before they are made: a budget one byte below
    twice their size (the share a stream may take) refuses the stream, naming the
    selector, the samples and the size; at twice their size it starts. The same
    selectors with ties="average" (their set tests on points) keep none."""
    from fsengine.methods.registry import get_method

    n = 1000
    y = np.zeros(n, dtype=int)
    y[:50] = 1
    selector = get_method(method).selector(**params)
    selector.y, selector._params = y, selector.spec.check(selector._params, n_samples=n)
    size = matrices * 8 * n * n
    assert selector._pairwise_matrices() == matrices
    with pytest.raises(FSEngineError) as refused:
        selector._check_pairwise_memory(n, budget=2 * size - 1)
    text = str(refused.value)
    label = get_method(method).spec.label
    assert text.startswith(f"{label} keeps {matrices} matrices of 1,000 x 1,000 values")
    assert f"{size / 2**30:.1f} GB" in text
    selector._check_pairwise_memory(n, budget=2 * size)  # fits: no error
    if params.get("ties") == "index":
        assert "choose average for ties" in text
        averaged = get_method(method).selector(**{**params, "ties": "average"})
        averaged._params = averaged.spec.check(averaged._params, n_samples=n)
        assert averaged._pairwise_matrices() == 0


def test_the_command_line_refuses_such_a_stream_in_one_line(monkeypatch, tmp_path, capsys):
    """From the command line: one line on stderr naming the size and the --ties option,
    exit status 2, no traceback; K-OFSD, which keeps no such matrix, runs."""
    X, obs, names = single_cell_counts(n_cells=400, n_genes=12, n_rare=20, n_markers=2)
    path = tmp_path / "cells.csv"
    table = obs[["cell_type"]].copy()
    for j, name in enumerate(names):
        table[name] = X[:, j].toarray().ravel()
    table.to_csv(path, index=False)
    monkeypatch.setattr(sparse_blocks, "available_memory", lambda: 1_000_000)
    argv = ["select", str(path), "--label", "cell_type", "--minority", RARE_TYPE]
    assert main([*argv, "--method", "ofs-a3m", "--ties", "index"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("fsengine: error: OFS-A3M keeps 4 matrices of 400 x 400 values")
    assert err[-1].endswith("choose average for --ties")
    assert main([*argv, "--method", "kofsd", "--out", str(tmp_path / "k.csv")]) == 0


#: A process that frees a 20 MB array, makes a 2 MB one and says whether glibc mapped that
#: one on its own (the IS_MMAPPED bit of its chunk's size, the word before the block),
#: after ``map_large_blocks()`` when asked.
MAPPED_ALONE = """
import ctypes
import sys
import numpy as np
from dashboard.memory import map_large_blocks
set_here = map_large_blocks() if sys.argv[1] == "set" else False
freed = np.ones(20 * 2**20 // 8)  # mapped, and once freed glibc's threshold rises to 20 MB
del freed
block = np.ones(2 * 2**20 // 8)
size = ctypes.c_size_t.from_address(block.__array_interface__["data"][0] - 8).value
print(set_here, bool(size & 2), size & ~7 >= block.nbytes)
"""


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="glibc's mallopt and chunks")
@pytest.mark.parametrize(
    ("how", "environ", "expected"),
    [
        ("set", {}, "True True True"),
        ("not set", {}, "False False True"),  # glibc's default: carved out of the heap
        ("set", {"MALLOC_MMAP_THRESHOLD_": "33554432"}, "False False True"),  # the user's kept
        ("set", {"GLIBC_TUNABLES": "glibc.malloc.mmap_threshold=33554432"}, "False False True"),
    ],
)
def test_the_server_maps_a_large_block_alone_after_a_larger_one_was_freed(how, environ, expected):
    """After the server's ``map_large_blocks``, a 2 MB block made after a 20 MB one was
    freed has a mapping of its own (given back when freed); with glibc's default it is
    carved out of the heap, and a threshold the user gave glibc is left in force."""
    mine = ("MALLOC_MMAP_THRESHOLD_", "GLIBC_TUNABLES", "LD_PRELOAD")  # glibc's own malloc
    env = {k: v for k, v in os.environ.items() if k not in mine} | environ
    done = subprocess.run(
        [sys.executable, "-c", MAPPED_ALONE, how],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[0] == expected
