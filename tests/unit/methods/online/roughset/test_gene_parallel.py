"""The gene-parallel pass on Dask (issue 41, point 3): K-OFSD's per-gene work (each gene's
dependency alone, the alpha filter) over gene blocks on the workers, its set tests on the
client in stream order, and the columnwise rankers' scores over gene blocks. The selections
and the per-gene values are the serial run's, bit for bit, on 1 and 2 workers, under both tie
rules, in natural and random feature order and with the cells permuted; the workers of a
local cluster of processes read the file themselves. No timing is asserted."""

from __future__ import annotations

import anndata
import numpy as np
import pandas as pd
import pytest
from distributed import Client, LocalCluster
from scipy import sparse

import fsengine._compute.cluster as cluster
from fsengine import load_dataset, run_selection
from fsengine._compute.cluster import dask_client, task_bounds
from fsengine.cli import main
from fsengine.data.task import Task
from fsengine.methods.online import feature_order
from fsengine.methods.online._roughset.kofsd.gene_pass import gene_parallel_selection
from fsengine.methods.online._roughset.kofsd.selector import KOFSD
from fsengine.methods.online._stream import stream_selection

N_CELLS, N_GENES = 600, 90
#: Values per worker task here: 7 genes, so that 90 genes make 13 tasks.
SMALL_TASK = 7 * N_CELLS
RARE = "Plasmacytoid_DC"


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """The counts stored CSR and CSC, and with the cells in a permuted order (CSR)."""
    from synthetic import single_cell_anndata

    cells = single_cell_anndata(n_cells=N_CELLS, n_genes=N_GENES, n_rare=20, n_markers=10, seed=3)
    folder = tmp_path_factory.mktemp("gene_parallel")
    permuted = np.random.default_rng(7).permutation(N_CELLS)
    written = {}
    for name, matrix, rows in (
        ("csr", sparse.csr_matrix(cells.X), slice(None)),
        ("csc", sparse.csc_matrix(cells.X), slice(None)),
        ("permuted", sparse.csr_matrix(cells.X)[permuted], permuted),
    ):
        copy = anndata.AnnData(X=matrix, obs=cells.obs.iloc[rows], var=cells.var)
        written[name] = folder / f"{name}.h5ad"
        copy.write_h5ad(written[name])
    return written


@pytest.fixture
def small_tasks(monkeypatch):
    monkeypatch.setattr(cluster, "TASK_ELEMENTS", SMALL_TASK)


@pytest.fixture(scope="module", params=[1, 2], ids=["1 worker", "2 workers"])
def client(request):
    """A local cluster of in-process workers (one thread each), closed afterwards."""
    with (
        LocalCluster(
            n_workers=request.param,
            threads_per_worker=1,
            processes=False,  # in this process, over Dask's inproc:// transport
            dashboard_address=None,
        ) as local,
        Client(local, timeout="30s") as connected,
    ):
        yield connected


def _task(files, name: str) -> Task:
    dataset = load_dataset(files[name], label="cell_type", sparse=True, backed=True)
    return Task.from_dataset(dataset, RARE)


def _serial(task: Task, arrival, **params):
    selector = KOFSD(**params).start(task.y)
    return stream_selection(selector, task.X, task.names, arrival), selector


def _assert_same_run(client, task: Task, arrival, **params):
    """The gene-parallel selection, and every gene's dependency, equal the serial run's."""
    expected, serial = _serial(task, arrival, **params)
    selector = KOFSD(**params).start(task.y)
    run = gene_parallel_selection(client, selector, task.X, task.names, arrival)
    assert run.selection == expected
    assert np.array_equal(np.array(selector._seen_deps), np.array(serial._seen_deps))
    in_columns = np.empty(len(arrival))
    in_columns[arrival] = serial._seen_deps
    assert np.array_equal(run.dependencies, in_columns)
    assert run.set_tests == int(np.sum(selector._passes_alpha_all(in_columns)))
    return run


@pytest.mark.parametrize("ties", ["index", "average"])
@pytest.mark.parametrize("order", ["natural", "random"])
@pytest.mark.parametrize("layout", ["csr", "csc", "permuted"])
def test_kofsd_on_dask_is_the_serial_run(files, client, small_tasks, ties, order, layout):
    task = _task(files, layout)
    arrival = feature_order(task.n_features, order, seed=11)
    run = _assert_same_run(client, task, arrival, ties=ties)
    assert len(run.selection) > 0


def test_under_the_average_rule_permuted_cells_select_the_same(files, client, small_tasks):
    """ties="average": the same selection whatever the order of the cells, on Dask too."""
    arrival = np.arange(N_GENES)
    runs = [
        gene_parallel_selection(
            client, KOFSD(ties="average").start(task.y), task.X, task.names, arrival
        )
        for task in (_task(files, "csr"), _task(files, "permuted"))
    ]
    assert runs[0].selection == runs[1].selection
    assert np.array_equal(runs[0].dependencies, runs[1].dependencies)


def test_the_paper_variant_and_a_card_with_distances(files, client, small_tasks):
    """The paper's alpha test (>=) and Card_Distance (no compiled card code)."""
    task = _task(files, "csr")
    arrival = np.arange(N_GENES)
    _assert_same_run(client, task, arrival, variant="paper", alpha=0.4)
    _assert_same_run(client, task, arrival, card="distance")


