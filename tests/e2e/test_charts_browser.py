"""Charts and tables that read on a real screen (issue 40, points 8 and 9), in Chromium
against `streamlit run app.py`: the Genes page on the 20,000-cell single-cell file draws a
seeded sample of each class in its heat map and says so, boxes over every cell without
20,000 points, whole class names on the axes; and Compare's results table fits the page,
its settings whole in the details view. Screenshots go to test-artifacts/screenshots/."""

from __future__ import annotations

import csv
import io
import re

import pytest

from fsengine.methods.registry import METHOD_LABELS
from synthetic import CELL_TYPES, RARE_TYPE, single_cell_anndata
from tests.e2e.test_browser import (
    TIMEOUT_MS,
    choose,
    download,
    idle,
    no_exception,
    open_app,
    open_page,
    screenshot,
    upload,
    wait_for_metric,
)
from tests.e2e.test_dashboard_trust import set_slider

pytestmark = pytest.mark.e2e

#: The figures on the page: each one's layout title and its traces' type, name, the
#: number of points, whether a box carries its own quartiles, and the x axes' tick texts.
#: Arrays may be plotly.py's encoded form ({dtype, bdata, shape}): sized from their bytes.
FIGURES = """() => {
  const size = {f8: 8, f4: 4, i4: 4, u4: 4, i2: 2, u2: 2, i1: 1, u1: 1};
  const shape = a => !a ? [0] : a.bdata !== undefined
      ? (a.shape ? String(a.shape).split(",").map(Number)
                 : [atob(a.bdata).length / size[a.dtype]])
      : Array.isArray(a[0]) || ArrayBuffer.isView(a[0]) ? [a.length, a[0].length] : [a.length];
  return [...document.querySelectorAll('.js-plotly-plot')].map(div => ({
    title: (div.layout && div.layout.title && div.layout.title.text) || "",
    traces: (div.data || []).map(t => ({
        type: t.type,
        name: t.name === undefined ? null : t.name,
        points: t.y ? shape(t.y)[0] : 0,
        columns: t.z ? shape(t.z).slice(-1)[0] : 0,
        quartiles: t.q1 ? shape(t.q1)[0] : 0,
    })),
    ticks: Object.keys(div.layout || {}).filter(k => k.startsWith("xaxis"))
        .map(k => div.layout[k].ticktext || null).filter(t => t),
  }));
}"""
#: The results grid's scrolled width and visible width.
GRID_WIDTHS = """() => { const s = document.querySelector(
    "[data-testid='stDataFrame'] .dvn-scroller"); return [s.scrollWidth, s.clientWidth]; }"""


def _settings(page) -> dict[str, str]:
    """Compare's settings view: method id -> settings ("" for "(no parameters)")."""
    ids = {label: method for method, label in METHOD_LABELS.items()}
    found = {}
    for row in page.get_by_test_id("stTable").first.locator("tbody tr").all():
        method, settings = [c.text_content().strip() for c in row.locator("th, td").all()][-2:]
        found[ids[method]] = "" if settings == "(no parameters)" else settings
    return found


def _figures(page, count: int) -> list[dict]:
    """The page's plotly figures once ``count`` of them are drawn."""
    page.wait_for_function(
        f"document.querySelectorAll('.js-plotly-plot').length >= {count} && "
        "[...document.querySelectorAll('.js-plotly-plot')].every(d => d.data)",
        timeout=TIMEOUT_MS,
    )
    idle(page)
    return page.evaluate(FIGURES)


@pytest.fixture(scope="module")
def single_cell(tmp_path_factory):
    """The issue's single-cell file: 20,000 cells x 3,000 genes, six cell types."""
    path = tmp_path_factory.mktemp("single_cell") / "single_cell.h5ad"
    single_cell_anndata().write_h5ad(path)
    return path


