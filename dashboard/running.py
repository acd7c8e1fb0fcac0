"""Running work on a page: a computation run once per key with a progress bar and a
Cancel button from its start, said before it starts how long it will take (and asked to
confirm when long), recorded in the workspace (:mod:`dashboard.persistence`), and the
protocol warnings shown before a run."""

from __future__ import annotations

import os
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import streamlit as st
from streamlit.runtime import Runtime
from streamlit.runtime.scriptrunner import add_script_run_ctx, get_script_run_ctx
from streamlit.runtime.scriptrunner_utils.exceptions import ScriptControlException

from dashboard import persistence, reruns
from dashboard.messages import describe
from dashboard.pages import BY_NAME
from dashboard.run_queue import RUNS
from dashboard.session import (
    class_text,
    current,
    current_task,
    pin_task,
    state,
    stored_run_key,
    task_key,
    widget_store,
)
from dashboard.widgets import last_set
from fsengine import FSEngineError
from fsengine.data.preprocess import counts_warning, parametric_rankers, raw_counts_zeros
from fsengine.evaluation import protocol_refusal, protocol_warnings, stratified_splits
from fsengine.evaluation.group_splits import plan_group_splits
from fsengine.io.base import size_text
from fsengine.methods import Cancellation, RunCancelled, cancellable
from fsengine.methods.estimates import Estimate, density_of, duration_text, is_counts
from fsengine.methods.rankers import RANKER_SPECS
from fsengine.methods.registry import METHOD_LABELS


@dataclass
class ActiveRun:
    """A run computing in this server process (:func:`run_once`).

    Attributes
    ----------
    run_id : int or None
        Its record in the workspace (None when nothing is saved).
    workspace : str or None
        The workspace it belongs to.
    session : str or None
        The Streamlit session that started it.
    store : str
        The page's result store.
    title : str
    token : Cancellation
        Cancels it (its Cancel button, History's, a closed tab).
    started : float
        ``time.monotonic()`` at its start.
    reached : tuple
        (done, total, message) of its last progress report.
    ahead : int
        The runs of the server ahead of it in the queue for a slot
        (:data:`dashboard.run_queue.RUNS`); 0 once it computes.
    key : tuple
        The page's key of its result.
    text : str
        What its progress bar says before the progress.
    serial : int
        Its number in this process.
    ended : threading.Event
        Set once its thread has kept or recorded its end.
    """

    run_id: int | None
    workspace: str | None
    session: str | None
    store: str
    title: str
    token: Cancellation
    started: float
    reached: tuple = (0, 0, "starting")
    ahead: int = 0
    key: tuple = ()
    text: str = ""
    serial: int = 0
    ended: threading.Event = field(default_factory=threading.Event)

    def reached_text(self) -> str:
        """ "40 of 300 (split 3/20 kofsd)", or "no step ended yet"."""
        done, total, message = self.reached
        return f"{done} of {total} ({message})" if total else "no step ended yet"


#: The runs computing in this process, by a serial number (History cancels them).
_ACTIVE: dict[int, ActiveRun] = {}
_ACTIVE_LOCK = threading.Lock()
_SERIAL = iter(range(1, 2**62))
#: Seconds between two writes of a running run's progress to its record.
REACHED_SECONDS = 2.0
#: Seconds between two checks that a run's session is still connected (a closed tab
#: cancels its run).
SESSION_CHECK_SECONDS = 0.5
#: Seconds between two redraws of a running run's progress bar (each is also where
#: Streamlit ends the script run: another widget or page, Stop, a closed tab).
POLL_SECONDS = 0.2


def active_runs(workspace: str | None, store: str | None = None) -> list[ActiveRun]:
    """The runs of ``workspace`` computing in this process (of the page ``store`` if
    given), oldest first."""
    with _ACTIVE_LOCK:
        return [
            run
            for run in _ACTIVE.values()
            if run.workspace == workspace and (store is None or run.store == store)
        ]


