"""A progress bar on standard error for long command-line runs (quiet when not a terminal)."""

from __future__ import annotations

import sys
import time
from typing import TextIO


def terminal_progress(stream: TextIO | None = None, width: int = 30):
    """A ``progress(done, total, message)`` callback drawing a bar on ``stream``.

    Returns None when ``stream`` (default: standard error) is not a terminal, so that
    logs and pipes stay clean.
    """
    stream = sys.stderr if stream is None else stream
    if not getattr(stream, "isatty", lambda: False)():
        return None
    start = time.perf_counter()

    def progress(done: int, total: int, message: str) -> None:
        filled = int(width * done / total) if total else width
        elapsed = time.perf_counter() - start
        stream.write(
            f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} "
            f"{elapsed:5.1f} s  {message[:40]:<40}"
        )
        if done >= total:
            stream.write("\n")
        stream.flush()

    return progress


def logged_progress(stream: TextIO | None = None, every: float = 30.0):
    """A ``progress(done, total, message)`` callback writing one line at most every
    ``every`` seconds, and at the end, to ``stream`` (default: standard error): for long
    runs whose output goes to a log rather than a terminal.

    Returns
    -------
    callable
    """
    stream = sys.stderr if stream is None else stream
    last = [time.monotonic()]

    def progress(done: int, total: int, message: str) -> None:
        now = time.monotonic()
        if done >= total or now - last[0] >= every:
            last[0] = now
            stream.write(f"fsengine: {done}/{total} tasks done, {message}\n")
            stream.flush()

    return progress
