"""Benchmark: what a new user waits for after `make run`, in a real browser.

Every run is a new `streamlit run app.py` on a free 127.0.0.1 port (the options of
bench_sweep_browser, an empty workspace folder of its own: a new user) with the bundled SRBCT
(83 x 2308) loaded by default, and a new page of Debian's Chromium through Playwright. In
that one server process, each action is the first of its kind:

1. **Data page**: from ``/_stcore/health`` answering ``ok`` (the browser is already running)
   until the Data page shows the sample: its "Features" metric drawn and the script idle.
   Then every page's first visit through the sidebar, and a second round: the slowest
   switch of each round (click -> the page's title shown, the script idle).
2. **Stream** (reached through the sidebar, defaults: K-OFSD, natural order, "about 8 s"
   speed): from pressing Start until the "Features streamed" metric shows a position past 0
   (the first streamed step), and until it shows all features and the finished stream's
   "Download selected features" button is drawn.
3. **Compare** (defaults: the K-OFSD paper's methods, 20 splits): from pressing Run
   comparison until the results table (its first grid cell) is drawn.
4. **Sweep** (defaults: K-OFSD's K 1..10, 10 splits): from pressing Run K sweep until the
   chart's caption and the drawn chart are shown, as bench_sweep_browser waits.

The sequence runs under three set-ups of the kernels, each in a new server: **built** (the
default: the server's environment as is, less any ``FSENGINE_KERNELS``; the kernels compiled
ahead of time by `make venv` into the user's cache; repeated, median and maximum), **built,
cold** (an empty ``FSENGINE_CACHE_DIR``: a first start after ``pip install`` without
`make venv`; the kernels are built once, in the background warm-up's worker processes or
at the first action that needs them; once) and **numba JIT, cold** (what users met before:
``FSENGINE_KERNELS=jit`` and an empty ``NUMBA_CACHE_DIR``; once, it is long).
Under JIT the server starts with numpy versions of the kernels and compiles them once its
numpy work passes a budget (a pause inside the stream), while app.py's warm-up compiles every
family in the two worker processes in the background from the first page on: Compare and
Sweep, timed after the stream, may find them compiled.
Times are wall clock seconds from this process (``perf_counter``); Playwright waits for the
states (300 s at most), nothing sleeps. The targets (Data page <= 3 s; every page switch
<= 1 s; the Sweep press <= 10 s as in bench_sweep_browser) concern the built set-up and
are printed, not enforced; the exit status is 1 only when a page shows an exception
(``stException``). Servers are stopped by their process id; their output goes to
.bench/dashboard_browser_logs/.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path

from _common import ROOT, finish_report, machine
from bench_sweep_browser import (
    CHROMIUM,
    TIMEOUT_MS,
    _free_port,
    _idle,
    _start_server,
    _stop_server,
)
from bench_sweep_browser import TARGET_S as SWEEP_TARGET_S

from fsengine._compute.kernels import cache_dir, status

DATA_TARGET_S = 3.0
#: (key, what is timed, target in seconds or None), in the order they run.
#: The pages visited after the Data page, each timed from the click in the sidebar until
#: its title shows and its script is idle: first visits, then a second round.
SWITCH_PAGES = ("Stream", "Compare", "Sweep", "Benchmark", "Genes", "Export", "History", "Data")
#: Target of every page switch, first visits included (issue 29).
SWITCH_TARGET_S = 1.0
ACTIONS = (
    ("data", "Data page shown (from health ok)", DATA_TARGET_S),
    ("switch_first_max", "Page switch, first visits: slowest", SWITCH_TARGET_S),
    ("switch_again_max", "Page switch, second visits: slowest", SWITCH_TARGET_S),
    ("stream_first_step", "Stream: Start -> first step shown", None),
    ("stream_finished", "Stream: Start -> all features streamed", None),
    ("compare", "Compare: Run comparison -> table", None),
    ("sweep", "Sweep: Run K sweep -> chart", SWEEP_TARGET_S),
)
#: True once a metric labelled ``label`` shows a value matching ``pattern`` (a regular
#: expression), or once the page shows an exception (checked by the caller).
METRIC_SHOWS = """([label, pattern]) => {
    if (document.querySelector("[data-testid='stException']")) return true;
    for (const metric of document.querySelectorAll("[data-testid='stMetric']")) {
        const name = metric.querySelector("[data-testid='stMetricLabel']");
        const value = metric.querySelector("[data-testid='stMetricValue']");
        if (name && value && name.innerText.trim() === label
            && new RegExp(pattern).test(value.innerText.trim())) return true;
    }
    return false;
}"""
CHART_DRAWN = """() => document.querySelector("[data-testid='stException']") !== null
    || document.querySelectorAll("[data-testid='stMain'] [data-testid='stPlotlyChart'] .main-svg")
        .length > 0"""


class PageException(Exception):
    """The page showed a Streamlit exception (``stException``); the message holds its text,
    ``seconds`` the actions timed before it (set by :func:`run_sequence`)."""

    seconds: dict[str, float]


def _raise_on_exception(page, where: str) -> None:
    """Raise :class:`PageException` when the page shows a Streamlit exception."""
    shown = page.get_by_test_id("stException")
    if shown.count():
        raise PageException(f"{where}: " + " | ".join(shown.all_inner_texts()))


def _wait_for_metric(page, label: str, pattern: str, where: str) -> None:
    """Wait until the metric ``label`` shows a value matching ``pattern``; raise
    :class:`PageException` if an exception is shown instead."""
    page.wait_for_function(METRIC_SHOWS, arg=[label, pattern], timeout=TIMEOUT_MS)
    _raise_on_exception(page, where)


def _wait_for(page, locator, where: str) -> None:
    """Wait until ``locator`` is attached or the page shows an exception (then raise)."""
    locator.or_(page.get_by_test_id("stException")).first.wait_for(
        state="attached", timeout=TIMEOUT_MS
    )
    _raise_on_exception(page, where)


def _open_page(page, title: str) -> None:
    """Click the sidebar link ``title``; wait for the page's title and an idle script."""
    page.get_by_test_id("stSidebarNavLink").filter(has_text=title).click()
    page.get_by_role("heading", name=title, exact=True).first.wait_for(timeout=TIMEOUT_MS)
    _idle(page)
    _raise_on_exception(page, f"opening {title}")


