"""Can the dashboard be trusted with a user's work? Real-browser checks (Debian's Chromium
through pytest-playwright, against `streamlit run app.py`) of what the user does not see
being computed: the minority class of a new upload is its smallest class; K set on Stream
is the K Compare runs with; a reload and a server restart bring the upload and the
finished comparison back from the workspace in the URL; the Genes page draws the genes
the method selected; the report names the checksum of the uploaded bytes; and a forged or
unknown workspace id opens a fresh workspace that shows nothing of anyone's work.

Every test uploads a small CSV (77 samples x 20 genes, class 2 the majority) and runs
Compare with 2 splits."""

from __future__ import annotations

import csv
import hashlib
import io
import re
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import numpy as np
import pandas as pd
import pytest

from conftest import ROOT, SLOW_SECONDS
from fsengine import load_dataset, run_selection
from fsengine.methods.registry import METHOD_LABELS
from tests.e2e.conftest import streamlit_server
from tests.e2e.test_browser import (
    IDLE,
    TIMEOUT_MS,
    choose,
    download,
    idle,
    metrics,
    no_exception,
    open_app,
    open_page,
    screenshot,
    table_rows,
    upload,
    wait_for_metric,
)

pytestmark = pytest.mark.e2e

#: A file name no other test uploads: it must never show up in another workspace.
UPLOAD_NAME = "trust_majority2.csv"
#: What the Data page shows for it: class 1 (19 samples) against class 2 (58).
MINORITY_SHOWN = "1"
RATIO_SHOWN = "3.05"
K = 5
#: Methods and splits of every comparison here: quick on 2 cores.
METHODS = ("kofsd", "fisher")
#: How the pages name them (the specifications' labels), and back.
LABELS = {method: METHOD_LABELS[method] for method in METHODS}
IDS = {label: method for method, label in LABELS.items()}
SPLITS = 2
#: The bundled sample every fresh workspace starts with.
SAMPLE_NAME = "SRBCT.parquet"
SAMPLE_FEATURES = "2308"
WS_RE = re.compile(r"\A[A-Za-z0-9_-]{32}\Z")
RUN_TIMEOUT_MS = TIMEOUT_MS


@dataclass(frozen=True)
class Majority2:
    """The uploaded CSV and what the library makes of it."""

    path: Path
    sha256: str
    n_genes: int
    kofsd_genes: tuple[str, ...]  # K-OFSD's selection with K on all samples (minority 1)
    kofsd_default_genes: tuple[str, ...]  # the same with the default K


@pytest.fixture(scope="module")
def majority2(tmp_path_factory) -> Majority2:
    """19 samples of class 1 and 58 of class 2 (so the label that sorts last is the
    majority), 20 numeric genes of which the first six are shifted in class 1, rows
    shuffled; label column "label"."""
    rng = np.random.default_rng(1)
    n1, n2, n_genes = 19, 58, 20
    values = rng.normal(size=(n1 + n2, n_genes))
    values[:n1, :6] += np.array([1.2, 1.0, 1.0, 0.9, 0.8, 0.8])
    frame = pd.DataFrame(values.round(4), columns=[f"gene_{j:02d}" for j in range(n_genes)])
    frame["label"] = [1] * n1 + [2] * n2
    frame = frame.sample(frac=1, random_state=1).reset_index(drop=True)
    path = tmp_path_factory.mktemp("trust") / UPLOAD_NAME
    frame.to_csv(path, index=False)

    dataset = load_dataset(path)
    assert dataset.default_minority() == 1
    genes = tuple(run_selection(dataset, 1, "kofsd", k=K).selection.features)
    default_k = run_selection(dataset, 1, "kofsd").params["k"]
    default_genes = tuple(run_selection(dataset, 1, "kofsd").selection.features)
    assert default_k != K
    return Majority2(
        path, hashlib.sha256(path.read_bytes()).hexdigest(), n_genes, genes, default_genes
    )


# --- helpers -------------------------------------------------------------------------


def workspace_of(page) -> str:
    """The workspace id in the page's URL."""
    ids = parse_qs(urlparse(page.url).query).get("ws", [])
    assert len(ids) == 1, f"no single ws= in {page.url}"
    return ids[0]


def upload_majority2(page, server, data: Majority2) -> None:
    """A new session, the CSV uploaded; waits for its minority metric."""
    open_app(page, server)
    upload(page, data.path)
    page.get_by_test_id("stHeading").filter(has_text=UPLOAD_NAME).wait_for(timeout=TIMEOUT_MS)
    wait_for_metric(page, "Minority class", MINORITY_SHOWN)


def slider_input(page, label: str):
    return page.get_by_test_id("stSlider").filter(has_text=label).locator("input[type=range]")


