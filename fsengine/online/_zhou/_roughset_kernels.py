"""Compiled (numba) kernels of the rough-set dependencies of SFSF and OSFS-ET.

The definitions are in :mod:`.roughset` (what the authors' code computes); these kernels
compute the same numbers, bit for bit, without the n x n matrices of one feature:

* fuzzy, one feature (:func:`fuzzy_singles`): a sample's lower approximation is
  ``1 - (1 - d / interval)`` at the smallest |x_i - x_j| over the samples of the other
  class (the expression only grows with the difference, in floating point too), found in
  the column's sorted order: the nearest other-class value on each side;
* k-nearest, one feature (:func:`knn_singles`): the first K samples of the stable order by
  (distance, index) are found by walking the sorted column outwards from the sample, one
  batch of equal computed distance at a time (a batch sorted by index), the distance being
  the code's ``sqrt((w * d) * d)``; a constant feature (w = inf) has NaN distances, so the
  sample itself comes first and then the others by index;
* radius, one feature (:func:`radius_singles`): the neighbours ``d <= R * max(d, 1)`` are a
  range of the sorted column around the sample (the test only fails further out), found by
  bisection on each side and counted with prefix sums of the labels;
* a set (:func:`set_dependency`): each row's squared distances are the sums ``base`` plus
  the terms of the columns ``extra`` in order, then ``sqrt``, 0 on the diagonal; the first
  K by (distance, index), NaN last, or the samples within the radius. With a floor, the
  rows stop once it cannot be reached.

The cards are added one at a time in sample order and divided by n, as the code does.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from fsengine._compute.jit import kernel
from fsengine.online._codes import ROUGHSET_KNN, ROUGHSET_RADIUS, ZHOU_BELOW_FLOOR

KNN, RADIUS = ROUGHSET_KNN, ROUGHSET_RADIUS
#: Returned by :func:`set_dependency` when the dependency cannot reach the floor asked.
BELOW_FLOOR = ZHOU_BELOW_FLOOR


@njit(cache=True, inline="always")
def _dist(w, a, b):
    g = a - b
    return np.sqrt((w * g) * g)


@njit(cache=True)
def _in_order(cards):
    total = 0.0
    for c in cards:
        total += c
    return total


# ------------------------------------------------------------------ one feature


@kernel("void(f8[:, ::1], i8[:, ::1], i8[::1], f8[::1])")
def fuzzy_singles(block, order, y, out):
    """Fuzzy dependency of each column of ``block`` (n, b) alone; ``order`` its stable
    argsort per column. Writes ``out`` (b,)."""
    n, b = block.shape
    xs = np.empty(n)
    ls = np.empty(n, dtype=np.int64)
    low = np.empty(n)
    for f in range(b):
        for q in range(n):
            xs[q] = block[order[q, f], f]
            ls[q] = y[order[q, f]]
        interval = abs(xs[n - 1] - xs[0])
        if not interval > 0.0:
            out[f] = 0.0  # every similarity 1: every lower approximation 0
            continue
        # smallest difference to the other class on the left, then on the right
        last = np.full(2, np.nan)  # last value seen of class 0 / 1
        for q in range(n):
            other = last[1 - ls[q]]
            low[q] = xs[q] - other if other == other else np.inf
            last[ls[q]] = xs[q]
        last[:] = np.nan
        for q in range(n - 1, -1, -1):
            other = last[1 - ls[q]]
            if other == other:
                d = other - xs[q]
                if d < low[q]:
                    low[q] = d
            last[ls[q]] = xs[q]
        cards = np.empty(n)
        for q in range(n):
            cards[order[q, f]] = 1.0 - (1.0 - low[q] / interval)
        out[f] = _in_order(cards) / n


@njit(cache=True)
def _sort_ints(buf, k):
    for a in range(1, k):
        v = buf[a]
        c = a - 1
        while c >= 0 and buf[c] > v:
            buf[c + 1] = buf[c]
            c -= 1
        buf[c + 1] = v


@njit(cache=True)
def _single_knn_card(r, xs, o, y, w, k, buf):
    """Share of the first k of sample o[r]'s stable (distance, index) order with its label."""
    n = xs.shape[0]
    xi = xs[r]
    lab = y[o[r]]
    lp, rp = r - 1, r + 1
    # the first batch: distance 0 (the sample itself and any equal sample)
    m = 0
    buf[m] = o[r]
    m += 1
    while lp >= 0 and _dist(w, xi, xs[lp]) == 0.0:
        buf[m] = o[lp]
        m += 1
        lp -= 1
    while rp < n and _dist(w, xi, xs[rp]) == 0.0:
        buf[m] = o[rp]
        m += 1
        rp += 1
    taken = 0
    same = 0
    while True:
        _sort_ints(buf, m)
        for a in range(m):
            if taken == k:
                break
            taken += 1
            if y[buf[a]] == lab:
                same += 1
        if taken == k or (lp < 0 and rp >= n):
            break
        dl = _dist(w, xi, xs[lp]) if lp >= 0 else np.inf
        dr = _dist(w, xi, xs[rp]) if rp < n else np.inf
        v = dl if dl <= dr else dr
        m = 0
        while lp >= 0 and _dist(w, xi, xs[lp]) == v:
            buf[m] = o[lp]
            m += 1
            lp -= 1
        while rp < n and _dist(w, xi, xs[rp]) == v:
            buf[m] = o[rp]
            m += 1
            rp += 1
    return same / k


