"""The dashboard in a real browser (Debian's Chromium through pytest-playwright), against
`streamlit run app.py`: upload, minority class, a K-OFSD stream to the end, the chart, the
selected genes, the download (the command line's bytes), every page without an exception;
and a broken upload. Screenshots of every page go to test-artifacts/screenshots/."""

from __future__ import annotations

import io
import re
import shlex
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from fsengine import load_dataset
from fsengine.cli import main
from fsengine.data.task import Task
from fsengine.evaluation import protocol_defaults

pytestmark = pytest.mark.e2e

PAGES = ("Data", "Stream", "Compare", "Sweep", "Export")
#: The Stream page's table of a finished stream's selection
#: (fsengine.export.writers.selection_rows).
SELECTION_COLUMNS = ["rank", "feature", "column", "score", "status"]
#: The app is idle: no script or fragment run in progress.
IDLE = "[data-testid='stApp'][data-test-script-state='notRunning']"
#: The bound on one wait in the browser, sized for a cold start on 2 busy cores.
TIMEOUT_MS = 600_000


def idle(page) -> None:
    """Wait until Streamlit has no script run in progress."""
    page.wait_for_selector(IDLE, timeout=TIMEOUT_MS)


def metrics(page) -> dict[str, str]:
    """The page's st.metric widgets: label -> value, read in one step in the page (a
    running stream redraws them every tick: reading them one by one could ask for a
    metric that the next tick had removed, and wait for it in vain)."""
    return page.evaluate(
        """() => Object.fromEntries([...document.querySelectorAll("[data-testid='stMetric']")]
            .map(m => [m.querySelector("[data-testid='stMetricLabel']"),
                       m.querySelector("[data-testid='stMetricValue']")])
            .filter(([label, value]) => label && value)
            .map(([label, value]) => [label.innerText.trim(), value.innerText.trim()]))"""
    )


def wait_for_metric(
    page, label: str, value: str, timeout: float = TIMEOUT_MS / 1000
) -> dict[str, str]:
    """Poll the metrics until ``label`` shows ``value``, then wait for an idle app."""
    deadline = time.monotonic() + timeout
    while True:
        shown = metrics(page)
        if shown.get(label) == value:
            idle(page)
            return metrics(page)
        if time.monotonic() > deadline:
            raise AssertionError(f"metric {label!r} never showed {value!r}; last: {shown}")
        page.wait_for_timeout(200)


def open_app(page, server) -> None:
    """Open the app and wait until its metrics have all rendered (two equal reads)."""
    page.goto(server)
    page.get_by_test_id("stMetric").first.wait_for(timeout=TIMEOUT_MS)
    idle(page)
    deadline = time.monotonic() + 20
    shown = metrics(page)
    while time.monotonic() < deadline:
        page.wait_for_timeout(500)
        again = metrics(page)
        if again == shown:
            break
        shown = again
    idle(page)


def open_page(page, title: str) -> None:
    """Click a sidebar link; wait for the page's title and an idle app."""
    page.get_by_test_id("stSidebarNavLink").filter(has_text=title).click()
    page.get_by_role("heading", name=title, exact=True).first.wait_for(timeout=TIMEOUT_MS)
    idle(page)


def back_to_running(page, title: str, or_done: str | None = None) -> None:
    """Open the page ``title`` whose run computes (or waits): its title and the run's
    progress bar (the page is not idle while it follows the run), or, with ``or_done``
    (a test id: the run may have ended meanwhile on a fast machine), that element."""
    page.get_by_test_id("stSidebarNavLink").filter(has_text=title).click()
    page.get_by_role("heading", name=title, exact=True).first.wait_for(timeout=TIMEOUT_MS)
    shown = page.get_by_test_id("stProgress")
    if or_done is not None:
        shown = shown.or_(page.get_by_test_id(or_done))
    shown.first.wait_for(timeout=TIMEOUT_MS)


def stream_to_end(page, n: int, meanwhile=None) -> tuple[dict[str, str], float]:
    """Open the Stream page, set the speed to max, press Start (then call ``meanwhile()``,
    if given) and wait until all ``n`` features have streamed; the metrics then shown and
    the seconds it took."""
    open_page(page, "Stream")
    page.get_by_test_id("stSlider").last.locator("input[type=range]").focus()
    page.keyboard.press("End")  # speed: max
    idle(page)
    start = time.monotonic()
    page.get_by_role("button", name="Start").click()
    if meanwhile is not None:
        meanwhile()
    shown = wait_for_metric(page, "Features streamed", f"{n} / {n}", timeout=TIMEOUT_MS / 1000)
    return shown, time.monotonic() - start


def _shows_file(page, name: str) -> bool:
    """Whether the uploader's file chip names ``name``; a long name is shortened in the
    middle ("brain_n...ows.tsv.gz")."""
    for text in page.get_by_test_id("stFileChipName").all_inner_texts():
        head, _, tail = text.strip().partition("...")
        if text.strip() == name or (tail and name.startswith(head) and name.endswith(tail)):
            return True
    return False