def set_slider(page, label: str, value: int) -> None:
    """Move the slider ``label`` to ``value`` with the keyboard, as a user would."""
    handle = slider_input(page, label)
    deadline = time.monotonic() + SLOW_SECONDS  # each key press reruns the page
    while (current := int(handle.input_value())) != value:
        if time.monotonic() > deadline:
            raise AssertionError(f"slider {label!r} stuck at {current}, wanted {value}")
        handle.focus()
        page.keyboard.press("ArrowLeft" if current > value else "ArrowRight")
        page.wait_for_timeout(150)
        idle(page)
    page.wait_for_timeout(300)  # the last change's rerun
    idle(page)
    assert int(slider_input(page, label).input_value()) == value


def set_stream_k(page, k: int) -> None:
    open_page(page, "Stream")
    set_slider(page, "K (neighbours)", k)
    no_exception(page, "Stream")


def run_compare(page) -> None:
    """On Compare: only METHODS, SPLITS splits, press Run comparison, wait for the charts."""
    open_page(page, "Compare")
    tags = page.get_by_test_id("stMultiSelect").filter(has_text="Methods")
    tags.locator("[data-tag]").first.wait_for(timeout=TIMEOUT_MS)  # drawn after the box
    for method in [t.get_attribute("aria-label") for t in tags.locator("[data-tag]").all()]:
        if method not in IDS:
            page.get_by_role("button", name=f"Remove {method}", exact=True).click()
            page.wait_for_timeout(200)
            idle(page)
    chosen = [t.get_attribute("aria-label") for t in tags.locator("[data-tag]").all()]
    assert sorted(chosen) == sorted(LABELS.values()), chosen
    set_slider(page, "Splits", SPLITS)
    page.get_by_role("button", name="Run comparison").click()
    page.get_by_test_id("stPlotlyChart").first.wait_for(timeout=RUN_TIMEOUT_MS)
    idle(page)
    no_exception(page, "Compare")


def settings_table(page) -> dict[str, str]:
    """Compare's settings view (the st.table under the results): method -> settings
    ("" for a method without parameters, which the page shows as "(no parameters)")."""
    found = {}
    for row in page.get_by_test_id("stTable").first.locator("tbody tr").all():
        cells = [cell.text_content().strip() for cell in row.locator("th, td").all()]
        method, settings = cells[-2], cells[-1]
        found[IDS.get(method, method)] = "" if settings == "(no parameters)" else settings
    return found


def compare_table(page) -> dict[str, dict[str, str]]:
    """Compare's results table (the first st.dataframe): method -> column title -> cell
    text, with the method's "settings" from the settings view, read until two reads agree
    (a rerun redraws the grid)."""
    grid = page.get_by_test_id("stDataFrame").first

    def read() -> dict[str, dict[str, str]]:
        titles = [h.text_content().strip() for h in grid.locator("[role=columnheader]").all()]
        settings = settings_table(page)
        return {
            IDS.get(row[0], row[0]): {
                **dict(zip(titles, row)),
                "settings": settings.get(IDS.get(row[0], row[0])),
            }
            for row in table_rows(grid)
            if row
        }

    deadline = time.monotonic() + SLOW_SECONDS
    shown = read()
    while time.monotonic() < deadline:
        page.wait_for_timeout(300)
        again = read()
        if again == shown and set(shown) == set(METHODS):
            break
        shown = again
    assert set(shown) == set(METHODS), shown
    return shown


def wait_for_compare(page) -> None:
    """After opening Compare: wait for its results or its "press Run comparison" hint,
    whichever the page shows, then for an idle app."""
    page.get_by_role("heading", name="Compare", exact=True).first.wait_for(timeout=TIMEOUT_MS)
    page.get_by_test_id("stPlotlyChart").first.or_(
        page.get_by_text("press Run comparison")
    ).first.wait_for(timeout=TIMEOUT_MS)
    idle(page)


def assert_results_shown(page, before: dict, where: str) -> None:
    """Compare shows the earlier run's results without the button being pressed."""
    assert page.get_by_text("press Run comparison").count() == 0, (
        f"{where}: Compare asks to press Run comparison: the finished run was not restored"
    )
    # The browser mounts each chart once plotly's code has loaded, after the run ends.
    page.get_by_test_id("stPlotlyChart").nth(1).wait_for(timeout=TIMEOUT_MS)
    assert page.get_by_role("heading", name="Results").count() == 1, where
    assert compare_table(page) == before, where
    no_exception(page, where)


def plotly_data(page) -> list[list[dict]]:
    """Every plotly figure on the page: its traces' type, name and (for strings) y."""
    return page.evaluate(
        """() => [...document.querySelectorAll('.js-plotly-plot')].map(div =>
            (div.data || []).map(t => ({
                type: t.type,
                name: t.name === undefined ? null : t.name,
                y: Array.isArray(t.y) ? t.y.map(String) : null,
            })))"""
    )