def run_sequence(browser, environment: Mapping[str, str | None], log: Path) -> dict[str, float]:
    """The four first actions in a new server and a new browser page.

    Parameters
    ----------
    browser : playwright.sync_api.Browser
        The running Chromium; a new context (no cookies, no cache) is opened in it.
    environment : mapping of str to str or None
        Environment variables of the server to set (str) or remove (None).
    log : Path
        Where the server's output goes.

    Returns
    -------
    dict of str to float
        Seconds per action, by the keys of ``ACTIONS``.

    Raises
    ------
    PageException
        When a page shows an exception; the seconds measured until then are in its
        ``seconds`` attribute.
    """
    seconds: dict[str, float] = {}
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    port = _free_port()
    env = {k: v for k, v in {**os.environ, **environment}.items() if v is not None}
    server = _start_server(port, log, env)
    try:
        healthy = time.perf_counter()
        page.goto(f"http://127.0.0.1:{port}")
        _wait_for_metric(page, "Features", r"^\d+$", "Data page")
        _idle(page)
        seconds["data"] = time.perf_counter() - healthy
        _raise_on_exception(page, "Data page")
        n_features = page.get_by_test_id("stMetric").filter(has_text="Features").first
        total = n_features.get_by_test_id("stMetricValue").inner_text().strip()

        for round_ in ("first", "again"):
            slowest = 0.0
            for title in SWITCH_PAGES:
                start = time.perf_counter()
                if title == "Data":
                    page.get_by_test_id("stSidebarNavLink").filter(has_text=title).click()
                    _wait_for_metric(page, "Features", r"^\d+$", "Data page")
                    _idle(page)
                else:
                    _open_page(page, title)
                slowest = max(slowest, time.perf_counter() - start)
            seconds[f"switch_{round_}_max"] = slowest

        _open_page(page, "Stream")
        start = time.perf_counter()
        page.get_by_role("button", name="Start", exact=True).click()
        _wait_for_metric(page, "Features streamed", r"^[1-9]\d* / \d+$", "Stream")
        seconds["stream_first_step"] = time.perf_counter() - start
        _wait_for_metric(page, "Features streamed", rf"^{total} / {total}$", "Stream")
        _wait_for(
            page,
            page.get_by_test_id("stDownloadButton").filter(has_text="Download selected features"),
            "Stream",
        )
        seconds["stream_finished"] = time.perf_counter() - start
        _idle(page)

        _open_page(page, "Compare")
        start = time.perf_counter()
        page.get_by_role("button", name="Run comparison", exact=True).click()
        table = page.get_by_test_id("stDataFrame").first.locator("[role=gridcell]").first
        _wait_for(page, table, "Compare")
        seconds["compare"] = time.perf_counter() - start
        _idle(page)
        _raise_on_exception(page, "Compare")

        _open_page(page, "Sweep")
        start = time.perf_counter()
        page.get_by_role("button", name="Run K sweep", exact=True).click()
        caption = page.get_by_test_id("stCaptionContainer").filter(has_text="Computed once for K")
        _wait_for(page, caption, "Sweep")
        page.wait_for_function(CHART_DRAWN, timeout=TIMEOUT_MS)
        _raise_on_exception(page, "Sweep")
        seconds["sweep"] = time.perf_counter() - start
        _idle(page)
        _raise_on_exception(page, "Sweep")
    except PageException as exc:
        exc.seconds = seconds
        raise
    finally:
        _stop_server(server)
        context.close()
    return seconds


