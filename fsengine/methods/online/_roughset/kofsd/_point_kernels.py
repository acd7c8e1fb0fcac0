"""Compiled (numba) kernels of K-OFSD's set tests on distinct points, under the authors'
tie rule (``ties="index"``).

Samples with equal values on S + f are one *point*: they have the same distance to every
other sample, so a sample's list (every sample sorted by distance, ties by row index,
NaN last: the reference's ``sort(D(i, :))``) is, up to the place where it is cut, the same
for every sample of a point. The first M = K + 1 of it are the samples of the points
nearer than the cut distance t, then the samples of lowest row index among those at
distance t. One pass over the P points per point gives every sample's card: O(P^2) per
set test instead of O(N^2), and on sparse counts P is far below N (most cells share the
point of zeros).

A point's samples (``members[start[a]:start[a + 1]]``) are in increasing row order. The
distance between points a and b is ``sqrt(base[o_a, o_b] + (w * d) * d)``, d their
difference on the candidate and ``base`` the set's summed terms between its own points,
or from coordinates the terms summed feature by feature in the set's order: the
arithmetic of :mod:`._set_kernels`, so equal distances are equal here too and every card
is the one the sample-wise kernels give.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from fsengine._compute.jit import kernel
from fsengine.methods.online._roughset.kofsd._knn_kernels import card_value
from fsengine.methods.online._search_kernels import candidate_distances


@njit(cache=True, inline="always")
def _same(d, t):
    """Equal distances, NaN equal to NaN."""
    return d == t or (d != d and t != t)


@njit(cache=True)
def _cut(dist, start, m, keys, idx, cand):
    """The distance t of the m-th sample in the order by distance (NaN after any number):
    the smallest t such that at least m samples of the points ``cand`` (at distances
    ``dist``) are at distance at most t (NaN if they hold fewer than m samples at a
    number). A weighted quickselect over the points, each weighing its samples; O(P)
    expected."""
    n_idx = 0
    finite = 0
    for q in range(len(dist)):
        d = dist[q]
        b = cand[q]
        if d == d:
            idx[n_idx] = b
            keys[n_idx] = d
            n_idx += 1
            finite += start[b + 1] - start[b]
    if finite < m:
        return math.nan
    target = m
    lo, hi = 0, n_idx
    while True:
        pivot = keys[lo + (hi - lo) // 2]
        lt, i, gt = lo, lo, hi
        while i < gt:
            key = keys[i]
            if key < pivot:
                keys[i], keys[lt] = keys[lt], keys[i]
                idx[i], idx[lt] = idx[lt], idx[i]
                lt += 1
                i += 1
            elif key > pivot:
                gt -= 1
                keys[i], keys[gt] = keys[gt], keys[i]
                idx[i], idx[gt] = idx[gt], idx[i]
            else:
                i += 1
        below = 0
        for q in range(lo, lt):
            b = idx[q]
            below += start[b + 1] - start[b]
        if target <= below:
            hi = lt
            continue
        equal = 0
        for q in range(lt, gt):
            b = idx[q]
            equal += start[b + 1] - start[b]
        if target <= below + equal:
            return pivot
        target -= below + equal
        lo = gt


@njit(cache=True)
def _lowest_tied(tied, n_tied, start, members, r, low):
    """The r lowest row indices among the samples of the points ``tied[:n_tied]``, in
    increasing order, into ``low[:r]`` (there are at least r)."""
    count = 0
    for q in range(n_tied):
        b = tied[q]
        for s in range(start[b], start[b + 1]):
            v = members[s]
            if count == r and v >= low[r - 1]:
                break  # this point's later samples have higher indices still
            pos = count if count < r else r - 1
            if count < r:
                count += 1
            while pos > 0 and low[pos - 1] > v:
                low[pos] = low[pos - 1]
                pos -= 1
            low[pos] = v


@njit(cache=True)
def _point_cards(a, cand, dist, n_cand, far, start, members, y, m1, k, paper, card, gamma,
                 bufs, cards):  # fmt: skip
    """Every sample of point ``a``: its card on S + f from its list (see the module), into
    ``cards``; returns their sum, or NaN when the candidate points ``cand[:n_cand]`` (at
    exact distances ``dist``) may miss a point of the list: every point left out is at
    distance ``far`` or more, up to rounding (inf: none is left out)."""
    keys, idx, tied, low = bufs
    M = k + 1
    t = _cut(dist[:n_cand], start, M, keys, idx, cand)
    if far != np.inf and not (t < far * (1.0 - 1e-9)):
        return math.nan  # a point beyond the candidates may be as near as the cut
    d0 = -1.0
    for q in range(n_cand):
        if cand[q] == a:
            d0 = dist[q]  # 0, or NaN on a set with a constant feature
    if d0 == -1.0:
        return math.nan
    below = 0
    below_min = 0
    n_tied = 0
    first = -1  # the list's first sample: the lowest index at the least distance
    for q in range(n_cand):
        b = cand[q]
        d = dist[q]
        if _same(d, t):
            tied[n_tied] = b
            n_tied += 1
        elif d < t or (t != t and d == d):
            below += start[b + 1] - start[b]
            below_min += m1[b]
        if _same(d, d0) and (first < 0 or members[start[b]] < first):
            first = members[start[b]]
    if d0 != d0:
        # A constant feature in S + f (infinite weight): every distance is NaN but a
        # sample's own, 0 (pdist's squareform): its list is itself, then every other
        # sample in row order, in either variant.
        _lowest_tied(tied, n_tied, start, members, M, low)
        list_min = 0
        for q in range(M):
            list_min += y[low[q]]
        total = 0.0
        for s in range(start[a], start[a + 1]):
            i = members[s]
            n_min = list_min - (y[i] if i <= low[M - 1] else y[low[M - 1]])
            same = n_min if y[i] == 1 else k - n_min
            value = card_value(card, gamma, same, k, y[i])
            cards[i] = value
            total += value
        return total
    r = M - below
    _lowest_tied(tied, n_tied, start, members, r, low)
    list_min = below_min
    for q in range(r):
        list_min += y[low[q]]
    last = low[r - 1]  # the M-th sample of the list
    total = 0.0
    zero_cut = _same(t, d0)  # the list ends among the samples at a's own distance
    for s in range(start[a], start[a + 1]):
        i = members[s]
        if not paper:
            n_min = list_min - y[first]  # positions 2..K+1
        elif not zero_cut or i <= last:
            n_min = list_min - y[i]  # the sample is among the first K + 1: left out
        else:
            n_min = list_min - y[last]  # the first K
        same = n_min if y[i] == 1 else k - n_min
        value = card_value(card, gamma, same, k, y[i])
        cards[i] = value
        total += value
    return total


@kernel(
    "f8(f8[:, ::1], i8[::1], f8[::1], f8, f8[:, ::1], f8[::1], b1, i8[::1], i8[::1], i8[::1],"
    " i8[::1], i8, b1, i8, f8, i8[::1], i8[::1], i8[::1], f8[::1], f8[::1], f8, f8[::1], b1[::1])",
    error_model="numpy",
)
def point_set_cards(
    base,
    base_of,
    values,
    weight,
    coords,
    weights,
    from_coords,
    start,
    members,
    y,
    m1,
    k,
    paper,
    card,
    gamma,
    points,
    cand_start,
    cand,
    far,
    state,
    floor,
    cards,
    missed,
):
    """The cards on S + f of the samples of ``points``, from the distinct points of S + f.

    Parameters
    ----------
    base : (Q, Q) the summed terms of S's features between S's points.
    base_of : (P,) each point's point on S (its row of ``base``).
    values : (P,) each point's value of the candidate; ``weight`` its distance weight.
    coords, weights, from_coords : with ``from_coords``, distances from the points'
        coordinates (P, s), one column per feature of S + f in summation order, and their
        weights (s,); else from ``base`` and the candidate.
    start, members : the samples of point a are ``members[start[a]:start[a + 1]]``, in
        increasing row order.
    y : (n,) labels (minority 1). m1 : (P,) each point's number of minority samples.
    k, paper : K, and the printed variant (the sample left out of its own list) rather
        than the reference (the list's first element dropped).
    card, gamma : the card function's code and Card_Weight's threshold.
    points : (c,) the points measured, in this order.
    cand_start, cand : the points among which the list of ``points[q]`` is sought are
        ``cand[cand_start[q]:cand_start[q + 1]]``; ``far`` (c,): every other point is at
        this distance or more, up to rounding (inf: the candidates hold the list).
    state : (2,) the cards summed so far and the samples left, carried between calls.
    floor : once ``state``'s sum plus one per sample left falls below it, the test stops.
    cards : (n,) written: the cards of the samples of the points measured.
    missed : (c,) written: the point's candidates may miss part of its list (its cards
        are not written; measure it again with more candidates).

    Returns
    -------
    float
        1.0, or NaN when the test stopped below ``floor``.
    """
    m = len(values)
    dist = np.empty(m)
    bufs = (
        np.empty(m),
        np.empty(m, np.int64),
        np.empty(m, np.int64),
        np.empty(k + 1, np.int64),
    )
    for q in range(points.shape[0]):
        a = points[q]
        row_cand = cand[cand_start[q] : cand_start[q + 1]]
        candidate_distances(
            a, row_cand, base, base_of, values, weight, coords, weights, from_coords, dist
        )
        got = _point_cards(a, row_cand, dist, len(row_cand), far[q], start, members, y, m1,
                           k, paper, card, gamma, bufs, cards)  # fmt: skip
        if got != got:
            missed[q] = True
            continue
        missed[q] = False
        state[0] += got
        state[1] -= start[a + 1] - start[a]
        if state[1] > 0 and state[0] + state[1] < floor:
            return math.nan
    return 1.0


@kernel("f8(f8[::1], i8[::1])")
def sum_in_order(values, order):
    """``values[order]`` summed one at a time (the card sum of the sample-wise kernels'
    early rejection, in their row order)."""
    total = 0.0
    for q in range(order.shape[0]):
        total += values[order[q]]
    return total
