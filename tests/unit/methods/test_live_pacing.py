"""LiveStream's pacing by the clock, its bounded chunks, and that neither changes a selection
(issue 29, point 5). No test here reads the real clock: the pacing's clock is replaced by a
counter, and the time budgets used are 0 (always spent) or none."""

from __future__ import annotations

import math

import numpy as np
import pytest

import fsengine.methods.live as live_module
from conftest import SAMPLE
from fsengine import load_dataset, run_selection
from fsengine.methods.live import FIRST_CHUNK, RESUME_GAP, LiveStream, duration_text, paced_features
from fsengine.methods.registry import ONLINE_METHODS


@pytest.fixture(scope="module")
def srbct():
    return load_dataset(SAMPLE)


class Clock:
    """A clock that moves only when told."""

    def __init__(self):
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch):
    fake = Clock()
    monkeypatch.setattr(live_module, "_clock", fake)
    return fake


@pytest.mark.parametrize(
    ("remaining", "seconds_left", "tick", "expected"),
    [
        (2308, 8.0, 0.25, 73),  # ceil(2308 / 32)
        (22283, 8.0, 0.25, 697),  # ceil(22283 / 32)
        (1000, 4.0, 0.5, 125),  # the interval measured between calls, not the timer's
        (10, 100.0, 0.25, 1),  # at least one feature a call
        (500, 0.25, 0.25, 500),  # one tick left: everything
        (500, 0.49, 0.25, 500),  # not two whole ticks left: everything
        (500, 0.5, 0.25, 250),  # two: half each
        (2308, 7.9, 0.25, 75),  # 31 whole ticks left
        (500, -3.0, 0.25, 500),  # late
        (500, math.nan, 0.25, 500),
        (0, 8.0, 0.25, 0),  # nothing left
    ],
)
def test_paced_features_spreads_the_rest_over_the_time_left(
    remaining, seconds_left, tick, expected
):
    assert paced_features(remaining, seconds_left, tick) == expected


def test_a_paced_stream_ends_on_time_whatever_a_tick_costs(srbct, clock):
    """Calls every 0.4 s (a page that draws for 0.15 s after each 0.25 s tick): the stream
    ends by 8 s, not after the 32 x 0.4 = 12.8 s that 73 features a tick would take."""
    live = LiveStream(srbct, 2, "kofsd")
    start, takes = clock.now, []
    while not live.done:
        takes.append(len(live.advance_paced(8.0, 0.25)))
        clock.now += 0.4
    assert takes[0] == 73  # ceil(2308 / 32 ticks): the first tick knows no interval yet
    last_tick_over = clock.now - start  # the last call's start + its 0.4 s
    assert 8.0 - 0.4 < last_tick_over <= 8.0
    assert sum(takes) == 2308


def test_after_a_pause_the_rest_gets_its_share_of_the_time(srbct, clock):
    live = LiveStream(srbct, 2, "kofsd")
    for _ in range(10):
        live.advance_paced(8.0, 0.25)
        clock.now += 0.25
    live.stop_pacing()  # Pause
    clock.now += 60.0
    remaining = live.total - live.position
    # the rest gets its share of 8 s, in whole ticks of 0.25 s
    ticks = math.floor(8.0 * remaining / live.total / 0.25)
    assert len(live.advance_paced(8.0, 0.25)) == math.ceil(remaining / ticks)


def test_a_long_stop_between_calls_paces_again(srbct, clock):
    live = LiveStream(srbct, 2, "kofsd")
    live.advance_paced(8.0, 0.25)
    clock.now += RESUME_GAP + 5.0  # another page, then back: no pause pressed
    remaining = live.total - live.position
    taken = len(live.advance_paced(8.0, 0.25))
    assert taken == math.ceil(remaining / math.floor(8.0 * remaining / live.total / 0.25))
    assert taken < remaining  # not everything at once because the old end has passed