def wait_for_plots(page, count: int) -> list[list[dict]]:
    deadline = time.monotonic() + SLOW_SECONDS
    while len(figures := plotly_data(page)) < count or not all(figures):
        if time.monotonic() > deadline:
            raise AssertionError(f"expected {count} plotly figures, found {figures}")
        page.wait_for_timeout(250)
    return figures


# --- the tests -----------------------------------------------------------------------


def test_a_new_upload_takes_its_smallest_class_as_the_minority(page, server, majority2):
    upload_majority2(page, server, majority2)
    shown = metrics(page)
    assert shown["Minority class"] == MINORITY_SHOWN  # class 1, not the last-sorting 2
    assert shown["Imbalance ratio"] == RATIO_SHOWN  # 58 / 19
    assert shown["Samples"] == "77" and shown["Features"] == str(majority2.n_genes)
    assert shown["Classes"] == "2"
    box = page.get_by_role("combobox", name="Minority class (one versus rest)")
    assert box.input_value() == "1: 19 samples, the default"
    assert "minority class: 1" in page.get_by_test_id("stSidebar").inner_text()
    assert page.get_by_text("is larger than the default").count() == 0
    no_exception(page, "Data")

    # Choosing the majority is possible, and says so; the ratio is the same problem's.
    choose(page, "Minority class (one versus rest)", "2: 58 samples")
    wait_for_metric(page, "Minority class", "2")
    assert metrics(page)["Imbalance ratio"] == RATIO_SHOWN
    page.get_by_text("is larger than the default, class 1").first.wait_for(timeout=TIMEOUT_MS)
    no_exception(page, "Data with the majority chosen")


def test_k_set_on_stream_is_the_k_compare_runs_with(page, server, majority2):
    upload_majority2(page, server, majority2)
    set_stream_k(page, K)
    run_compare(page)

    table = compare_table(page)
    kofsd = table["kofsd"]["settings"]
    assert kofsd.startswith(f"k={K},"), kofsd
    assert table["fisher"]["settings"] == ""  # no parameters
    # The per-split records carry the same settings on every kofsd row.
    records = list(
        csv.DictReader(io.StringIO(download(page, "Download the per-split records").decode()))
    )
    assert len(records) == SPLITS * len(METHODS)
    for record in records:
        if record["method"] == "kofsd":
            assert record["settings"] == kofsd, record
        else:
            assert record["settings"] == "", record
    assert sorted({r["split"] for r in records}) == [str(s) for s in range(SPLITS)]
    # Compare's own settings box starts from Stream's K too.
    assert int(slider_input(page, "K (neighbours)").input_value()) == K
    no_exception(page, "Compare")


def test_reload_and_server_restart_bring_the_upload_and_the_comparison_back(
    page, majority2, tmp_path, screenshots
):
    with streamlit_server(tmp_path / "first.log") as first:
        upload_majority2(page, first, majority2)
        wid = workspace_of(page)
        assert WS_RE.match(wid), wid
        set_stream_k(page, K)
        run_compare(page)
        before = compare_table(page)
        assert before["kofsd"]["settings"].startswith(f"k={K},")

        page.reload()
        wait_for_compare(page)
        assert workspace_of(page) == wid
        assert UPLOAD_NAME in page.get_by_test_id("stSidebar").inner_text()
        assert_results_shown(page, before, "Compare after a reload")
        assert int(slider_input(page, "Splits").input_value()) == SPLITS

    # The first server is stopped; a new one on the same workspace folder.
    with streamlit_server(tmp_path / "second.log") as second:
        assert second != first
        page.goto(f"{second}/?ws={wid}")
        page.get_by_test_id("stMetric").first.wait_for(timeout=TIMEOUT_MS)
        idle(page)
        wait_for_metric(page, "Minority class", MINORITY_SHOWN)
        assert workspace_of(page) == wid
        assert UPLOAD_NAME in page.get_by_test_id("stSidebar").inner_text()
        page.get_by_test_id("stHeading").filter(has_text=UPLOAD_NAME).wait_for(timeout=TIMEOUT_MS)
        assert metrics(page)["Features"] == str(majority2.n_genes)
        no_exception(page, "Data after a server restart")

        open_page(page, "Stream")
        assert int(slider_input(page, "K (neighbours)").input_value()) == K

        page.get_by_test_id("stSidebarNavLink").filter(has_text="Compare").click()
        wait_for_compare(page)
        assert_results_shown(page, before, "Compare after a server restart")
        assert int(slider_input(page, "Splits").input_value()) == SPLITS
        assert workspace_of(page) == wid
        screenshot(page, screenshots, "trust-compare-after-restart")