@kernel("void(f8[:, ::1], i8[:, ::1], f8[::1], i8[::1], i8, f8[::1])")
def knn_singles(block, order, weights, y, k, out):
    """k-nearest dependency of each column of ``block`` (n, b) alone; ``order`` its stable
    argsort per column, ``weights`` 1 / var (inf: a constant column). Writes ``out``."""
    n, b = block.shape
    xs = np.empty(n)
    o = np.empty(n, dtype=np.int64)
    buf = np.empty(n, dtype=np.int64)
    cards = np.empty(n)
    for f in range(b):
        w = weights[f]
        if not np.isfinite(w):
            for i in range(n):  # itself, then the others by index (NaN distances)
                same = 1
                taken = 1
                for j in range(n):
                    if taken == k:
                        break
                    if j != i:
                        taken += 1
                        if y[j] == y[i]:
                            same += 1
                cards[i] = same / k
            out[f] = _in_order(cards) / n
            continue
        for q in range(n):
            o[q] = order[q, f]
            xs[q] = block[o[q], f]
        for q in range(n):
            cards[o[q]] = _single_knn_card(q, xs, o, y, w, k, buf)
        out[f] = _in_order(cards) / n


@njit(cache=True, inline="always")
def _within(d, radius):
    """``d <= R * max(d, 1)`` (Octave's max ignores NaN; NaN <= anything is false)."""
    return d <= radius * (d if d > 1.0 else 1.0)


@kernel("void(f8[:, ::1], i8[:, ::1], f8[::1], i8[::1], f8, f8[::1])")
def radius_singles(block, order, weights, y, radius, out):
    """Radius dependency of each column of ``block`` (n, b) alone; ``order`` its stable
    argsort per column, ``weights`` 1 / var (inf: a constant column, whose only neighbour
    of a sample is itself: dependency 1). Writes ``out``."""
    n, b = block.shape
    xs = np.empty(n)
    ones = np.zeros(n + 1, dtype=np.int64)
    cards = np.empty(n)
    for f in range(b):
        w = weights[f]
        if not np.isfinite(w):
            out[f] = 1.0
            continue
        for q in range(n):
            xs[q] = block[order[q, f], f]
            ones[q + 1] = ones[q] + y[order[q, f]]
        for q in range(n):
            xi = xs[q]
            lo, hi = 0, q  # the first rank within reach on the left is in [lo, hi]
            while lo < hi:
                mid = (lo + hi) // 2
                if _within(_dist(w, xi, xs[mid]), radius):
                    hi = mid
                else:
                    lo = mid + 1
            left = lo
            lo, hi = q, n - 1  # the last rank within reach on the right
            while lo < hi:
                mid = (lo + hi + 1) // 2
                if _within(_dist(w, xi, xs[mid]), radius):
                    lo = mid
                else:
                    hi = mid - 1
            total = lo - left + 1
            in1 = ones[lo + 1] - ones[left]
            same = in1 if y[order[q, f]] == 1 else total - in1
            cards[order[q, f]] = same / total
        out[f] = _in_order(cards) / n


# ------------------------------------------------------------------ a set

