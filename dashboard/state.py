"""The app's session state: the loaded data set survives reruns and page switches."""

from __future__ import annotations

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


@dataclass(frozen=True)
class LoadedData:
    """What the user loaded: the raw bytes and options (to reload) and the result."""

    name: str
    raw: bytes
    label: str | None
    transpose: bool
    drop_constant: bool
    dataset: Dataset


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
    loaded = LoadedData(name, raw, label, transpose, drop_constant, dataset)
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
    return loaded


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


def run_once(
    store: str,
    key: tuple,
    compute: Callable[[Callable], Any],
    *,
    text: str,
    max_entries: int = 8,
    delay: float = 0.5,
) -> Any:
    """``compute(progress)`` once per key and session; later calls return the kept result.

    Results live in ``st.session_state[store]`` (a dict, at most ``max_entries``, oldest
    dropped first) and ``st.session_state[store + "_computed"]`` counts computations.
    ``progress(done, total, message)`` drives a progress bar, shown once the run has
    taken ``delay`` seconds and redrawn at most ten times a second. Errors (FSEngineError)
    propagate and nothing is kept.
    """
    results = st.session_state.setdefault(store, {})
    if key in results:
        return results[key]
    slot = st.empty()
    start = time.perf_counter()
    last = [0.0]

    def progress(done: int, total: int, message: str) -> None:
        now = time.perf_counter()
        if now - start >= delay and (now - last[0] >= 0.1 or done == total):
            last[0] = now
            slot.progress(min(done / total, 1.0) if total else 1.0, text=f"{text}: {message}")

    try:
        result = compute(progress)
    finally:
        slot.empty()
    results[key] = result
    while len(results) > max_entries:
        results.pop(next(iter(results)))
    st.session_state[store + "_computed"] = st.session_state.get(store + "_computed", 0) + 1
    return result


def run_button(
    label: str,
    store: str,
    key: tuple,
    compute: Callable[[Callable], Any],
    *,
    text: str,
    failure: str,
) -> Any:
    """A primary button running ``compute`` once per key (see :func:`run_once`).

    Returns the result kept for ``key`` (None until it has run); a library error is
    shown in an error box prefixed with ``failure``, and the page goes on.
    """
    if st.button(label, type="primary"):
        try:
            run_once(store, key, compute, text=text)
        except FSEngineError as exc:
            st.error(f"{failure}: {describe(exc)}")
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
        st.warning(text[0].upper() + text[1:] + ".", icon=":material/warning:")
