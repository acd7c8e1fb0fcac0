"""Running work on a page: a computation run once per key with a progress bar and a
Cancel button, recorded in the workspace (:mod:`dashboard.persistence`), and the protocol
warnings shown before a run."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import streamlit as st

from dashboard import persistence
from dashboard.messages import describe
from dashboard.pages import BY_NAME
from dashboard.session import class_text, current, current_task, task_key, widget_store
from dashboard.widgets import last_set
from fsengine import FSEngineError
from fsengine.evaluation import protocol_refusal, protocol_warnings, stratified_splits
from fsengine.evaluation.group_splits import plan_group_splits
from fsengine.methods import METHOD_LABELS
from fsengine.preprocess import counts_warning, parametric_rankers, raw_counts_zeros


def run_once(
    store: str,
    key: tuple,
    compute: Callable[[Callable], Any],
    *,
    text: str,
    kind: str | None = None,
    title: str = "",
    widgets: str | None = None,
    datasets: str | None = None,
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
    restores the page's settings; ``datasets`` names the data sets of a run over several
    (see :func:`dashboard.persistence.start_run`).

    One click is one run in History: a run the library refuses (FSEngineError) leaves no
    record, and a run stopped because the same run was asked for again (a double click)
    is replaced by the new one.
    """
    results = st.session_state.setdefault(store, {})
    if key in results:
        return results[key]
    status = _run_status(store)
    status.pop("stopped", None)
    superseded = status.pop("stopped_run", None)
    if superseded is not None and superseded[0] == key:
        persistence.delete_run(superseded[1])
    status["running"] = threading.get_ident()
    bar_slot, cancel_slot = st.empty(), st.empty()
    start = time.perf_counter()
    last = [0.0]
    reached = [""]
    params = {
        "key": key,
        # how the data were read (sheet, preprocessing, groups): History reads it back
        "dataset": current().options,
        "minority": st.session_state.get("minority"),
        "widgets": dict(st.session_state.get(widgets, {})) if widgets else {},
    }
    found = persistence.store() if kind else None
    wid = persistence.workspace_id()
    run_id = persistence.start_run(kind, title or text, params, datasets) if kind else None

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
            if isinstance(exc, FSEngineError):  # refused: a message, not a run
                persistence.delete_run(run_id, found=found, wid=wid)
            else:
                persistence.stop_run(run_id, None, seconds, found=found)
                status["stopped_run"] = (key, run_id)
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
    datasets: str | None = None,
    refusal: str | None = None,
) -> Any:
    """A primary button running ``compute`` once per key (see :func:`run_once`).

    Returns the result kept for ``key`` (None until it has run); a library error is
    shown in an error box prefixed with ``failure``, and the page goes on. A run
    stopped before it finished is said so (no frozen progress bar is left behind).
    With ``refusal`` (why the run would be refused, a sentence), the button is disabled
    and the reason shown beside it.
    """
    if refusal:
        left, right = st.columns([1, 3], vertical_alignment="center")
        left.button(label, type="primary", disabled=True, help=refusal)
        right.caption(f":material/block: {refusal}")
    elif not st.button(label, type="primary"):
        # a run stopped by anything but the same button pressed again (Cancel, another
        # widget) stays in History: only an immediate second press replaces it
        _run_status(store).pop("stopped_run", None)
    else:
        try:
            run_once(
                store,
                key,
                compute,
                text=text,
                kind=kind,
                title=title,
                widgets=widgets,
                datasets=datasets,
            )
        except FSEngineError as exc:
            st.error(f"{failure}: {describe(exc)}")
    stopped = stopped_message(store)
    if stopped and key not in st.session_state.get(store, {}):
        st.warning(stopped, icon=":material/stop_circle:")
    return st.session_state.get(store, {}).get(key)


def sentence(text: str) -> str:
    """``text`` as a sentence: a capital first letter, or a leading method id spelled as
    its label ("kofsd on a training half ..." -> "K-OFSD on a training half ..."), and a
    full stop."""
    text = text.strip()
    first, _, rest = text.partition(" ")
    if first in METHOD_LABELS:
        text = f"{METHOD_LABELS[first]} {rest}".strip()
    elif text:
        text = text[0].upper() + text[1:]
    return text if text.endswith((".", "!", "?")) else text + "."


def _default_class_advice(n_minority: int) -> str:
    """ "The default class, 2 (11 samples), can be used." when it is larger than the
    chosen one, else ""."""
    dataset = current().dataset
    default, counts = dataset.default_minority(), dataset.class_counts()
    if counts[default] > n_minority:
        named = f"{class_text(default)} ({counts[default]} samples)"
        return f" The default class, {named}, can be used."
    return ""


#: The Compare page's protocol until its widgets are changed: splits, seed.
COMPARE_SPLITS, COMPARE_SEED = 20, 0


