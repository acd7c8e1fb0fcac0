"""The app's session state: the loaded data set survives reruns and page switches."""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import streamlit as st

from dashboard import messages
from dashboard.messages import describe
from fsengine import Dataset, FSEngineError, load_dataset
from fsengine.evaluation import protocol_warnings

SAMPLE_PATH = Path(__file__).resolve().parent.parent / "sample_data" / "SRBCT.parquet"
#: The sample's class names (sample_data/README.md: Khan et al. 2001).
SAMPLE_CLASS_NAMES = {"0": "EWS", "1": "RMS", "2": "BL", "3": "NB"}


@dataclass(frozen=True)
class LoadedData:
    """What the user loaded: the raw bytes and options (to reload) and the result."""

    name: str
    raw: bytes
    label: str | None
    transpose: bool
    drop_constant: bool
    dataset: Dataset
    #: SHA-256 of ``raw``: the data set's key in the workspace and the report's checksum.
    sha256: str = ""


@st.cache_data(max_entries=4, show_spinner="Reading the data set ...")
def _load(
    raw: bytes, name: str, label: str | None, transpose: bool, drop_constant: bool
) -> Dataset:
    return load_dataset(
        raw, name=name, label=label, transpose=transpose, drop_constant=drop_constant
    )


def load_into_session(
    raw: bytes,
    name: str,
    *,
    label: str | None = None,
    transpose: bool = False,
    drop_constant: bool = False,
) -> LoadedData:
    """Load and validate; on success make it the current data set.

    Raises FSEngineError and leaves the previous data set in place on failure.
    """
    dataset = _load(raw, name, label, transpose, drop_constant)
    loaded = LoadedData(
        name, raw, label, transpose, drop_constant, dataset, hashlib.sha256(raw).hexdigest()
    )
    previous = st.session_state.get("data")
    st.session_state["data"] = loaded
    same_classes = (
        previous is not None
        and previous.raw == raw
        and previous.dataset.label_column == dataset.label_column
    )
    if not same_classes or st.session_state.get("minority") not in dataset.class_counts():
        # A new data set (or a new label column): the smallest class, never the last choice.
        st.session_state["minority"] = dataset.default_minority()
    if not same_classes:
        sample = name == SAMPLE_PATH.name and raw == _sample_bytes()
        st.session_state["class_names"] = dict(SAMPLE_CLASS_NAMES) if sample else {}
    return loaded


def _sample_bytes() -> bytes:
    try:
        return SAMPLE_PATH.read_bytes()
    except OSError:
        return b""


def class_text(label) -> str:
    """A class as the pages show it: "2 (BL)" when the user named it, else "2"."""
    name = st.session_state.get("class_names", {}).get(str(label))
    return f"{label} ({name})" if name and name != str(label) else str(label)


def current() -> LoadedData:
    """The current data set; the bundled sample is loaded on first use."""
    if "data" not in st.session_state:
        try:
            load_into_session(SAMPLE_PATH.read_bytes(), SAMPLE_PATH.name)
        except (OSError, FSEngineError) as exc:
            st.error(f"The bundled sample data set could not be loaded: {messages.describe(exc)}")
            st.stop()
    return st.session_state["data"]


def restore_widgets(store: str, defaults: dict) -> None:
    """Set every widget (by key) to its remembered value before the widgets are drawn.

    Pair with ``on_change=remember(store, key)`` on each widget: the callback runs
    before the script, so a fresh change is what gets restored. This survives page
    switches and widgets that are only drawn sometimes (another method's parameters).
    """
    saved = st.session_state.setdefault(store, {})
    for key, default in defaults.items():
        st.session_state[key] = saved.get(key, default)


def remember(store: str, key: str):
    """An ``on_change`` callback keeping widget ``key``'s new value under ``store``."""

    def callback():
        st.session_state.setdefault(store, {})[key] = st.session_state[key]

    return callback


