"""AnnData matrices read from disk a block of genes at a time (issue 41, point 2).

The truth is the matrix in memory: the counts the generator drew (tests/synthetic.py) and
the selections the in-memory path makes on them. A file whose X is stored as CSR, CSC or
dense, a layer, and a Zarr store, read backed, must give the same values bit for bit and
the same selections (K-OFSD under both tie rules, Welch and Wilcoxon), with blocks of a
few genes so that many blocks are read and joined. The CSR copy is checked to stay within
a bound derived from the block size (tracemalloc: numpy's allocations), far below one copy
of the matrix; bad input gives one line."""

import gc
import pickle
import threading
import time
import tracemalloc

import anndata
import h5py
import numpy as np
import pandas as pd
import pytest
from scipy import sparse

import fsengine._compute.sparse as sparse_blocks
import fsengine.io.h5ad as h5ad_module
from fsengine import FSEngineError, load_dataset, run_selection
from fsengine._compute.sparse import block_width, column_constant
from fsengine.adata import select
from fsengine.cli import main
from fsengine.data.preprocess import (
    looks_like_counts,
    looks_unlogged,
    preprocess,
    preprocessing_notes,
)
from fsengine.data.task import Task
from fsengine.export.writers import selection_to_csv
from fsengine.io.backed import BackedColumns
from fsengine.methods.online import ties_default

RARE = "Plasmacytoid_DC"
N_CELLS, N_GENES = 800, 90
#: Values per dense block in these tests: 7 genes of 800 cells (13 blocks).
SMALL_BLOCK = 7 * N_CELLS


@pytest.fixture(scope="module")
def cells():
    """The counts as drawn (scipy CSR of int32) and the AnnData object of them."""
    from synthetic import single_cell_anndata

    adata = single_cell_anndata(n_cells=N_CELLS, n_genes=N_GENES, n_rare=24, n_markers=10, seed=1)
    return adata


@pytest.fixture(scope="module")
def files(cells, tmp_path_factory):
    """The same counts as X stored CSR, CSC and dense, as a layer (X then holds their
    log1p, dense), and as a Zarr store (CSR, and dense)."""
    folder = tmp_path_factory.mktemp("backed")
    written = {}
    for layout, matrix in (
        ("csr", sparse.csr_matrix(cells.X)),
        ("csc", sparse.csc_matrix(cells.X)),
        ("dense", cells.X.toarray()),
    ):
        copy = anndata.AnnData(X=matrix, obs=cells.obs, var=cells.var)
        written[layout] = folder / f"{layout}.h5ad"
        copy.write_h5ad(written[layout])
    layered = anndata.AnnData(X=np.log1p(cells.X.toarray()), obs=cells.obs, var=cells.var)
    layered.layers["counts"] = sparse.csr_matrix(cells.X)
    written["layer"] = folder / "layer.h5ad"
    layered.write_h5ad(written["layer"])
    written["zarr"] = folder / "cells.zarr"
    cells.write_zarr(written["zarr"])
    written["zarr-dense"] = folder / "dense.zarr"
    anndata.AnnData(X=cells.X.toarray(), obs=cells.obs, var=cells.var).write_zarr(
        written["zarr-dense"]
    )
    return written


@pytest.fixture
def small_blocks(monkeypatch):
    """Blocks of 7 genes (the CSR copy's bands and blocks follow)."""
    monkeypatch.setattr(sparse_blocks, "BLOCK_ELEMENTS", SMALL_BLOCK)
    return SMALL_BLOCK


def _load(files, kind, backed, **options):
    layer = "counts" if kind == "layer" else None
    return load_dataset(
        files[kind], label="cell_type", sparse=True, backed=backed, layer=layer, **options
    )


KINDS = ["csr", "csc", "dense", "layer", "zarr", "zarr-dense"]


