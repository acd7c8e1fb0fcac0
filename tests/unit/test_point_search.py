"""The distinct points of a set (fsengine.online._point_search, ._search_kernels) against
their definitions in numpy."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from fsengine.online._point_search import point_members
from fsengine.online._tie_average import refine


def _refine_by_definition(codes, values):
    """Samples sorted by (point, value); a new point wherever either changes."""
    order = np.lexsort((values, codes))
    sorted_codes, sorted_values = codes[order], values[order]
    starts = np.ones(len(order), dtype=bool)
    starts[1:] = (sorted_codes[1:] != sorted_codes[:-1]) | (sorted_values[1:] != sorted_values[:-1])
    new_codes = np.empty(len(order), dtype=np.int64)
    new_codes[order] = np.cumsum(starts) - 1
    first = order[starts]
    return new_codes, codes[first], values[first]


@st.composite
def points_and_values(draw):
    n = draw(st.integers(1, 60))
    n_points = draw(st.integers(1, 8))
    codes = draw(arrays(np.int64, n, elements=st.integers(0, n_points - 1)))
    codes[draw(st.integers(0, n - 1))] = n_points - 1  # the highest point is used
    levels = st.sampled_from([0.0, -0.0, 0.0, 1.5, -2.0, 3.25, 1e-300, -1e300, 7.0])
    values = draw(arrays(np.float64, n, elements=levels))
    return codes, values


@settings(max_examples=300, deadline=None)
@given(points_and_values())
def test_refine_numbers_points_as_the_sorted_definition(case):
    codes, values = case
    new_codes, base_of, point_values = refine(codes, values)
    want_codes, want_base, want_values = _refine_by_definition(codes, values)
    assert new_codes.tolist() == want_codes.tolist()
    assert base_of.tolist() == want_base.tolist()
    assert point_values.tolist() == want_values.tolist()  # -0.0 == 0.0


@settings(max_examples=200, deadline=None)
@given(points_and_values())
def test_members_are_each_point_s_samples_in_row_order(case):
    codes, _ = case
    n_points = int(codes.max()) + 1
    start, members = point_members(codes, n_points)
    for a in range(n_points):
        assert members[start[a] : start[a + 1]].tolist() == np.flatnonzero(codes == a).tolist()
