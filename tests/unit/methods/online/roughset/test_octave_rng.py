"""Octave's random stream (fsengine.methods.online._roughset.octave_rng) against what Octave
itself drew: the visit orders of every ``non_signf`` call recorded in the OFS-A3M and OFS-Density
traces (tests/reference/zhou_octave, ``rand('state', 0)``; about 1,500 calls)."""

from __future__ import annotations

import csv
from collections import defaultdict

import numpy as np
import pytest

from conftest import ZHOU_REFERENCE
from fsengine.errors import FSEngineError
from fsengine.methods.online._roughset.octave_rng import OctaveRandom

SETS = ["ds1", "ds2", "ds3", "ds4", "ds5", "ds6", "ds7", "SRBCT", "GLIOMA"]


def _rows(path) -> list[list[str]]:
    with open(path) as f:
        return [row for row in csv.reader(f) if row]


@pytest.mark.parametrize("method", ["ofs_a3m", "ofs_density"])
@pytest.mark.parametrize("name", SETS)
def test_randperm_replays_every_recorded_visit_order(name, method):
    trace = _rows(ZHOU_REFERENCE / f"{name}_{method}_trace.csv")
    visits = defaultdict(list)  # step -> [(candidate, deleted)] in visiting order
    for step, candidate, *_, deleted in _rows(ZHOU_REFERENCE / f"{name}_{method}_nonsignf.csv"):
        visits[int(step)].append((int(candidate), deleted == "1"))
    rng = OctaveRandom(0)
    selected: set[int] = set()
    calls = 0
    for row in trace:
        step, action = int(row[0]), int(row[2])
        if action in (2, 4):  # non_signf ran: candidates = the set before the step, ascending
            candidates = sorted(selected)
            order = [candidates[k] for k in rng.randperm(len(candidates))]
            assert order == [c for c, _ in visits[step]], (name, method, step)
            calls += 1
            selected.add(step)
            if action == 2:  # the deletions stand
                selected -= {c for c, deleted in visits[step] if deleted}
        elif action == 1:
            selected.add(step)
        assert len(selected) == int(row[-1]), (name, method, step)
    assert calls == len(visits)


def test_rand_is_numpys_legacy_generator_seeded_with_a_list():
    rng = OctaveRandom(3)
    assert np.array_equal(rng.rand(5), np.random.RandomState([3]).random_sample(5))
    assert rng.drawn == 5
    assert not np.array_equal(OctaveRandom(3).rand(5), np.random.RandomState(3).random_sample(5))


def test_randperm_is_a_forward_shuffle_drawing_n_numbers():
    u = np.random.RandomState([7]).random_sample(6)
    expected = list(range(6))
    for k in range(6):  # by hand: swap k with k + floor(u_k (n - k))
        j = k + int(np.floor(u[k] * (6 - k)))
        expected[k], expected[j] = expected[j], expected[k]
    rng = OctaveRandom(7)
    assert rng.randperm(6).tolist() == expected
    assert rng.drawn == 6
    assert rng.randperm(0).tolist() == [] and rng.drawn == 6


@pytest.mark.parametrize("seed", [-1, 2**32, 1.5, "0"])
def test_bad_seeds_are_refused(seed):
    with pytest.raises(FSEngineError, match="seed"):
        OctaveRandom(seed)
