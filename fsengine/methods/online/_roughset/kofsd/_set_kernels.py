"""Compiled (numba) kernels of K-OFSD's set tests: the neighbours of every sample on S + f.

A set test asks, for a candidate feature f and every sample i, for the first M = K + 1
samples of the stable order by (distance on S + f, index), the reference's rule (see
:mod:`fsengine.methods.online._roughset.kofsd._knn_kernels`). The distance on S + f is
``sqrt(sq_S + (w * d) * d)``: the set's summed terms, in the set's order, then the
candidate's term, as the authors' ``pdist`` sums a set's columns. Three ways per sample,
all exact:

* its **shortlist**: the samples of smallest terms on S, in increasing order, and a bound
  no sample outside the list is below. As the candidate's term is non-negative and
  rounding is monotone, a distance on S + f is never below the distance on S, so the walk
  down the list stops at the first listed sample beyond the M-th distance found; a list
  that runs out first is still exact when the bound is beyond it;
* a **pruned walk** in the sorted order of one feature of S (a set kept as columns): a set
  distance is never below one of its feature's terms, so each side stops at the first
  sample whose term is beyond the M-th distance found;
* **every distance**: a dense set's row (vectorised, which beats a walk on the few
  distinct distances of integer-valued data), and for sets whose distances may be NaN (a
  constant feature under the standardised distance) or whose weights are not positive
  finite numbers.

The set is either a dense N x N matrix of its summed terms (``dense``, small N) or its
columns (large N, memory O(N (|S| + L))), whose terms are summed on the fly in the same
order.

The helpers that score one row are compiled without reference counting (``_nrt=False``):
they allocate nothing and their callers own every array. Inlined into :func:`_tests`, they
left an atomic increment and decrement around most array uses in branching code that
numba's pruning pass could not remove: 28% of K-OFSD's time on an integer 2600 x 500 set,
and the two threads contended for the same counters.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from fsengine._compute.jit import kernel
from fsengine.methods.online._codes import NO_CARD
from fsengine.methods.online._roughset.kofsd._knn_kernels import (
    card_value,
    comes_after,
    query_workspace,
    same_label_count,
    select_row,
    sift_down,
    write_one,
)


@njit(cache=True, inline="always")
def _insert_finite(enum_idx, enum_d, count, m, d, t):
    """Insert the finite (d, t) into the list of the ``count`` first by (distance, index)
    (at most m); returns the new count."""
    if count == m:
        if d > enum_d[m - 1] or (d == enum_d[m - 1] and t > enum_idx[m - 1]):
            return count
        pos = m - 1
    else:
        pos = count
        count += 1
    while pos > 0 and (d < enum_d[pos - 1] or (d == enum_d[pos - 1] and t < enum_idx[pos - 1])):
        enum_d[pos] = enum_d[pos - 1]
        enum_idx[pos] = enum_idx[pos - 1]
        pos -= 1
    enum_d[pos] = d
    enum_idx[pos] = t
    return count


@njit(cache=True, inline="always")
def _cols_sq(cols, col_w, i, t):
    """Summed terms of samples i and t on the set of columns ``cols``, in their order."""
    total = 0.0
    for f in range(cols.shape[0]):
        d = cols[f, i] - cols[f, t]
        total = total + (col_w[f] * d) * d
    return total


@njit(cache=True, inline="always")
def _set_sq(dense, sq, cols, col_w, i, t):
    """Summed terms of samples i and t on S, in the set's order."""
    if dense:
        return sq[i, t]
    return _cols_sq(cols, col_w, i, t)


@njit(cache=True, inline="always")
def _beyond_root(d):
    """A value above which every non-negative term's root is above ``d`` (the root and the
    square of a float differ from the exact ones by half a unit in the last place), or
    inf where that margin is not certain (``d`` outside [1e-140, 1e150])."""
    if d > 1e-140 and d < 1e150:
        return (d * d) * (1.0 + 1e-14)
    return 0.0 if d == 0.0 else np.inf


@njit(cache=True, _nrt=False)
def _row_from_list(lists, found, i, xi, x, w):
    """The M first of sample i on S + f from its shortlist on S (row i of ``lists``: the
    lists, their terms, roots, lengths and bounds); True if exact: no sample outside the
    list (each at least ``bound[i]`` on S) is within the M-th distance. ``found``: (M, the
    indices found, their distances).

    Once M are found, a listed sample whose term on S + f is above
    :func:`_beyond_root` of the M-th distance is beyond it: its root is not taken."""
    short_idx, short_sq, short_d, short_len, bound = lists
    m, enum_idx, enum_d = found
    length = short_len[i]
    enum_idx[0] = i
    enum_d[0] = 0.0
    count = 1
    j = 0
    while j < length and count < m:
        t = short_idx[i, j]
        g = xi - x[t]
        count = _insert_finite(enum_idx, enum_d, count, m, np.sqrt(short_sq[i, j] + (w * g) * g), t)
        j += 1
    if count < m:
        return False
    beyond = _beyond_root(enum_d[m - 1])
    while j < length:
        if short_d[i, j] > enum_d[m - 1]:
            break  # the rest of the list is farther
        t = short_idx[i, j]
        g = xi - x[t]
        v = short_sq[i, j] + (w * g) * g
        if v <= beyond:
            count = _insert_finite(enum_idx, enum_d, count, m, np.sqrt(v), t)
            beyond = _beyond_root(enum_d[m - 1])
        j += 1
    return np.sqrt(bound[i]) > enum_d[m - 1]


@njit(cache=True, inline="always")
def _prune_term(prune_x, prune_w, prune_order, xp, q):
    """The pruning feature's term between the value ``xp`` and sorted position q (inf
    outside the column)."""
    if q < 0 or q >= prune_x.shape[0]:
        return np.inf
    g = xp - prune_x[prune_order[q]]
    return (prune_w * g) * g


@njit(cache=True, inline="always")
def _walk_step(prune_x, prune_w, prune_order, xp, left, right, tl, tr):
    """One step of a walk outwards in the pruning feature's sorted order: the side of
    smaller term. Returns (its term, its sample, left, right, tl, tr) after the step;
    the terms taken never decrease, so none of the samples not yet taken is below."""
    if left >= 0 and (right >= prune_x.shape[0] or tl <= tr):
        return (
            tl,
            prune_order[left],
            left - 1,
            right,
            _prune_term(prune_x, prune_w, prune_order, xp, left - 1),
            tr,
        )
    return (
        tr,
        prune_order[right],
        left,
        right + 1,
        tl,
        _prune_term(prune_x, prune_w, prune_order, xp, right + 1),
    )


@njit(cache=True, inline="always")
def _walk_start(prune_x, prune_w, prune_order, prune_pos, i):
    """The start of sample i's walk (:func:`_walk_step`): (its value on the pruning
    feature, left, right, tl, tr), the two sides next to its sorted position."""
    p = prune_pos[i]
    xp = prune_x[i]
    return (
        xp,
        p - 1,
        p + 1,
        _prune_term(prune_x, prune_w, prune_order, xp, p - 1),
        _prune_term(prune_x, prune_w, prune_order, xp, p + 1),
    )


