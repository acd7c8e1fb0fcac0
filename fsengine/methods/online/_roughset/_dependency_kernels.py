"""Compiled (numba) kernels of the neighbourhood dependency of OFS-A3M and OFS-Density.

Both methods (doodzhou/OSFS, ``OFS_A3M.m`` and ``OFS-Density``, function ``dep_an``) measure
a feature set by: the distances ``pdist(X_S, 'seuclidean')`` (for each pair, the sum over the
set's columns, in order, of ``(w * d) * d`` with ``w = 1 / var``, then ``sqrt``; 0 on the
diagonal), for every sample its column of distances sorted ascending with a stable sort
(ties to the lower sample index), a neighbour rule on the sorted distances ``D(1..n)``
(position 1 is skipped: the sample itself unless an exact duplicate of lower index comes
first), the card = the fraction of the neighbours that share the sample's label, the cards
added one at a time in sample order and divided by n.

Neighbour rules (``rule``):

* ``GAP`` (OFS-A3M, function ``card``): ``gap = 1.5 * (D(n) - D(2)) / (n - 2)``; position 2
  is a neighbour; positions 3, 4, ... join while ``D(j) - D(j - 1) < gap``.
* ``DENSITY`` (OFS-Density, ``card_density``): ``last = D(2)``; positions j = 2, 3, ... join
  while ``D(j) / (j - 1)`` is 0 or ``<= last``, ``last`` becoming that density.

Exact paths that avoid sorting every row:

* one feature (:func:`column_dependency`): from a sample, distances grow along each side of
  the column's sorted order, so the neighbours are a contiguous range of ranks found by
  walking the groups of equal values outwards with the cheap distances ``sqrt(w) * |dx|``
  (:func:`_quick_single_card`; exact distances where a decision is within
  :data:`APPROX_TOL`), or by the exact merge of the two sides (:func:`_single_card`: samples
  of equal distance emitted together, by index). Cost O(n log n) for the column's sort plus
  the walk's length per sample; with a threshold, the samples stop once the comparison is
  certain;
* a set (:func:`set_dependency`): each row's squared distances are computed once (base
  matrix plus the terms of the remaining columns, in the set's order); D(2) and D(n) are the
  square roots of the 2nd smallest and the largest (sqrt is monotone and correctly rounded),
  the samples within a bound of D(2) are sorted by (distance, index) and walked; a walk that
  runs past the bound stops if the next sample cannot continue it, and otherwise falls back
  to a stable sort of the whole row. With a floor, the rows stop once it cannot be reached;
* a set without one member (:func:`set_dependency_without`): rows from running sums minus
  that member's terms, kept only where no decision lies within their rounding error.

A zero-variance column makes every off-diagonal distance NaN (Octave's ``inv`` of a singular
diagonal matrix is Inf everywhere); the callers handle those sets (:func:`degenerate_cards`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from fsengine._compute.jit import kernel
from fsengine.methods.online._codes import (
    ZHOU_ABOVE_THRESHOLD,
    ZHOU_BELOW_FLOOR,
    ZHOU_DENSITY,
    ZHOU_GAP,
)

GAP, DENSITY = ZHOU_GAP, ZHOU_DENSITY
#: A row's walk is first tried on the samples within this many gaps of D(2) (GAP) or
#: within this factor of D(2) (DENSITY); beyond, the whole row is sorted.
GAP_REACH, DENSITY_REACH = 6.0, 4.0
#: Returned by :func:`set_dependency` when the dependency cannot reach the floor asked.
BELOW_FLOOR = ZHOU_BELOW_FLOOR


@njit(cache=True, inline="always")
def _term(w, a, b):
    g = a - b
    return (w * g) * g


@kernel("f8[::1](i8[::1], i8)")
def degenerate_cards(y, rule):
    """Cards when every off-diagonal distance is NaN: the sorted column of sample i is
    i, then the others in index order, so D(2) is NaN at the lowest other sample. GAP: that
    sample is the only neighbour (the gap is NaN); DENSITY: no neighbour, card 0/0 = NaN."""
    n = y.shape[0]
    cards = np.empty(n)
    for i in range(n):
        if rule == DENSITY:
            cards[i] = np.nan
        else:
            first = 1 if i == 0 else 0
            cards[i] = 1.0 if y[first] == y[i] else 0.0
    return cards


@kernel("f8(f8[::1])")
def sum_in_order(cards):
    """``card_ND = card_ND + card`` from 0, sample by sample."""
    total = 0.0
    for c in cards:
        total += c
    return total


# ------------------------------------------------------------------ one feature


@njit(cache=True, inline="always")
def _dist(w, xi, v):
    return np.sqrt(_term(w, xi, v))


@njit(cache=True)
def _emit_group(o, start, end, buf, k):
    """Append the sample indices of sorted ranks start..end (ascending index) to buf."""
    for q in range(start, end + 1):
        buf[k] = o[q]
        k += 1
    return k


@njit(cache=True)
def _sort_ints(buf, k):
    """Insertion sort of buf[:k] (runs of ascending indices: nearly sorted)."""
    for a in range(1, k):
        v = buf[a]
        b = a - 1
        while b >= 0 and buf[b] > v:
            buf[b + 1] = buf[b]
            b -= 1
        buf[b + 1] = v


@njit(cache=True)
def _next_batch(xi, w, xs, o, run_start, run_end, state, buf):
    """The next group of samples at equal distance from x_i, by index, into buf.

    state = [left rank, right rank]: the nearest ranks not yet emitted on each side.
    Returns (count, distance); count 0 when every sample has been emitted."""
    n = xs.shape[0]
    lp, rp = state[0], state[1]
    has_l, has_r = lp >= 0, rp < n
    if not has_l and not has_r:
        return 0, 0.0
    dl = _dist(w, xi, xs[lp]) if has_l else 0.0
    dr = _dist(w, xi, xs[rp]) if has_r else 0.0
    if has_l and has_r:
        v = dl if dl <= dr else dr
    else:
        v = dl if has_l else dr
    k = 0
    while lp >= 0 and _dist(w, xi, xs[lp]) == v:
        k = _emit_group(o, run_start[lp], lp, buf, k)
        lp = run_start[lp] - 1
    while rp < n and _dist(w, xi, xs[rp]) == v:
        k = _emit_group(o, rp, run_end[rp], buf, k)
        rp = run_end[rp] + 1
    state[0], state[1] = lp, rp
    _sort_ints(buf, k)
    return k, v


@njit(cache=True)
def _single_card(i, r, x, xs, o, run_start, run_end, w, y, rule, buf, state):
    """Card of sample i (sorted rank r) on one feature with finite weight w."""
    n = xs.shape[0]
    xi = x[i]
    lab = y[i]
    dmax = max(_dist(w, xi, xs[0]), _dist(w, xi, xs[n - 1]))
    # First batch: i's group of equal values (distance 0) and any side group at 0 too.
    k = _emit_group(o, run_start[r], run_end[r], buf, 0)
    lp, rp = run_start[r] - 1, run_end[r] + 1
    while lp >= 0 and _dist(w, xi, xs[lp]) == 0.0:
        k = _emit_group(o, run_start[lp], lp, buf, k)
        lp = run_start[lp] - 1
    while rp < n and _dist(w, xi, xs[rp]) == 0.0:
        k = _emit_group(o, rp, run_end[rp], buf, k)
        rp = run_end[rp] + 1
    state[0], state[1] = lp, rp
    _sort_ints(buf, k)
    v = 0.0
    at = 1  # next element of the batch; element 0 is position 1 (skipped)
    j = 2  # sorted position of buf[at]
    total = 0
    same = 0
    prev = 0.0
    gap = 0.0
    last = 0.0
    while True:
        if at >= k:
            k, v = _next_batch(xi, w, xs, o, run_start, run_end, state, buf)
            at = 0
            if k == 0:
                break
        t = buf[at]
        if j == 2:
            if rule == GAP:
                gap = 1.5 * (dmax - v) / (n - 2) if n > 2 else 0.0
            else:
                last = v if v >= 0.0 else 0.0
        if rule == GAP:
            if j > 2 and not (v - prev < gap):
                break
            prev = v
        else:
            density = v / (j - 1)
            if not (density == 0.0 or density <= last):
                break
            last = density
        total += 1
        if y[t] == lab:
            same += 1
        at += 1
        j += 1
    return same / total


#: Relative bound (of the largest distance) on the difference between the cheap distance
#: ``sqrt(w) * |x_a - x_b|`` and the exact ``sqrt((w * g) * g)`` (a few ulps in truth).
APPROX_TOL = 1e-12


@njit(cache=True)
def _quick_single_card(i, r, xs, run_start, run_end, ones, w, sw, y, y_sorted, rule):
    """Card of sample i (sorted rank r) on one feature with finite weight w, by walking the
    sorted column's groups of equal values outwards with the cheap distances ``sw * |dx|``
    (``sw = sqrt(w)``), the exact ones computed only where a decision is within
    :data:`APPROX_TOL` of its threshold or two sides are about as far. The neighbours form a
    contiguous range of ranks (equal distances are never split when the gap is positive),
    counted with ``ones`` (prefix counts of label 1 in sorted order). Returns -1 when the
    sample needs the exact walk (:func:`_single_card`): a gap of 0, or a distance that
    underflows to 0."""
    n = xs.shape[0]
    xi = xs[r]
    lab = y[i]
    gs, ge = run_start[r], run_end[r]
    dl = _dist(w, xi, xs[gs - 1]) if gs > 0 else np.inf
    dr = _dist(w, xi, xs[ge + 1]) if ge < n - 1 else np.inf
    if dl == 0.0 or dr == 0.0:
        return -1.0
    own = ge - gs + 1
    d2 = 0.0 if own > 1 else min(dl, dr)
    dmax = max(_dist(w, xi, xs[0]), _dist(w, xi, xs[n - 1]))
    tol = APPROX_TOL * dmax
    gap = 1.5 * (dmax - d2) / (n - 2) if n > 2 else 0.0
    if rule == GAP and not gap > 0.0:
        return -1.0
    lo, hi = gs, ge
    prev_a = 0.0  # cheap distance of the last included group
    prev_q = r  # a rank in that group (exact distance on demand)
    last = 0.0  # DENSITY: density of the last included position
    forced = own == 1  # position 2 is always a neighbour
    # DENSITY with equal values: their densities are 0 and the next one's is not
    walking = rule == GAP or forced
    while walking and (lo > 0 or hi < n - 1):
        al = sw * (xi - xs[lo - 1]) if lo > 0 else np.inf
        ar = sw * (xs[hi + 1] - xi) if hi < n - 1 else np.inf
        take_l, take_r = al < ar, ar < al
        if abs(al - ar) <= tol:
            el = _dist(w, xi, xs[lo - 1])
            er = _dist(w, xi, xs[hi + 1])
            take_l, take_r = el <= er, er <= el
        a_next = al if take_l else ar
        q_next = lo - 1 if take_l else hi + 1
        size = 0
        if take_l:
            size += (lo - 1) - run_start[lo - 1] + 1
        if take_r:
            size += run_end[hi + 1] - (hi + 1) + 1
        if not forced:
            if rule == GAP:
                step = a_next - prev_a
                if abs(step - gap) <= 3.0 * tol:
                    e_prev = 0.0 if prev_q == r else _dist(w, xi, xs[prev_q])
                    if not (_dist(w, xi, xs[q_next]) - e_prev < gap):
                        break
                elif not step < gap:
                    break
            else:
                j = hi - lo + 2  # the position of the group's first sample
                density = a_next / (j - 1)
                if abs(density - last) <= 3.0 * tol:
                    e_prev = _dist(w, xi, xs[prev_q])
                    last_e = e_prev / (hi - lo)
                    if not (_dist(w, xi, xs[q_next]) / (j - 1) <= last_e):
                        break
                elif not density <= last:
                    break
        forced = False
        if take_l:
            lo = run_start[lo - 1]
        if take_r:
            hi = run_end[hi + 1]
        prev_a, prev_q = a_next, q_next
        if rule == DENSITY:
            last = a_next / (hi - lo)
    count = hi - lo  # positions 2..: the range without position 1
    ones_in = ones[hi + 1] - ones[lo]
    same = ones_in if lab == 1 else (hi - lo + 1) - ones_in
    if y_sorted[gs] == lab:  # position 1: the group's lowest index (stable order)
        same -= 1
    return same / count


#: Returned by :func:`column_dependency` when the dependency is certainly above the
#: threshold asked (it is certainly below: :data:`BELOW_FLOOR`).
ABOVE_THRESHOLD = ZHOU_ABOVE_THRESHOLD


@kernel("f8(f8[:, ::1], i8[:, ::1], i8, f8, i8[::1], i8, f8, i8[::1])")
def column_dependency(block, order, f, w, y, rule, threshold, rows):
    """Dependency of column ``f`` of ``block`` (n, b) alone; ``order`` is the stable argsort
    of each column, ``w`` the column's weight 1 / var (inf: zero variance).

    ``threshold``: the caller only needs to know how the dependency compares with it; the
    samples stop as soon as it is certain (by a margin of 1e-9) that it is above
    (:data:`ABOVE_THRESHOLD` is returned) or below (:data:`BELOW_FLOOR`); NaN: always
    compute it. ``rows`` is the order in which the samples are visited. The cards are added
    in sample order.

    Each card comes from :func:`_quick_single_card`, or from the exact merge walk
    :func:`_single_card` where that one declines."""
    n = block.shape[0]
    if not np.isfinite(w):
        return sum_in_order(degenerate_cards(y, rule)) / n
    buf = np.empty(n, dtype=np.int64)
    state = np.empty(2, dtype=np.int64)
    xs = np.empty(n)
    rank = np.empty(n, dtype=np.int64)
    run_start = np.empty(n, dtype=np.int64)
    run_end = np.empty(n, dtype=np.int64)
    ones = np.zeros(n + 1, dtype=np.int64)
    y_sorted = np.empty(n, dtype=np.int64)
    cards = np.empty(n)
    sw = np.sqrt(w)
    x = block[:, f]
    o = order[:, f]
    for q in range(n):
        xs[q] = x[o[q]]
        rank[o[q]] = q
        y_sorted[q] = y[o[q]]
        ones[q + 1] = ones[q] + (1 if y[o[q]] == 1 else 0)
    for q in range(n):
        run_start[q] = q if q == 0 or xs[q] != xs[q - 1] else run_start[q - 1]
    for q in range(n - 1, -1, -1):
        run_end[q] = q if q == n - 1 or xs[q] != xs[q + 1] else run_end[q + 1]
    decide = not np.isnan(threshold)
    above = (threshold + 1e-9) * n
    below = (threshold - 1e-9) * n
    done = 0.0
    for q in range(n):
        i = rows[q]
        card = _quick_single_card(
            i, rank[i], xs, run_start, run_end, ones, w, sw, y, y_sorted, rule
        )
        if card < 0.0:
            card = _single_card(i, rank[i], x, xs, o, run_start, run_end, w, y, rule, buf, state)
        cards[i] = card
        if decide:
            done += card
            if done > above:
                return ABOVE_THRESHOLD
            if done + (n - q - 1) < below:
                return BELOW_FLOOR
    return sum_in_order(cards) / n


@kernel("void(f8[:, ::1], i8[:, ::1], f8[::1], i8[::1], i8, f8[::1])")
def single_dependencies(block, order, weights, y, rule, out):
    """Dependency of each column of ``block`` (n, b) alone (:func:`column_dependency`);
    ``order`` is the stable argsort of each column; ``weights`` 1 / var (inf: zero
    variance). Writes ``out`` (b,)."""
    rows = np.arange(block.shape[0])
    for f in range(block.shape[1]):
        out[f] = column_dependency(block, order, f, weights[f], y, rule, np.nan, rows)


# ------------------------------------------------------------------ a set


@njit(cache=True, inline="always")
def _before(da, a, db, b):
    return da < db or (da == db and a < b)


@njit(cache=True)
def _sort_pairs(d, idx, k):
    """Sort (d, idx)[:k] by distance then index (insertion sort; k is small)."""
    for a in range(1, k):
        dv, iv = d[a], idx[a]
        b = a - 1
        while b >= 0 and _before(dv, iv, d[b], idx[b]):
            d[b + 1] = d[b]
            idx[b + 1] = idx[b]
            b -= 1
        d[b + 1] = dv
        idx[b + 1] = iv


@njit(cache=True)
def _walk(d, idx, k, bound, n, lab, y, rule, dmax, early_one, margin):
    """Walk positions 2, 3, ... of the sorted (d, idx)[:k].

    Only distances <= bound are known to be complete (every sample outside the buffer is
    farther than bound, by a relative margin). When the walk runs past them, it stops if the
    next sample, whatever it is, would end it (GAP: ``prev + gap < bound``; DENSITY:
    ``bound / (j - 1) > last``); otherwise the row must be sorted whole. Returns (card,
    status): status 0 done, 1 redo on the whole row, 2 a neighbour of another label with
    ``early_one``, 3 (only with ``margin`` > 0, for distances known within ``margin / 4``)
    a decision within ``margin`` of its threshold."""
    d2 = d[1]
    total = 0
    same = 0
    prev = d2
    if rule == GAP:
        gap = 1.5 * (dmax - d2) / (n - 2) if n > 2 else 0.0
        last = 0.0
    else:
        gap = 0.0
        last = d2 if d2 >= 0.0 else 0.0
    if margin > 0.0 and rule == GAP and gap <= 2.0 * margin:
        return 0.0, 3
    for j in range(1, n):
        if j >= k or d[j] > bound:
            if rule == GAP:
                certain = j > 1 and prev + gap + margin < bound
            else:
                certain = bound / j > last + margin
            if certain:
                break
            return 0.0, 1
        v = d[j]
        if rule == GAP:
            if j > 1:
                if margin > 0.0 and abs((v - prev) - gap) <= margin:
                    return 0.0, 3
                if not (v - prev < gap):
                    break
            prev = v
        else:
            density = v / j
            if margin > 0.0 and j > 1 and abs(density - last) <= margin:
                return 0.0, 3
            if not (density == 0.0 or density <= last):
                break
            last = density
        total += 1
        if y[idx[j]] == lab:
            same += 1
        elif early_one:
            return 0.0, 2
    return same / total, 0


@njit(cache=True)
def _row_card(a, sq, y, rule, early_one, dbuf, ibuf, sq_error):
    """Card of sample a from its squared distances sq (n,) (sq[a] is ignored: 0), and the
    status of :func:`_walk`.

    ``sq_error`` > 0: the squared distances are only known within it (each); the card is
    then returned only if no decision of the walk could change within that error
    (distances within ``sq_error / D(2)`` plus rounding), otherwise status 3."""
    n = sq.shape[0]
    sq[a] = 0.0
    m1 = np.inf
    m2 = np.inf
    mx = -np.inf
    for t in range(n):
        s = sq[t]
        if s > mx:
            mx = s
        if s < m2:
            if s < m1:
                m2 = m1
                m1 = s
            else:
                m2 = s
    margin = 0.0
    if sq_error > 0.0:
        if not m2 > 4.0 * sq_error:  # a (near) duplicate: position 1 is uncertain
            return 0.0, 3
    d2 = np.sqrt(m2)
    dmax = np.sqrt(mx)
    if sq_error > 0.0:
        margin = 4.0 * (sq_error / d2 + 4.5e-16 * dmax)
        if d2 <= 2.0 * margin:
            return 0.0, 3
    if rule == GAP:
        bound = d2 + GAP_REACH * (1.5 * (dmax - d2) / (n - 2)) if n > 2 else d2
    else:
        bound = d2 * DENSITY_REACH
    lab = y[a]
    if np.isfinite(bound):
        limit = bound * (1.0 + 1e-9)
        limit_sq = limit * limit
        k = 0
        for t in range(n):
            if sq[t] <= limit_sq:
                dbuf[k] = np.sqrt(sq[t])
                ibuf[k] = t
                k += 1
        _sort_pairs(dbuf, ibuf, k)
        card, status = _walk(dbuf, ibuf, k, bound, n, lab, y, rule, dmax, early_one, margin)
        if status != 1:
            return card, status
    for t in range(n):
        dbuf[t] = np.sqrt(sq[t])
    order = np.argsort(dbuf, kind="mergesort")
    d = np.empty(n)
    for q in range(n):
        d[q] = dbuf[order[q]]
    return _walk(d, order, n, np.inf, n, lab, y, rule, dmax, early_one, margin)


@kernel(
    "f8(f8[:, ::1], f8[:, ::1], f8[::1], i8[::1], i8, f8, i8[::1], f8[::1])",
)
def set_dependency(base, extra, extra_w, y, rule, floor, rows, cards):
    """Dependency of a set whose squared distances are ``base`` (n, n; the sum over the set's
    first columns) plus the terms of the columns ``extra`` (e, n), added in order.

    ``floor``: the caller only needs to know whether the dependency reaches it; the rows stop
    as soon as it cannot (even with every card left at 1, by a margin of 1e-9) and
    :data:`BELOW_FLOOR` is returned (``-inf``: always compute it). ``rows`` (n,) is the order
    in which the rows are visited: a row whose card falls below 1 moves to the front, so
    that the rows that lose first are tried first next time. The cards are still added in
    sample order. ``cards`` (n,) receives each card."""
    none = np.empty(0)
    return _rows_dependency(base, extra, extra_w, base, none, 0.0, -1, y, rule, floor, rows, cards)


@kernel(
    (
        "f8(f8[:, ::1], f8[::1], f8, i8, f8[:, ::1], f8[:, ::1], f8[::1], i8[::1], i8, f8, "
        "i8[::1], f8[::1])"
    ),
)
def set_dependency_without(
    full, drop, drop_w, n_ops, base, extra, extra_w, y, rule, floor, rows, cards
):
    """Dependency of a set R without one of its columns (``drop``, weight ``drop_w``), as
    :func:`set_dependency` computes it on the sums ``base`` + ``extra``, but from ``full``:
    R's squared distances, possibly built with ``n_ops`` additions and subtractions (each
    entry within ``n_ops`` roundings of the exact sequential sum). Each row's squared
    distances are ``full[a] - terms(drop)`` (O(n) instead of O(n |R|)); its card is taken
    when no decision of the walk is within the resulting error
    (:func:`_row_card` with ``sq_error``), and computed from the exact sums otherwise.
    ``floor``, ``rows``, ``cards``: as :func:`set_dependency`."""
    return _rows_dependency(
        base, extra, extra_w, full, drop, drop_w, n_ops, y, rule, floor, rows, cards
    )


@njit(cache=True)
def _exact_row(a, base, extra, extra_w, sq):
    """sq = row a of ``base`` plus the terms of the columns ``extra``, added in order."""
    n = sq.shape[0]
    for t in range(n):
        v = base[a, t]
        for c in range(extra.shape[0]):
            v = v + _term(extra_w[c], extra[c, a], extra[c, t])
        sq[t] = v


@njit(cache=True)
def _rows_dependency(base, extra, extra_w, full, drop, drop_w, n_ops, y, rule, floor, rows, cards):
    """The row loop of :func:`set_dependency` (``n_ops`` < 0: exact sums only) and
    :func:`set_dependency_without` (rows from ``full`` minus ``drop``'s terms first)."""
    n = y.shape[0]
    sq = np.empty(n)
    dbuf = np.empty(n)
    ibuf = np.empty(n, dtype=np.int64)
    early_one = floor >= 1.0
    need = floor * n - 1e-9 * n  # the total the cards must be able to reach
    unit = (n_ops + 4) * 2.3e-16  # at least two unit roundoffs per operation
    done = 0.0
    for q in range(n):
        a = rows[q]
        status = 3
        card = 0.0
        if n_ops >= 0:
            fmax = 0.0
            for t in range(n):
                v = full[a, t]
                if v > fmax:
                    fmax = v
                sq[t] = v - _term(drop_w, drop[a], drop[t])
            card, status = _row_card(a, sq, y, rule, early_one, dbuf, ibuf, unit * fmax)
        if status == 3:
            _exact_row(a, base, extra, extra_w, sq)
            card, status = _row_card(a, sq, y, rule, early_one, dbuf, ibuf, 0.0)
        if status == 2:
            card = 0.0
        cards[a] = card
        done += card
        if card < 1.0 and q > 0:
            for r in range(q, 0, -1):
                rows[r] = rows[r - 1]
            rows[0] = a
        if status == 2 or done + (n - q - 1) < need:
            return BELOW_FLOOR
    return sum_in_order(cards) / n


@kernel("void(f8[:, ::1], f8[::1], f8)")
def subtract_terms(target, x, w):
    """target -= the terms (w * d) * d of column x (n,) for every pair."""
    n = x.shape[0]
    for a in range(n):
        xa = x[a]
        for t in range(n):
            target[a, t] = target[a, t] - _term(w, xa, x[t])


@kernel("void(f8[:, ::1], f8[:, ::1], f8[::1], f8)")
def add_terms(target, source, x, w):
    """target = source + the terms (w * d) * d of column x (n,) for every pair."""
    n = x.shape[0]
    for a in range(n):
        xa = x[a]
        for t in range(n):
            target[a, t] = source[a, t] + _term(w, xa, x[t])
