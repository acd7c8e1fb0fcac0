"""app.py runs the dashboard only as Streamlit's ``__main__``: a worker process spawned
from the server (Dask's LocalCluster, loky's warm-up) imports the script again as
``__mp_main__``, and there it must draw nothing (issue 29, point 8: a local-Dask Benchmark
printed about 120 "missing ScriptRunContext" warnings, one page run per worker)."""

import os
import runpy
import subprocess
import sys

import pytest
import streamlit as st

from conftest import ROOT


def test_a_spawned_worker_importing_the_script_runs_no_page(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("the app ran in a worker process")

    monkeypatch.setattr(st, "set_page_config", refuse)
    monkeypatch.setattr(st, "navigation", refuse)
    namespace = runpy.run_path(str(ROOT / "app.py"), run_name="__mp_main__")
    assert callable(namespace["main"])  # defined, not run
    with pytest.raises(AssertionError, match="ran in a worker"):
        runpy.run_path(str(ROOT / "app.py"), run_name="__main__")  # as Streamlit runs it


def test_the_first_page_imports_neither_scikit_learn_nor_scipy(tmp_path):
    """The Data page with the sample, in a new process as a server's first page: its checks
    (the protocol's refusal, K's default, the halves' sizes) are arithmetic, so the page does
    not wait for scikit-learn and scipy (about 0.6 s of imports on this machine, issue 29's
    first page within 3 s). The server imports them afterwards, in the background (turned
    off here: the page alone is checked)."""
    script = (
        "import sys\n"
        "import fsengine._compute.parallel\n"
        "fsengine._compute.parallel.import_in_background = lambda *args, **kwargs: None\n"
        "fsengine._compute.parallel.warm_up = lambda *args, **kwargs: None\n"
        "from streamlit.testing.v1 import AppTest\n"
        f"at = AppTest.from_file({str(ROOT / 'app.py')!r}, default_timeout=600).run()\n"
        "assert not at.exception, at.exception\n"
        "assert at.metric[1].value == '2308', [m.value for m in at.metric]\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'sklearn', 'scipy'}))\n"
    )
    env = {**os.environ, "FSENGINE_WORKSPACE_DIR": str(tmp_path / "ws")}
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().splitlines()[-1] == "[]"


def test_after_the_first_page_the_server_imports_what_runs_and_gene_views_need(monkeypatch):
    """A first Compare and a first Genes page do not wait for scikit-learn and scipy: the
    server imports them in the background once its first page is drawn."""
    from streamlit.testing.v1 import AppTest

    import fsengine.methods
    from fsengine.evaluation import RUN_IMPORTS
    from fsengine.evaluation.genes import VIEW_IMPORTS

    calls = []
    monkeypatch.setattr(
        fsengine.methods,
        "import_in_background",
        lambda modules, delay=0.0: calls.append((tuple(modules), delay)),
    )
    monkeypatch.setattr(fsengine.methods, "warm_up", lambda *args, **kwargs: None)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=600).run()
    assert not at.exception
    modules, delay = calls[0]
    assert set(RUN_IMPORTS) | set(VIEW_IMPORTS) <= set(modules)
    assert delay > 0  # after the first page, not beside it