@pytest.mark.parametrize("kind", KINDS)
def test_every_block_holds_the_drawn_counts(files, cells, kind, small_blocks):
    ds = _load(files, kind, True)
    X = ds.X
    assert isinstance(X, BackedColumns) and ds.is_backed and ds.matrix_bytes == 0
    assert X.shape == (N_CELLS, N_GENES)
    truth = cells.X.toarray().astype(np.float64)
    widths = []
    for lo, hi, block in X.blocks():
        widths.append(hi - lo)
        assert block.dtype == np.float64 and block.flags.f_contiguous
        assert np.array_equal(block, truth[:, lo:hi])
    assert len(widths) == 13 and max(widths) == block_width(N_CELLS) == 7
    picked = [89, 3, 3, 40, 0, 41]  # any order, repeats: the columns asked for, in turn
    assert np.array_equal(X.columns(picked), truth[:, picked])
    assert np.array_equal(ds.dense_values([5, 2], rows=[7, 1]), truth[np.ix_([7, 1], [5, 2])])
    assert ds.feature_names == tuple(cells.var_names)
    assert ds.sample_names == tuple(cells.obs_names)
    assert ds.class_counts() == load_dataset(files[kind], label="cell_type").class_counts()
    constant = column_constant(sparse.csc_array(cells.X))
    assert np.array_equal(column_constant(X), constant)
    assert ds.constant_features == tuple(np.asarray(cells.var_names)[constant])
    profile = X.profile()
    assert np.array_equal(profile.row_totals, truth.sum(axis=1))  # integers: exact sums
    assert profile.integers and profile.zeros(N_CELLS) == truth.size - np.count_nonzero(truth)


@pytest.mark.parametrize("kind", KINDS)
def test_the_selections_are_those_of_the_matrix_in_memory(files, kind, small_blocks):
    """K-OFSD under both tie rules (events too; also in a random order of the genes: blocks
    of scattered columns), and the rankers that read the stored blocks: Welch, Wilcoxon,
    Fisher and S2N."""
    backed = Task.from_dataset(_load(files, kind, True), RARE)
    memory = Task.from_dataset(_load(files, kind, False), RARE)
    assert backed.is_backed and not memory.is_backed
    for method, params, top in (
        ("kofsd", {}, None),
        ("kofsd", {"ties": "average"}, None),
        ("kofsd", {"ties": "average", "order": "random", "seed": 5}, None),
        ("welch", {}, 10),
        ("wilcoxon", {}, 10),
        ("fisher", {}, 10),
        ("s2n", {}, 10),
    ):
        expected = run_selection(memory, None, method, top=top, **params)
        found = run_selection(backed, None, method, top=top, **params)
        assert found.selection == expected.selection, (method, params)
        assert found.events == expected.events
        if top is not None:
            assert np.array_equal(found.scores, expected.scores)
    assert ties_default(backed.X) == ties_default(memory.X)


def test_an_older_layout_is_read_backed_too():
    """scanpy's pbmc68k_reduced (anndata's old layout: obs a table of codes, X dense)."""
    from conftest import ROOT

    path = ROOT / "tests" / "data" / "pbmc68k_reduced.h5ad"
    backed = load_dataset(path, label="bulk_labels", backed=True)
    memory = load_dataset(path, label="bulk_labels")
    assert backed.is_backed and backed.X.layout == "dense"
    assert np.array_equal(backed.X.columns(slice(None)), memory.X)
    assert backed.feature_names == memory.feature_names
    assert backed.sample_names == memory.sample_names
    assert backed.label_choices == memory.label_choices
    rare = "CD4+/CD45RA+/CD25- Naive T"
    for method, top in (("kofsd", None), ("welch", 10)):
        found = run_selection(backed, rare, method, top=top).selection
        assert found == run_selection(memory, rare, method, top=top).selection


def test_a_dense_file_judges_its_tie_rule_by_its_values(files):
    ds = _load(files, "dense", True)
    assert not ds.X.sparse
    assert ties_default(ds.X) == ties_default(_load(files, "dense", False).X)
    assert ties_default(ds.X)[0] == "average"  # counts: integers


@pytest.mark.parametrize("kind", ["csr", "dense"])
@pytest.mark.parametrize(
    "steps",
    [
        {"transform": "log1p-cpm"},
        {"transform": "log-cpm", "min_variance": 0.05},
        {"transform": "log2", "offset": 1.0},
        {"ceiling": 5.0},
    ],
)
def test_preprocessing_on_disk_gives_the_in_memory_values(files, kind, steps, small_blocks):
    backed = preprocess(_load(files, kind, True), steps)
    memory = preprocess(_load(files, kind, False), steps)
    assert backed.is_backed
    dense = memory.X.toarray() if sparse.issparse(memory.X) else memory.X
    for lo, hi, block in backed.X.blocks():
        assert np.array_equal(block, dense[:, lo:hi])  # bit for bit
    assert backed.feature_names == memory.feature_names
    assert backed.constant_features == memory.constant_features
    assert preprocessing_notes(backed)[1] == preprocessing_notes(memory)[1]
    assert backed.preprocessing == memory.preprocessing
    expected = run_selection(Task.from_dataset(memory, RARE), None, "kofsd", ties="average")
    found = run_selection(Task.from_dataset(backed, RARE), None, "kofsd", ties="average")
    assert found.selection == expected.selection