#: Relative width of the band of squared distances around a boundary where the square
#: roots are taken to decide (outside it, sqrt's monotonicity decides: two squares
#: further apart than this have distinct roots).
SQRT_BAND = 1e-14


@njit(cache=True, inline="always")
def _before(da, a, db, b):
    """(da, a) comes before (db, b) in the stable order, NaN distances last."""
    if da != da:
        return db != db and a < b
    if db != db:
        return True
    return da < db or (da == db and a < b)


@njit(cache=True)
def _smallest(sq, m, bd, bi):
    """The m smallest of ``sq`` by (value, index), NaN last, into bd/bi (sorted)."""
    n = sq.shape[0]
    size = 0
    for t in range(n):
        d = sq[t]
        if size == m:  # later indices lose ties: only a strictly smaller value enters
            top = bd[m - 1]
            if top == top:
                if not (d < top):
                    continue
            elif d != d:
                continue
        c = m - 1 if size == m else size
        while c > 0 and _before(d, t, bd[c - 1], bi[c - 1]):
            bd[c] = bd[c - 1]
            bi[c] = bi[c - 1]
            c -= 1
        bd[c] = d
        bi[c] = t
        if size < m:
            size += 1
    return size


@njit(cache=True)
def _knn_card(a, sq, y, k, bd, bi, err):
    """Card of sample a (share of the first k of its stable (distance, index) order with its
    label) from its squared distances ``sq`` (sq[a] = 0), distance = sqrt(sq).

    ``err`` > 0: the squares are known within ``err`` each: the card is returned only when
    the k-th and (k+1)-th squares are too far apart for any error to swap them (second
    value True), else (0, False). ``err`` = 0: exact squares; where a boundary tie of the
    square roots is possible, the roots in the band decide."""
    n = sq.shape[0]
    lab = y[a]
    m = k + 1 if k < n else k
    _smallest(sq, m, bd, bi)
    if k < n:
        lo, hi = bd[k - 1], bd[k]
        if err > 0.0:
            if not (hi - lo > 2.0 * err + SQRT_BAND * abs(hi)):  # NaN too
                return 0.0, False
        elif lo == lo and not (hi != hi or np.sqrt(hi) > np.sqrt(lo)):
            # the k-th root may tie with roots outside: the first k are the samples with a
            # root below r, then those with root r by index
            r = np.sqrt(lo)
            below = 0
            same = 0
            for c in range(k):
                if np.sqrt(bd[c]) < r:
                    below += 1
                    if y[bi[c]] == lab:
                        same += 1
            band = lo * (1.0 + SQRT_BAND)
            for t in range(n):  # ascending index: the tied ones in order
                if below == k:
                    break
                v = sq[t]
                if v >= lo * (1.0 - SQRT_BAND) and v <= band and np.sqrt(v) == r:
                    below += 1
                    if y[t] == lab:
                        same += 1
            return same / k, True
    same = 0
    for c in range(k):
        if y[bi[c]] == lab:
            same += 1
    return same / k, True


@njit(cache=True)
def _radius_card(a, sq, y, radius, err):
    """Card of sample a (share of the samples within ``d <= R * max(d, 1)``, d = sqrt(sq),
    with its label); with ``err`` > 0, (0, False) when a square is too near the radius."""
    n = sq.shape[0]
    lab = y[a]
    r2 = radius * radius
    inside_below = r2 * (1.0 - SQRT_BAND)
    outside_above = r2 * (1.0 + SQRT_BAND)
    total = 0
    same = 0
    for t in range(n):
        v = sq[t]
        if v + err < inside_below:
            hit = True
        elif v - err > outside_above or v != v:
            hit = False
        elif err > 0.0:
            return 0.0, False
        else:
            hit = _within(np.sqrt(v), radius)
        if hit:
            total += 1
            if y[t] == lab:
                same += 1
    return same / total, True


@njit(cache=True)
def _exact_row(a, base, extra, extra_w, sq):
    """sq = row a of ``base`` plus the terms of the columns ``extra``, added in order."""
    n = sq.shape[0]
    e = extra.shape[0]
    if e == 1:  # S + f, the common case: one pass the compiler can vectorise
        w = extra_w[0]
        xa = extra[0, a]
        for t in range(n):
            g = xa - extra[0, t]
            sq[t] = base[a, t] + (w * g) * g
    else:
        for t in range(n):
            v = base[a, t]
            for c in range(e):
                g = extra[c, a] - extra[c, t]
                v = v + (extra_w[c] * g) * g
            sq[t] = v
    sq[a] = 0.0