def cancel_run(run_id: int, workspace: str | None) -> bool:
    """Cancel the workspace's run ``run_id``: ends its computation and its worker processes
    (its thread then records it stopped). A "running" record that no run of
    this process computes is marked stopped. Returns whether a computing run was found."""
    with _ACTIVE_LOCK:
        found = [r for r in _ACTIVE.values() if r.run_id == run_id and r.workspace == workspace]
    for run in found:
        run.token.cancel()
    if not found:
        persistence.stop_run(run_id)
    return bool(found)


@reruns.whole
def cancel_and_wait(run_id: int, workspace: str | None, wait_seconds: float = 30.0) -> None:
    """:func:`cancel_run`, then wait (at most ``wait_seconds``) until its thread has
    recorded it as stopped: a button's callback, so that the page drawn next shows it."""
    cancel_run(run_id, workspace)
    deadline = time.monotonic() + wait_seconds
    while any(r.run_id == run_id for r in active_runs(workspace)):
        if time.monotonic() > deadline:
            break
        time.sleep(0.05)


def _waiting_text(ahead: int) -> str:
    """What a queued run's bar says: "waiting for a free slot: 2 runs of this server
    ahead (1 computes at a time)"."""
    limit = RUNS.limit
    return (
        f"waiting for a free slot: {ahead} run{'s' if ahead != 1 else ''} of this server "
        f"ahead ({limit} compute{'s' if limit == 1 else ''} at a time; Cancel leaves the "
        "queue)"
    )


def _time_left(active: ActiveRun, estimate: Estimate | None) -> str:
    """ "about 3 min left": from the progress so far once a step has ended, else from
    the estimate ("" without either)."""
    elapsed = time.monotonic() - active.started
    done, total, _ = active.reached
    if total and done:
        left = elapsed * (total - done) / done
    elif estimate is not None:
        left = max(0.0, estimate.seconds - elapsed)
        if left <= 0:
            return "longer than estimated"
    else:
        return ""
    return f"about {duration_text(left)} left"


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
    estimate: Estimate | None = None,
    started: Callable[[], None] | None = None,
) -> Any:
    """``compute(progress)`` once per key and session; later calls return the kept result.

    Results live in ``st.session_state[store]`` (a dict, at most ``max_entries``, oldest
    dropped first) and ``st.session_state[store + "_computed"]`` counts computations.
    ``compute`` runs in a thread of its own under a :class:`fsengine._compute.parallel.Cancellation`
    (the library's worker processes are killed when it is cancelled) and waits for a slot
    of the server's queue (:data:`dashboard.run_queue.RUNS`). The thread ends the run
    itself (keeps the result, records it), so the run does not depend on this page: this
    script run follows it (:func:`follow_run`) with a progress bar and a Cancel button,
    redrawn every :data:`POLL_SECONDS`, until it ends. ``progress(done, total, message)``
    sets what the bar says, with the time left (from ``estimate`` until a step has ended).
    A library error (FSEngineError) is raised here and nothing is kept.

    Another page opened, another widget pressed or Streamlit's Stop ends this script
    run, not the run: the page, shown again, follows it, and a run that ended meanwhile
    is shown ended (its result, or why it stopped); History shows it too. The run
    computes on the task of its start (:func:`dashboard.session.pin_task`), whatever the
    session moves to. It is stopped, nothing of it kept or shown as finished and
    :func:`stopped_message` saying how far it got, by its Cancel button, History's, or
    its session's end (a closed tab: checked every :data:`SESSION_CHECK_SECONDS`).

    With ``kind``, the run is recorded in the workspace (:mod:`dashboard.persistence`):
    running (with how far it got, every :data:`REACHED_SECONDS`), then finished with its
    result, parameters and time, or stopped. ``widgets`` names the page's store of
    widget values, kept with the run so that reopening it restores the page's settings;
    ``datasets`` names the data sets of a run over several (see
    :func:`dashboard.persistence.start_run`).

    One click is one run in History: a run the library refuses (FSEngineError) leaves no
    record, and the same run asked for again while it computes (a double click) is
    followed, not started again. Asked for with other settings while it computes, the
    earlier run is stopped first (one run per page and session at a time). Another
    click cannot end the script run between the run's record and its start.
    ``started()``, if given, is called as the run starts (in the same block), or its
    result is found kept (a button's press done: :func:`dashboard.reruns.done`).
    """
    results = state.results(store)
    own = own_run(store)  # first: a run ending now leaves its result before it leaves
    if own is None and key in results:
        if started is not None:
            started()
        return results[key]
    status = _run_status(store)
    if own is not None and own.key != key:
        own.token.cancel()
        with st.spinner("Stopping the run with the earlier settings ..."):
            own.ended.wait(30.0)
        own = None
    with reruns.uninterrupted():  # recorded, started and kept whole
        if started is not None:
            started()
        if own is None:
            status.pop("stopped", None)
            status.pop("error", None)
            own = _start(
                store,
                key,
                compute,
                results,
                status,
                text,
                kind,
                title,
                widgets,
                datasets,
                max_entries,
            )
    follow_run(own, estimate)
    return results.get(key)


