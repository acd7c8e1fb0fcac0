"""Reruns that never lose the user's click: the app's own (:func:`rerun`) and a
button's press followed at once by another page's link (:func:`lasting_button`), and
blocks that such a link cannot cut in two (:func:`uninterrupted`).

Streamlit merges the rerun requests that arrive before the running script reaches its
next element into one, and the merged run takes the page of the *last* request. A page
that reruns itself (``st.rerun()``: a stream that has ended, a deleted run) just after the
user clicked another page's link, before the script saw the click, therefore runs its
own page again and the click is lost: the browser stays on the old page. :func:`rerun`
asks for the rerun only when no run of the whole app is pending already; a pending one
(another page, a widget) redraws everything anyway, with the state the page has just
changed. Imports nothing of the dashboard."""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any, NoReturn

import streamlit as st
from streamlit.runtime.scriptrunner import RerunData, get_script_run_ctx
from streamlit.runtime.scriptrunner_utils.script_requests import (
    ScriptRequests,
    ScriptRequestType,
)


def _reruns_the_whole_app(data: RerunData) -> bool:
    return (
        not data.fragment_id and not data.fragment_id_queue and not (data.is_fragment_scoped_rerun)
    )


def _whole_app_rerun_pending(requests: ScriptRequests) -> bool:
    """Whether ``requests`` (its lock held) waits with a run of the whole app."""
    return requests._state is ScriptRequestType.RERUN and _reruns_the_whole_app(
        requests._rerun_data
    )


def request_unless_pending(requests: ScriptRequests, data: RerunData) -> bool:
    """Ask ``requests`` for the rerun ``data`` unless a rerun of the whole app is pending.

    The check and the request hold the requests' lock together, so a click that arrives
    in between cannot be merged under ``data``'s page. (Streamlit's ``ScriptRequests``
    has no public form of this; ``tests/app/test_reruns.py`` checks it against the
    pinned version.)

    Parameters
    ----------
    requests : ScriptRequests
        The running script's request queue.
    data : RerunData
        The rerun wanted: the current page, the whole app.

    Returns
    -------
    bool
        Whether ``data`` was requested (False: a run of the whole app was pending, and it
        stays as the user asked for it; or the script is stopping).
    """
    with requests._lock:
        if _whole_app_rerun_pending(requests):
            return False
        return requests._request_rerun_locked(data)


def rerun() -> NoReturn:
    """``st.rerun()`` of the current page, unless the user's own request for a run of the
    whole app (another page's link, a widget) is pending: then that run replaces this
    one. Either way the current run ends here."""
    ctx = get_script_run_ctx()
    if ctx is None or ctx.script_requests is None:
        st.rerun()
    request_unless_pending(
        ctx.script_requests,
        RerunData(
            query_string=ctx.query_string,
            page_script_hash=ctx.page_script_hash,
            cached_message_hashes=ctx.cached_message_hashes,
            context_info=ctx.context_info,
        ),
    )
    st.empty()  # an element: the runner ends this run before it is sent
    st.rerun()  # (in a widget's callback no element ends the run)


#: Where the presses of :func:`lasting_button` wait until what they ask for is done: a
#: dict in the session state, button key -> the scope of the press.
PRESSES = "_lasting_presses"
#: The :func:`lasting_button` keys drawn in the current run of the app (a set in the
#: session state, emptied by :func:`page_begins`).
DRAWN = "_lasting_drawn"


#: The session's :class:`PressClock` (in the session state).
CLOCK = "_lasting_clock"


