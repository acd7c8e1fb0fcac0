"""A feature stream advanced a little at a time, for the dashboard's animation.

:class:`LiveStream` runs an online selector over a data set in the same order and
with the same events as :func:`fsengine.methods.runs.run_selection` (so its final selection
is the command line's), but in chunks bounded by a number of features or a time
budget. Between chunks it keeps the curves to draw: the selected set's size and score
after every step, and a hold-out G-mean.

The hold-out G-mean is honest: a second copy of the selector streams the same features
over the samples of a stratified training half only (making no events: only its selected
set is used), and a 1-NN classifier trained on that half's selection is scored on the
held-out half (refreshed once per call that moved the copy, computed once per selected
set: the G-mean is a function of the set). By default the copy keeps up with the main
stream in every call; with :attr:`LiveStream.holdout_share` its work (and the G-mean's)
takes at most that share of the main stream's computing time while the main stream runs,
so it may lag behind (:attr:`LiveStream.holdout_position`,
:meth:`LiveStream.holdout_lag_note`), and it catches up once the main stream is done. The
selection shown and exported uses all samples, as the command line does, and is never
scored on samples it has seen. When that G-mean is 0,
:meth:`LiveStream.holdout_note` says why in a sentence (no gene selected on the training
half yet, or the recall of a class that is 0); :meth:`LiveStream.selection_note` says why
nothing is selected.

Two bounds keep a page that calls :meth:`LiveStream.advance` on a timer responsive:

* a time budget (``max_seconds``) is kept by sizing each chunk from the measured cost
  of a feature (a running mean, :data:`COST_MEMORY`), at most twice the last chunk, and
  the first chunk of a stream, whose cost is not measured yet, from the expected cost
  (:attr:`LiveStream.expected_feature_seconds`), at most :data:`FIRST_CHUNK` features;
* :meth:`LiveStream.advance_paced` ends the stream at a wall-clock time (about 8 s after
  Start, say): each call takes the share of the remaining features that the remaining
  time calls for (:func:`paced_features`), whatever the drawing between calls costs, and
  :meth:`LiveStream.paced_seconds_left` says honestly how long it will take when the
  selector's computation cannot keep that time.
"""

from __future__ import annotations

import math
import time

import numpy as np

from fsengine._compute import kernels
from fsengine._compute.sparse import BlockBuffer, block_width, by_columns, dense_block
from fsengine.data.dataset import Dataset
from fsengine.data.task import Task, as_task
from fsengine.errors import FSEngineError
from fsengine.evaluation import confusion, gmean, make_classifier, stratified_splits
from fsengine.methods.online import (
    COLUMN_KERNELS,
    Selection,
    StreamEvent,
    decode_state,
    encode_state,
    feature_order,
)
from fsengine.methods.registry import get_method

__all__ = [
    "COST_MEMORY",
    "FIRST_CHUNK",
    "RESUME_GAP",
    "SCORED_REJECTIONS_MAX_SAMPLES",
    "LiveStream",
    "duration_text",
    "paced_features",
]

#: Most features in the first chunk of a stream advanced under a time budget: the cost of
#: a feature is not known before it (later chunks are sized from the measured cost).
FIRST_CHUNK = 64
#: A paced stream whose calls stop for longer than this (a pause, another page) is paced
#: again from the next call: the rest of the stream gets its share of the time.
RESUME_GAP = 2.0
#: The measured cost of a feature is a running mean in which the previous estimate
#: weighs as much as this many features: a few cheap features in a row (a selector whose
#: features cost 0.1 ms or 100 ms, as OFS-Density's on its training half) do not make
#: the next chunk too large.
COST_MEMORY = 32
#: Most features of the hold-out copy's first chunk under a share of the time (its cost is
#: not measured yet).
HOLDOUT_FIRST_CHUNK = 8
#: The wall clock of the pacing (a test may replace it).
_clock = time.monotonic