def test_the_counts_checks_read_the_profile(files):
    backed, memory = _load(files, "dense", True), _load(files, "dense", False)
    assert looks_like_counts(backed.X) == looks_like_counts(memory.X) is not None
    assert looks_unlogged(backed.X) == looks_unlogged(memory.X)


def test_dropping_constant_genes_is_a_view_of_the_others(files, cells):
    ds = load_dataset(files["csr"], label="cell_type", backed=True, drop_constant=True)
    memory = load_dataset(files["csr"], label="cell_type", sparse=True, drop_constant=True)
    assert ds.dropped_features == memory.dropped_features != ()
    assert ds.feature_names == memory.feature_names
    assert np.array_equal(ds.X.columns(slice(None)), memory.X.toarray())


def _random_csr_file(path, n, p, density, seed=0):
    rng = np.random.default_rng(seed)
    X = sparse.random(n, p, density=density, format="csr", dtype=np.float32, random_state=rng)
    X.data = np.ceil(X.data * 9).astype(np.float32)
    obs = pd.DataFrame({"cell_type": np.where(np.arange(n) % 50 == 0, RARE, "common")})
    obs.index = [f"c{i}" for i in range(n)]
    anndata.AnnData(X=X, obs=obs, var=pd.DataFrame(index=[f"g{j}" for j in range(p)])).write_h5ad(
        path
    )
    return X


def test_the_csr_copy_and_the_blocks_stay_within_a_few_blocks_of_memory(tmp_path, monkeypatch):
    """A CSR file of many blocks: its column copy and a pass over every block allocate
    (numpy, measured by tracemalloc) at most four dense blocks plus the per-cell and
    per-gene arrays, where one copy of the matrix in memory would take three times that."""
    n, p, elements = 5000, 600, 10_000  # blocks of 2 genes: 300 blocks
    path = tmp_path / "wide.h5ad"
    X = _random_csr_file(path, n, p, 0.1)
    monkeypatch.setattr(sparse_blocks, "BLOCK_ELEMENTS", elements)
    bound = 4 * 8 * elements + 100 * (n + p)
    one_copy = X.nnz * (8 + 4)  # float64 values and int32 rows: a CSC copy, without the CSR
    assert one_copy > 3 * bound
    gc.collect()
    tracemalloc.start()
    try:
        matrix = BackedColumns.open(path)
        profile = matrix.profile()
        checked = 0
        for _, _, block in matrix.blocks():
            checked += int(np.count_nonzero(block))
            del block
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert checked == X.nnz == int(profile.nonzero.sum())
    assert matrix.copy_bytes == X.nnz * (4 + 4)  # float32 values, int32 rows, on disk
    assert peak < bound, f"peak {peak:,} bytes, bound {bound:,}, one copy {one_copy:,}"
    truth = sparse.csc_array(X, dtype=np.float64)
    assert np.array_equal(matrix.columns([599, 0, 300]), truth[:, [599, 0, 300]].toarray())
    matrix.close()


def test_the_column_copy_is_deleted_when_closed_or_collected(files):
    matrix = BackedColumns.open(files["csr"])
    matrix.columns([0])
    folder = matrix._store._folder[0]
    assert folder.is_dir() and matrix.copy_bytes > 0
    matrix.close()
    assert not folder.exists()
    with pytest.raises(FSEngineError, match=r"csr.h5ad's X is closed: open the file again"):
        matrix.columns([0])
    view = BackedColumns.open(files["csr"]).take([1, 2])
    view.columns([0])
    folder = view._store._folder[0]
    del view
    gc.collect()
    assert not folder.exists()