@njit(cache=True, _nrt=False)
def _row_pruned(on_set, walk, found, i, xi, x, w):
    """The M first of sample i on S + f by a walk outwards in the sorted order of S's feature
    ``prune_x`` (``walk``: it, its weight, its order and each sample's place in it): each
    step takes the side of smaller term, and the walk stops once that term's root is beyond
    the M-th distance found (every weight positive and finite)."""
    dense, sq, cols, col_w = on_set
    prune_x, prune_w, prune_order, prune_pos = walk
    m, enum_idx, enum_d = found
    n = prune_x.shape[0]
    xp, left, right, tl, tr = _walk_start(prune_x, prune_w, prune_order, prune_pos, i)
    enum_idx[0] = i
    enum_d[0] = 0.0
    count = 1
    while left >= 0 or right < n:
        bound, t, left, right, tl, tr = _walk_step(
            prune_x, prune_w, prune_order, xp, left, right, tl, tr
        )
        if count == m and np.sqrt(bound) > enum_d[m - 1]:
            break
        g = xi - x[t]
        d = np.sqrt(_set_sq(dense, sq, cols, col_w, i, t) + (w * g) * g)
        count = _insert_finite(enum_idx, enum_d, count, m, d, t)


#: Rows of a set of one feature are found by runs of its equal values when the runs hold
#: this many samples on average (:func:`_row_runs`).
RUNS_MIN_LENGTH = 4


@njit(cache=True, nogil=True)
def _value_runs(prune_x, prune_order, run_of):
    """Runs of equal values of the pruning feature in its sorted order: their starts (and
    the end of the last) as sorted positions; each sample's run goes to ``run_of``."""
    n = prune_order.shape[0]
    starts = np.empty(n + 1, np.int64)
    runs = 0
    for q in range(n):
        t = prune_order[q]
        if q == 0 or prune_x[t] != prune_x[prune_order[q - 1]]:
            starts[runs] = q
            runs += 1
        run_of[t] = runs - 1
    starts[runs] = n
    return starts[: runs + 1]


@njit(cache=True, nogil=True)
def _sort_within_runs(x, x_order, run_start, run_of, grid, grid_x):
    """``grid``: the samples run by run (the runs of :func:`_value_runs`), each run in
    increasing order of the candidate's values ``x`` (``x_order``: their ascending order,
    or empty); ``grid_x`` those values."""
    fill = run_start[:-1].copy()
    for t in x_order if x_order.shape[0] == x.shape[0] else np.argsort(x):
        r = run_of[t]
        grid[fill[r]] = t
        grid_x[fill[r]] = x[t]
        fill[r] += 1


@njit(cache=True, inline="always")
def _scan_run(lo, hi, term, xi, x, w, grid, grid_x, m, enum_idx, enum_d, count):
    """Offer the samples of one run (sorted positions ``lo`` to ``hi`` - 1 of ``grid``),
    whose terms on S are all ``term``, to the M first of a sample of candidate value
    ``xi``: outwards from ``xi`` on both sides, each side stopping at its first sample
    beyond the M-th distance found (the candidate's term grows along each side). Returns
    the new count."""
    a, b = lo, hi
    while a < b:  # the first position whose value is at least xi
        mid = (a + b) // 2
        if grid_x[mid] < xi:
            a = mid + 1
        else:
            b = mid
    for q in range(a, hi):
        t = grid[q]
        g = xi - x[t]
        d = np.sqrt(term + (w * g) * g)
        if count == m and d > enum_d[m - 1]:
            break
        count = _insert_finite(enum_idx, enum_d, count, m, d, t)
    for q in range(a - 1, lo - 1, -1):
        t = grid[q]
        g = xi - x[t]
        d = np.sqrt(term + (w * g) * g)
        if count == m and d > enum_d[m - 1]:
            break
        count = _insert_finite(enum_idx, enum_d, count, m, d, t)
    return count


@njit(cache=True, _nrt=False)
def _row_runs(on_set, runs_of_set, found, i, xi, x, w):
    """The M first of sample i on S + f when S is its pruning feature alone (the plane of
    two features): the runs of equal values of S (``runs_of_set``: the feature's order, the
    runs' starts, each sample's run, and the candidate's grid of :func:`_sort_within_runs`)
    are taken in increasing order of their term on S (all samples of a run share it), each
    scanned outwards from the candidate's value (:func:`_scan_run`), until a run's term
    alone is beyond the M-th distance found. Sample i is met in its own run, at distance 0."""
    dense, sq, cols, col_w = on_set
    prune_order, run_start, run_of, grid, grid_x = runs_of_set
    m, enum_idx, enum_d = found
    runs = run_start.shape[0] - 1
    own = run_of[i]
    count = _scan_run(
        run_start[own],
        run_start[own + 1],
        _set_sq(dense, sq, cols, col_w, i, prune_order[run_start[own]]),
        xi,
        x,
        w,
        grid,
        grid_x,
        m,
        enum_idx,
        enum_d,
        0,
    )
    left, right = own - 1, own + 1
    tl = _set_sq(dense, sq, cols, col_w, i, prune_order[run_start[left]]) if left >= 0 else 0.0
    tr = _set_sq(dense, sq, cols, col_w, i, prune_order[run_start[right]]) if right < runs else 0.0
    while left >= 0 or right < runs:
        if left >= 0 and (right >= runs or tl <= tr):
            r, term = left, tl
            left -= 1
            if left >= 0:
                tl = _set_sq(dense, sq, cols, col_w, i, prune_order[run_start[left]])
        else:
            r, term = right, tr
            right += 1
            if right < runs:
                tr = _set_sq(dense, sq, cols, col_w, i, prune_order[run_start[right]])
        if count == m and np.sqrt(term) > enum_d[m - 1]:
            break  # every run not taken is at least as far on S alone
        count = _scan_run(
            run_start[r],
            run_start[r + 1],
            term,
            xi,
            x,
            w,
            grid,
            grid_x,
            m,
            enum_idx,
            enum_d,
            count,
        )


@njit(cache=True, _nrt=False)
def _row_every(on_set, found, i, xi, x, w, dbuf):
    """The M first of sample i on S + f from every distance (NaN last, by index)."""
    dense, sq, cols, col_w = on_set
    m, enum_idx, enum_d = found
    n = x.shape[0]
    if dense:
        row = sq[i]
        for t in range(n):  # vectorised
            g = xi - x[t]
            dbuf[t] = np.sqrt(row[t] + (w * g) * g)
    else:
        _row_terms(cols, col_w, i, dbuf)
        _row_from_terms(found, i, xi, x, w, dbuf)
        return
    dbuf[i] = 0.0
    select_row(dbuf, m, enum_idx, enum_d)


@njit(cache=True, _nrt=False)
def _row_from_terms(found, i, xi, x, w, dbuf):
    """The M first of sample i on S + f from its terms on S in ``dbuf`` (overwritten)."""
    m, enum_idx, enum_d = found
    for t in range(x.shape[0]):  # vectorised
        g = xi - x[t]
        dbuf[t] = np.sqrt(dbuf[t] + (w * g) * g)
    dbuf[i] = 0.0
    select_row(dbuf, m, enum_idx, enum_d)


@njit(cache=True, _nrt=False)
def _row_terms(cols, col_w, i, out):
    """``out[t]``: the summed terms of samples i and t on the set of columns ``cols``, one
    feature at a time in the set's order (vectorised over t; the sums of :func:`_cols_sq`)."""
    n = out.shape[0]
    s = cols.shape[0]
    for t in range(n):
        out[t] = 0.0
    f = 0
    while f + 4 <= s:  # four features a pass, still added one at a time in order
        x0, x1, x2, x3 = cols[f], cols[f + 1], cols[f + 2], cols[f + 3]
        a0, a1, a2, a3 = x0[i], x1[i], x2[i], x3[i]
        w0, w1, w2, w3 = col_w[f], col_w[f + 1], col_w[f + 2], col_w[f + 3]
        for t in range(n):  # vectorised
            d0 = a0 - x0[t]
            d1 = a1 - x1[t]
            d2 = a2 - x2[t]
            d3 = a3 - x3[t]
            out[t] = (((out[t] + (w0 * d0) * d0) + (w1 * d1) * d1) + (w2 * d2) * d2) + (
                w3 * d3
            ) * d3
        f += 4
    while f < s:
        xf = cols[f]
        xif = xf[i]
        wf = col_w[f]
        for t in range(n):  # vectorised
            d = xif - xf[t]
            out[t] = out[t] + (wf * d) * d
        f += 1


