"""Project-level guarantees: the library stays free of Streamlit; the benchmark's
baseline is a faithful implementation (so the ratio it reports is honest)."""

import importlib.util
import subprocess
import sys

import numpy as np
import pytest

from conftest import REFERENCE, ROOT


def test_fsengine_never_imports_streamlit():
    code = (
        "import sys, fsengine, fsengine.cli, fsengine.pl.figures, fsengine.export.writers,"
        " fsengine.methods.runs;"
        "sys.exit('streamlit' in sys.modules)"
    )
    assert subprocess.run([sys.executable, "-c", code], cwd=ROOT).returncode == 0


def _bench():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    spec = importlib.util.spec_from_file_location(
        "bench_kofsd", ROOT / "benchmarks" / "bench_kofsd.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("ds,k", [(1, 7), (3, 5), (4, 5), (5, 3)])
def test_benchmark_baseline_reproduces_the_reference(ds, k):
    X = np.loadtxt(REFERENCE / f"ds{ds}_X.csv", delimiter=",")
    y = np.loadtxt(REFERENCE / f"ds{ds}_y.csv").astype(int)
    selected, deps, _ = _bench().kofsd_baseline(X, y, k, 0.5)
    expected = np.loadtxt(REFERENCE / f"ds{ds}_K{k}_selected.csv", delimiter=",", ndmin=1)
    assert selected == (expected.astype(int) - 1).tolist()
    ref_deps = np.loadtxt(REFERENCE / f"ds{ds}_K{k}_depArray.csv", delimiter=",")
    np.testing.assert_allclose(deps, ref_deps, rtol=0, atol=1e-12)


def test_test_processes_draw_server_ports_from_blocks_of_their_own(monkeypatch):
    """Two processes of `make test` never pick the same port for their servers: worker gwN's
    ports lie in its own block, each is free when given, and none is given twice."""
    import socket

    from conftest import free_port

    blocks = {}
    for worker in ("gw0", "gw1", "gw3"):
        monkeypatch.setenv("PYTEST_XDIST_WORKER", worker)
        blocks[worker] = [free_port() for _ in range(20)]
    for worker, ports in blocks.items():
        index = int(worker[2:])
        assert all(20000 + 1500 * index <= p < 20000 + 1500 * (index + 1) for p in ports)
        assert len(set(ports)) == len(ports)
    with socket.socket() as s:
        s.bind(("127.0.0.1", blocks["gw1"][0]))  # free when given