class PressClock:
    """The order of a session's presses, so that presses taken in one run are done in the
    order the user made them.

    A press's callback runs at the start of the first script run that sees it. Presses
    whose callbacks run in different runs are in the order of those runs. Presses whose
    callbacks run in one run were merged by Streamlit's request queue (clicks made before
    the script took the first): it appends a waiting click's trigger after the newer
    request's widgets, so the earlier click's callback runs later, and the order within
    a run is the reverse of the callbacks' (``tests/app/test_reruns.py`` checks this
    against the pinned Streamlit). A run is told from the next by the script run
    context's ``cursors``, a new dict at each run's start, before its callbacks.
    """

    def __init__(self) -> None:
        self._run: object | None = None
        self._runs = 0
        self._calls = 0

    def tick(self) -> tuple[int, int]:
        """The order of a press made now: (run number, minus the callback's number within
        the run), smaller first."""
        ctx = get_script_run_ctx()
        run = getattr(ctx, "cursors", None)
        if run is None or run is not self._run:
            self._run, self._runs, self._calls = run, self._runs + 1, 0
        self._calls += 1
        return (self._runs, -self._calls)


def _presses() -> dict:
    """Button key -> (the page's script hash, the scope of its press, its order)."""
    return st.session_state.setdefault(PRESSES, {})


def _clock() -> PressClock:
    return st.session_state.setdefault(CLOCK, PressClock())


def _page() -> str | None:
    ctx = get_script_run_ctx()
    return None if ctx is None else ctx.page_script_hash


def switch_page(page: str) -> NoReturn:
    """``st.switch_page(page)``, unless the user's own request for a run of the whole app
    (another page's link, a widget) is pending: then that one runs, as :func:`rerun` lets
    it (a Reopen followed at once by another page's link opens the page of the link)."""
    ctx = get_script_run_ctx()
    requests = None if ctx is None else ctx.script_requests
    if requests is not None:
        with requests._lock:
            pending = _whole_app_rerun_pending(requests)
        if pending:
            st.empty()  # an element: the pending run takes over here
    st.switch_page(page)


def _remember(presses: dict, clock: PressClock, key: str, page: str | None, scope: Any) -> None:
    # Not through st.session_state: Streamlit ends a callback at its first use of the
    # session state when another click waits, and the press would be lost.
    presses[key] = (page, scope, clock.tick())


def lasting_button(label: str, *, key: str, scope: Any, container=None, **options) -> bool:
    """``st.button``, whose press is not lost to another page's link clicked at once.

    Streamlit ends a script run at any use of the session state or any element when
    another click waits, and runs the other page with the press, where no button reads
    it. So the press is kept by the button's callback, and stays kept until
    :func:`done` says what it asked for is done: the page drawn next with the same
    ``scope`` (the settings the press was for) takes it again, also when the run that
    took it first was ended halfway. A press kept under another scope (the data set or
    the settings changed since), or for a button disabled now, is dropped, and so is one
    whose button a whole run of its page did not draw (:func:`page_ends`: a question
    answered otherwise, a run no longer selected).

    Parameters
    ----------
    label, key : str
        The button's label and widget key (:func:`done` takes the key).
    scope : hashable
        What the press is for (a task's key, a run's key), compared with ``==``.
    container : optional
        Where to draw it (a column); ``st`` by default.
    **options
        Further options of ``st.button`` (type, width, disabled, help, icon).

    Returns
    -------
    bool
        Whether the button counts as pressed in this run. When True, the caller calls
        :func:`done` and does what the press asks for, in one :func:`uninterrupted`
        block where taking it twice would do it twice.
    """
    presses, clock, page = _presses(), _clock(), _page()
    st.session_state.setdefault(DRAWN, set()).add(key)
    clicked = (container or st).button(
        label, key=key, on_click=_remember, args=(presses, clock, key, page, scope), **options
    )
    kept = presses.get(key)
    pressed = not options.get("disabled") and (clicked or (kept is not None and kept[1] == scope))
    if pressed:  # taken again if this run ends before done()
        presses[key] = (page, scope, kept[2] if kept is not None else clock.tick())
    else:
        presses.pop(key, None)
    return pressed


def is_kept(key: str, scope: Any) -> bool:
    """Whether a press of the :func:`lasting_button` ``key`` is kept for ``scope``: its
    button, drawn later in the run, counts as pressed (unless disabled then)."""
    kept = _presses().get(key)
    return kept is not None and kept[1] == scope


