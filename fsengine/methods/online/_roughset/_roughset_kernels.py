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
  K by (distance, index), NaN last, or the samples within the radius, selected on the
  squares (roots taken only where two squares could have equal roots). With a floor, the
  rows stop once it cannot be reached;
* S + one feature (:func:`set_dependency_sorted`): only the prefix of each row of S sorted
  (:func:`sort_rows`) that can still reach the first K + 1 (or the radius) is summed;
* a set without one member (:func:`set_dependency_without`): rows from running sums minus
  that member's terms, kept where no decision lies within their rounding error.

The cards are added one at a time in sample order and divided by n, as the code does.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from fsengine._compute.jit import kernel
from fsengine.methods.online._codes import ROUGHSET_KNN, ROUGHSET_RADIUS, ZHOU_BELOW_FLOOR
from fsengine.methods.online._roughset._dependency_kernels import sum_in_order as _in_order

KNN, RADIUS = ROUGHSET_KNN, ROUGHSET_RADIUS
#: Returned by :func:`set_dependency` when the dependency cannot reach the floor asked.
BELOW_FLOOR = ZHOU_BELOW_FLOOR


@njit(cache=True, inline="always")
def _before(da, a, db, b):
    """(da, a) comes before (db, b) in the stable order, NaN last (private helpers are not
    shared across packages: K-OFSD's kernels have the same rule)."""
    if da != da:
        return db != db and a < b
    if db != db:
        return True
    return da < db or (da == db and a < b)


@njit(cache=True)
def _sort_ints(buf, k):
    """Insertion sort of buf[:k] (a batch of sample indices; short)."""
    for a in range(1, k):
        v = buf[a]
        c = a - 1
        while c >= 0 and buf[c] > v:
            buf[c + 1] = buf[c]
            c -= 1
        buf[c + 1] = v


@njit(cache=True, inline="always")
def _dist(w, a, b):
    g = a - b
    return np.sqrt((w * g) * g)


# ------------------------------------------------------------------ one feature


@kernel("void(f8[:, ::1], i8[:, ::1], i8[::1], i8, i8, f8[::1])", nogil=True)
def fuzzy_singles(block, order, y, lo, hi, out):
    """Fuzzy dependency of columns ``lo..hi-1`` of ``block`` (n, b) alone; ``order`` its
    stable argsort per column. Writes ``out[lo:hi]``."""
    n = block.shape[0]
    xs = np.empty(n)
    ls = np.empty(n, dtype=np.int64)
    low = np.empty(n)
    for f in range(lo, hi):
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
def _single_knn_card(r, xs, o, y, w, k, buf):
    """Share of the first k of sample o[r]'s stable (distance, index) order with its label:
    the sorted column walked outwards, each side's next distance computed once, a batch of
    equal distance (both sides) sorted by index."""
    n = xs.shape[0]
    xi = xs[r]
    lab = y[o[r]]
    lp, rp = r - 1, r + 1
    dl = _dist(w, xi, xs[lp]) if lp >= 0 else np.inf
    dr = _dist(w, xi, xs[rp]) if rp < n else np.inf
    # the first batch: distance 0 (the sample itself and any equal sample)
    m = 1
    buf[0] = o[r]
    v = 0.0
    taken = 0
    same = 0
    while True:
        while lp >= 0 and dl == v:
            buf[m] = o[lp]
            m += 1
            lp -= 1
            dl = _dist(w, xi, xs[lp]) if lp >= 0 else np.inf
        while rp < n and dr == v:
            buf[m] = o[rp]
            m += 1
            rp += 1
            dr = _dist(w, xi, xs[rp]) if rp < n else np.inf
        if m > 1:
            _sort_ints(buf, m)
        for a in range(m):
            if taken == k:
                break
            taken += 1
            if y[buf[a]] == lab:
                same += 1
        if taken == k or (lp < 0 and rp >= n):
            break
        v = dl if dl <= dr else dr
        m = 0
    return same / k


@kernel("void(f8[:, ::1], i8[:, ::1], f8[::1], i8[::1], i8, i8, i8, f8[::1])", nogil=True)
def knn_singles(block, order, weights, y, k, lo, hi, out):
    """k-nearest dependency of columns ``lo..hi-1`` of ``block`` (n, b) alone; ``order`` its
    stable argsort per column, ``weights`` 1 / var (inf: a constant column). Writes
    ``out[lo:hi]``."""
    n = block.shape[0]
    xs = np.empty(n)
    o = np.empty(n, dtype=np.int64)
    buf = np.empty(n, dtype=np.int64)
    cards = np.empty(n)
    for f in range(lo, hi):
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


@kernel("void(f8[:, ::1], i8[:, ::1], f8[::1], i8[::1], f8, i8, i8, f8[::1])", nogil=True)
def radius_singles(block, order, weights, y, radius, lo, hi, out):
    """Radius dependency of columns ``lo..hi-1`` of ``block`` (n, b) alone; ``order`` its
    stable argsort per column, ``weights`` 1 / var (inf: a constant column, whose only
    neighbour of a sample is itself: dependency 1). Writes ``out[lo:hi]``."""
    n = block.shape[0]
    xs = np.empty(n)
    ones = np.zeros(n + 1, dtype=np.int64)
    cards = np.empty(n)
    for f in range(lo, hi):
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


@njit(cache=True, inline="always")
def _settle(q, a, card, rows, done, need):
    """After row q (sample a) of a dependency with a floor: the running total, the row
    moved to the front when its card is below 1, and whether the floor is out of reach."""
    n = rows.shape[0]
    done += card
    if card < 1.0 and q > 0:
        for r in range(q, 0, -1):
            rows[r] = rows[r - 1]
        rows[0] = a
    return done, done + (n - q - 1) < need


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
            done, out_of_reach = _settle(q, a, card, rows, done, need)
            if out_of_reach:
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