def _count_computed(store: str) -> None:
    """``st.session_state[store + "_computed"]``: the computations the page's runs ended
    (counted by their threads in the page's status)."""
    computed = _run_status(store).get("computed")
    if computed:
        st.session_state[store + "_computed"] = computed


def _start(
    store: str,
    key: tuple,
    compute: Callable[[Callable], Any],
    results: dict,
    status: dict,
    text: str,
    kind: str | None,
    title: str,
    widgets: str | None,
    datasets: str | None,
    max_entries: int,
) -> ActiveRun:
    """Record the run, start its thread and return it (see :func:`run_once`; ``results``
    and ``status`` are the page's store and :func:`_run_status`)."""
    params = {
        "key": stored_run_key(key),
        # how the data were read (sheet, preprocessing, groups): History reads it back
        "dataset": current().options,
        "minority": state.minority,
        "widgets": dict(st.session_state.get(widgets, {})) if widgets else {},
    }
    found = persistence.store() if kind else None
    wid = persistence.workspace_id()
    run_id = persistence.start_run(kind, title or text, params, datasets) if kind else None
    ctx = get_script_run_ctx()
    session_id = ctx.session_id if ctx is not None else None
    try:  # the task as it is now: the session may move to another one while it runs
        task = current_task()
    except FSEngineError:
        task = None
    serial = next(_SERIAL)
    active = ActiveRun(
        run_id,
        wid,
        _session_of(ctx),
        store,
        title or text,
        Cancellation(),
        time.monotonic(),
        key=key,
        text=text,
        serial=serial,
    )
    noted = [time.monotonic()]

    def progress(done: int, total: int, message: str) -> None:
        active.token.check()
        active.reached = (done, total, message)
        if found is not None and time.monotonic() - noted[0] >= REACHED_SECONDS:
            noted[0] = time.monotonic()
            _note_reached(found, run_id, active)

    def wait_behind(ahead: int) -> None:
        active.ahead = ahead

    def watch_session() -> None:  # a closed tab (its session ended) cancels the run
        while not active.ended.wait(SESSION_CHECK_SECONDS):
            if not _session_alive(session_id):
                active.token.cancel()
                return

    def work() -> None:
        pin_task(task)
        threading.Thread(target=watch_session, name=f"fsengine-watch-{serial}", daemon=True).start()
        try:
            with RUNS.slot(active.token, wait_behind):
                active.started = time.monotonic()  # its time: from when it computes
                with cancellable(active.token):
                    result = compute(progress)
            active.token.check()  # cancelled as it returned: stopped all the same
        except BaseException as exc:  # noqa: BLE001 - the run ends here, on its thread
            _end_stopped(active, exc, found, status)
        else:
            _end_finished(active, result, params, results, status, found, max_entries)
        finally:
            with _ACTIVE_LOCK:
                _ACTIVE.pop(serial, None)
            active.ended.set()

    with _ACTIVE_LOCK:
        _ACTIVE[serial] = active
    worker = threading.Thread(target=work, name=f"fsengine-run-{serial}", daemon=True)
    add_script_run_ctx(worker, ctx)  # compute may read the session
    worker.start()
    return active