#: Rows whose terms are approximated together (one matrix product; a batch's products stay
#: in the core's cache).
APPROX_ROWS = 8
#: Values sampled from a row to guess a threshold with a few times ``want`` values below.
THRESHOLD_SAMPLE = 512


@njit(cache=True, nogil=True)
def _approximate_row(dots, norms, norm_i, a):
    """``a[t] = norm_i + norms[t] - 2 dots[t]``: the terms of one row on S to within a margin
    (``dots`` a row of the product of the set's centred, weighted columns)."""
    for t in range(a.shape[0]):  # vectorised
        a[t] = (norm_i + norms[t]) - 2.0 * dots[t]


@njit(cache=True, nogil=True)
def _approximate_row_plus(dots, norms, norm_i, x, xi, w, a):
    """:func:`_approximate_row` plus the candidate's terms ``(w g) g``, g = xi - x[t]."""
    for t in range(a.shape[0]):  # vectorised
        g = xi - x[t]
        a[t] = (norm_i + norms[t]) - 2.0 * dots[t] + (w * g) * g


@njit(cache=True, nogil=True)
def _collect_at_most(a, threshold, buf):
    """The indices t with ``a[t] <= threshold`` into ``buf``, in increasing order; their count."""
    c = 0
    for t in range(a.shape[0]):
        if a[t] <= threshold:
            buf[c] = t
            c += 1
    return c