def test_genes_page_draws_the_genes_kofsd_selected(page, server, majority2, screenshots):
    genes = majority2.kofsd_genes
    # This data set's K-OFSD order depends on K: the page must use the K set on Stream.
    assert genes != majority2.kofsd_default_genes
    upload_majority2(page, server, majority2)
    set_stream_k(page, K)
    run_compare(page)

    open_page(page, "Genes")
    choose(page, "Selection", "Compare: K-OFSD (whole data set")  # a fallback here: marked
    idle(page)
    page.get_by_role("heading", name=f"{len(genes)} genes").wait_for(timeout=TIMEOUT_MS)
    figures = wait_for_plots(page, 3)  # heat map, box plots, PCA
    heat = next(f for f in figures if len(f) == 2 and f[0]["y"] == ["class"])
    assert [t["type"] for t in heat] == ["heatmap", "heatmap"]
    assert len(heat[1]["y"]) == len(genes)  # one row per gene
    assert sorted(heat[1]["y"]) == sorted(genes)  # clustered: any order
    boxes = next(f for f in figures if f and all(t["type"] == "box" for t in f))
    assert [t["name"] for t in boxes] == list(genes)  # one per gene, the selection's order

    # The gene table: one row per gene.
    rows = table_rows(page.get_by_test_id("stDataFrame").first)
    assert len(rows) == len(genes)
    assert {cell for row in rows for cell in row} >= set(genes)
    no_exception(page, "Genes")
    screenshot(page, screenshots, "trust-genes")


def test_report_downloads_and_names_the_uploaded_files_checksum(page, server, majority2):
    upload_majority2(page, server, majority2)
    run_compare(page)

    open_page(page, "Export")
    page.get_by_role("button", name="Build the report").click()
    page.get_by_test_id("stDownloadButton").filter(has_text="Download the report (ZIP").wait_for(
        timeout=RUN_TIMEOUT_MS
    )
    idle(page)
    no_exception(page, "Export after building the report")

    archive = download(page, "Download the report (ZIP: HTML and CSVs)")
    html = download(page, "Download the report (HTML only)").decode()
    with zipfile.ZipFile(io.BytesIO(archive)) as report:
        assert report.testzip() is None
        names = report.namelist()
        pages = [n for n in names if n.endswith(".html")]
        assert len(pages) == 1, names
        assert any(n.endswith(".csv") for n in names), names
        assert report.read(pages[0]).decode() == html
        records = [n for n in names if n.endswith("records.csv")]
        assert records, names
        methods = {
            row["method"] for row in csv.DictReader(io.StringIO(report.read(records[0]).decode()))
        }
        assert methods == set(METHODS)
    assert majority2.sha256 in html
    assert UPLOAD_NAME in html
    sample_sha = hashlib.sha256((ROOT / "sample_data" / SAMPLE_NAME).read_bytes()).hexdigest()
    assert sample_sha not in html
    no_exception(page, "Export")


@pytest.mark.parametrize(
    "requested",
    ["AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "../../etc/passwd"],
    ids=["unknown-id", "path-traversal"],
)
def test_an_unknown_or_forged_workspace_id_opens_a_fresh_workspace(
    page, server, majority2, requested, screenshots
):
    # Someone's work in the store: an upload in a workspace of its own.
    upload_majority2(page, server, majority2)
    theirs = workspace_of(page)
    page.wait_for_timeout(500)  # the state is saved at the end of the run
    idle(page)

    page.goto(f"{server}/?ws={requested}")
    page.get_by_test_id("stMetric").first.wait_for(timeout=TIMEOUT_MS)
    idle(page)
    wait_for_metric(page, "Features", SAMPLE_FEATURES)
    page.wait_for_timeout(500)
    idle(page)
    fresh = workspace_of(page)
    assert WS_RE.match(fresh), fresh
    assert fresh not in (requested, theirs)
    assert SAMPLE_NAME in page.get_by_test_id("stSidebar").inner_text()
    text = page.get_by_test_id("stApp").inner_text()
    assert "this is a new, empty workspace" in text
    html = page.content()  # every element, input values and hidden ones included
    assert UPLOAD_NAME not in html
    assert requested not in html.replace(page.url, "") and "passwd" not in html
    assert "root:x:" not in html
    no_exception(page, f"Data with ws={requested}")

    for title in ("Compare", "Genes", "History"):
        open_page(page, title)
        html = page.content()
        assert UPLOAD_NAME not in html, title
        assert "passwd" not in html, title
        no_exception(page, f"{title} with ws={requested}")
    assert workspace_of(page) == fresh
    assert page.locator(IDLE).count() == 1
    if requested.startswith("AAAA"):
        screenshot(page, screenshots, "trust-fresh-workspace")