def _session_alive(session_id: str | None) -> bool:
    """Whether the Streamlit session ``session_id`` is still connected (True outside a
    server: AppTest has no runtime)."""
    if session_id is None or not Runtime.exists():
        return True
    return Runtime.instance().is_active_session(session_id)


def _end_finished(
    active: ActiveRun,
    result: Any,
    params: dict,
    results: dict,
    status: dict,
    found,
    max_entries: int,
) -> None:
    """A run's thread at its end: record and keep the result, and count it in the page's
    status (nothing here calls Streamlit: the session may have no script run, or none)."""
    seconds = time.monotonic() - active.started
    if active.run_id is not None and found is not None:
        payload = {**params, "result": persistence.encode(result)}
        if not persistence.finish_run(active.run_id, payload, seconds, found=found):
            status["problem"] = "its result could not be saved in the workspace"
    results[active.key] = result
    while len(results) > max_entries:
        results.pop(next(iter(results)))
    status["computed"] = status.get("computed", 0) + 1


def _end_stopped(active: ActiveRun, exc: BaseException, found, status: dict) -> None:
    """A run's thread when it did not finish: a refused run (FSEngineError) leaves no
    record and its error for the page; any other end is recorded stopped with how far it
    got, and its message kept for the page (an unexpected error also raised there)."""
    active.token.cancel()  # kills the run's worker processes
    seconds = time.monotonic() - active.started
    refused = isinstance(exc, FSEngineError)
    if active.run_id is not None and found is not None:
        if refused:
            persistence.delete_run(active.run_id, found=found, wid=active.workspace)
        else:
            _note_reached(found, active.run_id, active, final=True)
            persistence.stop_run(active.run_id, None, seconds, found=found)
    if refused or not isinstance(exc, (RunCancelled, ScriptControlException)):
        status["error"] = (active.key, exc.with_traceback(None) if refused else exc)
    if not refused:
        reached = active.reached_text() if active.reached[1] else ""
        status["stopped"] = (
            f"{active.text} was stopped after {duration_text(seconds)}"
            + (f", at {reached}" if reached else "")
            + "; nothing of it is kept. Press the button to run it again."
        )


#: Session key: an identity of the session, drawn once (AppTest gives every session the
#: same id, and a session's state object is made again for each script run).
_SESSION_MARK = "_running_session"


def _session_of(ctx) -> str | None:
    """The session of a script run (None outside one)."""
    if ctx is None:
        return None
    return st.session_state.setdefault(_SESSION_MARK, f"{ctx.session_id}:{uuid.uuid4().hex}")


def own_run(store: str) -> ActiveRun | None:
    """This session's run of the page ``store`` still computing, if any."""
    ctx = get_script_run_ctx()
    mine = _session_of(ctx)
    with _ACTIVE_LOCK:
        found = [r for r in _ACTIVE.values() if r.session == mine and r.store == store]
    return found[-1] if found else None