def compare_protocol() -> tuple[int, int]:
    """The splits and seed the Compare page will use: its remembered widgets' values for
    the current task, else :data:`COMPARE_SPLITS` and :data:`COMPARE_SEED`."""
    saved = widget_store(BY_NAME["compare"].widgets)
    return int(saved.get("compare_splits", COMPARE_SPLITS)), int(
        saved.get("compare_seed", COMPARE_SEED)
    )


def refusal(
    protocol: bool = True, n_splits: int | None = None, seed: int | None = None
) -> str | None:
    """Why a run on the current task would be refused, in sentences; None when it can run.

    Parameters
    ----------
    protocol : bool
        The run splits the data 50/50 (Compare, Sweep): a minority class too small to
        split is refused (:func:`fsengine.evaluation.protocol_refusal`), and so are sample
        groups that leave a drawn half too few minority samples
        (:func:`fsengine.evaluation.stratified_splits`). Else only the label rule applies
        (a class with too few samples, or every sample).
    n_splits, seed : int, optional
        The protocol whose splits the groups are checked on (the page's); default: the
        Compare page's (:func:`compare_protocol`).

    Kept per task and protocol (the pages ask on every rerun, several times).
    """
    if n_splits is None or seed is None:
        n_splits, seed = compare_protocol()
    names = tuple(sorted(st.session_state.get("class_names", {}).items()))
    key = (task_key(), protocol, names, int(n_splits), int(seed))
    kept = st.session_state.setdefault("_refusals", {})
    if key not in kept:
        kept[key] = _refusal(protocol, int(n_splits), int(seed))
    return kept[key]


def _refusal(protocol: bool, n_splits: int, seed: int) -> str | None:
    try:
        task = current_task()
    except FSEngineError as exc:
        return sentence(describe(exc))
    y = task.y
    problem = protocol_refusal(y) if protocol else None
    if problem is None and protocol and task.groups is not None:
        try:  # groups that leave a half too few minority samples: the library's refusal
            stratified_splits(y, n_splits, seed, task.groups)
        except FSEngineError as exc:
            return sentence(describe(exc))
    if problem is None:
        return None
    return sentence(describe(problem)) + _default_class_advice(int(y.sum()))


def group_splits_text() -> str:
    """ "; they allow 66 distinct splits" for the current task's sample groups
    (:func:`fsengine.evaluation.group_splits.plan_group_splits`), "" without groups or
    when they are refused (the refusal says why)."""
    try:
        task = current_task()
        if task.groups is None:
            return ""
        return f"; they allow {plan_group_splits(task.y, task.groups).count_text}"
    except FSEngineError:
        return ""


def show_counts_warning(methods) -> None:
    """Warn (one box) when rankers that assume normalised values are among ``methods``
    and the current data look like raw counts (:func:`fsengine.preprocess.counts_warning`);
    the data are scanned once per data set."""
    if not [m for m in methods if m in parametric_rankers()]:
        return
    try:
        task = current_task()
    except FSEngineError:
        return  # the refusal says it
    kept = st.session_state.setdefault("_raw_counts_zeros", {})
    key = task_key()
    if key not in kept:
        kept.clear()
        kept[key] = raw_counts_zeros(task.X)
    text = counts_warning(None, methods, kept[key], METHOD_LABELS)
    if text:
        st.warning(
            sentence(text + " (the Data page's Preprocessing box)"), icon=":material/warning:"
        )


def show_protocol_warnings(
    methods=None, params: dict | None = None, n_splits: int | None = None, seed: int | None = None
) -> None:
    """Warn (one box each) when a method's parameters do not suit a training half
    (:func:`protocol_warnings`), and note when the test halves hold few minority samples.
    A minority class too small for the protocol is not warned about here: the run
    buttons say it (:func:`refusal`).

    Parameters
    ----------
    methods, params : optional
        The methods about to run and their parameters; default: the Stream page's
        selector with the parameters last set there.
    n_splits, seed : int, optional
        The page's protocol (with sample groups the drawn halves depend on it); default:
        the Compare page's (:func:`compare_protocol`).
    """
    if methods is None:
        method = widget_store(BY_NAME["stream"].widgets).get("stream_method", "kofsd")
        methods, params = [method], {method: last_set(method)}
    if n_splits is None or seed is None:
        n_splits, seed = compare_protocol()
    try:
        task = current_task()
    except FSEngineError:
        return  # the refusal says it
    if refusal(True, n_splits, seed) is not None:
        return  # the run buttons say why
    for text in protocol_warnings(task.y, methods, params, n_splits, groups=task.groups, seed=seed):
        if text.startswith("a test half holds only"):
            st.info(sentence(text), icon=":material/info:")
        else:
            st.warning(sentence(text), icon=":material/warning:")
