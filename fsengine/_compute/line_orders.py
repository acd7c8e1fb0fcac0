"""Compiled (numba) helpers of the kernels that order a line of values stably from an
argsort of its non-zero values (:func:`fsengine._compute.sparse.stable_order` and
K-OFSD's single-feature counts): one line at a time, called only from other kernels."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def stable_line_order(values, rows, by, z, order):
    """One line's stable ascending order into ``order`` (its n places): each run of equal
    non-zero values of the argsort ``by`` put back in position order (in place), then the
    negative values, the zeros in position order (the gaps between the non-zero values'
    positions) and the positive values. ``values[:z]`` and ``rows[:z]``: the line's
    non-zero values and their positions, in position order."""
    n = order.shape[0]
    negative = ordered_ties(values, by, z)
    for q in range(negative):
        order[q] = rows[by[q]]
    at = negative
    previous = 0
    for q in range(z):
        for i in range(previous, rows[q]):
            order[at] = i
            at += 1
        previous = rows[q] + 1
    for i in range(previous, n):
        order[at] = i
        at += 1
    for q in range(negative, z):
        order[at] = rows[by[q]]
        at += 1


@njit(cache=True)
def ordered_ties(values, by, z):
    """Put each run of equal values of the argsort ``by[:z]`` (of ``values``) in position
    order, as a stable sort leaves it; returns how many values are negative."""
    q = 0
    while q < z:
        end = q + 1
        while end < z and values[by[end]] == values[by[q]]:
            end += 1
        if end - q > 1:  # (a run of one is in order: no call, no reference counts)
            sort_run(by, q, end)
        q = end
    negative = 0
    while negative < z and values[by[negative]] < 0.0:
        negative += 1
    return negative


@njit(cache=True)
def sort_run(positions, start, stop):
    """Sort ``positions[start:stop]`` in place: left as it is when ascending already (a
    stable order's runs are), by insertion when short, else by numpy's sort."""
    ascending = True
    for a in range(start + 1, stop):
        if positions[a] < positions[a - 1]:
            ascending = False
            break
    if ascending:
        return
    if stop - start > 16:
        positions[start:stop] = np.sort(positions[start:stop])
        return
    for a in range(start + 1, stop):
        held = positions[a]
        t = a - 1
        while t >= start and positions[t] > held:
            positions[t + 1] = positions[t]
            t -= 1
        positions[t + 1] = held
