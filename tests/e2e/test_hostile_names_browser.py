"""Gene and class names that are HTML, scripts, Markdown or spreadsheet formulas, in a real
browser (issue 43, point 3): uploaded, streamed to the end and shown on the Stream, Genes
and Compare pages, they run nothing (no script, no dialog, no javascript: link) and read
as the text they are; the selection CSV the page offers quotes the formula."""

from __future__ import annotations

import csv
import io

import numpy as np
import pandas as pd
import pytest

from tests.e2e.test_browser import (
    choose,
    download,
    idle,
    no_exception,
    open_app,
    open_page,
    stream_to_end,
    table_rows,
    upload,
    wait_for_metric,
)

pytestmark = pytest.mark.e2e

#: Names that would run or render if a page put them in HTML or Markdown unescaped.
HOSTILE = [
    '<img src=x onerror="window.__xss=1">',
    "<script>window.__xss=2</script>",
    "[click](javascript:window.__xss=3)",
    "**bold**:red[red]",
    '=HYPERLINK("http://example.org","x")',
]
RARE = "<b>rare</b>"


@pytest.fixture(scope="module")
def hostile_csv(tmp_path_factory):
    """30 samples (8 of the rare class), the hostile genes carrying the class, 4 noise."""
    rng = np.random.default_rng(5)
    y = np.array([1] * 8 + [0] * 22)
    names = [*HOSTILE, "noise_1", "noise_2", "noise_3", "noise_4"]
    X = rng.normal(size=(30, len(names)))
    X[:, : len(HOSTILE)] += 2.5 * y[:, None]
    frame = pd.DataFrame(X.round(4), columns=names)
    frame["label"] = np.where(y == 1, RARE, "normal")
    path = tmp_path_factory.mktemp("hostile") / "hostile_names.csv"
    frame.to_csv(path, index=False)
    return path


def _nothing_ran(page, dialogs) -> None:
    assert page.evaluate("() => window.__xss") is None
    assert dialogs == []
    main = page.get_by_test_id("stMain")
    assert main.locator("strong", has_text="bold").count() == 0  # not Markdown either
    assert main.locator("b", has_text="rare").count() == 0
    hrefs = page.eval_on_selector_all("a[href]", "links => links.map(a => a.href)")
    assert not [h for h in hrefs if h.lower().startswith("javascript:")], hrefs


def test_hostile_names_run_nothing_and_read_as_text(page, server, hostile_csv):
    dialogs = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    open_app(page, server)
    upload(page, hostile_csv)
    wait_for_metric(page, "Features", str(len(HOSTILE) + 4))
    choose(page, "Minority class (one versus rest)", RARE)
    page.get_by_test_id("stSidebar").get_by_text(f"minority class: {RARE}").wait_for()
    idle(page)
    _nothing_ran(page, dialogs)
    no_exception(page, "Data")

    shown, _ = stream_to_end(page, len(HOSTILE) + 4)
    assert int(shown["Selected"]) > 0
    idle(page)
    _nothing_ran(page, dialogs)
    main = page.get_by_test_id("stMain")
    text = main.inner_text()
    assert "<b>rare</b>" in text  # the class name, as text
    assert page.locator("img[onerror]").count() == 0
    assert page.locator("script", has_text="__xss").count() == 0
    table = main.get_by_test_id("stDataFrame").last  # the selected genes
    rows = table_rows(table, ["rank", "feature", "column", "score"])
    assert {row[1] for row in rows} & set(HOSTILE), rows  # hostile names, as text
    picked = download(page, "selected features (CSV)").decode()
    features = [row["feature"] for row in csv.DictReader(io.StringIO(picked))]
    noise = {"noise_1", "noise_2", "noise_3", "noise_4"}
    assert features and set(features) <= {*HOSTILE[:4], "'" + HOSTILE[4], *noise}
    no_exception(page, "Stream")

    for title in ("Genes", "Compare", "History"):
        open_page(page, title)
        idle(page)
        _nothing_ran(page, dialogs)
        no_exception(page, title)
