"""A file over the upload limit is refused by the uploader, with the limit named, and the
app keeps the data set it had (a server started with a 2 MB limit)."""

import re

import numpy as np
import pandas as pd
import pytest

from tests.e2e.test_browser import (
    TIMEOUT_MS,
    idle,
    metrics,
    no_exception,
    open_app,
    open_page,
    upload,
    wait_for_metric,
)

pytestmark = pytest.mark.e2e
SERVER_ARGS = ["--server.maxUploadSize", "2"]


def test_a_file_over_the_upload_limit_is_refused_and_the_app_keeps_working(page, server, tmp_path):
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(rng.normal(size=(300, 600)), columns=[f"g{j}" for j in range(600)])
    frame["label"] = ["a"] * 60 + ["b"] * 240
    big = tmp_path / "too_big.csv"
    frame.to_csv(big, index=False)
    assert big.stat().st_size > 2 * 1024 * 1024

    open_app(page, server)
    assert "up to 2 MB" in page.get_by_test_id("stFileUploader").first.inner_text()
    before = metrics(page)
    upload(page, big)
    uploader = page.get_by_test_id("stFileUploader").first
    uploader.get_by_text(re.compile("smaller|large")).wait_for(timeout=TIMEOUT_MS)
    idle(page)
    refusal = uploader.inner_text()
    assert "2" in refusal and "MB" in refusal and ("smaller" in refusal or "large" in refusal), (
        refusal
    )
    assert metrics(page) == before  # still the bundled SRBCT
    no_exception(page, "data page after a refused upload")
    open_page(page, "Stream")
    page.get_by_role("button", name="Step").click()
    wait_for_metric(page, "Features streamed", "1 / 2308")
    no_exception(page, "stream page after a refused upload")