def follow_run(active: ActiveRun, estimate: Estimate | None = None) -> None:
    """Show ``active``'s progress (a bar and a Cancel button) until it ends, then raise
    its error if it had one (:func:`run_once`).

    Another widget or page or Streamlit's Stop ends this script run here (Streamlit
    raises at the next redraw: with its fast reruns, a page link stops the script as
    Stop does) and the run goes on; its Cancel button, History's or a closed tab ends it.
    """
    bar_slot, cancel_slot = st.empty(), st.empty()
    cancel_slot.button(
        "Cancel",
        key=f"{active.store}_cancel",
        icon=":material/stop_circle:",
        help="Stop this run now; nothing of it is kept.",
        on_click=active.token.cancel,
    )
    while not active.ended.wait(POLL_SECONDS):
        done, total, message = active.reached
        if active.ahead:
            bar_slot.progress(0.0, text=f"{active.text}: {_waiting_text(active.ahead)}")
        else:
            left = _time_left(active, estimate)
            elapsed = duration_text(time.monotonic() - active.started)
            bar_slot.progress(  # Streamlit ends the script run here when asked to
                min(done / total, 1.0) if total else 0.0,
                text=f"{active.text}: {message} ({elapsed}" + (f", {left}" if left else "") + ")",
            )
    bar_slot.empty()
    cancel_slot.empty()
    _count_computed(active.store)
    problem = _run_status(active.store).pop("problem", None)
    if problem:
        st.warning(f"{active.text}: {problem}.", icon=":material/warning:")
    error = _run_status(active.store).get("error")
    if error is not None and error[0] == active.key:
        _run_status(active.store).pop("error")
        raise error[1]


def _note_reached(found, run_id: int | None, active: ActiveRun, final: bool = False) -> None:
    """Write how far a running run got to its record (History shows it, also after the
    server is gone); ``final`` (it stops): also when no step had ended."""
    if run_id is None:
        return
    reached = active.reached_text()
    if final and not active.reached[1]:
        reached = "before its first step ended"
    try:
        found.note_reached(run_id, reached)
    except Exception:  # noqa: BLE001 - only a note; the run goes on
        pass


def _run_status(store: str) -> dict:
    """The state of ``store``'s runs in this session, written by the runs' threads:
    "stopped" (the message of the last one that did not finish), "error" (its key and
    the exception no page has shown yet), "computed" (how many finished), "problem" (a
    result that could not be saved)."""
    return state.run_status(store)


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
    estimate: Estimate | None = None,
) -> Any:
    """A primary button running ``compute`` once per key (see :func:`run_once`).

    Returns the result kept for ``key`` (None until it has run); a library error is
    shown in an error box prefixed with ``failure``, and the page goes on. A run
    stopped before it finished is said so (no frozen progress bar is left behind).
    With ``refusal`` (why the run would be refused, a sentence), the button is disabled
    and the reason shown beside it. With ``estimate`` (:mod:`fsengine.methods.estimates`), the
    time it will take is said beside the button, and a long run
    (:attr:`Estimate.long`) is started only once confirmed ("Run anyway"). A run of
    this page that computes in another session of the workspace (another tab) is shown
    with its progress and a Cancel button; a run of this session that computes (started
    before the page was left, or before another widget was pressed) is followed to its
    end.
    """
    confirm_key = store + "_confirm"
    if refusal:
        left, right = st.columns([1, 3], vertical_alignment="center")
        reruns.lasting_button(  # (drops a press kept from before the refusal)
            label,
            key=store + "_run",
            scope=key,
            container=left,
            type="primary",
            disabled=True,
            help=refusal,
        )
        right.caption(f":material/block: {refusal}")
        pressed = False
    else:
        left, right = st.columns([1, 3], vertical_alignment="center")
        pressed = reruns.lasting_button(  # not lost to a page link clicked at once
            label, key=store + "_run", scope=key, container=left, type="primary"
        )
        if estimate is not None and key not in state.results(store):
            right.caption(
                f":material/schedule: Estimated time: {estimate.text()} on this server "
                "(from the method's measured cost on data of this size)."
            )
    if pressed and estimate is not None and estimate.long and not _known(store, key):
        with reruns.uninterrupted():  # the press asks the question: done
            reruns.done(store + "_run")
            st.session_state[confirm_key] = key
        pressed = False
    if st.session_state.get(confirm_key) is not None:
        if st.session_state[confirm_key] != key:
            reruns.drop_question(confirm_key, store + "_confirm_run")  # settings changed
        elif estimate is not None:
            box = st.empty()  # emptied once answered: the run's progress takes its place
            with box.container():
                st.warning(
                    f"This run would take {estimate.text()}: a long time. Run it anyway? It "
                    "can be cancelled at any moment.",
                    icon=":material/hourglass_top:",
                )
                yes, no, _ = st.columns([1, 1, 3])
                if reruns.lasting_button(  # the question goes when the run starts
                    "Run anyway",
                    key=store + "_confirm_run",
                    scope=key,
                    container=yes,
                    type="primary",
                ):
                    pressed = True
                elif no.button("Don't run", key=store + "_confirm_cancel"):
                    reruns.drop_question(confirm_key, store + "_confirm_run")
                    reruns.rerun()
            if pressed:
                box.empty()
    _show_active_elsewhere(store)
    try:
        if pressed:
            run_once(
                store,
                key,
                compute,
                text=text,
                kind=kind,
                title=title,
                widgets=widgets,
                datasets=datasets,
                estimate=estimate,
                started=partial(_pressed_and_done, store),
            )
        else:
            _show_own(store, key, estimate)
    except FSEngineError as exc:
        _pressed_and_done(store)  # refused: said once, not asked again
        st.error(f"{failure}: {describe(exc)}")
    stopped = stopped_message(store)
    if stopped and key not in state.results(store):
        st.warning(stopped, icon=":material/stop_circle:")
    return state.results(store).get(key)


