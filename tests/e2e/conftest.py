"""Real-browser fixtures: one `streamlit run app.py` per test module, Debian's Chromium
through pytest-playwright, the uploaded CSV and helpers that wait for Streamlit.

`make test` installs the `chromium` package when /usr/bin/chromium is missing; the tests
are skipped (with the reason) only when it could not be installed.
"""

from __future__ import annotations

import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import pytest

from conftest import ROOT, SAMPLE, SLOW_SECONDS, free_port

CHROMIUM = Path("/usr/bin/chromium")
#: The process id of each running server of :func:`streamlit_server`, by its URL (a test that
#: kills its server finds it here).
SERVER_PIDS: dict[str, int] = {}
DATASETS = ROOT.parent / "shared" / "datasets"
SCREENSHOTS = ROOT / "test-artifacts" / "screenshots"


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    """pytest-playwright's launch options, with Debian's Chromium (`playwright install`
    cannot download browsers here)."""
    if not CHROMIUM.exists():
        pytest.skip(
            f"{CHROMIUM} is missing: install Debian's chromium package "
            "(`make test` does it when run as root)"
        )
    return {
        **browser_type_launch_args,
        "executable_path": str(CHROMIUM),
        "args": [
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--disable-quic",
        ],
    }


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args):
    """A wide window: the app's layout is "wide", and the README's screenshots come from here."""
    return {
        **browser_context_args,
        "viewport": {"width": 1400, "height": 900},
        "accept_downloads": True,
    }


@contextmanager
def streamlit_server(log: Path, extra: Sequence[str] = ()) -> Iterator[str]:
    """`streamlit run app.py` on 127.0.0.1 and a free port, with the environment of the
    tests (their workspace folder, FSENGINE_WORKSPACE_DIR); yields its URL once
    /_stcore/health answers (60 s at most) and stops the process by its pid at the end.

    Parameters
    ----------
    log : Path
        Where the server's output goes (shown when it fails to start).
    extra : sequence of str
        More `streamlit run` options.
    """
    port = free_port()
    with open(log, "wb") as out:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "streamlit",
                "run",
                "app.py",
                "--server.headless",
                "true",
                "--server.port",
                str(port),
                "--server.address",
                "127.0.0.1",
                "--browser.gatherUsageStats",
                "false",
                "--server.fileWatcherType",
                "none",
                *extra,
            ],
            cwd=ROOT,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}"
    SERVER_PIDS[url] = process.pid
    try:
        deadline = time.monotonic() + SLOW_SECONDS
        while True:
            if process.poll() is not None:
                raise RuntimeError(
                    f"streamlit exited with {process.returncode}:\n"
                    + log.read_text(errors="replace")
                )
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
                    if response.read().decode().strip() == "ok":
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(
                    f"streamlit did not answer /_stcore/health within {SLOW_SECONDS} s:\n"
                    + log.read_text(errors="replace")
                )
            time.sleep(0.25)
        yield url
    finally:
        SERVER_PIDS.pop(url, None)
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@pytest.fixture(scope="module")
def server(tmp_path_factory, request):
    """`streamlit run app.py` for a test module (:func:`streamlit_server`); a module may
    set ``SERVER_ARGS`` (extra `streamlit run` options, e.g. a lower upload limit)."""
    log = tmp_path_factory.mktemp("streamlit") / "server.log"
    with streamlit_server(log, list(getattr(request.module, "SERVER_ARGS", []))) as url:
        yield url


@dataclass(frozen=True)
class Upload:
    """The CSV the browser uploads and what the app should show for it."""

    path: Path
    minority: str
    n_features: int
    counts: dict[str, int]  # class (as text) -> samples


@pytest.fixture(scope="session")
def upload_csv(tmp_path_factory) -> Upload:
    """A CSV written from a real data set: GLIOMA (../shared/datasets; minority class 2 = CO,
    7 of 50 samples) or, when that folder is missing, the bundled SRBCT (class 2 = BL)."""
    source = DATASETS / "GLIOMA.parquet"
    if not source.exists():
        source = SAMPLE
    frame = pd.read_parquet(source)
    path = tmp_path_factory.mktemp("upload") / f"{source.stem}.csv"
    frame.to_csv(path, index=False)
    counts = frame["label"].astype(str).value_counts().to_dict()
    return Upload(path, "2", frame.shape[1] - 1, counts)


@pytest.fixture(scope="session")
def screenshots() -> Path:
    """Where the browser tests save screenshots (test-artifacts/, not committed)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS
