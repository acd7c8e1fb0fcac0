"""The seed papers' baselines on the Stream page, in Chromium: each streams the bundled SRBCT
(minority BL) to the end and shows what the library selects with its defaults."""

from __future__ import annotations

import pytest

from conftest import SAMPLE
from fsengine import load_dataset, run_selection
from fsengine.methods.registry import get_method
from tests.e2e.test_browser import (
    SELECTION_COLUMNS,
    TIMEOUT_MS,
    choose,
    idle,
    no_exception,
    open_app,
    open_page,
    table_rows,
    wait_for_metric,
)

pytestmark = pytest.mark.e2e

BASELINES = [
    "alpha-investing",
    "osfs",
    "fast-osfs",
    "saola",
    "group-saola",
    "ofs-a3m",
    "ofs-density",
    "rhofs",
    "sfsf",
    "osfs-et",
    "sfs-fi",
    "ossfs-dd",
    "grafting",
]


@pytest.fixture(scope="module")
def srbct():
    return load_dataset(SAMPLE)


@pytest.mark.parametrize("method", BASELINES)
def test_each_baseline_streams_on_the_stream_page(page, server, srbct, method):
    expected = run_selection(srbct, 2, method).selection.features
    open_app(page, server)
    open_page(page, "Stream")
    choose(page, "Online selector", get_method(method).spec.label + " (")
    idle(page)
    page.get_by_test_id("stSlider").last.locator("input[type=range]").focus()
    page.keyboard.press("End")  # speed: max
    idle(page)
    page.get_by_role("button", name="Start").click()
    shown = wait_for_metric(page, "Features streamed", "2308 / 2308", timeout=TIMEOUT_MS / 1000)
    assert shown["Selected"] == str(len(expected)), (method, shown)
    # The finished stream's "Selected genes" table (the grid can show the running one's for
    # a few frames). The grid keeps only the rows it draws (about a dozen): those must be
    # the first.
    rows = table_rows(page.get_by_test_id("stDataFrame").last, SELECTION_COLUMNS)
    shown = tuple(r[1] for r in rows)
    assert shown == expected[: len(shown)] and len(shown) >= min(len(expected), 10), method
    no_exception(page, f"Stream {method}")
