"""A synthetic atlas in the server's data directory (FSENGINE_DATA_DIR), in a real browser:
opened by name (read backed), its label column and rare type chosen, K-OFSD streamed to
the end; the server's resident memory sampled meanwhile and printed. A second, smaller file
of other columns and classes opened after it gets its own choices, and the first file's
stream is there again when the first is opened again.

The atlas is 2,000 cells x 300 genes; FSENGINE_E2E_ATLAS="10000x2000" measures a larger one
(the README's figure). FSENGINE_E2E_ATLAS_FILE names an existing AnnData file to measure
instead (its label column `cell_type`, its rare class FSENGINE_E2E_RARE, default the
synthetic atlas's)."""

from __future__ import annotations

import os
import shutil
import threading
import time
from pathlib import Path

import anndata
import h5py
import psutil
import pytest
from scipy import sparse

from fsengine.data.dataset import load_dataset
from fsengine.methods.runs import run_selection
from synthetic import RARE_TYPE, single_cell_anndata
from tests.e2e.conftest import streamlit_server
from tests.e2e.test_browser import (
    TIMEOUT_MS,
    choose,
    idle,
    metrics,
    no_exception,
    open_page,
    stream_to_end,
    wait_for_metric,
)
from tests.e2e.test_dashboard_trust import workspace_of
from tests.e2e.test_interruptions import runs

pytestmark = pytest.mark.e2e

ATLAS = "atlas.h5ad"
#: The second file: other obs columns (``annotation``, ``batch``) and class names.
SECOND = "second_lab.h5ad"
SECOND_SHAPE = (600, 60)
SECOND_RARE = "rare_b"
#: The rare class chosen on the Data page.
RARE = os.environ.get("FSENGINE_E2E_RARE", RARE_TYPE)
#: Seconds to wait for the Data page to show a choice (the suite's bound on any wait).
WAIT = TIMEOUT_MS / 1000


def _shape() -> tuple[int, int]:
    given = os.environ.get("FSENGINE_E2E_ATLAS_FILE")
    if given:
        with h5py.File(given, "r") as f:
            return len(f["obs"]["_index"]), len(f["var"]["_index"])
    cells, genes = os.environ.get("FSENGINE_E2E_ATLAS", "2000x300").lower().split("x")
    return int(cells), int(genes)


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """The data directory, holding the atlas written as CSR."""
    n_cells, n_genes = _shape()
    root = tmp_path_factory.mktemp("data-dir")
    given = os.environ.get("FSENGINE_E2E_ATLAS_FILE")
    if given:
        try:  # a symbolic link leading out of the folder is refused: a hard link, or a copy
            os.link(given, root / ATLAS)
        except OSError:
            shutil.copyfile(given, root / ATLAS)
    else:
        cells = single_cell_anndata(
            n_cells=n_cells, n_genes=n_genes, n_rare=max(24, n_cells // 100), n_markers=10, seed=1
        )
        anndata.AnnData(X=sparse.csr_matrix(cells.X), obs=cells.obs, var=cells.var).write_h5ad(
            root / ATLAS
        )
    second = single_cell_anndata(
        n_cells=SECOND_SHAPE[0], n_genes=SECOND_SHAPE[1], n_rare=24, n_markers=6, seed=2
    )
    types = second.obs["cell_type"].astype(str)
    obs = second.obs.drop(columns=["cell_type", "donor"]).assign(
        annotation=types.map(lambda t: SECOND_RARE if t == RARE_TYPE else f"{t}_b"),
        batch=second.obs["donor"].astype(str),
    )
    anndata.AnnData(X=sparse.csr_matrix(second.X), obs=obs, var=second.var).write_h5ad(
        root / SECOND
    )
    return root


@pytest.fixture(scope="module")
def server(folder, tmp_path_factory):
    """`streamlit run app.py` with the data directory, every AnnData file read backed."""
    saved = {k: os.environ.get(k) for k in ("FSENGINE_DATA_DIR", "FSENGINE_BACKED_FROM_MB")}
    os.environ.update(FSENGINE_DATA_DIR=str(folder), FSENGINE_BACKED_FROM_MB="0")
    try:
        with streamlit_server(tmp_path_factory.mktemp("streamlit") / "server.log") as url:
            yield url
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def cpu_seconds(processes) -> float:
    """User and system CPU seconds of ``processes`` (those gone are left out)."""
    total = 0.0
    for process in processes:
        try:
            times = process.cpu_times()
            total += times.user + times.system
        except psutil.Error:
            pass
    return total


def browsers() -> list:
    """This process's Chromium descendants (the browser and its renderers)."""
    return [
        p
        for p in psutil.Process().children(recursive=True)
        if "chrom" in p.name().lower() or "headless_shell" in p.name().lower()
    ]


class PeakMemory:
    """The largest resident memory of this process's streamlit children, sampled every
    0.2 s in a thread; :meth:`cpu` says the CPU seconds the server and the browser have
    used so far."""

    def __init__(self):
        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _servers(self):
        return [p for p in psutil.Process().children() if "streamlit" in " ".join(p.cmdline())]

    def _sample(self):
        while not self._stop.is_set():
            for process in self._servers():
                try:
                    self.peak = max(self.peak, process.memory_info().rss)
                except psutil.Error:
                    pass
            time.sleep(0.2)

    def cpu(self) -> tuple[float, float]:
        """(server, browser) CPU seconds used so far."""
        return cpu_seconds(self._servers()), cpu_seconds(browsers())

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *_):
        self._stop.set()
        self._thread.join()