def test_two_threads_reading_a_csr_file_at_once_share_one_column_copy(files, cells, monkeypatch):
    """Two sessions of the dashboard read one shared file: the column copy of a CSR
    matrix is made once, and both threads read the drawn counts. (Before, each thread
    that came while the copy was being made made its own, and the first one's folder was
    left behind.)"""
    import fsengine.io.backed as backed_module

    made, entered = [], threading.Event()
    real = backed_module.column_copy

    def slow_copy(*args, **kwargs):
        made.append(1)
        entered.set()
        time.sleep(0.5)  # the other thread arrives meanwhile
        return real(*args, **kwargs)

    monkeypatch.setattr(backed_module, "column_copy", slow_copy)
    matrix = BackedColumns.open(files["csr"])
    read = {}

    def read_columns(name, columns):
        read[name] = matrix.columns(columns)

    first = threading.Thread(target=read_columns, args=("first", [0, 5]))
    first.start()
    assert entered.wait(60)
    read_columns("second", [7, 3])
    first.join()
    truth = cells.X.toarray()
    assert np.array_equal(read["first"], truth[:, [0, 5]])
    assert np.array_equal(read["second"], truth[:, [7, 3]])
    assert len(made) == 1
    matrix.close()


def test_a_copy_in_another_process_opens_the_file_again(files, cells):
    view = BackedColumns.open(files["csr"]).take([4, 9, 2])
    again = pickle.loads(pickle.dumps(view))
    assert again._store is not view._store
    assert np.array_equal(again.columns(slice(None)), cells.X.toarray()[:, [4, 9, 2]])


def test_a_tasks_digest_is_of_the_values_whatever_the_layout(files):
    """The digest of a task read from disk hashes its dense blocks: the same for the same
    values stored as CSR, CSC or dense, another for other labels."""
    digests = {
        kind: Task.from_dataset(_load(files, kind, True), RARE).digest
        for kind in ("csr", "csc", "dense")
    }
    assert len(set(digests.values())) == 1
    other = Task.from_dataset(_load(files, "csr", True), "T_cell").digest
    assert other != digests["csr"]


def test_select_on_an_anndata_object_opened_backed(files, small_blocks):
    """fsengine.adata.select on ``anndata.read_h5ad(path, backed="r")``: X stays on disk,
    the var columns and the uns entry are those of the object in memory."""
    on_disk = anndata.read_h5ad(files["csr"], backed="r")
    in_memory = anndata.read_h5ad(files["csr"])
    for method in ("kofsd", "welch"):
        found = select(on_disk, "cell_type", RARE, method)
        expected = select(in_memory, "cell_type", RARE, method)
        assert found.selection == expected.selection and found.warnings == expected.warnings
        key = f"fsengine_{method}"
        for field in ("names", "scores", "pvals", "pvals_adj", "logfoldchanges"):
            found_values, expected_values = on_disk.uns[key][field], in_memory.uns[key][field]
            assert found_values.tolist() == expected_values.tolist() or np.array_equal(
                found_values[RARE], expected_values[RARE], equal_nan=True
            )
    assert on_disk.isbacked
    assert on_disk.var.equals(in_memory.var)
    on_disk.file.close()


def test_the_command_line_selects_backed_as_in_memory(files, tmp_path, capsys):
    for kind in ("csr", "zarr"):
        outputs = {}
        for flag in ("--backed", "--no-backed"):
            out = tmp_path / f"{kind}{flag}.csv"
            argv = ["select", str(files[kind]), "--label", "cell_type", "--minority", RARE]
            assert main([*argv, flag, "--out", str(out)]) == 0
            outputs[flag] = out.read_text()
        assert outputs["--backed"] == outputs["--no-backed"]
    memory = Task.from_dataset(_load(files, "csr", False), RARE)
    assert outputs["--backed"] == selection_to_csv(run_selection(memory, None, "kofsd").selection)
    capsys.readouterr()
    assert main(["info", str(files["csr"]), "--label", "cell_type", "--backed"]) == 0
    printed = capsys.readouterr().out
    assert "note: read from disk a block of genes at a time (backed; stored as CSR" in printed
    printed = {}
    for flag in ("--backed", "--no-backed"):
        argv = ["stability", str(files["csc"]), "--label", "cell_type", "--minority", RARE]
        assert main([*argv, "--method", "saola", "--orders", "3", flag]) == 0
        printed[flag] = capsys.readouterr().out
    assert printed["--backed"] == printed["--no-backed"]
    assert "mean pairwise Jaccard" in printed["--backed"]


