"""Compiled (numba) kernels of the printed neighbourhood relations of OFS-A3M and OFS-Density
(``variant="paper"``).

Both papers measure a feature set B the same way (Algorithm 1 of each, "Dep-Adapted" and
"Dependency-Density"): for every sample x_i, the other samples sorted by their distance to x_i
on B (``N_B(x_i)``, x_i itself left out: A3M Definition 8, Density Definition 6), a
neighbourhood cut from the front of that list, the card = the share of the neighbourhood with
x_i's label, the cards added one at a time in sample order and divided by n.

Cuts (``rule``: the codes of :mod:`fsengine.online._codes`, here meaning the printed rules),
on the sorted distances ``D(1) <= ... <= D(n - 1)``:

* ``GAP`` (A3M, Definitions 8-9): ``W = 1.5 * ((D(n-1) - D(1)) / (n - 1))``; the neighbourhood
  is ``D(1..k)`` with ``k`` the first position whose step ``D(k+1) - D(k)`` is ``>= W`` and
  ``> 0`` (a step of 0 is never a gap: Theorem 1, equal distances are taken together); no
  such step: all ``n - 1``.
* ``DENSITY`` (Density, Definition 7, eq. 10): ``d(k) = D(k) / k``; the first ``k >= 2`` with
  ``d(k) < d(k - 1)`` is the first inflection point and the neighbourhood is ``D(1..k-1)``,
  extended to every sample at distance ``D(k - 1)`` (equal distances taken together); no
  inflection point: all ``n - 1``.

Distances: ``sqrt`` of the sum over the set's columns, in the set's order, of ``(w * g) * g``
with ``g = x_a - x_b``; the caller gives ``w`` (A3M: ``1 / var``, 0 for a constant column;
Density: 1).

One feature (:func:`single_dependencies`): the distances from a sample grow along each side of
the column's sorted order, so every neighbourhood (closed under equal distances) is a
contiguous range of ranks, found by walking the groups of equal distance outwards; the walk
sees the same sequence of distances, position by position, as a sort of the whole row.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from fsengine._compute.jit import kernel
from fsengine.online._codes import ZHOU_DENSITY, ZHOU_GAP

GAP, DENSITY = ZHOU_GAP, ZHOU_DENSITY
#: The printed factor of the mean gap (A3M: "1.5 is an empirical value").
GAP_FACTOR = 1.5


@njit(cache=True)
def _cut(d, m, n, rule):
    """How many of the sorted distances ``d[:m]`` (the ``m = n - 1`` other samples) form
    the neighbourhood under the printed ``rule``."""
    if m <= 1:
        return m
    if rule == GAP:
        w_gap = GAP_FACTOR * ((d[m - 1] - d[0]) / (n - 1))
        for j in range(m - 1):
            step = d[j + 1] - d[j]
            if step > 0.0 and step >= w_gap:
                return j + 1
        return m
    k = m
    last = d[0]  # d(1) = D(1) / 1
    for p in range(2, m + 1):
        density = d[p - 1] / p
        if density < last:
            k = p - 1
            break
        last = density
    while k < m and d[k] == d[k - 1]:  # equal distances together
        k += 1
    return k


@njit(cache=True)
def _sorted_others(a, dist, d, idx):
    """The distances of every sample but ``a`` sorted by (distance, index) into ``d`` and
    their samples into ``idx``; returns their number."""
    n = dist.shape[0]
    raw = np.empty(n - 1)
    who = np.empty(n - 1, dtype=np.int64)
    m = 0
    for t in range(n):
        if t != a:
            raw[m] = dist[t]
            who[m] = t
            m += 1
    order = np.argsort(raw, kind="mergesort")
    for q in range(m):
        d[q] = raw[order[q]]
        idx[q] = who[order[q]]
    return m


@kernel("i8(f8[::1], i8, i8, i8[::1])")
def neighbourhood(dist, a, rule, out):
    """The printed neighbourhood of sample ``a`` from its distances ``dist`` (n,) to every
    sample (``dist[a]`` is ignored): writes the neighbours, by (distance, index), into
    ``out`` and returns their number."""
    n = dist.shape[0]
    d = np.empty(n)
    idx = np.empty(n, dtype=np.int64)
    m = _sorted_others(a, dist, d, idx)
    k = _cut(d, m, n, rule)
    for q in range(k):
        out[q] = idx[q]
    return k


@kernel("f8(f8[:, ::1], f8[:, ::1], f8[::1], i8[::1], i8, f8[::1])")
def set_dependency(base, extra, extra_w, y, rule, cards):
    """Dependency of a set whose squared distances are ``base`` (n, n; the sum over the
    set's first columns) plus the terms of the columns ``extra`` (e, n), added in order.
    ``cards`` (n,) receives each sample's card; they are added in sample order."""
    n = y.shape[0]
    sq = np.empty(n)
    d = np.empty(n)
    idx = np.empty(n, dtype=np.int64)
    total = 0.0
    for a in range(n):
        for t in range(n):
            v = base[a, t]
            for c in range(extra.shape[0]):
                g = extra[c, a] - extra[c, t]
                v = v + (extra_w[c] * g) * g
            sq[t] = np.sqrt(v)
        m = _sorted_others(a, sq, d, idx)
        k = _cut(d, m, n, rule)
        same = 0
        for q in range(k):
            if y[idx[q]] == y[a]:
                same += 1
        cards[a] = same / k
        total += cards[a]
    return total / n


# ------------------------------------------------------------------ one feature


@njit(cache=True, inline="always")
def _dist(w, a, b):
    g = a - b
    return np.sqrt((w * g) * g)


@njit(cache=True)
def _next_group(xi, w, xs, run_start, run_end, lo, hi):
    """The next group of equal distance from x_i beyond the ranks ``lo..hi`` already
    taken: (its distance, the new lo, the new hi); distance -1 when none is left."""
    n = xs.shape[0]
    has_l, has_r = lo > 0, hi < n - 1
    if not has_l and not has_r:
        return -1.0, lo, hi
    dl = _dist(w, xi, xs[lo - 1]) if has_l else np.inf
    dr = _dist(w, xi, xs[hi + 1]) if has_r else np.inf
    v = dl if dl <= dr else dr
    while lo > 0 and _dist(w, xi, xs[lo - 1]) == v:
        lo = run_start[lo - 1]
    while hi < n - 1 and _dist(w, xi, xs[hi + 1]) == v:
        hi = run_end[hi + 1]
    return v, lo, hi


@njit(cache=True)
def _single_card(r, xs, run_start, run_end, ones, w, lab, rule):
    """Card of the sample at sorted rank ``r`` on one feature of weight ``w``."""
    n = xs.shape[0]
    xi = xs[r]
    lo, hi = run_start[r], run_end[r]  # its equal values: the others are at distance 0
    pos = hi - lo  # positions taken (the sample itself is not one)
    dmax = max(_dist(w, xi, xs[0]), _dist(w, xi, xs[n - 1]))
    if pos == 0:  # position 1: always a neighbour
        v, lo, hi = _next_group(xi, w, xs, run_start, run_end, lo, hi)
        dmin = v
        size = hi - lo
        last = v
        if rule == DENSITY:
            for p in range(2, size + 1):  # inside the first group
                density = v / p
                if density < last:
                    size = -1  # an inflection point inside: the group, then stop
                    break
                last = density
        pos = hi - lo
        prev = v
        stopped = size < 0
    else:
        dmin = 0.0
        last = 0.0
        prev = 0.0
        stopped = False
    w_gap = GAP_FACTOR * ((dmax - dmin) / (n - 1))
    while not stopped:
        v, nlo, nhi = _next_group(xi, w, xs, run_start, run_end, lo, hi)
        if v < 0.0:
            break
        size = (lo - nlo) + (nhi - hi)
        if rule == GAP:
            step = v - prev
            if step > 0.0 and step >= w_gap:
                break
            prev = v
        else:
            cut = -1  # the inflection point's place in the group, if there
            for q in range(size):
                density = v / (pos + q + 1)
                if density < last:
                    cut = q
                    break
                last = density
            if cut == 0:
                break  # at the group's first position: the group is not taken
            stopped = cut > 0  # inside: the group is taken whole, then stop
        lo, hi = nlo, nhi
        pos += size
    ones_in = ones[hi + 1] - ones[lo]
    same = ones_in if lab == 1 else (hi - lo + 1) - ones_in
    return (same - 1) / (hi - lo)


@kernel("void(f8[:, ::1], i8[:, ::1], f8[::1], i8[::1], i8, f8[::1])")
def single_dependencies(block, order, weights, y, rule, out):
    """Dependency of each column of ``block`` (n, b) alone under the printed ``rule``;
    ``order`` is the stable argsort of each column, ``weights`` the columns' ``w``.
    Writes ``out`` (b,)."""
    n, b = block.shape
    xs = np.empty(n)
    run_start = np.empty(n, dtype=np.int64)
    run_end = np.empty(n, dtype=np.int64)
    ones = np.zeros(n + 1, dtype=np.int64)
    cards = np.empty(n)
    for f in range(b):
        o = order[:, f]
        for q in range(n):
            xs[q] = block[o[q], f]
            ones[q + 1] = ones[q] + (1 if y[o[q]] == 1 else 0)
        for q in range(n):
            run_start[q] = q if q == 0 or xs[q] != xs[q - 1] else run_start[q - 1]
        for q in range(n - 1, -1, -1):
            run_end[q] = q if q == n - 1 or xs[q] != xs[q + 1] else run_end[q + 1]
        for q in range(n):
            cards[o[q]] = _single_card(q, xs, run_start, run_end, ones, weights[f], y[o[q]], rule)
        total = 0.0
        for i in range(n):
            total += cards[i]
        out[f] = total / n