def in_press_order(keys: Iterable[str]) -> list[str]:
    """The :func:`lasting_button` keys ``keys`` (those pressed in this run: each has its
    press kept) in the order the user pressed them (:class:`PressClock`)."""
    presses = _presses()
    return sorted(keys, key=lambda k: presses[k][2])


def drop_question(question: str, press: str) -> None:
    """A question gone (answered otherwise, or its settings changed): its session key
    ``question`` and the press kept for its button ``press``, in one block."""
    with uninterrupted():
        done(press)
        st.session_state.pop(question, None)


def page_begins() -> None:
    """A run of the app begins: no lasting button is drawn yet (see :func:`page_ends`)."""
    st.session_state[DRAWN] = set()


def page_ends() -> None:
    """The page has been drawn whole: a press kept for one of its lasting buttons that it
    did not draw is dropped (the button's question was answered otherwise, its run is no
    longer selected), so that it cannot fire later by itself when the button comes back.
    Presses kept for the buttons of other pages stay."""
    page, drawn = _page(), st.session_state.get(DRAWN, set())
    presses = _presses()
    for key in [k for k, (owner, *_) in presses.items() if owner == page and k not in drawn]:
        presses.pop(key, None)


def done(key: str) -> None:
    """The press of the :func:`lasting_button` ``key`` has had its effect: it is not
    taken again."""
    _presses().pop(key, None)


#: This thread's depth of :func:`uninterrupted` blocks (the script thread's: a run's own
#: threads, which share its context, are never held).
_HELD = threading.local()


def _held_yield(check: Callable[[], Any]) -> Callable[[], Any]:
    def on_scriptrunner_yield() -> Any:
        if getattr(_HELD, "depth", 0):
            return None  # a click waits: taken at the first yield after the block
        return check()

    on_scriptrunner_yield.holds = True
    return on_scriptrunner_yield


@contextmanager
def uninterrupted() -> Iterator[None]:
    """A block that another click cannot end halfway.

    Streamlit checks for a waiting click (another page's link, a widget) at every
    element and every use of ``st.session_state`` (also in a widget's callback), and ends
    the run there. A block that changes things in several steps (a run's record in the
    workspace, then the run kept in the session; a data set read, then its class and
    settings) is made whole by this: a click that arrives meanwhile waits, and is taken at
    the first element or use of the session state after the block. Keep such blocks to
    what must happen together: the page answers no click while one runs. (Streamlit has
    no public form of this: the script runner's request queue is asked through a wrapper
    of its ``on_scriptrunner_yield``, which answers "nothing waits" inside a block on
    this thread; ``tests/app/test_reruns.py`` checks it against the pinned version.)
    """
    ctx = get_script_run_ctx()
    requests = getattr(ctx, "script_requests", None) if ctx is not None else None
    check = getattr(requests, "on_scriptrunner_yield", None)
    if check is not None and not getattr(check, "holds", False):
        requests.on_scriptrunner_yield = _held_yield(check)
    _HELD.depth = getattr(_HELD, "depth", 0) + 1
    try:
        yield
    finally:
        _HELD.depth -= 1


def whole(callback: Callable[..., Any]) -> Callable[..., Any]:
    """``callback`` (a widget's ``on_change`` or ``on_click``) run :func:`uninterrupted`.

    Streamlit runs a widget's callback at the start of the next script run, and ends it
    at its first use of the session state when another click waits (a page's link
    clicked just after the widget changed): the choice would be lost while the widget
    shows it (a class chosen, a setting remembered for its page). Wrapped, the callback
    runs to its end and the click is taken after it.
    """

    @functools.wraps(callback)
    def run_whole(*args: Any, **kwargs: Any) -> Any:
        with uninterrupted():
            return callback(*args, **kwargs)

    return run_whole