def persisted(store: str, key: str) -> dict:
    """Widget keywords: ``key`` and the ``on_change`` callback that remembers its value."""
    return {"key": key, "on_change": remember(store, key)}


def set_widget(store: str, key: str, value) -> None:
    """Change a remembered widget's value from the page's code (before it is drawn)."""
    st.session_state[key] = value
    st.session_state.setdefault(store, {})[key] = value


def run_key(*params) -> tuple:
    """Cache key of a run on the current data set (name, size, how it was read, label
    column and minority class) followed by the run's own parameters."""
    loaded = current()
    return (
        loaded.name,
        loaded.dataset.n_samples,
        loaded.dataset.n_features,
        loaded.transpose,
        loaded.drop_constant,
        loaded.dataset.label_column,
        st.session_state["minority"],
        *params,
    )


def current_results(store: str) -> list:
    """The results kept in ``store`` that were computed on the current data set and
    minority class (their keys start with :func:`run_key`)."""
    prefix = run_key()
    return [
        result
        for key, result in st.session_state.get(store, {}).items()
        if tuple(key[: len(prefix)]) == prefix
    ]


def run_once(
    store: str,
    key: tuple,
    compute: Callable[[Callable], Any],
    *,
    text: str,
    kind: str | None = None,
    title: str = "",
    widgets: str | None = None,
    max_entries: int = 8,
    delay: float = 0.5,
) -> Any:
    """``compute(progress)`` once per key and session; later calls return the kept result.

    Results live in ``st.session_state[store]`` (a dict, at most ``max_entries``, oldest
    dropped first) and ``st.session_state[store + "_computed"]`` counts computations.
    ``progress(done, total, message)`` drives a progress bar and a Cancel button, shown
    once the run has taken ``delay`` seconds and redrawn at most ten times a second.
    Errors (FSEngineError) propagate and nothing is kept.

    Cancel, Streamlit's Stop, a closed tab or any other widget pressed meanwhile ends the
    run at its next progress report (Streamlit raises there). Nothing of it is kept or
    shown as finished, and :func:`stopped_message` then says how far it got. After Stop,
    every Streamlit call raises again, ``st.session_state`` included: the stopped path
    only touches objects fetched before the run.

    With ``kind``, the run is recorded in the workspace (:mod:`dashboard.persistence`):
    running, then finished with its result, parameters and time, or stopped. ``widgets``
    names the page's store of widget values, kept with the run so that reopening it
    restores the page's settings.
    """
    from dashboard import persistence

    results = st.session_state.setdefault(store, {})
    if key in results:
        return results[key]
    status = _run_status(store)
    status.pop("stopped", None)
    status["running"] = threading.get_ident()
    bar_slot, cancel_slot = st.empty(), st.empty()
    start = time.perf_counter()
    last = [0.0]
    reached = [""]
    params = {
        "key": key,
        "minority": st.session_state.get("minority"),
        "widgets": dict(st.session_state.get(widgets, {})) if widgets else {},
    }
    found = persistence.store() if kind else None
    run_id = persistence.start_run(kind, title or text, params) if kind else None

    def progress(done: int, total: int, message: str) -> None:
        now = time.perf_counter()
        reached[0] = f"{done} of {total} ({message})"
        if now - start >= delay and (now - last[0] >= 0.1 or done == total):
            if not last[0]:
                cancel_slot.button(
                    "Cancel",
                    key=f"{store}_cancel",
                    icon=":material/stop_circle:",
                    help="Stop this run; nothing of it is kept.",
                )
            last[0] = now
            bar_slot.progress(min(done / total, 1.0) if total else 1.0, text=f"{text}: {message}")

    try:
        result = compute(progress)
    except BaseException as exc:
        seconds = time.perf_counter() - start
        if run_id is not None and found is not None:
            persistence.stop_run(run_id, None, seconds, found=found)
        if not isinstance(exc, FSEngineError):
            status["stopped"] = (
                f"{text} was stopped after {seconds:.0f} s"
                + (f", at {reached[0]}" if reached[0] else "")
                + "; nothing of it is kept. Press the button to run it again."
            )
        status.pop("running", None)
        try:
            bar_slot.empty()
            cancel_slot.empty()
        except BaseException:  # noqa: BLE001 - after Stop, Streamlit refuses further output
            pass
        raise
    # Keep the finished result before drawing anything: Stop (or a closed tab) raises at
    # the next Streamlit call, and a complete result must not be lost there.
    seconds = time.perf_counter() - start
    if run_id is not None:
        persistence.finish_run(
            run_id,
            {**params, "result": persistence.encode(result)},
            seconds,
        )
    results[key] = result
    status.pop("running", None)
    while len(results) > max_entries:
        results.pop(next(iter(results)))
    st.session_state[store + "_computed"] = st.session_state.get(store + "_computed", 0) + 1
    bar_slot.empty()
    cancel_slot.empty()
    return result