def _pressed_and_done(store: str) -> None:
    """The presses of :func:`run_button`'s buttons (Run, Run anyway) have had their effect,
    and the question of a long run goes."""
    reruns.done(store + "_run")
    reruns.drop_question(store + "_confirm", store + "_confirm_run")


def _show_own(store: str, key: tuple, estimate: Estimate | None) -> None:
    """This session's run of ``store``, started before this script run (the page left and
    opened again, another widget pressed): followed to its end (:func:`follow_run`) when
    it is for the page's settings, else said, with its Cancel, while the page goes on; or
    the error of one for these settings that ended meanwhile, raised once."""
    own = own_run(store)
    if own is not None and own.key == key:
        follow_run(own, estimate)
        return
    if own is not None:
        _running_note(
            own,
            "Still computing with the settings of its start",
            " Its result is kept when it ends.",
            key=f"{store}_cancel_own",
            on_click=own.token.cancel,
        )
    _count_computed(store)
    error = _run_status(store).pop("error", None)
    if error is not None and error[0] == key:
        raise error[1]


def _known(store: str, key: tuple) -> bool:
    """Whether ``key``'s result is kept already (pressing shows it: nothing to confirm)."""
    return key in state.results(store)


def _show_active_elsewhere(store: str) -> None:
    """The runs of this page computing for this workspace in another session (a tab
    closed and opened again, a second tab): what each has reached, and Cancel."""
    ctx = get_script_run_ctx()
    mine = _session_of(ctx)
    for run in active_runs(persistence.workspace_id(), store):
        if run.session == mine:
            continue
        _running_note(
            run,
            "Running in another tab of this workspace",
            key=f"{store}_cancel_other_{run.run_id}",
            on_click=cancel_and_wait,
            args=(run.run_id, run.workspace),
        )


def _running_note(
    run: ActiveRun, lead: str, tail: str = "", *, key: str, on_click, args=()
) -> None:
    """A run that computes but that this page does not follow: ``lead``, its title, how
    far it got and for how long, ``tail``; beside it a "Cancel that run" button."""
    left, right = st.columns([3, 1], vertical_alignment="center")
    left.info(
        f"{lead}: {run.title}; {run.reached_text()} after "
        f"{duration_text(time.monotonic() - run.started)}.{tail}",
        icon=":material/pending:",
    )
    right.button("Cancel that run", key=key, on_click=on_click, args=args)


def task_size() -> tuple[int, int, float, bool]:
    """The current task's samples, features, share of non-zero values and whether it holds
    counts (what the cost models of :mod:`fsengine.methods.estimates` take), kept for the current
    task only.

    Raises
    ------
    FSEngineError
        When the task cannot be built (the refusal says why).
    """

    def size() -> tuple:
        task = current_task()
        return task.n_samples, task.n_features, density_of(task.X), is_counts(task.X)

    return state.of_task("size", task_key(), size)