# ------------------------------------------------------------------ S + f from S's sorted rows


@kernel("void(f8[:, ::1], f8[:, ::1], i8[:, ::1])")
def sort_rows(sq, values, index):
    """Each row a of ``sq`` (0 put on the diagonal) sorted ascending (ties in any order),
    into ``values`` and ``index``."""
    n = sq.shape[0]
    row = np.empty(n)
    for a in range(n):
        for t in range(n):
            row[t] = sq[a, t]
        row[a] = 0.0
        order = np.argsort(row)  # the order of ties does not matter to the callers
        for q in range(n):
            index[a, q] = order[q]
            values[a, q] = row[order[q]]


@njit(cache=True)
def _list_knn_card(lab, csq, cidx, size, y, k, bd, bi):
    """:func:`_knn_card` (exact squares) over a list of candidates (csq, cidx)[:size] that
    holds every sample whose square can be among the k + 1 smallest or tie with the k-th."""
    m = 0  # the k + 1 smallest so far by (square, index), NaN last
    for c in range(size):
        d = csq[c]
        t = cidx[c]
        if m == k + 1 and not _before(d, t, bd[k], bi[k]):
            continue
        e = k if m == k + 1 else m
        while e > 0 and _before(d, t, bd[e - 1], bi[e - 1]):
            bd[e] = bd[e - 1]
            bi[e] = bi[e - 1]
            e -= 1
        bd[e] = d
        bi[e] = t
        if m < k + 1:
            m += 1
    lo, hi = bd[k - 1], bd[k]
    same = 0
    if lo == lo and not (hi != hi or np.sqrt(hi) > np.sqrt(lo)):
        r = np.sqrt(lo)
        below = 0
        for e in range(k):
            if np.sqrt(bd[e]) < r:
                below += 1
                if y[bi[e]] == lab:
                    same += 1
        # the candidates whose root ties with r, by index
        tied = np.empty(size, dtype=np.int64)
        count = 0
        for e in range(size):
            v = csq[e]
            if v >= lo * (1.0 - SQRT_BAND) and v <= lo * (1.0 + SQRT_BAND) and np.sqrt(v) == r:
                tied[count] = cidx[e]
                count += 1
        _sort_ints(tied, count)
        for e in range(min(count, k - below)):
            if y[tied[e]] == lab:
                same += 1
        return same / k
    for e in range(k):
        if y[bi[e]] == lab:
            same += 1
    return same / k


@kernel(
    "f8(f8[:, ::1], f8[:, ::1], i8[:, ::1], f8[::1], f8, i8[::1], i8, i8, f8, f8, i8[::1], f8[::1])"
)
def set_dependency_sorted(base, values, index, x, w, y, rule, k, radius, floor, rows, cards):
    """Dependency of S + one column (``x``, weight ``w``), as :func:`set_dependency` with
    ``extra = x``, from S's squared distances ``base`` and its rows sorted (:func:`sort_rows`).

    The column only adds non-negative terms, so a sample whose square on S is above the
    largest new square of the row's first k + 1 on S (k-nearest) or above R squared (radius),
    beyond the band where roots can tie, cannot enter: only the sorted prefix below that bound
    is summed and examined. Rows holding NaN (a constant member) and k >= n take the full
    path."""
    n = y.shape[0]
    sq = np.empty(n)
    csq = np.empty(n)
    cidx = np.empty(n, dtype=np.int64)
    bd = np.empty(k + 1)
    bi = np.empty(k + 1, dtype=np.int64)
    extra = np.empty((1, n))
    extra[0] = x
    ew = np.empty(1)
    ew[0] = w
    early = floor > -np.inf
    need = floor * n - 1e-9 * n
    done = 0.0
    r2 = radius * radius
    for q in range(n):
        a = rows[q]
        xa = x[a]
        if values[a, n - 1] != values[a, n - 1] or (rule == KNN and k >= n):
            _exact_row(a, base, extra, ew, sq)
            if rule == RADIUS:
                card, ok = _radius_card(a, sq, y, radius, 0.0)
            else:
                card, ok = _knn_card(a, sq, y, k, bd, bi, 0.0)
        else:
            if rule == KNN:
                bound = -np.inf
                for c in range(k + 1):
                    t = index[a, c]
                    if t == a:
                        v = 0.0
                    else:
                        g = xa - x[t]
                        v = values[a, c] + (w * g) * g
                    if v > bound:
                        bound = v
            else:
                bound = r2
            limit = bound * (1.0 + 4.0 * SQRT_BAND)
            size = 0
            for c in range(n):
                if values[a, c] > limit:
                    break
                t = index[a, c]
                if t == a:
                    v = 0.0
                else:
                    g = xa - x[t]
                    v = values[a, c] + (w * g) * g
                csq[size] = v
                cidx[size] = t
                size += 1
            if rule == RADIUS:
                inside_below = r2 * (1.0 - SQRT_BAND)
                total = 0
                same = 0
                for c in range(size):
                    v = csq[c]
                    if v < inside_below:
                        hit = True
                    elif v > r2 * (1.0 + SQRT_BAND):
                        hit = False
                    else:
                        hit = _within(np.sqrt(v), radius)
                    if hit:
                        total += 1
                        if y[cidx[c]] == y[a]:
                            same += 1
                card = same / total
            else:
                card = _list_knn_card(y[a], csq, cidx, size, y, k, bd, bi)
        cards[a] = card
        if early:
            done, out_of_reach = _settle(q, a, card, rows, done, need)
            if out_of_reach:
                return BELOW_FLOOR
    return _in_order(cards) / n