def _run_status(store: str, wait_seconds: float = 30.0) -> dict:
    """The state of ``store``'s runs: "running" (the thread computing one), "stopped" (the
    message of the last interrupted one).

    A press during a run starts a new script run at once while Streamlit stops the old one
    at its next Streamlit call (``runner.fastReruns``), so the old run may still be
    computing here. Wait for it to end (at most ``wait_seconds``, with a spinner), so the
    page shows it stopped rather than nothing.
    """
    status = st.session_state.setdefault(store + "_status", {})
    if status.get("running") not in (None, threading.get_ident()):
        deadline = time.monotonic() + wait_seconds
        with st.spinner("Stopping the run in progress ..."):
            while status.get("running") is not None and time.monotonic() < deadline:
                time.sleep(0.05)
    return status


def stopped_message(store: str) -> str | None:
    """What the last interrupted run of ``store`` had reached, if it was stopped."""
    return _run_status(store).get("stopped")


def run_button(
    label: str,
    store: str,
    key: tuple,
    compute: Callable[[Callable], Any],
    *,
    text: str,
    failure: str,
    kind: str | None = None,
    title: str = "",
    widgets: str | None = None,
) -> Any:
    """A primary button running ``compute`` once per key (see :func:`run_once`).

    Returns the result kept for ``key`` (None until it has run); a library error is
    shown in an error box prefixed with ``failure``, and the page goes on. A run
    stopped before it finished is said so (no frozen progress bar is left behind).
    """
    if st.button(label, type="primary"):
        try:
            run_once(store, key, compute, text=text, kind=kind, title=title, widgets=widgets)
        except FSEngineError as exc:
            st.error(f"{failure}: {describe(exc)}")
    stopped = stopped_message(store)
    if stopped and key not in st.session_state.get(store, {}):
        st.warning(stopped, icon=":material/stop_circle:")
    return st.session_state.get(store, {}).get(key)


def show_protocol_warnings(
    methods=None, params: dict | None = None, n_splits: int | None = None
) -> None:
    """Warn (one box each) when the minority class is too small for the 50/50 protocol
    or for a method's parameters on a training half (:func:`protocol_warnings`).

    Parameters
    ----------
    methods, params : optional
        The methods about to run and their parameters; default: the Stream page's
        selector with the parameters last set there.
    n_splits : int, optional
    """
    from dashboard.widgets import last_set  # widgets imports this module

    loaded = current()
    if methods is None:
        method = st.session_state.get("stream_widgets", {}).get("stream_method", "kofsd")
        methods, params = [method], {method: last_set(method)}
    try:
        y = loaded.dataset.binarise(st.session_state["minority"])
    except FSEngineError as exc:
        st.error(describe(exc))
        return
    for text in protocol_warnings(y, methods, params, n_splits):
        # a sentence may begin with a method's name ("kofsd on ..."): keep its spelling
        first = text.split(" ", 1)[0]
        if first not in methods:
            text = text[0].upper() + text[1:]
        st.warning(text + ".", icon=":material/warning:")