def upload(page, path, index: int = 0) -> None:
    """Give the page's ``index``-th uploader (the Data page's second: its sample sheet)
    ``path`` and wait until it shows the file's name.

    Streamlit's uploader shows a file only once the server has answered the browser's
    request for an upload address over the websocket. A file given while a rerun
    replaces the uploader (a click's rerun that had not started when the app looked
    idle) is lost, and a request sent while the websocket reconnects is never answered:
    the file is given again after 60 s without its name, and the page is reloaded (the
    same address: the same workspace and page) before the last two tries."""
    name = Path(path).name
    for attempt in range(4):
        if attempt >= 2:
            page.reload()
            page.get_by_test_id("stFileUploaderDropzoneInput").nth(index).wait_for(
                state="attached", timeout=TIMEOUT_MS
            )
        idle(page)
        page.get_by_test_id("stFileUploaderDropzoneInput").nth(index).set_input_files(path)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if _shows_file(page, name):
                return
            page.wait_for_timeout(200)
    status = " ".join(page.get_by_test_id("stStatusWidget").all_inner_texts())
    raise AssertionError(
        f"the uploader never showed {name} (4 tries; the app's status: {status!r})"
    )


def choose(page, label: str, option: str) -> None:
    """Open the selectbox ``label`` and click the option whose text starts with ``option``."""
    page.get_by_role("combobox", name=label).click()
    page.get_by_role("option").filter(has_text=re.compile("^" + re.escape(option))).click()


#: An st.dataframe's header texts and cell texts row by row, read in one step in the page.
_GRID_TEXTS = """grid => [
    [...grid.querySelectorAll("[role=columnheader]")].map(h => h.textContent.trim()),
    [...grid.querySelectorAll("tbody [role=row]")].map(
        row => [...row.querySelectorAll("[role=gridcell]")].map(c => c.textContent.trim()))]"""


def table_rows(frame, columns: list[str] | None = None) -> list[list[str]]:
    """The cell texts of an st.dataframe, row by row: its glide grid draws on a canvas and
    keeps an accessible table of the rendered cells in the DOM.

    The headers and cells are read in one step in the page: the grid redraws its table
    whenever the script reruns, and reading cell by cell could ask for a cell that a
    redraw had just removed, and wait for it in vain. That table also follows the
    script's output a few frames late: when a run replaces a table by one of other
    columns, the old one (or a half-drawn new one) can still be read after the app is
    idle. With ``columns``, wait (bounded by ``TIMEOUT_MS``) until the headers are these
    and every row has as many cells; a table that never becomes so fails here."""
    frame.locator("[role=gridcell]").first.wait_for(state="attached", timeout=TIMEOUT_MS)
    deadline = time.monotonic() + TIMEOUT_MS / 1000
    while True:
        titles, rows = frame.evaluate(_GRID_TEXTS)
        if columns is None:
            return rows
        if titles == columns and all(len(row) == len(columns) for row in rows):
            return rows
        assert time.monotonic() < deadline, f"table columns {titles}, not {columns}"
        time.sleep(0.2)


def download(page, label: str) -> bytes:
    with page.expect_download() as info:
        page.get_by_test_id("stDownloadButton").filter(has_text=label).locator("button").click()
    return info.value.path().read_bytes()


def no_exception(page, where: str) -> None:
    count = page.get_by_test_id("stException").count()
    assert count == 0, f"{where}: {count} exception(s): " + " | ".join(
        page.get_by_test_id("stException").all_inner_texts()
    )


def screenshot(page, folder, name: str) -> None:
    """The whole page as ``folder/name.png``. Streamlit scrolls inside its main container,
    not the document, so the window is made as tall as the content for the picture."""
    size = page.viewport_size
    page.mouse.move(0, 0)  # no hover toolbars in the picture
    height = page.get_by_test_id("stMain").evaluate("e => e.scrollHeight")
    height = min(max(height, size["height"]), 8000)
    page.set_viewport_size({"width": size["width"], "height": height})
    page.wait_for_timeout(500)  # let plotly and the grids redraw
    idle(page)
    page.screenshot(path=str(folder / f"{name}.png"), full_page=True)
    page.set_viewport_size(size)


