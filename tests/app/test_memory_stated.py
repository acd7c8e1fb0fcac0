"""The Data page states the memory a file will take before it is read, and refuses, with the
numbers, a file the server cannot hold (FSENGINE_SERVER_MEMORY_MB stands for a smaller
machine): a file of the data directory before Open, an upload in the load's error box; the
previous data set stays, and the app goes on working."""

from __future__ import annotations

import re
import shutil

import anndata
from apptest_helpers import open_page
from scipy import sparse

from bad_inputs import mime
from conftest import ROOT
from dashboard import datadir
from dashboard.memory import SERVER_MEMORY_MB
from fsengine import load_dataset

COLON = ROOT / "tests" / "data" / "colon_alon.csv.gz"
UNITS = {"B": 1, "kB": 2**10, "MB": 2**20, "GB": 2**30}


def _bytes(text: str) -> float:
    number, unit = text.split()
    return float(number) * UNITS[unit]


def _folder(tmp_path):
    from synthetic import single_cell_anndata

    cells = single_cell_anndata(n_cells=2_000, n_genes=300, n_rare=40, n_markers=10, seed=2)
    obs = cells.obs[["cell_type"]]  # the class, found without asking
    anndata.AnnData(X=sparse.csr_matrix(cells.X), obs=obs, var=cells.var).write_h5ad(
        tmp_path / "cells.h5ad"
    )
    shutil.copy(COLON, tmp_path / COLON.name)
    return tmp_path


def _caption(at, start: str) -> str:
    found = [c.value for c in at.caption if c.value.startswith(start)]
    assert len(found) == 1, [c.value for c in at.caption]
    return found[0]


def test_a_data_directory_file_states_its_memory_and_holds_that(tmp_path, monkeypatch):
    folder = _folder(tmp_path)
    monkeypatch.setenv(datadir.DATA_DIR, str(folder))
    monkeypatch.setenv(datadir.BACKED_FROM_MB, "100000")  # read into memory
    at = open_page("dashboard/pages/data.py")
    at.selectbox(key="data_dir_file").set_value("cells.h5ad").run()
    stated = _caption(at, "Opening it takes")
    assert "a sparse 2,000 x 300 matrix" in stated and "available" in stated
    before = _bytes(re.search(r"about ([\d.]+ [kMG]?B) in memory", stated).group(1))
    at.button(key="data_dir_open").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    held = _bytes(re.search(r"In memory: ([\d.]+ [kMG]?B)", _caption(at, "In memory")).group(1))
    truth = load_dataset(folder / "cells.h5ad", label="cell_type", sparse=True).matrix_bytes
    assert abs(held - truth) <= 0.001 * truth + 0.05 * UNITS["kB"]  # the page's rounding
    assert abs(before - truth) <= 0.02 * truth

    at.selectbox(key="data_dir_file").set_value(COLON.name).run()
    assert "a dense 62 x 2,001 matrix" in _caption(at, "Opening it takes")


def test_what_the_server_cannot_hold_is_refused_with_the_numbers(tmp_path, monkeypatch):
    monkeypatch.setenv(datadir.DATA_DIR, str(_folder(tmp_path)))
    at = open_page("dashboard/pages/data.py")  # the sample, read with the machine's memory
    monkeypatch.setenv(SERVER_MEMORY_MB, "8")  # a smaller machine from here on

    # A file of the data directory: refused before Open, which is disabled.
    at.selectbox(key="data_dir_file").set_value(COLON.name).run()
    assert at.button(key="data_dir_open").disabled
    (refusal,) = [e.value for e in at.error]
    assert refusal.startswith(f"Cannot open: {COLON.name} would take about 969.")
    assert "a data set may take 4.0 MB here (half the 8.0 MB of memory available to it)" in (
        refusal
    )
    assert "convert it to an AnnData file (.h5ad)" in refusal

    # An upload: the load's error box; the sample stays.
    data = COLON.read_bytes()
    at.file_uploader(key="uploader").set_value((COLON.name, data, mime(COLON.name))).run()
    assert not at.exception
    message = [e.value for e in at.error if e.value.startswith("Could not load")]
    assert len(message) == 1
    assert f"{COLON.name} would take about 969." in message[0]
    assert "upload a smaller file" in message[0] and "Still using SRBCT.parquet" in message[0]
    assert {m.label: m.value for m in at.metric}["Features"] == "2308"

    # With the memory back, the same file loads: the app kept working.
    monkeypatch.delenv(SERVER_MEMORY_MB)
    at.file_uploader(key="uploader").set_value((COLON.name, data, mime(COLON.name))).run()
    assert not at.exception
    assert {m.label: m.value for m in at.metric}["Features"] == "2000"


def test_a_file_the_server_holds_already_is_not_refused_again(tmp_path, monkeypatch):
    """Its memory is taken already: opening it again costs nothing (the memory available
    no longer counts it)."""
    monkeypatch.setenv(datadir.DATA_DIR, str(_folder(tmp_path)))
    at = open_page("dashboard/pages/data.py")
    at.selectbox(key="data_dir_file").set_value(COLON.name).run()
    at.button(key="data_dir_open").click().run()
    assert {m.label: m.value for m in at.metric}["Features"] == "2000"
    monkeypatch.setenv(SERVER_MEMORY_MB, "8")
    at.selectbox(key="data_dir_file").set_value("cells.h5ad").run()
    assert at.button(key="data_dir_open").disabled  # not held: refused
    at.selectbox(key="data_dir_file").set_value(COLON.name).run()
    assert not at.button(key="data_dir_open").disabled and not at.error
    assert "Opening it takes" in _caption(at, "Opening it takes")