def test_a_tick_behind_its_time_computes_longer_within_the_catch_up(srbct, clock):
    live = LiveStream(srbct, 2, "kofsd")
    budgets = []
    advance = live.advance

    def spy(max_features=None, max_seconds=None):
        budgets.append((max_features, max_seconds))
        return advance(max_features=max_features, max_seconds=None)

    live.advance = spy
    live.advance_paced(8.0, 0.25, 0.2, 0.6)  # no cost known yet: the usual budget
    clock.now += 0.25
    live.feature_seconds = 0.002  # 2 ms a feature: a share of about 73 needs 0.15 s
    live.advance_paced(8.0, 0.25, 0.2, 0.6)
    clock.now += 0.25
    live.feature_seconds = 0.01  # 10 ms: the share would need more than the catch-up
    live.advance_paced(8.0, 0.25, 0.2, 0.6)
    take = budgets[1][0]
    assert budgets[0] == (73, 0.2)
    assert budgets[1][1] == pytest.approx(2 * take * 0.002)  # twice the share
    assert 0.2 < budgets[1][1] < 0.6
    assert budgets[2][1] == 0.6


def test_a_selector_too_slow_for_the_time_says_how_long_it_needs(srbct, clock):
    live = LiveStream(srbct, 2, "kofsd")
    live.advance_paced(8.0, 0.25, 0.2, 0.6)
    assert live.paced_note() == ""  # SRBCT's K-OFSD keeps the time: no note
    live.feature_seconds = 0.01  # as if a feature cost 10 ms (both copies)
    remaining = live.total - live.position
    # calls of 0.6 s of work, each followed by the 0.05 s a tick leaves besides its 0.2 s
    needed = remaining * 0.01 * (1 + 0.05 / 0.6)
    assert live.paced_seconds_left() == pytest.approx(needed)
    note = live.paced_note()
    assert "K-OFSD needs about 10 ms a feature on this data set" in note
    assert "at most 0.6 s of computation fits in one step" in note
    assert f"about {duration_text(needed)} left" in note
    assert "longer than the 8 s the speed names" in note


def test_the_whole_stream_s_estimate_is_its_time_unless_the_work_needs_longer(srbct, clock):
    live = LiveStream(srbct, 2, "kofsd")
    assert live.estimated_seconds(8.0) == 8.0  # nothing measured yet
    live.advance_paced(8.0, 0.25, 0.2, 0.6)
    done, remaining = live.position, live.total - live.position
    live.seconds, live.feature_seconds = 0.001 * done, 0.001  # 2.3 s of work in all
    assert live.estimated_seconds(8.0) == 8.0
    live.feature_seconds = 0.05  # the rest at 50 ms a feature, in calls of 0.6 s + 0.05 s
    expected = (0.001 * done + 0.05 * remaining) * (1 + 0.05 / 0.6)
    assert live.estimated_seconds(8.0) == pytest.approx(expected)
    # the label's whole stream and the running note's time left agree
    assert live.estimated_seconds(8.0) == pytest.approx(
        live.paced_seconds_left() + 0.001 * done * (1 + 0.05 / 0.6)
    )


def test_duration_text():
    assert [duration_text(s) for s in (0.4, 8, 59.6, 130, 3600, 3900)] == [
        "0 s",
        "8 s",
        "1 min",
        "2 min 10 s",
        "1 h",
        "1 h 5 min",
    ]


@pytest.mark.parametrize("method", ONLINE_METHODS)
def test_the_first_chunk_under_a_time_budget_is_bounded(srbct, method):
    """With a budget already spent (0 s), the first call still streams (its cost is not
    known: FIRST_CHUNK features), and every later call streams exactly one feature."""
    live = LiveStream(srbct, 2, method)
    assert len(live.advance(max_seconds=0)) == FIRST_CHUNK
    assert live.feature_seconds is not None
    for _ in range(3):
        assert len(live.advance(max_seconds=0)) == 1
    capped = LiveStream(srbct, 2, method)
    assert len(capped.advance(max_features=5, max_seconds=0)) == 5
    assert len(capped.advance(max_features=500, max_seconds=0)) == 1