def test_stream_kofsd_to_the_end_then_every_page(
    page, server, upload_csv, screenshots, tmp_path, monkeypatch
):
    expected_csv = tmp_path / "cli.csv"
    # The pages' K for this upload: the paper's 7 unless a training half's minority is
    # smaller (GLIOMA's class 2: as few as 4 of 7, so K = 3), as the page says.
    dataset = load_dataset(upload_csv.path)
    task = Task.from_dataset(dataset, dataset.resolve_class(upload_csv.minority))
    k = protocol_defaults(task.y, "kofsd").get("k", (7, ""))[0]
    assert (
        main(
            [
                "select",
                str(upload_csv.path),
                "--minority",
                upload_csv.minority,
                "--method",
                "kofsd",
                "--k",
                str(k),
                "--out",
                str(expected_csv),
            ]
        )
        == 0
    )
    expected = expected_csv.read_bytes()
    features = [line.split(",")[1] for line in expected.decode().splitlines()[1:]]
    n = upload_csv.n_features

    open_app(page, server)
    upload(page, upload_csv.path)
    # The subheader names the data set (the SRBCT fallback has the sample's feature count).
    page.get_by_test_id("stHeading").filter(has_text=upload_csv.path.name).wait_for(
        timeout=TIMEOUT_MS
    )
    wait_for_metric(page, "Features", str(n))

    # Another class first, so that choosing the minority visibly changes the metrics.
    other = next(c for c in upload_csv.counts if c != upload_csv.minority)
    choose(page, "Minority class (one versus rest)", f"{other}:")
    wait_for_metric(page, "Minority class", str(other))
    assert f"minority class: {other}" in page.get_by_test_id("stSidebar").inner_text()
    choose(page, "Minority class (one versus rest)", f"{upload_csv.minority}:")
    wait_for_metric(page, "Minority class", str(upload_csv.minority))
    assert f"minority class: {upload_csv.minority}" in page.get_by_test_id("stSidebar").inner_text()
    no_exception(page, "Data")

    shown, stream_seconds = stream_to_end(page, n)
    idle(page)  # the rerun that shows the final selection
    assert shown["Selected"] == str(len(features))

    chart = page.get_by_test_id("stPlotlyChart").first
    # The first chart of a session loads plotly.js in the browser: wait until it is drawn.
    chart.locator(".main-svg").first.wait_for(timeout=TIMEOUT_MS)
    assert chart.is_visible()
    # "Selected genes", after "Latest events": the finished stream's table, which replaces
    # the running one's (its grid can show the old one for a few frames)
    rows = table_rows(page.get_by_test_id("stDataFrame").last, SELECTION_COLUMNS)
    assert [row[1] for row in rows] == features
    assert [row[0] for row in rows] == [str(i) for i in range(1, len(features) + 1)]
    assert download(page, "Download selected features") == expected
    no_exception(page, "Stream")
    print(f"K-OFSD streamed {n} features in the browser in {stream_seconds:.1f} s")

    for title in PAGES:
        open_page(page, title)
        if title in ("Compare", "Sweep"):  # run the page's main computation
            page.get_by_test_id("stBaseButton-primary").first.click()
            page.get_by_test_id("stPlotlyChart").first.wait_for(timeout=TIMEOUT_MS)
            idle(page)
        if title == "Export":  # the finished stream, ready to export
            assert download(page, "Download selected features") == expected
            command = page.get_by_test_id("stCode").inner_text()
            words = shlex.split(command)
            assert words[:4] == ["python", "-m", "fsengine", "select"]
            assert words[4] == upload_csv.path.name
            monkeypatch.chdir(upload_csv.path.parent)
            repeated = tmp_path / "repeated.csv"
            assert main(words[3:] + ["--out", str(repeated)]) == 0
            assert repeated.read_bytes() == expected
            page.get_by_test_id("stRadio").filter(has_text="Parquet").get_by_text(
                "Parquet", exact=True
            ).click()
            matrix = download(page, "Download reduced matrix (Parquet)")
            table = pq.read_table(io.BytesIO(matrix))
            assert table.column_names == [*features, "label"]
            assert table.num_rows == sum(upload_csv.counts.values())
        no_exception(page, title)
        screenshot(page, screenshots, title.lower())


def test_broken_upload_shows_the_error_and_the_app_keeps_working(
    page, server, tmp_path, screenshots
):
    open_app(page, server)  # a new session: the bundled SRBCT
    before = metrics(page)
    assert before["Features"] == "2308"
    screenshot(page, screenshots, "data-sample")
    broken = tmp_path / "broken.csv"
    broken.write_text("sample,gene1,gene2,label\ns1,1.0,2.0,a\ns2,3.0,oops,b\ns3,0.5,1.5,b\n")
    upload(page, broken)
    alert = page.get_by_test_id("stAlert").filter(has_text="not a number")
    alert.wait_for(timeout=TIMEOUT_MS)
    idle(page)
    text = alert.inner_text()
    assert "gene2" in text and "'oops' is not a number" in text
    assert "broken.csv" in text and "Still using SRBCT.parquet" in text
    assert metrics(page) == before  # the previous data set is still shown
    no_exception(page, "Data after a broken upload")
    screenshot(page, screenshots, "data-broken-upload")

    open_page(page, "Stream")
    page.get_by_role("button", name="Step").click()
    wait_for_metric(page, "Features streamed", "1 / 2308")
    no_exception(page, "Stream after a broken upload")