def test_open_from_the_data_directory_and_stream_to_the_end(page, server):
    n_cells, n_genes = _shape()
    page.goto(server)
    page.get_by_role("heading", name="Data", exact=True).first.wait_for(timeout=TIMEOUT_MS)
    idle(page)
    with PeakMemory() as memory:
        start = time.monotonic()
        choose(page, "Or open a file of the server's data directory", ATLAS)
        idle(page)
        page.get_by_role("button", name="Open file", exact=True).click()
        idle(page)
        choose(page, "Label column", "cell_type")
        wait_for_metric(page, "Samples", f"{n_cells}", timeout=WAIT)
        choose(page, "Minority class (one versus rest)", f"{RARE}:")
        page.get_by_test_id("stSidebar").get_by_text(f"minority class: {RARE}").wait_for(
            timeout=WAIT * 1000
        )
        idle(page)
        no_exception(page, "Data")
        opened = time.monotonic() - start

        switches = []

        def switch_pages():  # a second into the stream: away to the Data page and back
            page.wait_for_timeout(1000)
            for title in ("Data", "Stream"):
                begun = time.monotonic()
                page.get_by_test_id("stSidebarNavLink").filter(has_text=title).click()
                page.get_by_role("heading", name=title, exact=True).first.wait_for(
                    timeout=TIMEOUT_MS
                )
                switches.append(time.monotonic() - begun)

        server_cpu, browser_cpu = memory.cpu()
        shown, streamed = stream_to_end(page, n_genes, switch_pages)
        server_cpu, browser_cpu = (b - a for a, b in zip((server_cpu, browser_cpu), memory.cpu()))
        no_exception(page, "Stream")
        switch = time.monotonic()
        open_page(page, "Genes")
        switched = time.monotonic() - switch
        no_exception(page, "Genes")
    assert int(shown["Selected"]) > 0
    print(
        f"data directory, {n_cells} x {n_genes} backed: opened in {opened:.1f} s, K-OFSD "
        f"streamed in {streamed:.1f} s (Data and back to Stream meanwhile: "
        f"{switches[0]:.1f} s and {switches[1]:.1f} s), Genes page in {switched:.1f} s; "
        f"CPU during the stream: server {server_cpu:.1f} s, browser {browser_cpu:.1f} s; "
        f"server peak RSS {memory.peak / 2**20:.0f} MB"
    )
    Path(os.environ.get("FSENGINE_E2E_REPORT", os.devnull)).write_text(
        f"{n_cells}x{n_genes} open {opened:.1f}s stream {streamed:.1f}s genes {switched:.1f}s "
        f"switches {switches[0]:.1f}s {switches[1]:.1f}s "
        f"cpu_server {server_cpu:.1f}s cpu_browser {browser_cpu:.1f}s "
        f"peak_rss_mb {memory.peak / 2**20:.0f}\n"
    )


def _open_file(page, name: str) -> None:
    """Open the data directory's file ``name`` from the Data page."""
    open_page(page, "Data")
    choose(page, "Or open a file of the server's data directory", name)
    idle(page)
    page.get_by_role("button", name="Open file", exact=True).click()
    idle(page)


def _open_task(page, server, name: str, label: str, samples: int, rare: str) -> None:
    """A new page of the app: the data directory's file ``name`` opened, its label column
    ``label`` chosen (until it shows ``samples`` samples), then its rare class ``rare``
    (until the sidebar names it)."""
    page.goto(server)
    page.get_by_role("heading", name="Data", exact=True).first.wait_for(timeout=TIMEOUT_MS)
    idle(page)
    _open_file(page, name)
    choose(page, "Label column", label)
    wait_for_metric(page, "Samples", f"{samples}", timeout=WAIT)
    choose(page, "Minority class (one versus rest)", f"{rare}:")
    page.get_by_test_id("stSidebar").get_by_text(f"minority class: {rare}").wait_for(
        timeout=WAIT * 1000
    )


def _chosen(page, label: str) -> str:
    """The option a selectbox shows (its combobox's value)."""
    return page.get_by_role("combobox", name=label).input_value()