def _seconds_text(values: list[float]) -> str:
    """The runs' seconds as "median / max", as one value for one run, "-" for none."""
    if not values:
        return "-"
    if len(values) == 1:
        return f"{values[0]:.1f}"
    return f"{statistics.median(values):.1f} / {max(values):.1f}"


def summarise(runs: dict[str, list[dict[str, float]]]) -> list[dict]:
    """Per action: its label, target, and each set-up's seconds (median, max)."""
    rows = []
    for key, label, target in ACTIONS:
        row = {"action": key, "label": label, "target_s": target}
        for setup, setup_runs in runs.items():
            values = [run[key] for run in setup_runs if key in run]
            row[setup] = values
            row[f"{setup}_median_s"] = statistics.median(values) if values else None
            row[f"{setup}_max_s"] = max(values) if values else None
        rows.append(row)
    return rows


#: The set-ups' titles in the summary, in the order of the runs.
SETUP_TITLES = {"built": "built", "built_cold": "built, cold", "jit_cold": "JIT cold"}


def print_summary(rows: list[dict], counts: Mapping[str, int]) -> None:
    """The table: one row per action, each set-up's median / max (``counts``: its runs),
    the target."""
    setups = [setup for setup, count in counts.items() if count]
    table = [
        (
            "action (seconds)",
            *(
                SETUP_TITLES[setup]
                + (f" ({counts[setup]} runs) median / max" if counts[setup] > 1 else "")
                for setup in setups
            ),
            "target",
        )
    ]
    for row in rows:
        table.append(
            (
                row["label"],
                *(_seconds_text(row.get(setup, [])) for setup in setups),
                f"<= {row['target_s']:.0f}" if row["target_s"] is not None else "-",
            )
        )
    widths = [max(len(line[column]) for line in table) for column in range(len(table[0]))]
    print()
    for line in table:
        print("  " + "  ".join(f"{cell:<{width}}" for cell, width in zip(line, widths)).rstrip())


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--repeats", type=int, default=3, help="runs with the built kernels (default 3)"
    )
    parser.add_argument(
        "--jit-repeats",
        type=int,
        default=1,
        help="runs with numba's JIT and an empty cache (default 1; 0 skips them)",
    )
    parser.add_argument(
        "--cold-repeats",
        type=int,
        default=1,
        help="runs with the kernels not built yet, an empty cache (default 1; 0 skips them)",
    )
    args = parser.parse_args(argv)
    if args.repeats < 1 or args.jit_repeats < 0 or args.cold_repeats < 0:
        parser.error("--repeats must be at least 1, --cold-repeats and --jit-repeats at least 0")
    if not CHROMIUM.exists():
        print(f"SKIPPED: {CHROMIUM} is missing (make test installs Debian's chromium)")
        return 0
    from playwright.sync_api import sync_playwright

    families = status()
    kernels_built = all(family["built"] for family in families)
    print(f"# The dashboard's first actions in Chromium, SRBCT 83 x 2308, {machine()}")
    print(
        f"kernels: {sum(f['built'] for f in families)} of {len(families)} families built in "
        f"{cache_dir()}"
        + ("" if kernels_built else " (NOTE: run `make kernels`; the built runs will build them)")
    )
    counts = {"built": args.repeats, "built_cold": args.cold_repeats, "jit_cold": args.jit_repeats}
    runs: dict[str, list[dict[str, float]]] = {setup: [] for setup in counts}
    load_average: dict[str, list[list[float]]] = {setup: [] for setup in counts}
    problems: list[str] = []
    logs = ROOT / ".bench" / "dashboard_browser_logs"
    logs.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=["--no-sandbox", "--disable-gpu"]
        )
        plan = [(setup, run) for setup, count in counts.items() for run in range(count)]
        for setup, run in plan:
            environment = {"FSENGINE_WORKSPACE_DIR": tempfile.mkdtemp(dir=tmp)}
            if setup.startswith("built"):
                environment["FSENGINE_KERNELS"] = None
                if setup == "built_cold":
                    environment["FSENGINE_CACHE_DIR"] = tempfile.mkdtemp(dir=tmp)
            else:
                environment["FSENGINE_KERNELS"] = "jit"
                environment["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(dir=tmp)
            load_before = os.getloadavg()[0]
            try:
                seconds = run_sequence(browser, environment, logs / f"{setup}-{run + 1}.log")
            except PageException as exc:
                problems.append(f"{setup}, run {run + 1}: {exc}")
                seconds = exc.seconds
            runs[setup].append(seconds)
            load_average[setup].append([load_before, os.getloadavg()[0]])
            print(
                f"{setup} run {run + 1}: "
                + ", ".join(f"{key} {value:.1f} s" for key, value in seconds.items())
                + f" (load average {load_before:.1f} -> {os.getloadavg()[0]:.1f})",
                flush=True,
            )
        browser.close()
    for setup, count in counts.items():
        if not count:
            del runs[setup], load_average[setup]
    rows = summarise(runs)
    print_summary(rows, counts)
    targets_met = all(
        row["built_max_s"] is not None and row["built_max_s"] <= row["target_s"]
        for row in rows
        if row["target_s"] is not None
    )
    print(
        f"\ntargets (built set-up, every run): {'met' if targets_met else 'NOT met'}; "
        "the stream runs at its default speed, 'about 8 s' for the whole data set"
    )
    print(f"servers' output: {logs.relative_to(ROOT)}/")
    if problems:
        print("\nERROR: a page showed an exception:\n" + "\n".join(problems), file=sys.stderr)
    record = {
        "data_set": "SRBCT 83 x 2308 (bundled sample)",
        "kernels_built": kernels_built,
        "kernel_cache": str(cache_dir()),
        "runs": runs,
        "load_average_1min": load_average,
        "summary": rows,
        "targets_met": targets_met,
    }
    return finish_report("dashboard_browser", record, problems, targets_met)


if __name__ == "__main__":
    sys.exit(main())
