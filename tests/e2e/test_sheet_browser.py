"""A matrix plus a sample sheet through the Data page's two uploaders, in Chromium against
`streamlit run app.py` (issue 30): the table of numbers (colon, Alon et al., from
tests/data) alone is refused for its label; given its sheet (another order), it loads with
the sheet's class; the unlogged values' suggested log2 is one click."""

from __future__ import annotations

import pandas as pd
import pytest
from playwright.sync_api import expect

from conftest import ROOT
from fsengine import load_dataset
from tests.e2e.test_browser import (
    TIMEOUT_MS,
    idle,
    no_exception,
    open_app,
    screenshot,
    upload,
    wait_for_metric,
)

pytestmark = pytest.mark.e2e

COLON = ROOT / "tests" / "data" / "colon_alon.csv.gz"


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    colon = load_dataset(COLON)
    ids = [f"C{k:02d}" for k in range(colon.n_samples)]
    folder = tmp_path_factory.mktemp("sheet")
    table = pd.DataFrame(colon.X, columns=list(colon.feature_names))
    table.insert(0, "sample", ids)
    table.to_csv(folder / "colon_expression.csv", index=False)
    sheet = pd.DataFrame({"sample_id": ids, "tissue": [str(v) for v in colon.labels]})
    sheet.iloc[::-1].to_csv(folder / "colon_samples.tsv", sep="\t", index=False)
    return folder, colon


def test_a_table_and_its_sample_sheet_load_and_take_log2(page, server, screenshots, files):
    folder, colon = files
    open_app(page, server)
    upload(page, folder / "colon_expression.csv")
    page.get_by_test_id("stAlert").filter(has_text="Could not load colon_expression.csv").wait_for(
        timeout=TIMEOUT_MS
    )
    upload(page, folder / "colon_samples.tsv", index=1)
    shown = wait_for_metric(page, "Samples", str(colon.n_samples))
    assert shown["Features"] == str(colon.n_features)
    main = page.get_by_test_id("stMain")
    assert "Sample sheet in use: colon_samples.tsv" in main.inner_text()
    assert "classes from the sample sheet colon_samples.tsv" in main.inner_text()
    assert "look unlogged" in main.inner_text()
    no_exception(page, "Data, table and sheet")

    page.get_by_role("button", name="Apply the suggested preprocessing").click()
    # "Suggested preprocessing: transform=..." is on the page before the click: wait for the
    # expander's case-sensitive label and for the warning to go, not for that substring.
    expect(main).to_contain_text("Preprocessing: transform=log2, offset=0.0", timeout=TIMEOUT_MS)
    expect(main).not_to_contain_text("look unlogged", timeout=TIMEOUT_MS)
    idle(page)
    no_exception(page, "Data, preprocessed")
    screenshot(page, screenshots, "data-sample-sheet-preprocessing")