@pytest.mark.parametrize("method", ONLINE_METHODS)
def test_chunks_and_pacing_never_change_the_selection(srbct, method, clock):
    """Streamed in chunks of every kind (a bounded first chunk, single features, paced
    shares, a step, the rest at once), the selection is the library's for the same task."""
    live = LiveStream(srbct, 2, method)
    live.advance(max_seconds=0)
    live.advance(max_seconds=0)
    for _ in range(5):
        live.advance_paced(8.0, 0.25, max_seconds=0)
        clock.now += 0.3
    live.advance(max_features=1)
    for _ in range(3):
        live.advance_paced(8.0, 0.25)
        clock.now += 0.7
    live.advance()
    assert live.done
    expected = run_selection(srbct, 2, method).selection
    got = live.selection()
    assert (got.features, got.columns, got.fallback, got.note) == (
        expected.features,
        expected.columns,
        expected.fallback,
        expected.note,
    )
    # bit for bit (alpha-investing's first feature is taken untested: its score is NaN)
    assert np.array_equal(got.scores, expected.scores, equal_nan=True)


def test_kernels_ready_names_the_selector_s_own_families(srbct, monkeypatch):
    """A page says that the first tick compiles when the selector's kernels are not built
    (OFS-FPD's first events took seconds so): its family and the shared column kernels."""
    missing = {"methods.online._statistical._fpd_kernels"}
    monkeypatch.setattr(live_module.kernels, "ready", lambda family: family not in missing)
    streams = {m: LiveStream(srbct, 2, m) for m in ("ofs-fpd", "kofsd", "cie-osfs", "saola")}
    assert {m: s.kernels_ready() for m, s in streams.items()} == {
        "ofs-fpd": False,
        "kofsd": True,
        "cie-osfs": True,
        "saola": True,
    }
    missing = {"methods.online._column_kernels"}
    assert not any(s.kernels_ready() for s in streams.values())


def _chunk_sizes(live: LiveStream) -> list[int]:
    """The blocks the stream hands its selector, recorded as it goes."""
    sizes = []
    step_many = live.selector.step_many

    def spy(block, names, columns):
        sizes.append(block.shape[1])
        return step_many(block, names, columns)

    live.selector.step_many = spy
    return sizes


def test_chunks_grow_from_the_first_by_doubling(srbct):
    live = LiveStream(srbct, 2, "kofsd")
    sizes = _chunk_sizes(live)
    live.advance(max_features=1000, max_seconds=1e9)  # a budget that never runs out
    assert sizes == [FIRST_CHUNK, 2 * FIRST_CHUNK, 256, 256, 256, 1000 - 3 * FIRST_CHUNK - 768]


def test_a_chunk_fits_the_time_left_at_the_measured_cost(srbct):
    live = LiveStream(srbct, 2, "kofsd")
    live.advance(max_features=FIRST_CHUNK)
    sizes = _chunk_sizes(live)
    live.feature_seconds = 0.01  # as if a feature cost 10 ms: 0.05 s holds 5 at most
    live.advance(max_seconds=0.05)
    assert 1 <= sizes[0] <= 5


def test_every_kernel_family_a_selector_declares_is_one_of_the_package():
    """A selector's declared kernel families (what :meth:`LiveStream.kernels_ready` checks)
    name families that exist: a misspelt one would never be ready."""
    from fsengine._compute import kernels
    from fsengine.methods.online import SELECTORS

    families = set(kernels.families())
    declared = {cls.__name__: set(cls.kernel_families) for cls in SELECTORS}
    assert all(names <= families for names in declared.values()), declared
    assert declared["KOFSD"] and declared["OFSFPD"] and not declared["Grafting"]


@pytest.mark.parametrize(
    "method,params",
    [(m, {}) for m in ONLINE_METHODS]
    + [(m, {"ties": "average"}) for m in ("kofsd", "ofs-a3m", "ofs-density", "sfsf", "osfs-et")],
    ids=lambda v: str(v or ""),
)
def test_a_stream_loads_only_the_kernel_families_its_selector_declares(
    srbct, monkeypatch, method, params
):
    """Every family a stream loads, compiled paths forced, is one its selector declares (or
    the column kernels every selector shares): a page that says the kernels are ready is
    not followed by a first chunk that compiles."""
    from fsengine._compute import kernels
    from fsengine.config import config_context
    from fsengine.methods.online import COLUMN_KERNELS

    loaded = set()
    load = kernels.load
    monkeypatch.setattr(kernels, "load", lambda name: loaded.add(name) or load(name))
    with config_context(compiled=True):
        stream = LiveStream(srbct, 2, method, params=params)
        stream.advance(max_features=200)
    declared = {*type(stream.selector).kernel_families, COLUMN_KERNELS}
    assert loaded <= declared, loaded - declared