def test_a_matrix_in_memory_is_sent_a_block_per_task(files, client, small_tasks):
    dataset = load_dataset(files["csr"], label="cell_type", sparse=True)
    task = Task.from_dataset(dataset, RARE)
    dense = Task.from_arrays(task.X.toarray(), task.y, task.names)
    for matrix_task in (task, dense):
        expected = run_selection(matrix_task, None, "kofsd", events=False)
        found = run_selection(matrix_task, None, "kofsd", events=False, client=client)
        assert found.selection == expected.selection


@pytest.mark.parametrize("method", ["welch", "wilcoxon", "fisher"])
def test_columnwise_rankers_score_the_blocks_on_dask(files, client, small_tasks, method):
    task = _task(files, "csr")
    expected = run_selection(task, None, method)
    found = run_selection(task, None, method, client=client)
    assert np.array_equal(found.scores, expected.scores)
    assert found.selection == expected.selection


def test_the_tasks_cover_the_columns_in_order():
    for n, p, workers in ((10, 1, 1), (600, 90, 2), (1_000_000, 30_000, 32), (5, 1000, 3)):
        bounds = task_bounds(n, p, workers)
        assert bounds[0][0] == 0 and bounds[-1][1] == p
        assert all(a[1] == b[0] for a, b in zip(bounds, bounds[1:]))
        assert len(bounds) >= min(p, 4 * workers)


def test_worker_processes_read_the_file_themselves(files, small_tasks):
    """Two worker processes of a local cluster (fsengine._compute.cluster.dask_client): each opens
    the file, reads its blocks, and the run is the serial one."""
    task = _task(files, "csr")
    with dask_client(None, 2) as processes:
        opened = processes.run(lambda: __import__("os").getpid())
        assert len(set(opened.values())) == 2
        for ties in ("index", "average"):
            _assert_same_run(processes, task, np.arange(N_GENES), ties=ties)


def test_select_on_a_local_cluster_writes_the_serial_csv(files, tmp_path, capsys):
    serial, parallel = tmp_path / "serial.csv", tmp_path / "parallel.csv"
    common = [str(files["csr"]), "--label", "cell_type", "--minority", RARE, "--backed"]
    assert main(["select", *common, "--out", str(serial)]) == 0
    assert main(["select", *common, "--workers", "2", "--out", str(parallel)]) == 0
    pd.testing.assert_frame_equal(pd.read_csv(parallel), pd.read_csv(serial))


def test_select_on_an_existing_cluster_whose_workers_open_the_file(files, tmp_path, capsys):
    """`dask scheduler` and two `dask worker` processes started here in an empty folder:
    given the file's absolute path, they open it themselves; the CSV is the serial one."""
    from dask_cluster import Cluster

    folder = tmp_path / "cluster"
    folder.mkdir()
    existing = Cluster(folder, n_workers=2)
    try:
        serial, parallel = tmp_path / "serial.csv", tmp_path / "parallel.csv"
        common = [str(files["csc"]), "--label", "cell_type", "--minority", RARE, "--backed"]
        options = ["--ties", "average", "--order", "random", "--seed", "2"]
        assert main(["select", *common, *options, "--out", str(serial)]) == 0
        on_cluster = ["--scheduler", existing.address, "--out", str(parallel)]
        assert main(["select", *common, *options, *on_cluster]) == 0
        pd.testing.assert_frame_equal(pd.read_csv(parallel), pd.read_csv(serial))
    finally:
        existing.close()


def _one_error_line(capsys) -> str:
    err = [line for line in capsys.readouterr().err.splitlines() if "error" in line]
    assert len(err) == 1 and "Traceback" not in err[0]
    return err[0]


def test_an_unreachable_scheduler_is_one_line_and_status_2(files, capsys, monkeypatch):
    from dask_cluster import free_port

    monkeypatch.setattr(cluster, "CONNECT_TIMEOUT", 3)
    address = f"tcp://127.0.0.1:{free_port()}"
    common = [str(files["csr"]), "--label", "cell_type", "--backed"]
    assert main(["select", *common, "--scheduler", address]) == 2
    assert f"cannot reach the Dask scheduler at {address}" in _one_error_line(capsys)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--workers", "0"], "--workers must be 1 or more, got 0"),
        (["--workers", "1", "--method", "relieff"], "relieff runs in this process only"),
        (["--workers", "1", "--trace", "t.csv"], "--trace is written by a run in this"),
    ],
)
def test_bad_cluster_options_are_one_line_and_status_2(files, capsys, options, message):
    common = [str(files["csr"]), "--label", "cell_type", "--backed"]
    assert main(["select", *common, *options]) == 2
    assert message in _one_error_line(capsys)


def test_workers_and_scheduler_together_are_refused(files, capsys):
    options = ["--workers", "2", "--scheduler", "tcp://127.0.0.1:1"]
    assert main(["select", str(files["csr"]), "--label", "cell_type", *options]) == 2
    assert "--scheduler: not allowed with argument --workers" in _one_error_line(capsys)


def test_many_cells_choose_their_set_tests_on_dask_too(files, client, small_tasks, monkeypatch):
    """From POINT_MIN_SAMPLES cells (lowered here to 100 of the 600) a stream chooses its
    set tests with S's first features; the gene-parallel pass decides on the client without
    a stream's blocks (its block is zeros but for the columns that pass alpha), and gives
    the serial run and its choice: the point tests, on counts."""
    from fsengine.methods.online._roughset.kofsd import points

    monkeypatch.setattr(points, "POINT_MIN_SAMPLES", 100)
    task = _task(files, "csr")
    run = _assert_same_run(client, task, np.arange(N_GENES))
    assert len(run.selection) > 0
