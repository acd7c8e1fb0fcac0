"""Nothing leaks between data sets (issue 40, points 3 and 4), in Chromium against
`streamlit run app.py`, on two real data sets (tests/data/README.md): Colon (Alon et al.,
62 x 2000 raw intensities, a gzip-compressed CSV; the Data page suggests log2) and the
nine-class genes-in-rows TSV made from Brain_Tumor1 (90 x 1500 raw intensities with
negative values; the Data page suggests a floor, a ceiling and log2).

- The suggested log2 applied to Colon does not reach the next upload: the nine-class file
  loads with no preprocessing and is offered its own suggestion (with Colon's log2 it was
  refused: "the 'Transform' box log2 needs positive values"); Colon uploaded again comes
  back log2-transformed, and the page says so.
- Compare shows each data set's own settings and results: Fisher and S2N over 2 splits on
  Colon, then the nine-class file offers Compare's defaults (not Colon's methods and
  splits) and no result; compared there with its own settings, then back on Colon, Colon's
  methods, splits and results table are shown without pressing the button.
"""

from __future__ import annotations

import time

import pytest

from conftest import ROOT
from fsengine.evaluation import PAPER_METHODS
from fsengine.methods.registry import METHOD_LABELS
from tests.e2e.test_browser import (
    TIMEOUT_MS,
    idle,
    no_exception,
    open_app,
    open_page,
    screenshot,
    table_rows,
    upload,
    wait_for_metric,
)
from tests.e2e.test_dashboard_trust import set_slider, slider_input

pytestmark = pytest.mark.e2e

DATA = ROOT / "tests" / "data"
COLON = DATA / "colon_alon.csv.gz"
NINE = DATA / "brain_nine_classes_genes_in_rows.tsv.gz"
COLON_SUGGESTION = "Apply the suggested preprocessing (transform=log2, offset=0.0)"
NINE_SUGGESTION = (
    "Apply the suggested preprocessing (floor=20.0, ceiling=16000.0, transform=log2, offset=0.0)"
)


def _texts(page, test_id: str) -> str:
    return " ".join(page.get_by_test_id(test_id).all_inner_texts())


def _settle(page) -> None:
    """Let a click's rerun start, then wait for it to end."""
    page.wait_for_timeout(300)
    idle(page)


def _load_colon(page) -> None:
    open_page(page, "Data")
    upload(page, COLON)
    page.get_by_test_id("stHeading").filter(has_text=COLON.name).wait_for(timeout=TIMEOUT_MS)
    wait_for_metric(page, "Features", "2000")
    no_exception(page, "Data, Colon")


def _load_nine(page) -> None:
    """Upload the genes-in-rows file: refused for its orientation (it names the toggle),
    then read with 'Genes in rows'."""
    open_page(page, "Data")
    upload(page, NINE)
    page.get_by_test_id("stAlertContentError").filter(has_text=NINE.name).first.wait_for(
        timeout=TIMEOUT_MS
    )
    assert "Genes in rows" in _texts(page, "stAlertContentError")
    idle(page)
    page.get_by_text("Genes in rows (transpose)", exact=True).click()
    _settle(page)
    # the refusal of the first reading stays drawn until the new run ends (stale): wait for
    # it to leave, as a user would, before reading the errors (a loaded run read it at once)
    page.get_by_test_id("stAlertContentError").filter(
        has_text="looks like genes in rows"
    ).first.wait_for(state="detached", timeout=TIMEOUT_MS)
    errors = _texts(page, "stAlertContentError")
    assert "Could not load" not in errors, errors  # with Colon's log2: refused here
    wait_for_metric(page, "Features", "1500")
    no_exception(page, "Data, the nine-class file")


def _expander_titles(page) -> str:
    return _texts(page, "stExpander")


