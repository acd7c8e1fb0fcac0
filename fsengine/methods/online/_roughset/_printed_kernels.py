"""Compiled (numba) kernels of the printed neighbourhood relations of OFS-A3M and OFS-Density
(``variant="paper"``).

Both papers measure a feature set B the same way (Algorithm 1 of each, "Dep-Adapted" and
"Dependency-Density"): for every sample x_i, the other samples sorted by their distance to x_i
on B (``N_B(x_i)``, x_i itself left out: A3M Definition 8, Density Definition 6), a
neighbourhood cut from the front of that list, the card = the share of the neighbourhood with
x_i's label, the cards added one at a time in sample order and divided by n.

Cuts (``rule``: the codes of :mod:`fsengine.methods.online._codes`, here meaning the printed rules),
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

Exact paths that avoid sorting every row:

* one feature (:func:`single_dependencies`): the distances from a sample grow along each side
  of the column's sorted order, so every neighbourhood (closed under equal distances) is a
  contiguous range of ranks, found by walking the groups of equal distance outwards, each
  run's distance computed once; the walk sees the same sequence of distances, position by
  position, as a sort of the whole row;
* a set (:func:`set_dependency`): per row, the :data:`REACH` nearest distances (with every
  distance equal to the last of them) are selected and sorted; the cut is taken there when it
  is certain (a cut inside them, or a gap to anything beyond them), else the whole row is
  sorted. With a floor, the rows stop once it cannot be reached.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from fsengine._compute.jit import kernel
from fsengine.methods.online._codes import ZHOU_BELOW_FLOOR, ZHOU_DENSITY, ZHOU_GAP

GAP, DENSITY = ZHOU_GAP, ZHOU_DENSITY
#: The printed factor of the mean gap (A3M: "1.5 is an empirical value").
GAP_FACTOR = 1.5
#: A row's cut is first sought among its nearest REACH samples.
REACH = 24
#: Returned by :func:`set_dependency` when the dependency cannot reach the floor asked.
BELOW_FLOOR = ZHOU_BELOW_FLOOR


@njit(cache=True)
def _cut(d, m, total, bound, dmax, n, rule):
    """How many of the other samples form the neighbourhood under the printed ``rule``,
    from the first ``m`` of the ``total = n - 1`` sorted distances ``d``; every other one
    is farther than ``bound`` (``inf`` when ``m = total``). ``dmax``: the largest distance.
    Returns -1 when the answer depends on the distances beyond ``bound``."""
    if total <= 1:
        return total
    if rule == GAP:
        w_gap = GAP_FACTOR * ((dmax - d[0]) / (n - 1))
        for j in range(m - 1):
            step = d[j + 1] - d[j]
            if step > 0.0 and step >= w_gap:
                return j + 1
        if m == total:
            return m
        step = bound - d[m - 1]  # the next step is at least this (rounding is monotone)
        return m if step > 0.0 and step >= w_gap else -1
    k = -1
    last = d[0]  # d(1) = D(1) / 1
    for p in range(2, m + 1):
        density = d[p - 1] / p
        if density < last:
            k = p - 1
            break
        last = density
    if k < 0:
        if m < total:
            return -1
        k = m
    while k < m and d[k] == d[k - 1]:  # equal distances together (beyond bound: farther)
        k += 1
    return k


@njit(cache=True)
def _sort_pairs(d, idx, c):
    """Sort (d, idx)[:c] by distance, then index (``idx`` ascending on entry)."""
    if c > 32:
        order = np.argsort(d[:c], kind="mergesort")
        dd = d[:c].copy()
        ii = idx[:c].copy()
        for q in range(c):
            d[q] = dd[order[q]]
            idx[q] = ii[order[q]]
        return
    for a in range(1, c):
        dv, iv = d[a], idx[a]
        b = a - 1
        while b >= 0 and (d[b] > dv or (d[b] == dv and idx[b] > iv)):
            d[b + 1] = d[b]
            idx[b + 1] = idx[b]
            b -= 1
        d[b + 1] = dv
        idx[b + 1] = iv


@njit(cache=True)
def _neighbours(a, dist, rule, d, idx):
    """The printed neighbourhood of sample ``a`` from its distances ``dist`` (n,) to every
    sample: its size k, with the neighbours in ``idx[:k]`` by (distance, index). The
    nearest :data:`REACH` distances (and any equal to the last of them) are sorted first;
    the whole row only when the cut lies beyond them."""
    n = dist.shape[0]
    total = n - 1
    raw = np.empty(total)
    who = np.empty(total, dtype=np.int64)
    m = 0
    dmax = -np.inf
    for t in range(n):
        if t != a:
            raw[m] = dist[t]
            who[m] = t
            if dist[t] > dmax:
                dmax = dist[t]
            m += 1
    if total > REACH:
        bound = np.partition(raw, REACH - 1)[REACH - 1]
        c = 0
        for q in range(total):
            if raw[q] <= bound:
                d[c] = raw[q]
                idx[c] = who[q]
                c += 1
        _sort_pairs(d, idx, c)
        k = _cut(d, c, total, bound, dmax, n, rule)
        if k >= 0:
            return k
    for q in range(total):
        d[q] = raw[q]
        idx[q] = who[q]
    _sort_pairs(d, idx, total)
    return _cut(d, total, total, np.inf, dmax, n, rule)


@kernel("i8(f8[::1], i8, i8, i8[::1])")
def neighbourhood(dist, a, rule, out):
    """The printed neighbourhood of sample ``a`` from its distances ``dist`` (n,) to every
    sample (``dist[a]`` is ignored): writes the neighbours, by (distance, index), into
    ``out`` and returns their number."""
    n = dist.shape[0]
    d = np.empty(n)
    idx = np.empty(n, dtype=np.int64)
    k = _neighbours(a, dist, rule, d, idx)
    for q in range(k):
        out[q] = idx[q]
    return k


@kernel("f8(f8[:, ::1], f8[:, ::1], f8[::1], i8[::1], i8, f8, i8[::1], f8[::1])")
def set_dependency(base, extra, extra_w, y, rule, floor, rows, cards):
    """Dependency of a set whose squared distances are ``base`` (n, n; the sum over the
    set's first columns) plus the terms of the columns ``extra`` (e, n), added in order.

    ``floor``: the caller only needs to know whether the dependency reaches it; the rows
    stop as soon as it cannot (even with every card left at 1, by a margin of 1e-9) and
    :data:`BELOW_FLOOR` is returned (``-inf``: always compute it). ``rows`` (n,) is the
    order in which the rows are visited: a row whose card is below 1 moves to the front.
    ``cards`` (n,) receives each card; they are added in sample order."""
    n = y.shape[0]
    dist = np.empty(n)
    d = np.empty(n)
    idx = np.empty(n, dtype=np.int64)
    need = floor * n - 1e-9 * n
    done = 0.0
    for q in range(n):
        a = rows[q]
        for t in range(n):
            v = base[a, t]
            for c in range(extra.shape[0]):
                g = extra[c, a] - extra[c, t]
                v = v + (extra_w[c] * g) * g
            dist[t] = np.sqrt(v)
        k = _neighbours(a, dist, rule, d, idx)
        same = 0
        for j in range(k):
            if y[idx[j]] == y[a]:
                same += 1
        card = same / k
        cards[a] = card
        done += card
        if card < 1.0 and q > 0:
            for r in range(q, 0, -1):
                rows[r] = rows[r - 1]
            rows[0] = a
        if done + (n - q - 1) < need:
            return BELOW_FLOOR
    total = 0.0
    for i in range(n):
        total += cards[i]
    return total / n


# ------------------------------------------------------------------ one feature


@njit(cache=True, inline="always")
def _dist(w, a, b):
    g = a - b
    return np.sqrt((w * g) * g)


@njit(cache=True, inline="always")
def _advance(xi, w, xs, run_start, run_end, lo, hi, dl, dr):
    """Take the next group of equal distance from x_i beyond the ranks ``lo..hi``; ``dl``,
    ``dr``: the distances of the next ranks on each side. Returns (found, its distance, the
    new lo, hi, dl, dr)."""
    n = xs.shape[0]
    has_l, has_r = lo > 0, hi < n - 1
    if not has_l and not has_r:
        return False, 0.0, lo, hi, dl, dr
    v = dl if has_l and (not has_r or dl <= dr) else dr
    while lo > 0 and dl == v:
        lo = run_start[lo - 1]
        dl = _dist(w, xi, xs[lo - 1]) if lo > 0 else np.inf
    while hi < n - 1 and dr == v:
        hi = run_end[hi + 1]
        dr = _dist(w, xi, xs[hi + 1]) if hi < n - 1 else np.inf
    return True, v, lo, hi, dl, dr


@njit(cache=True)
def _single_card(r, xs, run_start, run_end, ones, w, lab, rule):
    """Card of the sample at sorted rank ``r`` on one feature of weight ``w``: the groups
    of equal distance are taken outwards, position by position as in a sort of the row."""
    n = xs.shape[0]
    xi = xs[r]
    lo, hi = run_start[r], run_end[r]  # its equal values: the others are at distance 0
    pos = hi - lo  # positions taken (the sample itself is not one)
    dmax = max(_dist(w, xi, xs[0]), _dist(w, xi, xs[n - 1]))
    dl = _dist(w, xi, xs[lo - 1]) if lo > 0 else np.inf
    dr = _dist(w, xi, xs[hi + 1]) if hi < n - 1 else np.inf
    stopped = False
    if pos == 0:  # position 1: always a neighbour
        _, v, lo, hi, dl, dr = _advance(xi, w, xs, run_start, run_end, lo, hi, dl, dr)
        dmin = prev = last = v
        if rule == DENSITY:
            for p in range(2, hi - lo + 1):  # inside the first group
                density = v / p
                if density < last:
                    stopped = True  # an inflection point inside: the group, then stop
                    break
                last = density
        pos = hi - lo
    else:
        dmin = prev = last = 0.0
    w_gap = GAP_FACTOR * ((dmax - dmin) / (n - 1))
    while not stopped:
        found, v, nlo, nhi, ndl, ndr = _advance(xi, w, xs, run_start, run_end, lo, hi, dl, dr)
        if not found:
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
        lo, hi, dl, dr = nlo, nhi, ndl, ndr
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