@njit(cache=True)
def _rows_dependency(
    base, extra, extra_w, full, scale, drop, drop_w, n_ops, y, rule, k, radius, floor, rows, cards
):
    """The row loop of :func:`set_dependency` (``n_ops`` < 0: exact sums only) and
    :func:`set_dependency_without` (rows from ``full`` minus ``drop``'s terms first)."""
    n = y.shape[0]
    sq = np.empty(n)
    bd = np.empty(k + 1)
    bi = np.empty(k + 1, dtype=np.int64)
    early = floor > -np.inf
    need = floor * n - 1e-9 * n
    unit = (n_ops + 4) * 2.3e-16
    done = 0.0
    for q in range(n):
        a = rows[q]
        ok = False
        card = 0.0
        if n_ops >= 0:
            for t in range(n):
                g = drop[a] - drop[t]
                sq[t] = full[a, t] - (drop_w * g) * g
            sq[a] = 0.0
            err = unit * scale[a]
            if rule == RADIUS:
                card, ok = _radius_card(a, sq, y, radius, err)
            else:
                card, ok = _knn_card(a, sq, y, k, bd, bi, err)
        if not ok:
            _exact_row(a, base, extra, extra_w, sq)
            if rule == RADIUS:
                card, ok = _radius_card(a, sq, y, radius, 0.0)
            else:
                card, ok = _knn_card(a, sq, y, k, bd, bi, 0.0)
        cards[a] = card
        if early:
            done += card
            if card < 1.0 and q > 0:
                for r in range(q, 0, -1):
                    rows[r] = rows[r - 1]
                rows[0] = a
            if done + (n - q - 1) < need:
                return BELOW_FLOOR
    return _in_order(cards) / n


@kernel("f8(f8[:, ::1], f8[:, ::1], f8[::1], i8[::1], i8, i8, f8, f8, i8[::1], f8[::1])")
def set_dependency(base, extra, extra_w, y, rule, k, radius, floor, rows, cards):
    """Dependency of a set whose squared distances are ``base`` (n, n; the sum over the set's
    first columns) plus the terms of the columns ``extra`` (e, n), added in order.

    ``rule``: :data:`KNN` (first ``k``) or :data:`RADIUS`. ``floor``: the caller only needs
    to know whether the dependency reaches it; the rows stop as soon as it cannot (even with
    every card left at 1, by a margin of 1e-9) and :data:`BELOW_FLOOR` is returned
    (``-inf``: always compute it). ``rows`` (n,) is the order in which the rows are visited:
    a row whose card falls below 1 moves to the front. ``cards`` (n,) receives each card.

    The square roots are taken only where two squares are close enough for their roots to
    tie (:func:`_knn_card`, :func:`_radius_card`)."""
    none = np.empty(0)
    return _rows_dependency(
        base, extra, extra_w, base, none, none, 0.0, -1, y, rule, k, radius, floor, rows, cards
    )


@kernel(
    (
        "f8(f8[:, ::1], f8[::1], f8[::1], f8, i8, f8[:, ::1], f8[:, ::1], f8[::1], i8[::1], "
        "i8, i8, f8, f8, i8[::1], f8[::1])"
    ),
)
def set_dependency_without(
    full, scale, drop, drop_w, n_ops, base, extra, extra_w, y, rule, k, radius, floor, rows, cards
):
    """Dependency of a set R without one of its columns (``drop``, weight ``drop_w``), as
    :func:`set_dependency` computes it on the sums ``base`` + ``extra``, but from ``full``:
    running sums of R's squared distances, each entry within ``n_ops`` roundings of
    ``scale`` (its row's bound on every partial sum) of the exact sequential sum. A row's
    squares are ``full[a] - terms(drop)``; its card is taken when no decision is within
    that error, and computed from the exact sums otherwise. ``floor``, ``rows``, ``cards``:
    as :func:`set_dependency`."""
    return _rows_dependency(
        base,
        extra,
        extra_w,
        full,
        scale,
        drop,
        drop_w,
        n_ops,
        y,
        rule,
        k,
        radius,
        floor,
        rows,
        cards,
    )