def paced_features(remaining: int, seconds_left: float, tick_seconds: float) -> int:
    """Features to stream now so that ``remaining`` features are streamed, and the last
    call's tick over, ``seconds_left`` from now, one call every ``tick_seconds``.

    The calls that fit, this one included, are ``floor(seconds_left / tick_seconds)``
    (each takes a tick: its computation, then the caller's drawing); the remaining
    features spread evenly over them: ``ceil(remaining / calls)``, at least 1, and
    everything that is left when one call fits or none.

    Parameters
    ----------
    remaining : int
        Features still to stream.
    seconds_left : float
        Wall-clock seconds until the stream should end.
    tick_seconds : float
        Seconds from one call to the next (a page's timer, or the measured interval).

    Returns
    -------
    int
        Between 1 and ``remaining`` (0 when nothing is left).
    """
    if remaining <= 0:
        return 0
    if not seconds_left >= 2 * tick_seconds:  # NaN too: one call left at most
        return remaining
    calls = math.floor(seconds_left / tick_seconds + 1e-9)
    return min(remaining, max(1, math.ceil(remaining / calls)))


def duration_text(seconds: float) -> str:
    """A duration in words a page can show: "8 s", "2 min 10 s", "1 h 5 min"."""
    seconds = max(0, round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        minutes, rest = divmod(seconds, 60)
        return f"{minutes} min" + (f" {rest} s" if rest else "")
    hours, rest = divmod(seconds, 3600)
    return f"{hours} h" + (f" {rest // 60} min" if rest // 60 else "")


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


#: Up to this many samples a stream scores every rejected feature with the set (the
#: events CSV then holds what ``fsengine select --trace`` writes); above, those scores are
#: left empty (the pages never draw them) and the stream runs at a quiet run's speed.
SCORED_REJECTIONS_MAX_SAMPLES = 3000


class LiveStream:
    """An online selector streaming a data set's features, advanced on demand.

    Parameters
    ----------
    data : Task or Dataset
        The task (:class:`fsengine.data.task.Task`), or a data set to build it from.
    minority : label or str, optional
        With a data set: the class to select for (one versus rest; default
        :meth:`Dataset.default_minority`). With a task: None or its own class.
    method : str
        An online method (:data:`fsengine.methods.registry.ONLINE_METHODS`).
    order : {"natural", "random"}
    seed : int, optional
        Seed of the random order.
    params : dict, optional
        The method's parameters.
    holdout_seed : int
        Seed of the stratified split used for the live G-mean.
    """

    def __init__(
        self,
        data: Task | Dataset,
        minority=None,
        method: str = "kofsd",
        *,
        order: str = "natural",
        seed: int | None = None,
        params: dict | None = None,
        holdout_seed: int = 0,
    ):
        self.task = task = as_task(data, minority)  # a sparse X stays sparse
        #: The data set the task came from (None for a task of arrays).
        self.dataset = task.dataset
        self.minority = task.minority
        self.method = method
        self.params = dict(params or {})
        self.y = task.y
        self.selector = (
            get_method(method).selector(**self.params).start(self.y, n_features=task.n_features)
        )
        # A rejected feature's score with the set (the events CSV's, as the command line's
        # trace) up to SCORED_REJECTIONS_MAX_SAMPLES samples; above, a test that cannot
        # change the decision stops early and the score is left empty (K-OFSD on 20,000
        # cells: 380 ms a feature scored, 19 ms not).
        self.selector.score_rejections = task.n_samples <= SCORED_REJECTIONS_MAX_SAMPLES
        self.order = feature_order(task.n_features, order, seed)
        self.order_name, self.seed = order, seed
        self.position = 0
        #: Features the hold-out copy (training half) has streamed: ``position`` after every
        #: call when :attr:`holdout_share` is None, else at most that.
        self.holdout_position = 0
        #: None: each call streams the hold-out copy as far as the main stream. A share
        #: (e.g. 0.25): while the main stream runs, the copy and its G-mean take at most that
        #: share of the main stream's computing time (over the calls, within a feature's
        #: cost), and the copy catches up with the time of the calls after the main stream
        #: is done.
        self.holdout_share: float | None = None
        self._holdout_credit = 0.0  # seconds the copy may still take under its share
        #: Seconds a feature costs the hold-out copy alone (a running mean); None before it.
        self.holdout_feature_seconds: float | None = None
        self.events: list[StreamEvent] = []
        self.sizes: list[int] = []
        self.scores: list[float] = []
        self.gmean_steps: list[int] = []
        self.gmeans: list[float] = []
        #: Why there is no hold-out G-mean (a minority too small to split), else "".
        self.holdout_problem = ""
        self.train_selector = None
        try:
            self._train, self._test = stratified_splits(self.y, 1, holdout_seed, task.groups)[0]
        except FSEngineError as exc:
            self.holdout_problem = str(exc)
        else:
            self.train_selector = (
                get_method(method)
                .selector(**self.params)
                .start(self.y[self._train], n_features=task.n_features)
            )
            self.train_selector.score_rejections = self.selector.score_rejections
        #: columns -> ((TP, FN, TN, FP), G-mean) of 1-NN on the held-out half.
        self._holdout_cache: dict[tuple[int, ...], tuple[tuple[int, int, int, int], float]] = {}
        # Where each stream's dense blocks of a sparse matrix are made (one buffer each).
        self._blocks, self._holdout_blocks = BlockBuffer(), BlockBuffer()
        self.seconds = 0.0
        self._selection: Selection | None = None
        self._order_note: str | None = None
        #: Seconds a feature costs (both selectors), a running mean over the chunks
        #: (:data:`COST_MEMORY`); None before the first chunk.
        self.feature_seconds: float | None = None
        #: What a feature is expected to cost before any is measured (seconds, both
        #: selectors; e.g. from :func:`fsengine.methods.estimates.stream_seconds`): the first chunk
        #: under a time budget is sized from it (None: :data:`FIRST_CHUNK` features).
        self.expected_feature_seconds: float | None = None
        self._last_take = FIRST_CHUNK  # features in the last chunk
        #: The pace of :meth:`advance_paced`: (its seconds for a whole stream, the wall-clock
        #: time it should end); None when not paced.
        self._pace: tuple[float, float] | None = None
        self._paced_call: tuple[float, float] | None = None  # (start, end) of the last call
        self._tick_seconds = 0.0  # the measured interval between paced calls
        self._gap = 0.0  # the measured time between the end of a paced call and the next
        self._budget: float | None = None  # the most a paced call may compute

    def snapshot(self) -> dict:
        """What the stream needs to go on from where it is, as JSON data: both selectors'
        states (:mod:`fsengine.methods.online._snapshot`), the events so far and the hold-out
        curve. :meth:`resume` takes it back on a stream of the same task and settings,
        without streaming a feature again.

        Raises
        ------
        TypeError
            When a selector's state cannot be written (then replay the stream instead).
        """
        return {
            "method": self.method,
            "total": self.total,
            "position": self.position,
            "seconds": self.seconds,
            "feature_seconds": self.feature_seconds,
            "last_take": self._last_take,
            "selector": encode_state(self.selector),
            "train_selector": (
                None if self.train_selector is None else encode_state(self.train_selector)
            ),
            "events": encode_state(self.events),
            "holdout_position": self.holdout_position,
            "gmean_steps": list(self.gmean_steps),
            "gmeans": list(self.gmeans),
        }

    def resume(self, snapshot: dict) -> None:
        """Put this new stream where :meth:`snapshot`'s stream was (same task, method,
        order and parameters): it goes on with the events the other would have given.

        Raises
        ------
        ValueError
            When the snapshot is of another stream, or cannot be read.
        """
        if self.position:
            raise ValueError("the stream has started: resume a new one")
        if snapshot.get("method") != self.method or snapshot.get("total") != self.total:
            raise ValueError("the snapshot is of another stream")
        selector = decode_state(snapshot["selector"])
        train = snapshot.get("train_selector")
        if (train is None) != (self.train_selector is None):
            raise ValueError("the snapshot's hold-out does not match this stream's")
        if type(selector) is not type(self.selector):
            raise ValueError("the snapshot is of another selector")
        self.selector = selector
        self.selector.score_rejections = self.task.n_samples <= SCORED_REJECTIONS_MAX_SAMPLES
        if train is not None:
            self.train_selector = decode_state(train)
            self.train_selector.score_rejections = self.selector.score_rejections
        self.events = list(decode_state(snapshot["events"]))
        self.position = int(snapshot["position"])
        if len(self.events) != self.position:
            raise ValueError("the snapshot's events do not match its position")
        self.sizes = [len(e.selected) for e in self.events]
        self.scores = [float(e.selected_score) for e in self.events]
        # (a snapshot from before the copy could lag: it was at the position)
        self.holdout_position = (
            0 if train is None else int(snapshot.get("holdout_position", self.position))
        )
        self.gmean_steps = [int(s) for s in snapshot.get("gmean_steps", [])]
        self.gmeans = [float(g) for g in snapshot.get("gmeans", [])]
        self.seconds = float(snapshot.get("seconds") or 0.0)
        self.feature_seconds = snapshot.get("feature_seconds")
        self._last_take = int(snapshot.get("last_take") or FIRST_CHUNK)

    def kernels_ready(self) -> bool:
        """Whether the selector's compiled kernels load at once (built ahead of time for
        this machine, or loaded already). When not, its first chunk compiles them before
        any event: seconds to a minute, once (:mod:`fsengine._compute.kernels`), and a
        page should say so."""
        families = (*type(self.selector).kernel_families, COLUMN_KERNELS)
        return all(kernels.ready(family) for family in families)

    @property
    def total(self) -> int:
        """Number of features in the stream."""
        return len(self.order)

    @property
    def done(self) -> bool:
        """Whether every feature has arrived in the main stream (its selection is final)."""
        return self.position >= self.total

    @property
    def holdout_lags(self) -> bool:
        """Whether the hold-out copy has streamed fewer features than the main stream."""
        return self.train_selector is not None and self.holdout_position < self.position

    @property
    def finished(self) -> bool:
        """Whether the main stream and its hold-out copy have both streamed every feature."""
        return self.done and not self.holdout_lags

    def advance(
        self, max_features: int | None = None, max_seconds: float | None = None, chunk: int = 256
    ) -> list[StreamEvent]:
        """Stream up to ``max_features`` more features, stopping early after ``max_seconds``.

        At least one feature is processed if any is left. Under a time budget, each chunk
        is sized from the measured cost of a feature to fit the time left (at most twice
        the last chunk), and the first chunk of the stream (no cost measured yet) is at
        most :data:`FIRST_CHUNK` features, so a budget is overrun by at most one chunk's
        time. The chunks never change the events.

        The hold-out copy follows each chunk (as far as the main stream, or within
        :attr:`holdout_share`); once the main stream is done, a call streams the copy
        towards the end within ``max_seconds`` (None: to the end). The hold-out G-mean is
        refreshed when the copy moved.

        Another thread may read the stream while a call runs (a page draws it while it
        computes): each chunk's events and curves are published before the position
        that counts them.

        Parameters
        ----------
        max_features : int, optional
            Most features of the main stream (None: all that are left).
        max_seconds : float, optional
            Time budget of the call (None: none).
        chunk : int
            Most features handed to a selector at once (at most a dense block's width for
            a sparse matrix or one on disk).

        Returns
        -------
        list of StreamEvent
            The main stream's new events (none once it is done).
        """
        start = time.perf_counter()
        if by_columns(self.task.X):  # a dense block of columns at a time, as stream_events reads
            chunk = min(chunk, block_width(self.task.n_samples))
        limit = self.total - self.position if max_features is None else max_features
        new: list[StreamEvent] = []
        moved = self.holdout_position
        while limit > 0 and not self.done:
            take = min(chunk, limit, self.total - self.position)
            if max_seconds is not None:
                take = min(take, self._affordable(max_seconds - (time.perf_counter() - start)))
            begun = time.perf_counter()
            columns = self.order[self.position : self.position + take]
            events = self.selector.step_many(
                dense_block(self.task.X, columns, out=self._blocks),
                [self.task.names[c] for c in columns],
                columns.tolist(),
            )
            new += events
            self.events += events
            self.sizes += [len(e.selected) for e in events]
            self.scores += [float(e.selected_score) for e in events]
            self.position += take
            if self.train_selector is not None:
                if self.holdout_share is None:
                    self._advance_holdout(chunk, None)
                else:
                    self._holdout_credit += self.holdout_share * (time.perf_counter() - begun)
                    if self._holdout_credit > 0:
                        self._holdout_credit -= self._advance_holdout(chunk, self._holdout_credit)
            spent = time.perf_counter() - begun
            self.feature_seconds = (
                spent / take
                if self.feature_seconds is None
                else (spent + COST_MEMORY * self.feature_seconds) / (take + COST_MEMORY)
            )
            self._last_take = take
            limit -= take
            if max_seconds is not None and time.perf_counter() - start >= max_seconds:
                break
        if self.done and self.holdout_lags:  # the copy catches up (at least a feature)
            left = None if max_seconds is None else max_seconds - (time.perf_counter() - start)
            self._advance_holdout(chunk, None if left is None else max(left, 0.0))
        if self.train_selector is not None and self.holdout_position > moved:
            began = time.perf_counter()
            gmean = self.holdout_gmean(self.train_selector.selected_columns)
            self.gmean_steps.append(self.holdout_position)
            self.gmeans.append(gmean)
            if self.holdout_share is not None and not self.done:  # on the copy's share
                self._holdout_credit -= time.perf_counter() - began
        if self.done:  # a kept stream holds no block memory
            self._blocks.release()
        if self.finished:
            self._holdout_blocks.release()
        self.seconds += time.perf_counter() - start
        return new

    def _advance_holdout(self, chunk: int, seconds: float | None) -> float:
        """Stream the hold-out copy towards the main stream's position, without events, in
        chunks of at most ``chunk`` features; with ``seconds``, stop once they are spent
        (chunks sized from the copy's measured cost; at least one feature). Returns the
        seconds it took."""
        start = time.perf_counter()
        while self.holdout_position < self.position:
            take = min(chunk, self.position - self.holdout_position)
            if seconds is not None:  # the first chunk, its cost unknown, is small
                left = seconds - (time.perf_counter() - start)
                cost = self.holdout_feature_seconds
                take = max(1, min(take, HOLDOUT_FIRST_CHUNK if cost is None else int(left / cost)))
            begun = time.perf_counter()
            columns = self.order[self.holdout_position : self.holdout_position + take]
            self.train_selector.step_many(  # its selected set is all it needs
                dense_block(self.task.X, columns, self._train, self._holdout_blocks),
                [self.task.names[c] for c in columns],
                columns.tolist(),
                events=False,
            )
            self.holdout_position += take
            spent = time.perf_counter() - begun
            self.holdout_feature_seconds = (
                spent / take
                if self.holdout_feature_seconds is None
                else (spent + COST_MEMORY * self.holdout_feature_seconds) / (take + COST_MEMORY)
            )
            if seconds is not None and time.perf_counter() - start >= seconds:
                break
        return time.perf_counter() - start

    def _affordable(self, seconds_left: float) -> int:
        """Features that fit in ``seconds_left`` at the measured cost: at least 1, at most
        twice the last chunk (the cost may have been measured on cheap features)."""
        if self.feature_seconds is None:
            if self.expected_feature_seconds is None:
                return FIRST_CHUNK
            return max(1, min(FIRST_CHUNK, int(seconds_left / self.expected_feature_seconds)))
        if seconds_left <= 0:
            return 1
        most = 2 * self._last_take
        if self.feature_seconds <= 0:
            return most
        return max(1, min(most, int(seconds_left / self.feature_seconds)))

    def advance_paced(
        self,
        seconds: float,
        tick_seconds: float,
        max_seconds: float | None = None,
        catch_up_seconds: float | None = None,
    ) -> list[StreamEvent]:
        """Advance so that the stream ends ``seconds`` (wall clock) after its pace was set.

        The first call sets the pace: the stream (or what is left of it, its share of
        ``seconds``) should end that long from now. Each call then takes
        :func:`paced_features` of the remaining features for the remaining time, one call
        every ``tick_seconds`` or the measured interval between calls if longer (drawing
        a page costs time too), within ``max_seconds`` of computation, or up to
        ``catch_up_seconds`` when that share needs longer (a busy machine, a slow
        selector). A call after a stop longer than :data:`RESUME_GAP` (a pause), or with
        other ``seconds``, sets the pace again; :meth:`stop_pacing` forgets it.

        Parameters
        ----------
        seconds : float
            Wall-clock seconds for the whole stream.
        tick_seconds : float
            The caller's interval between calls (a page's timer).
        max_seconds : float, optional
            Time budget of a call's computation (:meth:`advance`); None: no budget.
        catch_up_seconds : float, optional
            The most a call may compute to keep the pace (default ``max_seconds``).

        Returns
        -------
        list of StreamEvent
        """
        now = _clock()
        remaining = self.total - self.position
        previous = self._paced_call
        if (
            self._pace is None
            or self._pace[0] != seconds
            or previous is None
            or (now - previous[1] > RESUME_GAP)
        ):
            seconds_left = seconds * remaining / self.total  # the rest's share of the time
            self._pace = (seconds, now + seconds_left)
            self._tick_seconds = tick_seconds
            self._gap = max(0.0, tick_seconds - (max_seconds or 0.0))
        else:
            seconds_left = self._pace[1] - now
            self._tick_seconds = min(max(tick_seconds, now - previous[0]), 4 * tick_seconds)
            self._gap = now - previous[1]  # what the caller does between calls (drawing)
        take = paced_features(remaining, seconds_left, self._tick_seconds)
        budget = self._budget = max_seconds
        if max_seconds is not None:
            self._budget = max(max_seconds, catch_up_seconds or max_seconds)
            if self.feature_seconds is not None:  # the share's cost (twice: costs vary)
                budget = min(self._budget, max(max_seconds, 2 * take * self.feature_seconds))
        new = self.advance(max_features=take, max_seconds=budget)
        self._paced_call = (now, _clock())
        return new

    def stop_pacing(self) -> None:
        """Forget the pace (a pause): the next :meth:`advance_paced` sets it again."""
        self._pace = None
        self._paced_call = None

    def _wall_seconds(self, computing: float) -> float:
        """Wall-clock seconds ``computing`` seconds of work take in paced calls: calls of
        the most a call may compute, each followed by the measured time between calls."""
        if self._budget is None or self._budget <= 0:
            return computing
        return computing * (1.0 + self._gap / self._budget)

    @property
    def pace_seconds(self) -> float | None:
        """The wall-clock seconds the paced stream was set to take (:meth:`advance_paced`'s
        ``seconds``); None when it is not paced."""
        return None if self._pace is None else self._pace[0]

    def paced_seconds_left(self) -> float | None:
        """Wall-clock seconds a paced stream still needs: the time left to its end, or
        longer when the selector's computation does not fit (the features left at the
        measured cost per feature, in calls of the most a call may compute, with the
        measured time between calls). None when the stream is not paced."""
        if self._pace is None:
            return None
        left = max(0.0, self._pace[1] - _clock())
        if self.feature_seconds is None or self.done:
            return left
        return max(left, self._wall_seconds((self.total - self.position) * self.feature_seconds))

    def paced_note(self) -> str:
        """In a sentence, that a paced stream cannot end at its time and how long it will
        take instead ("" while it keeps its time within 20%, and when not paced)."""
        left = self.paced_seconds_left()
        if left is None or self.done or self.feature_seconds is None:
            return ""
        planned = max(0.0, self._pace[1] - _clock())
        if left <= 1.2 * planned + 1.0:
            return ""
        label = get_method(self.method).spec.label
        ms = self.feature_seconds * 1000
        cost = f"{ms:,.0f}" if ms >= 10 else f"{ms:.1f}" if ms >= 1 else f"{ms:.2f}"
        return (
            f"{label} needs about {cost} ms a feature on this data set (its two copies: all "
            f"samples and the training half), and at most {self._budget:g} s of computation "
            f"fits in one step of the animation: about {duration_text(left)} left, longer "
            f"than the {self._pace[0]:g} s the speed names."
        )

    def estimated_seconds(self, seconds: float) -> float:
        """Wall-clock seconds a whole paced stream of this selector on this data set takes:
        ``seconds``, or longer when its computation does not fit: the features streamed at
        their mean cost, the rest at the current cost (as :meth:`paced_seconds_left`), in
        paced calls as measured. Before any feature, ``seconds``."""
        if not self.position:
            return seconds
        remaining = (self.total - self.position) * (self.feature_seconds or 0.0)
        return max(seconds, self._wall_seconds(self.seconds + remaining))

    @property
    def holdout_selected(self) -> tuple[str, ...]:
        """The features selected so far on the training half alone."""
        return () if self.train_selector is None else self.train_selector.selected

    def holdout_gmean(self, columns) -> float:
        """G-mean of 1-NN on ``columns``: trained on the training split, scored on the held-out
        split (0 for an empty set). ``columns`` must have been chosen without the held-out
        samples (the training half's selector's) for the figure to be honest."""
        return self._holdout(columns)[1]

    def holdout_confusion(self, columns) -> tuple[int, int, int, int]:
        """(TP, FN, TN, FP) of that 1-NN over the held-out half, the minority class positive
        (:func:`fsengine.evaluation.confusion`)."""
        return self._holdout(columns)[0]

    def _holdout(self, columns) -> tuple[tuple[int, int, int, int], float]:
        """The confusion and G-mean of 1-NN on ``columns`` over the held-out half, as
        :func:`fsengine.evaluation.classify` scores it (no column: every held-out sample
        is predicted as the rest)."""
        key = tuple(columns)
        if key not in self._holdout_cache:
            y_test = self.y[self._test]
            if not key:
                predicted = np.zeros(len(y_test), dtype=int)
            else:
                X = dense_block(self.task.X, list(key))
                model = make_classifier("1nn").fit(X[self._train], self.y[self._train])
                predicted = model.predict(X[self._test])
            self._holdout_cache[key] = (confusion(y_test, predicted), gmean(y_test, predicted))
        return self._holdout_cache[key]

    def holdout_lag_note(self) -> str:
        """In a sentence, that the hold-out G-mean is behind the main stream, and how far
        ("" when it is not)."""
        if not self.holdout_lags:
            return ""
        if self.done:
            why = "it catches up after the main stream's end"
        elif self.holdout_share is None:
            why = "it catches up in the stream's next steps"
        else:
            why = (
                f"it takes at most {self.holdout_share:.0%} of the main stream's computing "
                "time, and catches up once the main stream is done"
            )
        return (
            f"The hold-out G-mean is that of the training half's copy after "
            f"{self.holdout_position:,} of {self.total:,} features, behind the main stream "
            f"({self.position:,}): {why}."
        )

    def holdout_note(self) -> str:
        """Why the hold-out G-mean is 0 or missing, in a sentence ("" when it is above 0).

        The causes, in order: no hold-out at all (:attr:`holdout_problem`); no feature
        streamed yet; no gene selected on the training half (1-NN then has nothing to
        compare samples by and predicts every held-out sample as the rest); 1-NN on the
        training half's genes recognising none of the held-out minority samples, or none
        of the other classes' (a recall of 0 makes the G-mean, the geometric mean of the
        two recalls, 0).
        """
        if self.holdout_problem:
            return f"No hold-out G-mean: {self.holdout_problem}."
        if not self.gmeans:
            return ""
        if self.gmeans[-1] > 0:
            return ""
        columns = self.train_selector.selected_columns
        tp, fn, tn, fp = self.holdout_confusion(columns)
        minority, rest = tp + fn, tn + fp
        if not columns:
            return (
                "The hold-out G-mean is 0 because no gene is selected on the training half "
                f"yet (after {self.holdout_position:,} of {self.total:,} features): 1-NN has "
                "no gene to compare samples by, so it calls every held-out sample the majority "
                f"and recognises none of the {_count(minority, 'held-out minority sample')}."
            )
        genes = f"the {_count(len(columns), 'gene')} selected on the training half"
        if tp == 0:
            return (
                f"The hold-out G-mean is 0 because 1-NN on {genes} recognises none of the "
                f"{_count(minority, 'held-out minority sample')} (class {self.minority}): "
                f"each one's nearest training sample is of another class. Its minority "
                f"recall is 0 of {minority:,} (the other classes: {tn:,} of {rest:,}), and "
                "the G-mean, the geometric mean of the two recalls, is 0."
            )
        return (
            f"The hold-out G-mean is 0 because 1-NN on {genes} recognises none of the "
            f"{_count(rest, 'held-out sample')} of the other classes (it calls them all "
            f"class {self.minority}). Its recall of the rest is 0 of {rest:,} (the minority: "
            f"{tp:,} of {minority:,}), and the G-mean, the geometric mean of the two "
            "recalls, is 0."
        )

    def selection_note(self) -> str:
        """Why no gene is selected, in a sentence ("" when one is, or before any feature):
        what the selector decided on the features streamed so far, by action, with the
        actions' meanings from its specification."""
        if not self.events or self.events[-1].selected:
            return ""
        spec = get_method(self.method).spec
        counts: dict[str, int] = {}
        for event in self.events:
            counts[event.action] = counts.get(event.action, 0) + 1
        parts = []
        for action, n in sorted(counts.items(), key=lambda item: -item[1]):
            meaning = spec.actions.get(action)
            parts.append(f"{n:,} {action}" + (f" ({meaning})" if meaning else ""))
        where = (
            f"in the whole stream of {self.total:,} features"
            if self.done
            else f"after {self.position:,} of {self.total:,} features"
        )
        return f"{spec.label} has no gene selected {where}. Its decisions: {'; '.join(parts)}."

    def curves(self) -> dict[str, np.ndarray]:
        """Arrays to draw: ``step`` (1-based), ``size``, ``score`` per step; ``gmean_step``,
        ``gmean`` per refresh. Read while another thread advances the stream, each pair
        stops at what both of its lists hold."""
        n, m = min(len(self.sizes), len(self.scores)), min(len(self.gmean_steps), len(self.gmeans))
        return {
            "step": np.arange(1, n + 1),
            "size": np.array(self.sizes[:n]),
            "score": np.array(self.scores[:n], dtype=float),
            "gmean_step": np.array(self.gmean_steps[:m]),
            "gmean": np.array(self.gmeans[:m]),
        }

    def selection(self) -> Selection:
        """The final selection (the command line's), once the stream is done."""
        if not self.done:
            raise RuntimeError("the stream is not finished")
        if self._selection is None:  # pages ask on every rerun: finish once
            self._selection = self.selector.finish()
        return self._selection

    def order_note(self) -> str:
        """Once the stream is done under the authors' tie rule, the sentence saying how much
        its result depended on the order of the rows
        (:meth:`fsengine.methods.registry.Method.order_dependence`); "" when nothing did, before
        the end, and for selectors and settings no row order changes. Computed once."""
        if not self.done:
            return ""
        if getattr(self, "_order_note", None) is None:  # (streams saved before it existed)
            dependence = get_method(self.method).order_dependence(
                self.task.X, self.y, self.selection(), self.params
            )
            self._order_note = (
                dependence.sentence("'average' under Tied distances")
                if dependence is not None and dependence.depends
                else ""
            )
        return self._order_note

    def current_gmean(self) -> float:
        """The latest hold-out G-mean (NaN before the first feature, or with no hold-out)."""
        return self.gmeans[-1] if self.gmeans else math.nan