def test_the_command_lines_anndata_output_copies_the_file_backed(files, tmp_path):
    """--out result.h5ad on a matrix read backed: the input object opened backed, its X
    copied by anndata, the selection's var columns and uns entry as in memory."""
    outputs = {}
    for kind in ("csr", "zarr"):
        for flag in ("--backed", "--no-backed"):
            out = tmp_path / f"{kind}{flag}.h5ad"
            argv = ["select", str(files[kind]), "--label", "cell_type", "--minority", RARE]
            assert main([*argv, flag, "--method", "welch", "--top", "5", "--out", str(out)]) == 0
            outputs[kind, flag] = anndata.read_h5ad(out)
    truth = anndata.read_h5ad(files["csr"])
    for written in outputs.values():
        assert (written.X != truth.X).nnz == 0
        assert written.var.equals(outputs["csr", "--no-backed"].var)
        assert list(written.uns["fsengine_welch"]["names"][RARE]) == list(
            outputs["csr", "--no-backed"].uns["fsengine_welch"]["names"][RARE]
        )
    same = tmp_path / "same.h5ad"
    same.write_bytes(files["csr"].read_bytes())
    argv = ["select", str(same), "--label", "cell_type", "--minority", RARE, "--backed"]
    assert main([*argv, "--method", "welch", "--out", str(same)]) == 2
    assert same.read_bytes() == files["csr"].read_bytes()


def test_large_matrices_are_read_backed_by_default(files, monkeypatch):
    assert not load_dataset(files["csr"], label="cell_type", backed=None).is_backed
    monkeypatch.setattr(h5ad_module, "BACKED_FROM_BYTES", 1000)
    assert load_dataset(files["csr"], label="cell_type", backed=None).is_backed
    assert load_dataset(files["zarr"], label="cell_type", backed=None).is_backed
    assert not load_dataset(files["csr"], label="cell_type").is_backed  # the library: asked


