"""The Benchmark page in Chromium against `streamlit run app.py`: a study of the sample
(SRBCT, loaded at start) and a file uploaded on the page (Colon, Alon et al., 62 x 2000,
tests/data/README.md), the default methods under 20 splits, run in the server's process.

The page's rank table is checked against the long table it offers for download, ranked by
hand here (mean over the splits per data set, ranks per data set with ties sharing their
mean rank, averaged), and the run is one record in History. Screenshots of both pages go
to test-artifacts/screenshots/ (the dashboard guide's come from here)."""

from __future__ import annotations

import io
import time

import pandas as pd
import pytest

from conftest import ROOT
from tests.e2e.test_browser import (
    TIMEOUT_MS,
    idle,
    no_exception,
    open_app,
    open_page,
    screenshot,
    table_rows,
    upload,
)

pytestmark = pytest.mark.e2e

COLON = ROOT / "tests" / "data" / "colon_alon.csv.gz"
#: The page's default methods (dashboard.pages.benchmark.DEFAULT_METHODS).
METHODS = {"kofsd", "fast-osfs", "saola", "fisher", "s2n", "relieff"}
SPLITS = 20
METRIC = "gmean_1nn"  # the page's default metric, higher is better


def _average_ranks(long_table: pd.DataFrame) -> pd.Series:
    """Each method's average rank over the data sets, by the definition (Demsar 2006):
    the metric's mean over the splits per data set, the methods ranked on each data set
    (1 = best, ties share their mean rank), the ranks averaged."""
    means = long_table.groupby(["dataset", "method"])[METRIC].mean().unstack("method")
    return means.rank(axis=1, ascending=False, method="average").mean(axis=0)


def _rows(frame, n: int) -> list[list[str]]:
    """The rows of an st.dataframe once it has ``n`` (bounded by ``TIMEOUT_MS``): its grid
    redraws a few frames after the script's output changes."""
    deadline = time.monotonic() + TIMEOUT_MS / 1000
    while len(rows := table_rows(frame)) != n:
        assert time.monotonic() < deadline, f"{len(rows)} rows, not {n}: {rows}"
        time.sleep(0.2)
    return rows


def _download(page, name: str) -> bytes:
    """The bytes of the download button named ``name`` exactly."""
    with page.expect_download() as info:
        page.get_by_role("button", name=name, exact=True).click()
    return info.value.path().read_bytes()


def test_a_study_of_two_data_sets_ranks_the_methods_as_its_long_table_says(
    page, server, screenshots
):
    open_app(page, server)
    open_page(page, "Benchmark")
    upload(page, COLON)
    idle(page)
    datasets = _rows(page.get_by_test_id("stDataFrame").first, 2)
    assert any("colon_alon" in cell for cell in datasets[1]), datasets
    page.get_by_text("This process (one task after the other, no Dask)", exact=True).click()
    idle(page)
    page.get_by_role("button", name="Run the study", exact=True).click()
    page.get_by_test_id("stPlotlyChart").nth(1).wait_for(timeout=TIMEOUT_MS)
    idle(page)
    no_exception(page, "Benchmark")

    long_table = pd.read_csv(io.BytesIO(_download(page, "The long table (CSV)")))
    assert len(long_table) == 2 * len(METHODS) * SPLITS
    assert set(long_table["method"]) == METHODS
    assert long_table.groupby(["dataset", "method"]).size().eq(SPLITS).all()
    expected = _average_ranks(long_table)

    rank_csv = _download(page, f"The rank table of {METRIC} (CSV)")
    ranks = pd.read_csv(io.BytesIO(rank_csv), index_col=0)
    shown = ranks.loc["average rank"]
    assert set(shown.index) == METHODS
    pd.testing.assert_series_equal(
        shown.astype(float).sort_index(), expected.sort_index(), check_names=False, rtol=1e-12
    )
    assert list(shown.index) == list(shown.sort_values(kind="stable").index)  # best first

    # The grid on the page: the rank table is the second frame (after the data sets).
    grid = table_rows(page.get_by_test_id("stDataFrame").nth(1))
    average_row = next(row for row in grid if row and row[0] == "average rank")
    assert [float(cell) for cell in average_row[1:]] == [
        round(float(value), 2) for value in shown.to_numpy()
    ]
    screenshot(page, screenshots, "benchmark")

    open_page(page, "History")
    history = table_rows(page.get_by_test_id("stDataFrame").first)
    studies = [row for row in history if any(cell.startswith("Benchmark ") for cell in row)]
    assert len(studies) == 1, history
    assert any(f"{SPLITS} splits, seed 0" in cell for cell in studies[0]), studies
    no_exception(page, "History")
    screenshot(page, screenshots, "history")
