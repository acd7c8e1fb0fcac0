"""Shared test fixtures and paths; the hypothesis profile; the check that fsengine is
installed."""

import fcntl
import importlib.metadata
import os
import random
import socket
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import settings

# Property tests explore new examples on every run; in CI (.ci/run sets
# HYPOTHESIS_PROFILE=ci) they run a fixed set, so that a result can be reproduced.
settings.register_profile("ci", derandomize=True, database=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

ROOT = Path(__file__).resolve().parent.parent
#: The bound on any one wait of the suite (a page's run, a child process, a server's start),
#: sized for a cold start on 2 busy cores: a passing test never comes near it.
SLOW_SECONDS = 600

# The dashboard's workspaces (dashboard/workspace.py) go to a folder of this test process,
# never to the user's ~/.fsengine; servers started by the tests inherit it. Each of the
# processes `make test` runs (pytest-xdist's workers, which inherit the environment) makes
# its own, so that no test sees another's uploads and runs.
_OWN_WORKSPACES = "FSENGINE_TESTS_OWN_WORKSPACE_DIR"
if os.environ.get("FSENGINE_WORKSPACE_DIR", "") in ("", os.environ.get(_OWN_WORKSPACES)):
    os.environ["FSENGINE_WORKSPACE_DIR"] = os.environ[_OWN_WORKSPACES] = tempfile.mkdtemp(
        prefix="fsengine-test-workspaces-"
    )
REFERENCE = ROOT / "tests" / "reference" / "kofsd_octave"
#: The Octave outputs of the seed papers' baselines (copies of ../shared/reference/*).
LOFS_REFERENCE = ROOT / "tests" / "reference" / "lofs_octave"
ZHOU_REFERENCE = ROOT / "tests" / "reference" / "zhou_octave"
RHOFS_REFERENCE = ROOT / "tests" / "reference" / "rhofs_octave"
#: SFSF and OSFS-ET (doodzhou/OSFS) run in Octave.
ROUGHSET_REFERENCE = ROOT / "tests" / "reference" / "roughset_octave"
#: GLIOMA as the references read it (tests/reference/datasets/README.md).
GLIOMA = ROOT / "tests" / "reference" / "datasets" / "GLIOMA.parquet"
SAMPLE = ROOT / "sample_data" / "SRBCT.parquet"

# tests/e2e imports `tests.e2e.test_browser` by its full name, so the checkout's root must be on
# sys.path: `python -m pytest` puts it first; under the `pytest` script it goes last, after
# site-packages, so that an installed (not editable) fsengine is found before the checkout's.
if str(ROOT) not in sys.path:
    sys.path.append(str(ROOT))


def installed_fsengine() -> importlib.metadata.Distribution | None:
    """The installed distribution of fsengine, or None. Building the package leaves an
    fsengine.egg-info in the checkout, which importlib.metadata also finds when the root is on
    sys.path; only an installed distribution has a RECORD of its files."""
    for dist in importlib.metadata.distributions(name="fsengine"):
        if dist.read_text("RECORD") is not None:
            return dist
    return None


#: The ports of the servers the tests start: below Linux's ephemeral range (32768 and up),
#: where the kernel picks the ports of outgoing connections.
_PORTS = range(20000, 32000)
#: The lock files of the ports this process has taken, held open while it lives.
_PORT_LOCKS: list = []


def free_port() -> int:
    """A port on 127.0.0.1 for a server a test starts, taken for as long as this process
    lives.

    Every test process of this user (pytest-xdist's workers, and any other test run)
    takes its ports through a lock file of the port (``fcntl.flock`` in a folder of the
    user's under the temporary folder), so no two of them start servers on the same port;
    the port is also checked free by binding it, which skips ports other programs listen on.

    Returns
    -------
    int
        The port.
    """
    folder = Path(tempfile.gettempdir()) / f"fsengine-test-ports-{os.getuid()}"
    folder.mkdir(exist_ok=True)
    for port in random.Random().sample(_PORTS, len(_PORTS)):
        lock = open(folder / f"{port}.lock", "a")  # noqa: SIM115 - held while the process lives
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            with socket.socket() as s:
                s.bind(("127.0.0.1", port))
        except OSError:
            lock.close()
            continue
        _PORT_LOCKS.append(lock)
        return port
    raise RuntimeError(f"no free port on 127.0.0.1 in {_PORTS.start}..{_PORTS.stop - 1}")


#: Each BLAS library's threads when the session starts (file -> threads).
BLAS_AT_START: dict[str, int] = {}


def pytest_configure(config):
    """Each process of `make test` (pytest-xdist's workers) keeps its browser tests' failure
    screenshots in a folder of its own: pytest-playwright empties its folder when a process's
    first test starts, which would delete what another process had saved."""
    worker = getattr(config, "workerinput", {}).get("workerid")
    if worker and getattr(config.option, "output", None):
        config.option.output = str(Path(config.option.output) / worker)


def pytest_sessionstart(session):
    """The tests run against the installed package: stop at once when it is not installed."""
    if installed_fsengine() is None:
        raise pytest.UsageError(
            f"the fsengine package is not installed in this Python environment ({sys.prefix}); "
            "the tests run against the installed package. `make test` installs it into .venv; "
            "elsewhere run `python -m pip install -e .` in the checkout first."
        )
    # The kernels are built once before any test needs them (`make test` has done it: then
    # a check of milliseconds), never inside a test's time limit.
    from fsengine._compute import kernels

    if kernels.mode() == "aot":
        kernels.compile_kernels()
    # every BLAS library's own threads, for server_blas_threads_undone
    import scipy.linalg  # noqa: F401  (scipy's BLAS loaded)
    from threadpoolctl import threadpool_info

    BLAS_AT_START.update(
        {
            info["filepath"]: info["num_threads"]
            for info in threadpool_info()
            if info["user_api"] == "blas"
        }
    )


@pytest.fixture(scope="session")
def srbct():
    """The bundled SRBCT data set (83 x 2308, class 2 = BL is the minority)."""
    from fsengine import load_dataset

    return load_dataset(SAMPLE)


@pytest.fixture(autouse=True)
def server_blas_threads_undone():
    """An AppTest of app.py runs the dashboard's :func:`dashboard.run_queue.one_blas_thread`
    in this process (its environment and its BLAS on one thread): undone after the test,
    so that no test runs with what another left."""
    before = {name: os.environ.get(name) for name in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")}
    yield
    run_queue = sys.modules.get("dashboard.run_queue")
    if run_queue is None or not run_queue._BLAS_SET:
        return
    from threadpoolctl import ThreadpoolController

    run_queue._BLAS_SET = False
    for name, value in before.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
    for library in ThreadpoolController().lib_controllers:
        if library.filepath in BLAS_AT_START:
            library.set_num_threads(BLAS_AT_START[library.filepath])


@pytest.fixture(autouse=True)
def compiled_kernels():
    """Every test runs the compiled kernels unless it asks for the numpy paths (which the
    budget of fsengine._compute.budget picks for small inputs while the kernels are not
    built): the same path whatever ran before. ``compiled_kernels(False)`` switches within a
    test."""
    from fsengine._compute import budget

    budget.force(True)
    yield budget.force
    budget.force(None)
