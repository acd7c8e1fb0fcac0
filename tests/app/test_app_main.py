"""app.py runs the dashboard only as Streamlit's ``__main__``: a worker process spawned
from the server (Dask's LocalCluster, loky's warm-up) imports the script again as
``__mp_main__``, and there it must draw nothing (issue 29, point 8: a local-Dask Benchmark
printed about 120 "missing ScriptRunContext" warnings, one page run per worker)."""

import runpy

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