@njit(cache=True, nogil=True)
def _qth_of_sample(a, q, sample):
    """The q-th smallest of THRESHOLD_SAMPLE values of ``a`` taken at even steps (inf if q
    exceeds them); ``sample`` holds q values."""
    n = a.shape[0]
    step = max(1, n // THRESHOLD_SAMPLE)
    size = 0
    for t in range(0, n, step):
        v = a[t]
        if size == q:
            if not v < sample[q - 1]:
                continue
            pos = q - 1
        else:
            pos = size
            size += 1
        while pos > 0 and v < sample[pos - 1]:
            sample[pos] = sample[pos - 1]
            pos -= 1
        sample[pos] = v
    return sample[q - 1] if size == q else np.inf


@njit(cache=True, inline="always")
def _candidate_workspace(n):
    """Work arrays of :func:`_candidates` for rows of n samples: (a, buf, vals, sample)."""
    return np.empty(n), np.empty(n, np.int64), np.empty(n), np.empty(THRESHOLD_SAMPLE)


@njit(cache=True, nogil=True)
def _candidates(a, want, pad, sample, buf, vals):
    """The samples that can be among the ``want`` first of a row whose approximations ``a``
    (finite but for +inf where excluded; at least ``want`` finite) are each within ``pad``
    / 2 of the exact value.

    With ``a_w`` the want-th smallest approximation, the candidates are the samples with
    ``a[t] <= a_w + pad``. They are collected below a threshold guessed from
    THRESHOLD_SAMPLE evenly spaced values (a few times ``want`` values below it; raised
    when too few), so the selection works on those few values, not the row.

    Returns
    -------
    (c, t_q, beyond)
        ``buf[:c]`` holds (in increasing order) every sample with ``a[t] <= t_q`` (and maybe
        a few more), ``t_q = a_w + pad``; no sample outside the candidates has an
        approximation below ``beyond``.
    """
    n = a.shape[0]
    q = max(2, (2 * want * THRESHOLD_SAMPLE) // n + 1)
    if n < 8 * want:
        q = THRESHOLD_SAMPLE  # short rows: every value
    while True:
        threshold = _qth_of_sample(a, q, sample) if q < THRESHOLD_SAMPLE else np.inf
        c = _collect_at_most(a, threshold, buf)
        if c >= want:
            break
        q *= 4
    for j in range(c):
        vals[j] = a[buf[j]]
    t_q = np.partition(vals[:c], want - 1)[want - 1] + pad
    if t_q > threshold:  # rare: the pad crosses it
        threshold = t_q
        c = _collect_at_most(a, threshold, buf)
    beyond = threshold
    for j in range(c):
        v = a[buf[j]]
        if v > t_q:
            beyond = min(beyond, v)
    return c, t_q, beyond


@njit(cache=True, nogil=True)
def _approximate_rows(cols, col_w, batch, count, x, w, x_top, approx, m):
    """The M first of samples ``rows[:count]`` on S + f (S given by its columns ``cols``,
    weights ``col_w``) from approximate terms: one matrix product of the set's centred
    columns scaled by the roots of their weights (``approx``: ``z`` (|S|, n), ``zt`` its
    transpose, ``norms`` their squared norms, ``norm_max`` the largest) gives every
    sample's terms on S to within a margin far above their rounding; the candidate's terms
    are added, and only the samples within three margins of the (M-1)-th smallest are
    summed exactly (the set's order): any other is farther than all of them by more than a
    margin. ``batch``: the rows, row q's list (``rows_idx[q]``, ``rows_d[q]``) and the work
    arrays. ``x_top``: no candidate term is above it."""
    rows, rows_idx, rows_d, A, a, sample, buf, vals = batch
    z, zt, norms, norm_max = approx
    s = zt.shape[1]
    for q in range(count):
        A[q] = zt[rows[q]]
    dots = np.dot(A[:count], z)
    for q in range(count):
        i = rows[q]
        xi = x[i]
        _approximate_row_plus(dots[q], norms, norms[i], x, xi, w, a)
        a[i] = np.inf
        margin = 1e-9 * (norms[i] + norm_max + x_top + s + 1.0)
        c, t_q, _ = _candidates(a, m - 1, 3.0 * margin, sample, buf, vals)
        enum_idx = rows_idx[q]
        enum_d = rows_d[q]
        enum_idx[0] = i
        enum_d[0] = 0.0
        count_q = 1
        for j in range(c):
            t = buf[j]
            if a[t] <= t_q:
                g = xi - x[t]
                d = np.sqrt(_cols_sq(cols, col_w, i, t) + (w * g) * g)
                count_q = _insert_finite(enum_idx, enum_d, count_q, m, d, t)


@kernel("f8(f8[::1])", nogil=True)
def mean_in_order(values):
    """The values summed one at a time in their order, divided by their number (the
    dependency of Algorithm 2, as :func:`set_tests_shared` sums it)."""
    total = 0.0
    for i in range(values.shape[0]):
        total += values[i]
    return total / values.shape[0]


@njit(cache=True, _nrt=False)
def _finish_row(stats, outs, f, i):
    """Write sample i's statistics on S + f from its list in the query workspace into
    ``outs`` (same, same_d, other_d, cards_out) and, with a card, its card value into
    ``cards_out[f, i]``; returns that value (0 without a card). ``stats``: the workspace,
    the labels, the Ks, the paper's rule, whether distances are asked, whether one count
    is all that is asked, the first K, the card code and gamma."""
    ws, lab, ks, paper, with_dist, single_count, k0, card, gamma = stats
    same, same_d, other_d, cards_out = outs
    if single_count:
        same[0, f, i] = same_label_count(ws[1], lab, i, k0, paper)
    else:
        write_one(ws, i, lab, ks, paper, with_dist, same, same_d, other_d, f)
    if card == NO_CARD:
        return 0.0
    value = card_value(card, gamma, same[0, f, i], k0, lab[i])
    cards_out[f, i] = value
    return value


@njit(cache=True, inline="always")
def _tally(tally, value, set_card, shared):
    """``tally`` (the card sum, whether no card is above its card on S, the rows finished,
    this part's sum of (1 - card value), its rows of card below 1 on S done or -inf once one
    is above) after one more row, of card ``value`` and card ``set_card`` on S; the last
    two are kept only for rows ``shared`` between parts."""
    card_sum, none_above, finished, deficit, low_state = tally
    card_sum += value
    none_above = none_above and not value > set_card
    finished += 1
    if shared:
        deficit += 1.0 - value
        if set_card < 1.0:
            low_state = -np.inf if value > set_card else low_state + 1.0
    return card_sum, none_above, finished, deficit, low_state


@njit(cache=True, nogil=True)
def _row_remade(cols, col_w, lists, lws, found, i, xi, x, w, dbuf):
    """The M first of sample i on S + f for a row of this call alone whose list missed or
    that has none yet: its terms on S, summed for the row anyway, make it a new list
    (:func:`_list_from_row`, work arrays ``lws``), which then serves it when exact; else
    the terms do."""
    short_idx, short_sq, short_d, short_len, bound = lists
    _row_terms(cols, col_w, i, dbuf)
    _list_from_row(i, dbuf, lws, short_idx, short_sq, short_d, short_len, bound, True)
    if not _row_from_list(lists, found, i, xi, x, w):
        _row_from_terms(found, i, xi, x, w, dbuf)


@njit(cache=True, nogil=True)
def _finish_batch(
    cols, col_w, batch, count, x, w, x_top, approx, found, stats, outs, f, set_cards, shared,
    tally,
):  # fmt: skip
    """Rows ``batch[0][:count]`` of candidate f from approximate terms
    (:func:`_approximate_rows`), each then finished in turn (:func:`_finish_row`) and
    counted in ``tally`` (:func:`_tally`; ``set_cards``: the cards on S); returns the
    tally."""
    rows, rows_idx, rows_d = batch[0], batch[1], batch[2]
    m, enum_idx, enum_d = found
    _approximate_rows(cols, col_w, batch, count, x, w, x_top, approx, m)
    for q in range(count):
        p = rows[q]
        for j in range(m):
            enum_idx[j] = rows_idx[q, j]
            enum_d[j] = rows_d[q, j]
        tally = _tally(tally, _finish_row(stats, outs, f, p), set_cards[p], shared)
    return tally


@njit(cache=True, _nrt=False)
def _rejects(tally, n, reject_sum, n_low, progress, part):
    """Whether a candidate is rejected early once the rows in ``tally`` are done (the rules
    of :func:`set_tests_shared`'s ``early``): (a) cards of 1 for every remaining sample
    could not bring the card sum to ``reject_sum``; (b) the ``n_low`` first rows are done
    and none is above its card on S. With parts sharing ``progress`` (parts, 2), this
    part's state is written first (one value each: a reader never sees half of one) and
    both rules are checked on every part's."""
    card_sum, none_above, finished, deficit, low_state = tally
    shared = progress.shape[0] > 1
    if card_sum + (n - finished) < reject_sum or (not shared and finished == n_low and none_above):
        return True
    if not shared:
        return False
    progress[part, 0] = deficit
    progress[part, 1] = low_state
    total_deficit = 0.0
    total_low = 0.0
    for q in range(progress.shape[0]):
        total_deficit += progress[q, 0]
        total_low += progress[q, 1]
    return n - total_deficit < reject_sum or total_low == n_low


@njit(cache=True, nogil=True)
def _strategies(on_set, set_finite, list_length, walk, approx, m, n, whole):
    """Which of the strategies can find this call's rows, and their work arrays: whether a
    pruned walk can (``walk``'s weight positive and finite), whether runs of the set's
    equal values can (S is that feature alone, with runs of RUNS_MIN_LENGTH samples on
    average; then its order, the runs and the candidate's grid), whether approximate terms
    can (a set given by columns with ``approx``; then the batch's rows, lists and work
    arrays, and the terms' groups with their largest norm), and whether the lists are
    remade from rows (a part of the rows, a set given by columns, lists of
    ``list_length``; then their work arrays)."""
    dense, cols = on_set[0], on_set[2]
    prune_x, prune_w, prune_order = walk[0], walk[1], walk[2]
    z, zt, znorm = approx
    prunable = prune_order.shape[0] == n and prune_w > 0.0 and prune_w < np.inf
    approximable = (not dense) and zt.shape[0] == n and zt.shape[1] > 0 and n > m
    # S is its pruning feature alone: rows by runs of its equal values (:func:`_row_runs`).
    # Worth it when the runs are long (ties); else a walk or whole rows, as for any set.
    by_runs = prunable and set_finite and cols.shape[0] == 1 and cols.shape[1] == n
    run_of = np.empty(n if by_runs else 0, np.int64)
    run_start = _value_runs(prune_x, prune_order, run_of) if by_runs else run_of
    by_runs = by_runs and n >= RUNS_MIN_LENGTH * (run_start.shape[0] - 1)
    grid = np.empty(n if by_runs else 0, np.int64)
    grid_x = np.empty(n if by_runs else 0)
    runs_of_set = (prune_order, run_start, run_of, grid, grid_x)
    a, buf, vals, sample = _candidate_workspace(n if approximable else 0)
    batch = (
        np.empty(APPROX_ROWS, np.int64),
        np.empty((APPROX_ROWS, m), np.int64),
        np.empty((APPROX_ROWS, m)),
        np.empty((APPROX_ROWS, zt.shape[1])),
        a,
        sample,
        buf,
        vals,
    )
    znorm_max = 0.0
    for t in range(znorm.shape[0]):
        znorm_max = max(znorm_max, znorm[t])
    # Rows of this call alone (a part of the rows) whose list missed are remade from the
    # columns: their terms on S are summed for the row anyway.
    remakes = not whole and not dense and cols.shape[0] > 0 and list_length > 0
    lws = _list_workspace(n if remakes else 0, LIST_BUCKETS, LIST_SAMPLE)
    return (
        prunable, by_runs, runs_of_set, approximable, batch, (z, zt, znorm, znorm_max),
        remakes, lws,
    )  # fmt: skip


@njit(cache=True, inline="always")
def _end_candidate(f, tally, card, rejected, cards_out, acceptance, parts):
    """After candidate ``f``'s rows in :func:`_tests`: this part's progress written for
    the other parts (``tally``'s sum of 1 - card and rows of low card); with every row
    (``whole``), its dependency, its cards summed in sample order over n (NaN once
    rejected), and the acceptance's smallest number above ``accept_above``."""
    first, accept_above, accepted, deps_out = acceptance
    whole, progress, part = parts
    if progress.shape[0] > 1:
        progress[part, 0] = tally[3]
        progress[part, 1] = tally[4]
    if card != NO_CARD and whole:
        if rejected[f]:
            deps_out[f] = np.nan
        else:
            deps_out[f] = mean_in_order(cards_out[f])
            if deps_out[f] > accept_above:
                accepted[0] = min(accepted[0], first + f)


@njit(cache=True, nogil=True)
def _tests(
    on_set, set_finite, lists, walk, approx, candidates, query, card_rule, outs, rejection,
    acceptance, parts,
):  # fmt: skip
    """:func:`set_tests_shared` on its arguments in groups: the set (dense, sq, cols,
    col_w), the shortlists (short_idx, short_sq, short_d, short_len, bound), the pruning
    feature (prune_x, prune_w, prune_order, prune_pos), the approximate terms (z, zt,
    znorm), the candidates (cand, cand_w, cand_order), the query (lab, ks, paper,
    with_dist), the card (card, gamma), the outputs (same, same_d, other_d, cards_out),
    the early rejection (early, reject_sum, rejected, rows, set_cards, n_low), the
    acceptance (first, accept_above, accepted, deps_out) and the parts (whole, progress,
    part).

    Each row not settled by its list is found by one strategy: runs of the set's equal
    values (:func:`_row_runs`), a pruned walk (:func:`_row_pruned`), a list remade from
    the row's terms (:func:`_row_remade`), approximate terms in batches
    (:func:`_finish_batch`) or every distance (:func:`_row_every`)."""
    dense, cols, col_w = on_set[0], on_set[2], on_set[3]
    bound = lists[4]
    cand, cand_w, cand_order = candidates
    lab, ks, paper, with_dist = query
    card, gamma = card_rule
    cards_out = outs[3]
    early, reject_sum, rejected, rows, set_cards, n_low = rejection
    first, _, accepted, deps_out = acceptance
    whole, progress, part = parts
    n = lab.shape[0]
    shared = progress.shape[0] > 1
    ws = query_workspace(ks)
    m = ws[0]
    found = (m, ws[1], ws[3])
    stats = (ws, lab, ks, paper, with_dist, ks.shape[0] == 1 and not with_dist, ks[0], card, gamma)
    prunable, by_runs, runs_of_set, approximable, batch, approx_rows, remakes, lws = _strategies(
        on_set, set_finite, lists[0].shape[1], walk, approx, m, n, whole
    )
    run_start, run_of, grid, grid_x = runs_of_set[1], runs_of_set[2], runs_of_set[3], runs_of_set[4]
    pending = batch[0]
    by_order = cand_order.shape[0] == cand.shape[0] and cand_order.shape[1] == n
    no_order = np.empty(0, np.int64)
    dbuf = np.empty(n)
    missed = 0
    done = 0
    lists_pay = True
    for f in range(cand.shape[0]):
        if accepted[0] < first + f:
            rejected[f] = True  # after an acceptance: not needed
            if card != NO_CARD:
                deps_out[f] = np.nan
            continue
        x = cand[f]
        w = cand_w[f]
        if early and card != NO_CARD and n_low == 0:
            rejected[f] = True  # every card on S is 1
            deps_out[f] = np.nan
            continue
        usable = set_finite and w > 0.0 and w < np.inf
        batched = usable and approximable
        # No candidate term is above this (the margin of the approximate rows).
        x_top = w * (x.max() - x.min()) ** 2 * 1.01 if batched else 0.0
        missed_before = missed
        sorted_by_runs = False  # the candidate's grid, made when a row first needs it
        tally = (0.0, True, 0, 0.0, 0.0)
        n_pending = 0
        n_rows = rows.shape[0]
        for r in range(n_rows):
            i = rows[r]
            done += 1
            xi = x[i]
            exact = False
            walked = remakes and usable and lists_pay  # a row with no list yet gets one
            if usable and lists_pay and bound[i] == bound[i]:
                walked = True
                exact = _row_from_list(lists, found, i, xi, x, w)
                if not exact:
                    missed += 1
            to_check = 0  # rows finished by this step
            if not exact and batched:
                pending[n_pending] = i
                n_pending += 1
            else:
                if exact:
                    pass
                elif usable and by_runs:
                    if not sorted_by_runs:
                        order = cand_order[f] if by_order else no_order
                        _sort_within_runs(x, order, run_start, run_of, grid, grid_x)
                        sorted_by_runs = True
                    _row_runs(on_set, runs_of_set, found, i, xi, x, w)
                elif usable and prunable and not dense:
                    _row_pruned(on_set, walk, found, i, xi, x, w)
                elif remakes and walked:
                    _row_remade(cols, col_w, lists, lws, found, i, xi, x, w, dbuf)
                else:
                    _row_every(on_set, found, i, xi, x, w, dbuf)
                tally = _tally(tally, _finish_row(stats, outs, f, i), set_cards[i], shared)
                to_check = 1
            if n_pending > 0 and (n_pending == APPROX_ROWS or r + 1 == n_low or r + 1 == n_rows):
                tally = _finish_batch(
                    cols, col_w, batch, n_pending, x, w, x_top, approx_rows, found, stats, outs,
                    f, set_cards, shared, tally,
                )  # fmt: skip
                to_check += n_pending
                n_pending = 0
            if card != NO_CARD and early and to_check > 0:
                if _rejects(tally, n, reject_sum, n_low, progress, part):
                    rejected[f] = True
                    break
                if not whole and rejected[f]:
                    break  # another part of the rows rejected it
        _end_candidate(f, tally, card, rejected, cards_out, acceptance, parts)
        if missed - missed_before > n // 2:
            lists_pay = False  # the next candidates walk at once
    return missed, done


@kernel(
    (
        "UniTuple(i8, 2)(b1, f8[:, ::1], f8[:, ::1], f8[::1], b1, i8[:, ::1], f8[:, ::1], "
        "f8[:, ::1], i8[::1], f8[::1], f8[::1], f8, i8[::1], i8[::1], f8[:, ::1], f8[::1], "
        "i8[::1], i8[::1], b1, b1, i8[:, :, ::1], f8[:, :, ::1], f8[:, :, ::1], i8, f8, b1, f8, "
        "b1[::1], i8[::1], f8[::1], i8, f8[:, ::1], f8[::1], f8[:, ::1], f8[:, ::1], f8[::1], i8, "
        "f8, i8[::1], b1, f8[:, ::1], i8, i8[:, ::1])"
    ),
    (
        "UniTuple(i8, 2)(b1, f8[:, ::1], f8[::1, :], f8[::1], b1, i8[:, ::1], f8[:, ::1], "
        "f8[:, ::1], i8[::1], f8[::1], f8[::1], f8, i8[::1], i8[::1], f8[:, ::1], f8[::1], "
        "i8[::1], i8[::1], b1, b1, i8[:, :, ::1], f8[:, :, ::1], f8[:, :, ::1], i8, f8, b1, f8, "
        "b1[::1], i8[::1], f8[::1], i8, f8[:, ::1], f8[::1], f8[:, ::1], f8[:, ::1], f8[::1], i8, "
        "f8, i8[::1], b1, f8[:, ::1], i8, i8[:, ::1])"
    ),
    nogil=True,
)
def set_tests_shared(
    dense, sq, cols, col_w,  # the set
    set_finite,
    short_idx, short_sq, short_d, short_len, bound,  # the shortlists
    prune_x, prune_w, prune_order, prune_pos,  # the pruning feature
    cand, cand_w,  # the candidates
    lab, ks, paper, with_dist,  # the query
    same, same_d, other_d,  # the outputs
    card, gamma,  # the card
    early, reject_sum, rejected, rows, set_cards, n_low,  # the early rejection
    cards_out, deps_out,  # the outputs
    zt, z, znorm,  # the approximate terms
    first, accept_above, accepted,  # the acceptance
    whole, progress, part,  # the parts
    cand_order,  # the candidates
):  # fmt: skip
    """Neighbour statistics on S + f for each candidate feature f (one row of ``cand``),
    for part ``part`` of a candidate's rows (the parts sharing their progress towards an
    early rejection in ``progress``); the arguments are grouped once, here, for
    :func:`_tests`.

    Parameters
    ----------
    dense : bool
        S is given by ``sq`` (n, n), its summed terms; else by ``cols`` (|S|, n) and
        ``col_w``, in summation order.
    set_finite : bool
        Every weight of S is positive and finite (no NaN distance on S).
    short_idx, short_sq, short_d : arrays (n, L)
        Each sample's shortlist on S (increasing terms, ties by index), its terms and their
        roots; ``short_len`` (n,) its length; ``bound`` (n,) a value no sample outside the
        list is below (NaN: no list).
    prune_x, prune_w, prune_order, prune_pos
        A feature of S (values, weight), its ascending order and each sample's position in
        it; ``prune_order`` empty: no pruned walk.
    zt, z, znorm
        For a set given by columns: the centred columns scaled by the roots of their weights
        (n, |S|), the same as (|S|, n), and their squared norms; rows the lists do not
        settle then come from approximate terms (:func:`_approximate_rows`, APPROX_ROWS at
        a time) instead of pruned walks. Empty: none.
    cand, cand_w
        Candidates (c, n) and their weights.
    same, same_d, other_d : arrays (len(ks), c, n)
        Outputs.
    card, gamma, cards_out, deps_out
        With ``card`` a card code (else ``NO_CARD``), for ``ks[0]``: every sample's card value
        on S + f (``cards_out`` (c, n)) and the dependency, those values summed in sample
        order and divided by n (``deps_out`` (c,); NaN for a candidate rejected early).
    early, reject_sum, rejected, rows, set_cards, n_low
        Early rejection (``early``, with a card), for ``ks[0]``: rows are
        done in the order ``rows`` (every sample, or with ``whole`` False a part of them:
        the other parts count as rows still to do), whose first ``n_low`` are the samples
        whose card value
        on S (``set_cards``) is below 1. A candidate is marked in ``rejected`` and its
        remaining rows skipped (its outputs are then incomplete) once (a) even cards of 1
        for every remaining sample could not bring the card sum to ``reject_sum``, or (b)
        the ``n_low`` first rows are done and none has a card above its card on S: then
        no card on S + f exceeds the one on S and, the sequential sum being monotone in
        each term, dep(S + f) <= dep(S) (with ``n_low`` = 0 at once). ``n_low`` < 0
        disables (b). Rows done from approximate terms are finished in batches, but both
        rules decide as if row by row: (a) cannot fail to hold once it held, and the rows
        before (b) are all finished when it is checked. With ``whole`` False, ``rejected``
        is shared by the parts: a part stops once another has rejected the candidate (its
        outputs are incomplete all the same).
    whole : bool
        ``rows`` holds every sample: the dependencies are summed here. Else the caller sums
        ``cards_out`` once every part is done (``deps_out`` and ``accepted`` untouched),
        and the rows are this call's alone: for a set given by columns (every weight
        positive and finite), a row whose list missed, or that has none yet (NaN bound),
        gets a new list (:func:`_list_from_row`, from the terms the row needs anyway),
        which then serves it.
    progress, part
        With more than one row of ``progress`` (parts, 2), this call is part ``part`` of
        one candidate's rows (``whole`` False, ``n_low`` every part's), and the parts
        share their progress: row ``part`` holds this part's sum of (1 - card value) and
        its number of rows of card below 1 on S done (-inf once one of them is above its
        card on S), each written as one value (so a reader sees some past state of a part,
        never half of one; both only grow, or drop to -inf at once, so a past state proves
        no more than the present one). The candidate is rejected once (a) n minus every
        part's sum is below ``reject_sum`` or (b) every part's count adds up to
        ``n_low``; the caller checks the same on the final values when no part did. Rule
        (b) of a single part is then off (its rows need not be the first ones).
    cand_order : array (c, n) of int
        Each candidate's samples in ascending order of its values (for a set of one
        feature searched by runs), or empty: sorted here.
    first, accept_above, accepted
        The candidates are numbers ``first``.. of a larger batch; once one of them has a
        dependency above ``accept_above``, ``accepted[0]`` (shared by every part of the
        batch) takes the smallest such number seen, and the candidates after it are
        skipped (marked rejected, dependency NaN): a run that keeps only the first
        acceptance needs no later one.

    Returns
    -------
    (rows whose list did not settle them, rows done)
    """
    return _tests(
        (dense, sq, cols, col_w),
        set_finite,
        (short_idx, short_sq, short_d, short_len, bound),
        (prune_x, prune_w, prune_order, prune_pos),
        (z, zt, znorm),
        (cand, cand_w, cand_order),
        (lab, ks, paper, with_dist),
        (card, gamma),
        (same, same_d, other_d, cards_out),
        (early, reject_sum, rejected, rows, set_cards, n_low),
        (first, accept_above, accepted, deps_out),
        (whole, progress, part),
    )


@njit(cache=True, inline="always")
def _heap_push_bounded(hv, hi, size, cap, v, t):
    """Offer (v, t) to the max-heap of the ``cap`` smallest by (value, index); returns
    (new size, the value pushed out or +inf if none)."""
    if size < cap:
        pos = size
        size += 1
        while pos > 0:  # sift up
            parent = (pos - 1) // 2
            if not comes_after(v, t, hv[parent], hi[parent]):
                break
            hv[pos] = hv[parent]
            hi[pos] = hi[parent]
            pos = parent
        hv[pos] = v
        hi[pos] = t
        return size, np.inf
    if comes_after(v, t, hv[0], hi[0]):
        return size, v
    out = hv[0]
    hv[0] = v
    hi[0] = t
    sift_down(hv, hi, size, 0)
    return size, out


@njit(cache=True, inline="always")
def _store_sorted(hv, hi, size, i, short_idx, short_sq, short_d, short_len):
    """Heap-sort the max-heap into row i of the lists (ascending by (value, index))."""
    for end in range(size - 1, 0, -1):
        v = hv[0]
        ix = hi[0]
        hv[0] = hv[end]
        hi[0] = hi[end]
        hv[end] = v
        hi[end] = ix
        sift_down(hv, hi, end, 0)
    for j in range(size):
        short_idx[i, j] = hi[j]
        short_sq[i, j] = hv[j]
        short_d[i, j] = np.sqrt(hv[j])
    short_len[i] = size


@njit(cache=True, nogil=True)
def _store_candidates(i, buf, values, kept, short_idx, short_sq, short_d, short_len):
    """Row i's list: the L first of the ``kept`` candidates ``buf`` (increasing samples)
    with exact terms ``values``, by (terms, index). Returns the smallest term left out
    among them (inf if none)."""
    L = short_idx.shape[1]
    order = np.argsort(values[:kept], kind="mergesort")  # stable: ties by sample
    size = min(L, kept)
    for j in range(size):
        t = order[j]
        short_idx[i, j] = buf[t]
        short_sq[i, j] = values[t]
        short_d[i, j] = np.sqrt(values[t])
    short_len[i] = size
    return values[order[L]] if kept > L else np.inf


#: Buckets a dense list's samples are put in, by the bits of their terms (the lists' keys
#: are the buckets' lower edges: no sort), and values sampled from a row to guess its
#: threshold (:func:`build_dense_lists`).
LIST_BUCKETS = 64
LIST_SAMPLE = 64


@njit(cache=True, inline="always")
def _sampled_qth(row, q, sample):
    """The q-th smallest of ``sample.shape[0]`` values of ``row`` taken at even steps
    (inf if q exceeds them); ``sample`` holds q values."""
    n = row.shape[0]
    step = max(1, n // sample.shape[0])
    size = 0
    for t in range(0, n, step):
        v = row[t]
        if size == q:
            if not v < sample[q - 1]:
                continue
            pos = q - 1
        else:
            pos = size
            size += 1
        while pos > 0 and v < sample[pos - 1]:
            sample[pos] = sample[pos - 1]
            pos -= 1
        sample[pos] = v
    return sample[q - 1] if size == q else np.inf


@njit(cache=True, inline="always")
def _bits_value(bits, cell):
    """The float whose bits are ``bits`` (``cell``: a float array of one value viewed as
    int64, to reinterpret through)."""
    cell.view(np.int64)[0] = bits
    return cell[0]


@njit(cache=True, inline="always")
def _list_workspace(n, buckets, sampled):
    """Work arrays of :func:`_list_from_row` for rows of n samples, ``buckets`` buckets and
    ``sampled`` values sampled: (buf, vals, sample, counts, keys, cell)."""
    return (
        np.empty(n, np.int64),
        np.empty(n),
        np.empty(sampled),
        np.empty(buckets + 1, np.int64),
        np.empty(buckets),
        np.empty(1),
    )


@njit(cache=True, inline="always")
def _list_from_row(i, row, ws, short_idx, short_sq, short_d, short_len, bound, finite):
    """Sample i's shortlist from ``row``, its terms to every sample: up to L other samples
    of smallest terms, and ``bound``, a value no sample outside the list is below (inf if
    every sample is listed; NaN if the row has a NaN: no list; ``finite``: it has none).

    The samples at or below a threshold guessed from values sampled from the row (about
    2 L of them) are put in buckets by the bits of their terms (for
    non-negative floats the bits grow with the value), bucket by bucket; each listed
    sample's key (``short_d``, a root) is its bucket's lower edge, which no sample after it
    in the list is below: a walk may stop at the first key beyond its M-th distance. The
    buckets that fit in L are kept whole; if they hold fewer than L / 2, the next bucket is
    sorted (by term, then index) and cut, and the keys there are the terms themselves."""
    buf, vals, sample, counts, keys, cell = ws
    bits = vals.view(np.int64)
    n = row.shape[0]
    L = short_idx.shape[1]
    buckets = keys.shape[0]
    sampled = sample.shape[0]
    if not finite:
        nan_count = 0
        for t in range(n):  # vectorised
            nan_count += row[t] != row[t]
        if nan_count > (1 if row[i] != row[i] else 0):
            short_len[i] = 0
            bound[i] = np.nan
            return
    wanted = max(1, (2 * L * sampled) // n)
    while True:
        threshold = _sampled_qth(row, wanted, sample) if wanted < sampled else np.inf
        c = 0
        for t in range(n):  # no branch: every sample is written, the count moves on or not
            v = row[t]
            buf[c] = t
            vals[c] = v
            c += v <= threshold
        for j in range(c):  # sample i itself, if collected
            if buf[j] == i:
                c -= 1
                buf[j:c] = buf[j + 1 : c + 1]
                vals[j:c] = vals[j + 1 : c + 1]
                break
        if 2 * c > min(L, n - 1) or threshold == np.inf:
            break
        wanted *= 4
    low, high = bits[0], bits[0]
    for j in range(c):
        low = min(low, bits[j])
        high = max(high, bits[j])
    shift = 0
    while ((high - low) >> shift) >= buckets:
        shift += 1
    counts[:] = 0
    for j in range(c):
        counts[((bits[j] - low) >> shift) + 1] += 1
    for b in range(buckets):  # counts[b]: where bucket b starts
        counts[b + 1] += counts[b]
    whole = 0  # buckets kept whole
    while whole < buckets and counts[whole + 1] <= L:
        whole += 1
    kept = counts[whole]
    if whole == buckets:
        bound[i] = threshold  # every sample at or below it is listed
    else:
        bound[i] = _bits_value(low + (whole << shift), cell)  # the next bucket's edge
    for b in range(whole):
        keys[b] = np.sqrt(_bits_value(low + (b << shift), cell))
    for j in range(c):
        b = (bits[j] - low) >> shift
        if b < whole:
            p = counts[b]
            counts[b] += 1
            short_idx[i, p] = buf[j]
            short_sq[i, p] = vals[j]
            short_d[i, p] = keys[b]
    if whole < buckets and 2 * kept < L:
        # Too few in whole buckets (many equal terms): the next one, sorted and cut.
        part = 0
        for j in range(c):
            if (bits[j] - low) >> shift == whole:
                buf[part] = buf[j]
                vals[part] = vals[j]
                part += 1
        order = np.argsort(vals[:part], kind="mergesort")  # stable: ties by sample
        room = min(L - kept, part)
        for j in range(room):
            t = order[j]
            short_idx[i, kept + j] = buf[t]
            short_sq[i, kept + j] = vals[t]
            short_d[i, kept + j] = np.sqrt(vals[t])
        if room < part:
            bound[i] = vals[order[room]]
        kept += room
    short_len[i] = kept


@kernel(
    "void(f8[:, ::1], i8[::1], i8[:, ::1], f8[:, ::1], f8[:, ::1], i8[::1], f8[::1])",
    nogil=True,
)
def build_dense_lists(sq, rows, short_idx, short_sq, short_d, short_len, bound):
    """The shortlists of ``rows`` on a dense set (:func:`_list_from_row` on each row of
    ``sq``)."""
    ws = _list_workspace(sq.shape[0], LIST_BUCKETS, LIST_SAMPLE)
    for q in range(rows.shape[0]):
        i = rows[q]
        _list_from_row(i, sq[i], ws, short_idx, short_sq, short_d, short_len, bound, False)


@kernel(
    "void(f8[:, ::1], f8[::1], i8[::1], i8[:, ::1], f8[:, ::1], f8[:, ::1], i8[::1], f8[::1])",
    nogil=True,
)
def build_lists_from_columns(cols, col_w, rows, short_idx, short_sq, short_d, short_len, bound):
    """The shortlists of ``rows`` on a set given by its columns ``cols`` (|S|, n) and
    weights: each row's terms summed one feature at a time in the set's order
    (:func:`_row_terms`), then :func:`_list_from_row`."""
    n = cols.shape[1]
    ws = _list_workspace(n, LIST_BUCKETS, LIST_SAMPLE)
    terms = np.empty(n)
    finite = True  # no NaN term: no infinite (or NaN) weight
    for f in range(col_w.shape[0]):
        finite &= col_w[f] < np.inf
    for q in range(rows.shape[0]):
        i = rows[q]
        _row_terms(cols, col_w, i, terms)
        _list_from_row(i, terms, ws, short_idx, short_sq, short_d, short_len, bound, finite)


@kernel(
    "i8(f8[::1], f8, i8[:, ::1], f8[:, ::1], f8[:, ::1], i8[::1], f8[::1], i8, i8)",
    nogil=True,
)
def grow_lists(x, w, short_idx, short_sq, short_d, short_len, bound, lo, hi):
    """The set grew by the feature ``x`` (weight ``w``): the lists of samples ``lo`` to
    ``hi`` - 1 gain its term (the set's order), are cut to the samples strictly below
    ``bound``, which stays valid (terms only grow), and re-sorted. Returns the shortest
    of these lists' lengths."""
    shortest = short_idx.shape[1]
    for i in range(lo, hi):
        length = short_len[i]
        xi = x[i]
        bound_i = bound[i]
        keep = 0
        for j in range(length):  # in order: the kept stay ordered
            g = xi - x[short_idx[i, j]]
            v = short_sq[i, j] + (w * g) * g
            if v < bound_i:
                short_sq[i, keep] = v
                short_idx[i, keep] = short_idx[i, j]
                keep += 1
        for a in range(1, keep):  # insertion sort: nearly sorted
            v = short_sq[i, a]
            t = short_idx[i, a]
            c = a - 1
            while c >= 0 and comes_after(short_sq[i, c], short_idx[i, c], v, t):
                short_sq[i, c + 1] = short_sq[i, c]
                short_idx[i, c + 1] = short_idx[i, c]
                c -= 1
            short_sq[i, c + 1] = v
            short_idx[i, c + 1] = t
        for j in range(keep):
            short_d[i, j] = np.sqrt(short_sq[i, j])
        short_len[i] = keep
        shortest = min(shortest, keep)
    return shortest


@kernel(
    "void(f8[::1], f8, i8[:, ::1], f8[:, ::1], i8[::1], f8[::1], i8[::1], i8, i8)",
    nogil=True,
)
def raise_lists(x, w, short_idx, short_sq, short_len, bound, below, lo, hi):
    """The set grew by the feature ``x`` (weight ``w``): the listed terms of samples ``lo``
    to ``hi`` - 1 gain its term (the set's order), in place; the lists keep their order
    and ``short_d``, the roots of the terms they were made with, which stay below the
    terms (terms only grow), and ``bound`` stays valid. ``below[i]``: how many of sample
    i's listed samples are still below its bound."""
    for i in range(lo, hi):
        xi = x[i]
        bound_i = bound[i]
        count = 0
        for j in range(short_len[i]):
            g = xi - x[short_idx[i, j]]
            v = short_sq[i, j] + (w * g) * g
            short_sq[i, j] = v
            count += v < bound_i
        below[i] = count


@kernel("void(i8[:, ::1], i8[::1], i8[::1], i8[::1], i8, i8)", nogil=True)
def first_other_label(short_idx, short_len, lab, first, lo, hi):
    """``first[i]`` for samples ``lo`` to ``hi`` - 1: the position in sample i's list of its
    first listed sample of another label (the list's width if there is none)."""
    for i in range(lo, hi):
        position = short_idx.shape[1]
        for j in range(short_len[i]):
            if lab[short_idx[i, j]] != lab[i]:
                position = j
                break
        first[i] = position


@kernel(
    (
        "void(f8[::1, :], f8[::1], f8[::1], f8, i8[::1], i8[::1], i8[::1], i8[:, ::1], "
        "f8[:, ::1], f8[:, ::1], i8[::1], f8[::1])"
    ),
    (
        "void(f8[:, ::1], f8[::1], f8[::1], f8, i8[::1], i8[::1], i8[::1], i8[:, ::1], "
        "f8[:, ::1], f8[:, ::1], i8[::1], f8[::1])"
    ),
    nogil=True,
)
def build_column_lists(
    cols,
    col_w,
    prune_x,
    prune_w,
    prune_order,
    prune_pos,
    rows,
    short_idx,
    short_sq,
    short_d,
    short_len,
    bound,
):
    """The shortlists of ``rows`` on a set given by its columns (every weight positive and
    finite): the L nearest other samples by (terms, index), by a walk outwards in the
    sorted order of the feature ``prune_x`` of S that stops once that feature's term is
    beyond the L-th smallest (every sample farther on it is farther on S); ``bound`` is the
    smallest term left out, or the stopping term (inf if every sample was listed)."""
    n = prune_x.shape[0]
    L = short_idx.shape[1]
    hv = np.empty(L)
    hi = np.empty(L, np.int64)
    for q in range(rows.shape[0]):
        i = rows[q]
        xp, left, right, tl, tr = _walk_start(prune_x, prune_w, prune_order, prune_pos, i)
        size = 0
        left_out = np.inf
        while left >= 0 or right < n:
            term, t, left, right, tl, tr = _walk_step(
                prune_x, prune_w, prune_order, xp, left, right, tl, tr
            )
            if size == L and term > hv[0]:
                left_out = min(left_out, term)  # every sample not visited is beyond
                break
            v = _cols_sq(cols, col_w, i, t)
            size, out = _heap_push_bounded(hv, hi, size, L, v, t)
            left_out = min(left_out, out)
        _store_sorted(hv, hi, size, i, short_idx, short_sq, short_d, short_len)
        bound[i] = left_out


@kernel(
    (
        "void(f8[::1, :], f8[::1], f8[:, ::1], f8[:, ::1], f8[::1], i8[::1], i8[:, ::1], "
        "f8[:, ::1], f8[:, ::1], i8[::1], f8[::1])"
    ),
    (
        "void(f8[:, ::1], f8[::1], f8[:, ::1], f8[:, ::1], f8[::1], i8[::1], i8[:, ::1], "
        "f8[:, ::1], f8[:, ::1], i8[::1], f8[::1])"
    ),
    nogil=True,
)
def lists_from_columns(
    cols, col_w, zt, z, norms, rows, short_idx, short_sq, short_d, short_len, bound
):
    """The shortlists of ``rows`` on a set given by its columns, from approximate terms.

    ``zt`` (n, |S|) holds the set's centred columns scaled by the roots of their weights
    (``z`` the same as (|S|, n), ``norms`` their squared norms). For APPROX_ROWS rows at a
    time one matrix product gives each row's terms to every sample t as ``norms[i] +
    norms[t] - 2 dots[t]``, within a margin far above their rounding. With ``a`` the L-th
    smallest approximation, every sample at or below ``a + 2 margin`` is a candidate and its
    terms are summed exactly (the set's order); any other sample's exact terms are above
    ``a + margin``, which is at least the L smallest candidates' exact terms: so the L
    first by (terms, index) are candidates (:func:`_candidates`). ``bound`` is the smallest
    exact value left out among the candidates, or the smallest approximation of the others
    minus the margin, if lower.
    """
    L = short_idx.shape[1]
    n = z.shape[1]
    s = zt.shape[1]
    a, buf, vals, sample = _candidate_workspace(n)
    A = np.empty((APPROX_ROWS, s))
    norm_max = 0.0
    for t in range(n):
        norm_max = max(norm_max, norms[t])
    for lo in range(0, rows.shape[0], APPROX_ROWS):
        count = min(APPROX_ROWS, rows.shape[0] - lo)
        for q in range(count):
            A[q] = zt[rows[lo + q]]
        dots = np.dot(A[:count], z)
        for q in range(count):
            i = rows[lo + q]
            _approximate_row(dots[q], norms, norms[i], a)
            a[i] = np.inf
            margin = 1e-9 * (norms[i] + norm_max + s + 1.0)
            c, t_q, beyond = _candidates(a, L, 2.0 * margin, sample, buf, vals)
            left_out = beyond - margin
            kept = 0
            for j in range(c):  # vals is free: the exact terms
                t = buf[j]
                if a[t] <= t_q:
                    buf[kept] = t
                    vals[kept] = _cols_sq(cols, col_w, i, t)
                    kept += 1
            bound[i] = min(
                left_out,
                _store_candidates(i, buf, vals, kept, short_idx, short_sq, short_d, short_len),
            )