def test_the_genes_page_on_20000_cells_draws_a_sample_and_summaries(
    page, server, screenshots, single_cell
):
    open_app(page, server)
    upload(page, single_cell)
    page.get_by_test_id("stAlertContentError").filter(has_text="obs columns").first.wait_for(
        timeout=TIMEOUT_MS
    )
    choose(page, "Label column", "cell_type")
    wait_for_metric(page, "Samples", "20000")
    assert f"minority class: {RARE_TYPE}" in page.get_by_test_id("stSidebar").inner_text()

    # a selection to look at: Fisher's ten genes (quick on 20,000 cells), from Export
    open_page(page, "Export")
    box = page.get_by_role("combobox", name="Method")
    box.click()
    box.fill("Fisher")  # the list shows its first options only: filter it
    page.get_by_role("option").filter(has_text=re.compile("^Fisher")).click()
    idle(page)
    page.get_by_role("button", name="Compute selection").click()
    page.get_by_test_id("stDownloadButton").first.wait_for(timeout=TIMEOUT_MS)
    idle(page)

    open_page(page, "Genes")
    page.get_by_role("heading", name="10 genes").wait_for(timeout=TIMEOUT_MS)
    heat, boxes, projection = _figures(page, 3)[:3]
    # the heat map: 1,000 of the 20,000 cells, about 167 of each type, said in its title
    assert [t["type"] for t in heat["traces"]] == ["heatmap", "heatmap"]
    assert heat["traces"][1]["columns"] == 1000
    assert "1,000 of 20,000 samples" in heat["title"] and "seeded" in heat["title"]
    main = page.get_by_test_id("stMain").inner_text()
    assert f"{RARE_TYPE} 166 of 187" in main  # 1,000 / 6, by hand
    # the boxes: over every cell (their own quartiles), no 20,000 points a panel
    assert len(boxes["traces"]) == 10
    assert all(t["type"] == "box" and t["points"] == 0 for t in boxes["traces"])
    assert all(t["quartiles"] == len(CELL_TYPES) for t in boxes["traces"])
    assert "Boxes over all 20,000 samples" in boxes["title"]
    # whole class names on every panel's axis ("Dendri", "Monocy" were cut)
    names = sorted(CELL_TYPES)
    for ticks in boxes["ticks"]:
        plain = [t.replace("<b>", "").replace("</b>", "").replace("<br>", "") for t in ticks]
        assert plain == names
    # the projection: 2,000 of the cells, in each panel
    points = [t["points"] for t in projection["traces"]]
    assert sum(points) == 2 * 2000 and "2,000 of 20,000" in projection["title"]
    no_exception(page, "Genes on the single-cell file")
    screenshot(page, screenshots, "issue40-genes-single-cell")


def test_the_compare_table_fits_the_page_and_its_settings_are_whole(page, server, screenshots):
    open_app(page, server)
    open_page(page, "Compare")
    set_slider(page, "Splits", 2)
    page.get_by_role("button", name="Run comparison").click()
    page.get_by_test_id("stPlotlyChart").first.wait_for(timeout=TIMEOUT_MS)
    idle(page)
    # the grid draws its headers some frames after the run ends
    grid = page.get_by_test_id("stDataFrame").first
    grid.locator("[role=columnheader]").first.wait_for(state="attached", timeout=TIMEOUT_MS)
    scrolled, visible = page.evaluate(GRID_WIDTHS)
    assert scrolled <= visible, f"the table is {scrolled} px wide in {visible} px: cut off"
    titles = [h.text_content().strip() for h in grid.locator("[role=columnheader]").all()]
    assert titles[-2:] == ["time (s)", "splits"]  # the rightmost columns are there
    # the settings, whole, as the per-split records carry them
    records = csv.DictReader(io.StringIO(download(page, "Download the per-split records").decode()))
    expected = {r["method"]: r["settings"] for r in records}
    page.get_by_text("Settings of each method").click()
    idle(page)
    assert _settings(page) == expected
    no_exception(page, "Compare")
    screenshot(page, screenshots, "issue40-compare-table")