def test_the_log2_applied_to_one_file_does_not_reach_the_next(page, server, screenshots):
    open_app(page, server)
    _load_colon(page)
    page.get_by_role("button", name=COLON_SUGGESTION, exact=True).click()
    _settle(page)
    page.get_by_text("Preprocessing: transform=log2, offset=0.0").first.wait_for(timeout=TIMEOUT_MS)
    # The caption is drawn while the run goes on; the run's end removes the stale button (a
    # count taken at once found it in a loaded fresh-clone run).
    page.get_by_role("button", name=COLON_SUGGESTION, exact=True).wait_for(
        state="detached", timeout=TIMEOUT_MS
    )
    idle(page)
    assert page.get_by_role("button", name=COLON_SUGGESTION, exact=True).count() == 0

    _load_nine(page)
    assert "Preprocessing: none" in _expander_titles(page)
    assert "preprocessing: none" in _texts(page, "stMarkdown")
    page.get_by_role("button", name=NINE_SUGGESTION, exact=True).wait_for(timeout=TIMEOUT_MS)
    info = _texts(page, "stAlertContentInfo")
    assert "negative" in info and "floor 20" in info, info  # its own values' note
    screenshot(page, screenshots, "issue40-next-upload-own-suggestion")

    _load_colon(page)  # back: read as it was, and said so
    page.get_by_text("Preprocessing: transform=log2, offset=0.0").first.wait_for(timeout=TIMEOUT_MS)
    info = _texts(page, "stAlertContentInfo")
    assert "read as you last read it here" in info and "transform=log2" in info, info
    assert page.get_by_role("button", name=NINE_SUGGESTION, exact=True).count() == 0
    screenshot(page, screenshots, "issue40-colon-read-again")
    no_exception(page, "Data, Colon again")


def _chips(page) -> list[str]:
    box = page.get_by_test_id("stMultiSelect").filter(has_text="Methods")
    box.locator("[data-tag]").first.wait_for(timeout=TIMEOUT_MS)
    return [t.get_attribute("aria-label") for t in box.locator("[data-tag]").all()]


def _keep_methods(page, keep: list[str]) -> None:
    for label in _chips(page):
        if label not in keep:
            page.get_by_role("button", name=f"Remove {label}", exact=True).click()
            _settle(page)
    assert _chips(page) == keep


def _results(page) -> list[list[str]]:
    """Compare's results table, read until two reads agree (a rerun redraws the grid)."""
    page.get_by_role("heading", name="Results").wait_for(timeout=TIMEOUT_MS)
    grid = page.get_by_test_id("stDataFrame").first
    shown = table_rows(grid)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        page.wait_for_timeout(300)
        again = table_rows(grid)
        if again == shown:
            break
        shown = again
    return shown


def _compare(page, keep: list[str], splits: int) -> list[list[str]]:
    open_page(page, "Compare")
    _keep_methods(page, keep)
    set_slider(page, "Splits", splits)
    page.get_by_role("button", name="Run comparison").click()
    page.get_by_test_id("stPlotlyChart").first.wait_for(timeout=TIMEOUT_MS)
    idle(page)
    no_exception(page, "Compare")
    rows = _results(page)
    assert [row[0] for row in rows] == keep, rows
    return rows


def test_compare_shows_each_data_sets_own_settings_and_results(page, server, screenshots):
    open_app(page, server)
    _load_colon(page)
    colon_methods = [METHOD_LABELS["fisher"], METHOD_LABELS["s2n"]]
    colon_rows = _compare(page, colon_methods, 2)

    _load_nine(page)
    open_page(page, "Compare")
    page.get_by_text("press Run comparison").first.wait_for(timeout=TIMEOUT_MS)
    assert _chips(page) == [METHOD_LABELS[m] for m in PAPER_METHODS]  # not Colon's
    assert int(slider_input(page, "Splits").input_value()) == 20
    assert page.get_by_role("heading", name="Results").count() == 0
    screenshot(page, screenshots, "issue40-compare-next-data-set")
    nine_methods = [METHOD_LABELS["fisher"], METHOD_LABELS["pcc"]]
    _compare(page, nine_methods, 3)

    _load_colon(page)
    open_page(page, "Compare")
    page.get_by_role("heading", name="Results").wait_for(timeout=TIMEOUT_MS)
    assert page.get_by_text("press Run comparison").count() == 0
    assert _chips(page) == colon_methods
    assert int(slider_input(page, "Splits").input_value()) == 2
    assert _results(page) == colon_rows
    assert "colon_alon.csv.gz" in page.get_by_test_id("stSidebar").inner_text()
    screenshot(page, screenshots, "issue40-compare-back-on-colon")
    no_exception(page, "Compare, Colon again")