def _streamed(page) -> str | None:
    """The Stream page's "Features streamed" ("12 / 60"), or None when it offers a new
    stream ("Press Start ...")."""
    open_page(page, "Stream")
    shown = page.get_by_test_id("stMetric").filter(has_text="Features streamed")
    offered = page.get_by_test_id("stAlertContentInfo").filter(has_text="Press Start")
    shown.or_(offered).first.wait_for(timeout=TIMEOUT_MS)
    return metrics(page).get("Features streamed")


def test_a_second_file_gets_its_own_choices_and_the_first_keeps_its_stream(page, server):
    """Two files of the data directory in one session, as a lab holds them: the second
    (other obs columns and class names) streamed to the end; the atlas opened after it
    offers its own columns and classes and no stream of the second; the second opened
    again comes back with its label column, its rare class and its finished stream."""
    n_cells, n_genes = _shape()
    cells, genes = SECOND_SHAPE
    _open_task(page, server, SECOND, "annotation", cells, SECOND_RARE)
    sidebar = page.get_by_test_id("stSidebar")
    shown, _ = stream_to_end(page, genes)
    selected = shown["Selected"]
    assert int(selected) > 0
    no_exception(page, "Stream, the second file")

    _open_file(page, ATLAS)
    # two obs columns could hold its classes: the page asks, naming its own columns
    asked = page.get_by_test_id("stAlertContentError").filter(has_text="'Label column' box")
    asked.wait_for(timeout=WAIT * 1000)
    assert "'cell_type'" in asked.inner_text() and "annotation" not in asked.inner_text()
    assert f"Still using {SECOND}" in asked.inner_text()
    idle(page)
    assert _chosen(page, "Label column") == "(automatic)"  # not the second's column
    choose(page, "Label column", "cell_type")
    wait_for_metric(page, "Samples", f"{n_cells}", timeout=WAIT)
    assert not _chosen(page, "Minority class (one versus rest)").startswith(SECOND_RARE)
    choose(page, "Minority class (one versus rest)", f"{RARE}:")
    sidebar.get_by_text(f"minority class: {RARE}").wait_for(timeout=WAIT * 1000)
    streamed = _streamed(page)  # none, or its own (the first test's): never the second's
    assert streamed is None or streamed.endswith(f"/ {n_genes}"), streamed
    no_exception(page, "Stream, the atlas")

    _open_file(page, SECOND)
    wait_for_metric(page, "Samples", f"{cells}", timeout=WAIT)
    assert _chosen(page, "Label column") == "annotation"
    assert _chosen(page, "Minority class (one versus rest)").startswith(f"{SECOND_RARE}:")
    sidebar.get_by_text(f"minority class: {SECOND_RARE}").wait_for(timeout=WAIT * 1000)
    assert _streamed(page) == f"{genes} / {genes}"
    assert metrics(page)["Selected"] == selected
    no_exception(page, "Stream, the second file again")


def test_an_atlas_stream_cut_off_comes_back_where_it_was_and_finishes(page, server, folder):
    """A stream of the atlas whose tab is closed mid-way: the workspace opened again in a
    new tab holds the atlas, read from the data directory again, and its stream at the
    position saved; Start continues it to the end."""
    n_cells, n_genes = _shape()
    _open_task(page, server, ATLAS, "cell_type", n_cells, RARE)
    open_page(page, "Stream")
    page.get_by_role("button", name="Reset").click()  # the first test's stream, if any
    idle(page)
    page.get_by_test_id("stSlider").last.locator("input[type=range]").focus()
    page.keyboard.press("Home")  # 1 feature a tick
    idle(page)
    page.get_by_role("button", name="Start").click()
    workspace = workspace_of(page)

    def recorded() -> int:  # the position the workspace holds for this stream
        found = runs(workspace, "stream")
        return (found[-1][1] or {}).get("position", 0) if found else 0

    deadline = time.monotonic() + WAIT
    while recorded() == 0:  # saved every 2 s while it runs
        assert time.monotonic() < deadline, runs(workspace, "stream")
        page.wait_for_timeout(200)
    before = recorded()
    url = page.url  # the Stream page of this workspace (?ws=...)
    page.close()  # the tab closed mid-stream

    again = page.context.new_page()
    again.goto(url)
    again.get_by_role("heading", name="Stream", exact=True).first.wait_for(timeout=TIMEOUT_MS)
    idle(again)
    sidebar = again.get_by_test_id("stSidebar")
    assert ATLAS in sidebar.inner_text() and f"minority class: {RARE}" in sidebar.inner_text()
    saved = int(_streamed(again).split(" /")[0])
    assert before <= saved < n_genes, (before, saved)  # where it was, never before a save
    again.get_by_text(f"Stopped at {saved} of {n_genes} features").wait_for(timeout=TIMEOUT_MS)
    shown, _ = stream_to_end(again, n_genes)
    no_exception(again, "Stream, continued")

    dataset = load_dataset(folder / ATLAS, label="cell_type", backed=True)
    whole = run_selection(dataset, RARE, "kofsd", events=False)  # the same, uninterrupted
    assert int(shown["Selected"]) == len(whole.selection.features)