def estimate_for(model: Callable[[int, int, float, bool], Estimate]) -> Estimate | None:
    """``model(n_samples, n_features, density, counts)`` on the current task: a run's
    :class:`~fsengine.methods.estimates.Estimate`; None when the task cannot be built or a method
    has no cost model."""
    try:
        return model(*task_size())
    except FSEngineError:
        return None


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


#: The environment variable of the most memory (MB) a run (Compare, Sweep) may take for a
#: copy in memory of a data set read backed; above, the run reads the matrix on disk.
RUN_MEMORY_MB = "FSENGINE_RUN_MEMORY_MB"
#: :data:`RUN_MEMORY_MB`'s default.
DEFAULT_RUN_MEMORY_MB = 512


def _run_memory_bytes() -> int:
    try:
        return int(float(os.environ.get(RUN_MEMORY_MB, DEFAULT_RUN_MEMORY_MB)) * 2**20)
    except ValueError:
        return DEFAULT_RUN_MEMORY_MB * 2**20


def _copy_fits() -> bool:
    """Whether the current data set is in memory, or its copy fits :data:`RUN_MEMORY_MB`."""
    dataset = current().dataset
    return not dataset.is_backed or 8 * dataset.n_samples * dataset.n_features <= (
        _run_memory_bytes()
    )


def _needing_memory(methods) -> list[str]:
    """The methods of ``methods`` that score every gene at once (rankers not
    ``columnwise``) when the current data set's copy would be over :data:`RUN_MEMORY_MB`."""
    if _copy_fits():
        return []
    return [m for m in methods if m in RANKER_SPECS and not RANKER_SPECS[m].columnwise]


def methods_from_disk(methods) -> list[str]:
    """``methods`` less those :func:`memory_refusal` would refuse on the current data set:
    the defaults of a page that runs the protocol."""
    refused = _needing_memory(methods)
    return [m for m in methods if m not in refused]


def memory_refusal(what: str, methods=()) -> str | None:
    """Why ``what`` (a run over the protocol's halves) is refused on the current data set:
    a method of ``methods`` that scores every gene at once needs the matrix in memory, and
    its copy would be over :data:`RUN_MEMORY_MB`; None otherwise (the other methods read
    the halves from disk, a block of genes at a time)."""
    whole = _needing_memory(methods)
    if not whole:
        return None
    dataset = current().dataset
    needed = 8 * dataset.n_samples * dataset.n_features
    return (
        f"{what} with {', '.join(METHOD_LABELS[m] for m in whole)} needs the matrix in "
        f"memory ({dataset.n_samples:,} x {dataset.n_features:,}: {size_text(needed)}), more "
        f"than the {size_text(_run_memory_bytes())} a run may take on this server "
        f"({RUN_MEMORY_MB}). Leave {'it' if len(whole) == 1 else 'them'} out: the other "
        "methods read the matrix from disk, a block of genes at a time."
    )


def run_task():
    """The current task for one run: a data set read backed is read into memory when its
    copy fits :data:`RUN_MEMORY_MB` (faster), else its halves are read from disk
    (``X[rows]`` of :class:`fsengine.io.backed.BackedColumns`)."""
    task = current_task()
    return task.dense() if task.is_backed and _copy_fits() else task


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
    names = tuple(sorted(state.class_names.items()))
    key = (task_key(), protocol, names, int(n_splits), int(seed))
    kept = state.by_task("refusals")
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
    and the current data look like raw counts (:func:`fsengine.data.preprocess.counts_warning`);
    the data are scanned once per data set."""
    if not [m for m in methods if m in parametric_rankers()]:
        return
    try:
        task = current_task()
    except FSEngineError:
        return  # the refusal says it
    zeros = state.of_task("raw_counts_zeros", task_key(), lambda: raw_counts_zeros(task.X))
    text = counts_warning(None, methods, zeros, METHOD_LABELS)
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