def test_bad_input_is_one_line(files, tmp_path, capsys):
    def fails(match, source, **options):
        with pytest.raises(FSEngineError) as caught:
            load_dataset(source, label="cell_type", backed=True, **options)
        assert "\n" not in str(caught.value)
        assert caught.match(match)

    fails(r"layer\.h5ad has no layer 'raw'; its layers: 'counts'", files["layer"], layer="raw")
    fails(r"has no layer 'raw'; its layers: none", files["zarr"], layer="raw")
    plain = tmp_path / "plain.h5"
    with h5py.File(plain, "w") as f:
        f["values"] = np.zeros(3)
    fails(r"plain\.h5 has no matrix X \(an HDF5 file, but not AnnData\?\)", plain)
    empty = tmp_path / "empty.zarr"
    import zarr

    zarr.open_group(str(empty), mode="w").create_group("obs")
    fails(r"empty\.zarr has no matrix X \(a Zarr store, but not AnnData\?\)", empty)
    folder = tmp_path / "folder"
    folder.mkdir()
    fails(r"folder is a directory, not an AnnData Zarr store", folder)
    with pytest.raises(FSEngineError, match=r"folder is a folder but not a Zarr store"):
        BackedColumns.open(folder)
    table = tmp_path / "table.csv"
    table.write_text("a,b,cell_type\n1,2,x\n3,4,y\n")
    fails(r"backed applies to AnnData files \(\.h5ad\) and Zarr stores; table\.csv is read", table)
    fails(r"backed needs the file on disk", files["csr"].read_bytes())
    broken = tmp_path / "nan.h5ad"
    X = sparse.csr_matrix(np.array([[1.0, 0.0], [0.0, np.nan], [2.0, 1.0]]))
    obs = pd.DataFrame({"cell_type": ["a", "b", "a"]}, index=["x", "y", "z"])
    anndata.AnnData(X=X, obs=obs).write_h5ad(broken)
    fails(r"nan\.h5ad's X has a missing value \(NaN\) at row 2, column 2", broken)
    argv = ["select", str(files["layer"]), "--label", "cell_type", "--layer", "raw", "--backed"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "has no layer 'raw'" in err
    assert main(["select", str(empty), "--label", "cell_type"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "has no matrix X (a Zarr store" in err


@pytest.mark.parametrize("kind", ["csr", "csc", "dense", "zarr"])
def test_stored_columns_are_the_columns_as_stored(files, cells, kind, small_blocks):
    """A block as stored (what Welch and Wilcoxon read): CSC of the drawn counts when X is
    stored sparse, the dense block otherwise; any columns, in the order asked."""
    X = _load(files, kind, True).X
    truth = cells.X.toarray().astype(np.float64)
    picked = [89, 3, 3, 40, 0]
    block = X.stored_columns(picked)
    assert sparse.issparse(block) == (kind != "dense")
    if sparse.issparse(block):
        assert block.format == "csc" and block.has_canonical_format
        block = block.toarray()
    assert np.array_equal(block, truth[:, picked])


def test_a_csr_file_wider_than_16_bit_column_numbers_is_copied_exactly(tmp_path):
    """Column numbers past 65,536 (sorted on 32 bits, not numpy's 16-bit radix sort): the
    copy's columns are the file's, and Welch's scores the in-memory ones."""
    rng = np.random.default_rng(3)
    counts = sparse.random(40, 70_000, density=0.01, format="csr", random_state=rng)
    counts.data = np.ceil(counts.data * 9)
    cell_type = np.where(np.arange(40) < 6, "rare", "common")
    path = tmp_path / "wide.h5ad"
    anndata.AnnData(X=counts, obs=pd.DataFrame({"cell_type": cell_type})).write_h5ad(path)
    ds = load_dataset(path, label="cell_type", sparse=True, backed=True)
    truth = counts.toarray()
    picked = [69_999, 0, 65_536, 65_535, 12]
    assert np.array_equal(ds.X.columns(picked), truth[:, picked])
    backed = run_selection(Task.from_dataset(ds, "rare"), None, "welch", top=20)
    in_memory = load_dataset(path, label="cell_type", sparse=True, backed=False)
    assert (
        backed.selection
        == run_selection(Task.from_dataset(in_memory, "rare"), None, "welch", top=20).selection
    )


@pytest.mark.parametrize("kind", ["csr", "csc", "dense", "layer", "zarr"])
def test_a_view_of_some_rows_is_those_rows_of_the_matrix(files, cells, kind, small_blocks):
    """X[rows] of a matrix on disk (a training half, in any order) reads as the in-memory
    matrix's rows: every block, its stored form, its profile, and a pickled copy;
    preprocessed (log1p of a layer's counts) before the rows are taken."""
    ds = _load(files, kind, True)
    memory = _load(files, kind, False).X
    truth = np.asarray(memory.toarray() if sparse.issparse(memory) else memory, dtype=float)
    rng = np.random.default_rng(5)
    rows = rng.permutation(N_CELLS)[: N_CELLS // 2]
    view = ds.X[rows]
    assert isinstance(view, BackedColumns) and view.shape == (len(rows), N_GENES)
    for lo, hi, block in view.blocks():
        assert np.array_equal(block, truth[rows, lo:hi])
    stored = view.stored_columns([4, 1, 60])
    stored = stored.toarray() if sparse.issparse(stored) else stored
    assert np.array_equal(stored, truth[np.ix_(rows, [4, 1, 60])])
    again = view[np.arange(10)[::-1]]
    assert np.array_equal(again.columns(slice(0, 5)), truth[rows[:10][::-1], :5])
    profile = view.profile()
    assert np.array_equal(profile.low, truth[rows].min(axis=0))
    assert np.array_equal(profile.nonzero, (truth[rows] != 0).sum(axis=0))
    assert np.array_equal(view.row_totals(), truth[rows].sum(axis=1))
    copy = pickle.loads(pickle.dumps(view))
    assert np.array_equal(copy.columns([7, 3]), truth[np.ix_(rows, [7, 3])])
    with pytest.raises(FSEngineError, match="each row once"):
        ds.X[[1, 1]]
    with pytest.raises(TypeError, match="rows only"):
        ds.X[1:3, 2]


def test_a_training_half_on_disk_selects_as_in_memory(files):
    """K-OFSD (both rules) and Welch on a half of the cells read from disk: the selection
    of the same half in memory."""
    rows = np.random.default_rng(2).permutation(N_CELLS)[: N_CELLS // 2]
    halves = []
    for backed in (True, False):
        task = Task.from_dataset(_load(files, "csr", backed), RARE)
        halves.append(Task.from_arrays(task.X[rows], task.y[rows], task.names))
    assert isinstance(halves[0].X, BackedColumns)
    for method, params in (("kofsd", {"ties": "average"}), ("kofsd", {"ties": "index"})):
        found = [run_selection(half, None, method, **params).selection for half in halves]
        assert found[0] == found[1] and len(found[0]), method
    found = [run_selection(half, None, "welch", top=10).selection for half in halves]
    assert found[0] == found[1]
