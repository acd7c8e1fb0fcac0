"""Compiled (numba) kernels of K-OFSD's set tests: the neighbours of every sample on S + f.

A set test asks, for a candidate feature f and every sample i, for the first M = K + 1
samples of the stable order by (distance on S + f, index), the reference's rule (see
:mod:`fsengine.online._knn_kernels`). The distance on S + f is
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
"""

from __future__ import annotations

import numpy as np
from numba import njit

from fsengine.online._compiled import NO_CARD
from fsengine.online._knn_kernels import (_after, _card_value, _same_count, _select_row,
                                          _sift_down, _workspace, _write_one)


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
def _row_from_list(i, xi, x, w, idx_row, sq_row, d_row, length, bound_i, m, enum_idx, enum_d):
    """The M first of sample i on S + f from its shortlist on S; True if exact."""
    enum_idx[0] = i
    enum_d[0] = 0.0
    count = 1
    for j in range(length):
        if count == m and d_row[j] > enum_d[m - 1]:
            return True                                 # the rest are farther
        t = idx_row[j]
        g = xi - x[t]
        count = _insert_finite(enum_idx, enum_d, count, m, np.sqrt(sq_row[j] + (w * g) * g), t)
    return count == m and np.sqrt(bound_i) > enum_d[m - 1]


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
        return (tl, prune_order[left], left - 1, right,
                _prune_term(prune_x, prune_w, prune_order, xp, left - 1), tr)
    return (tr, prune_order[right], left, right + 1, tl,
            _prune_term(prune_x, prune_w, prune_order, xp, right + 1))


@njit(cache=True, inline="always")
def _walk_start(prune_x, prune_w, prune_order, prune_pos, i):
    """The start of sample i's walk (:func:`_walk_step`): (its value on the pruning
    feature, left, right, tl, tr), the two sides next to its sorted position."""
    p = prune_pos[i]
    xp = prune_x[i]
    return (xp, p - 1, p + 1, _prune_term(prune_x, prune_w, prune_order, xp, p - 1),
            _prune_term(prune_x, prune_w, prune_order, xp, p + 1))


@njit(cache=True, inline="always")
def _row_pruned(dense, sq, cols, col_w, i, xi, x, w, prune_x, prune_w, prune_order, prune_pos,
                m, enum_idx, enum_d):
    """The M first of sample i on S + f by a walk outwards in the sorted order of S's feature
    ``prune_x``: each step takes the side of smaller term, and the walk stops once that
    term's root is beyond the M-th distance found (every weight positive and finite)."""
    n = prune_x.shape[0]
    xp, left, right, tl, tr = _walk_start(prune_x, prune_w, prune_order, prune_pos, i)
    enum_idx[0] = i
    enum_d[0] = 0.0
    count = 1
    while left >= 0 or right < n:
        bound, t, left, right, tl, tr = _walk_step(prune_x, prune_w, prune_order, xp, left,
                                                   right, tl, tr)
        if count == m and np.sqrt(bound) > enum_d[m - 1]:
            break
        g = xi - x[t]
        d = np.sqrt(_set_sq(dense, sq, cols, col_w, i, t) + (w * g) * g)
        count = _insert_finite(enum_idx, enum_d, count, m, d, t)


@njit(cache=True, inline="always")
def _row_every(dense, sq, cols, col_w, i, xi, x, w, m, enum_idx, enum_d, dbuf):
    """The M first of sample i on S + f from every distance (NaN last, by index)."""
    n = x.shape[0]
    if dense:
        row = sq[i]
        for t in range(n):                             # vectorised
            g = xi - x[t]
            dbuf[t] = np.sqrt(row[t] + (w * g) * g)
    else:
        for t in range(n):
            g = xi - x[t]
            dbuf[t] = np.sqrt(_cols_sq(cols, col_w, i, t) + (w * g) * g)
    dbuf[i] = 0.0
    _select_row(dbuf, m, enum_idx, enum_d)


@njit(cache=True, inline="always")
def _row_approximate(cols, col_w, i, xi, x, w, zt, znorm, znorm_max, m, enum_idx, enum_d,
                     approx, heap):
    """The M first of sample i on S + f (S given by its columns) from approximate terms:
    ``zt`` (n, |S|) the set's centred columns scaled by the roots of their weights,
    ``znorm`` their squared norms; one matrix-vector product gives every sample's terms
    on S to within a margin far above their rounding, the candidate's own terms are
    added, and only the samples within three margins of the (M-1)-th smallest are summed
    exactly: any other is farther than all of them by more than a margin."""
    n = x.shape[0]
    dots = np.dot(zt, zt[i])
    top = 0.0
    for t in range(n):                                  # vectorised
        g = xi - x[t]
        term = (w * g) * g
        approx[t] = znorm[t] + znorm[i] - 2.0 * dots[t] + term
        top = max(top, term)
    approx[i] = np.inf
    margin = 1e-9 * (znorm[i] + znorm_max + top + zt.shape[1] + 1.0)
    threshold = _kth_smallest(approx, m - 1, heap) + 3.0 * margin
    enum_idx[0] = i
    enum_d[0] = 0.0
    count = 1
    for t in range(n):
        if approx[t] <= threshold:
            g = xi - x[t]
            d = np.sqrt(_cols_sq(cols, col_w, i, t) + (w * g) * g)
            count = _insert_finite(enum_idx, enum_d, count, m, d, t)


@njit(cache=True, nogil=True)
def set_tests(dense, sq, cols, col_w, set_finite, short_idx, short_sq, short_d, short_len,
              bound, prune_x, prune_w, prune_order, prune_pos, cand, cand_w, lab, ks, paper,
              with_dist, same, same_d, other_d, card, gamma, early, reject_sum, rejected, rows,
              set_cards, n_low, cards_out, deps_out, zt, znorm):
    """Neighbour statistics on S + f for each candidate feature f (one row of ``cand``).

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
    zt, znorm
        For a set given by columns: the centred columns scaled by the roots of their weights
        (n, |S|) and their squared norms; a row its list does not settle then comes from
        approximate terms (:func:`_row_approximate`) instead of a pruned walk. Empty: none.
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
        done in the order ``rows``, whose first ``n_low`` are the samples whose card value
        on S (``set_cards``) is below 1. A candidate is marked in ``rejected`` and its
        remaining rows skipped (its outputs are then incomplete) once (a) even cards of 1
        for every remaining sample could not bring the card sum to ``reject_sum``, or (b)
        the ``n_low`` first rows are done and none has a card above its card on S: then
        no card on S + f exceeds the one on S and, the sequential sum being monotone in
        each term, dep(S + f) <= dep(S) (with ``n_low`` = 0 at once). ``n_low`` < 0
        disables (b).

    Returns
    -------
    (rows whose list did not settle them, rows done)
    """
    n = lab.shape[0]
    ws = _workspace(ks)
    m, enum_idx, enum_lab, enum_d, cum_min, cum_d1, cum_d0, one, one_lab = ws
    dbuf = np.empty(n)
    missed = 0
    done = 0
    lists_pay = True
    single_count = ks.shape[0] == 1 and not with_dist
    k0 = ks[0]
    prunable = prune_order.shape[0] == n and prune_w > 0.0 and prune_w < np.inf
    approximable = zt.shape[0] == n and zt.shape[1] > 0 and n > m
    approx = np.empty(n if approximable else 0)
    heap = np.empty(3 * m)
    znorm_max = 0.0
    for t in range(znorm.shape[0]):
        znorm_max = max(znorm_max, znorm[t])
    for f in range(cand.shape[0]):
        x = cand[f]
        w = cand_w[f]
        if early and card != NO_CARD and n_low == 0:
            rejected[f] = True                         # every card on S is 1
            deps_out[f] = np.nan
            continue
        usable = set_finite and w > 0.0 and w < np.inf
        missed_before = missed
        card_sum = 0.0
        none_above = True
        for r in range(n):
            i = rows[r]
            done += 1
            xi = x[i]
            exact = False
            if usable and lists_pay and bound[i] == bound[i]:
                exact = _row_from_list(i, xi, x, w, short_idx[i], short_sq[i], short_d[i],
                                       short_len[i], bound[i], m, enum_idx, enum_d)
                if not exact:
                    missed += 1
            if not exact:
                if usable and approximable and not dense:
                    _row_approximate(cols, col_w, i, xi, x, w, zt, znorm, znorm_max, m,
                                     enum_idx, enum_d, approx, heap)
                elif usable and prunable and not dense:
                    _row_pruned(dense, sq, cols, col_w, i, xi, x, w, prune_x, prune_w,
                                prune_order, prune_pos, m, enum_idx, enum_d)
                else:
                    _row_every(dense, sq, cols, col_w, i, xi, x, w, m, enum_idx, enum_d, dbuf)
            if single_count:
                same[0, f, i] = _same_count(enum_idx, lab, i, k0, paper)
            else:
                _write_one(ws, i, lab, ks, paper, with_dist, same, same_d, other_d, f)
            if card != NO_CARD:
                value = _card_value(card, gamma, same[0, f, i], k0, lab[i])
                cards_out[f, i] = value
                card_sum += value
                if value > set_cards[i]:
                    none_above = False
                if early and (card_sum + (n - 1 - r) < reject_sum
                              or (r + 1 == n_low and none_above)):
                    rejected[f] = True
                    break
        if card != NO_CARD:
            if rejected[f]:
                deps_out[f] = np.nan
            else:
                total = 0.0
                for i in range(n):                     # in sample order, as the reference
                    total += cards_out[f, i]
                deps_out[f] = total / n
        if missed - missed_before > n // 2:
            lists_pay = False                          # the next candidates walk at once
    return missed, done


@njit(cache=True, inline="always")
def _heap_push_bounded(hv, hi, size, cap, v, t):
    """Offer (v, t) to the max-heap of the ``cap`` smallest by (value, index); returns
    (new size, the value pushed out or +inf if none)."""
    if size < cap:
        pos = size
        size += 1
        while pos > 0:                                 # sift up
            parent = (pos - 1) // 2
            if not _after(v, t, hv[parent], hi[parent]):
                break
            hv[pos] = hv[parent]
            hi[pos] = hi[parent]
            pos = parent
        hv[pos] = v
        hi[pos] = t
        return size, np.inf
    if _after(v, t, hv[0], hi[0]):
        return size, v
    out = hv[0]
    hv[0] = v
    hi[0] = t
    _sift_down(hv, hi, size, 0)
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
        _sift_down(hv, hi, end, 0)
    for j in range(size):
        short_idx[i, j] = hi[j]
        short_sq[i, j] = hv[j]
        short_d[i, j] = np.sqrt(hv[j])
    short_len[i] = size


@njit(cache=True, nogil=True)
def build_dense_lists(sq, rows, short_idx, short_sq, short_d, short_len, bound):
    """The shortlists of ``rows`` on a dense set: up to L other samples of smallest terms
    (ties by index), ascending, and ``bound``, the smallest term left out (inf if none;
    NaN if the row has a NaN: no list). A max-heap of the L best per row; on long rows
    only the values at or below the L-th smallest of 2 L block minima (L distinct
    values: an upper bound of the L-th smallest) are offered to it."""
    n = sq.shape[0]
    L = short_idx.shape[1]
    hv = np.empty(L)
    hi = np.empty(L, np.int64)
    blocks = 2 * L
    filtered = n - 1 >= 8 * L
    minima = np.empty(blocks if filtered else 0)
    heap = np.empty(L)
    for q in range(rows.shape[0]):
        i = rows[q]
        row = sq[i]
        has_nan = False
        left_out = np.inf
        size = 0
        upper = np.inf
        if filtered:
            for b in range(blocks):
                lo = b * n // blocks
                hi_b = (b + 1) * n // blocks
                m = np.inf
                for t in range(lo, hi_b):              # vectorised
                    v = row[t] if t != i else np.inf
                    has_nan |= v != v
                    m = min(m, v)
                minima[b] = m
            if not has_nan:
                upper = _kth_smallest_heap(minima, blocks, L, heap, np.inf, False)
        for t in range(n):
            if has_nan:
                break
            if t == i:
                continue
            v = row[t]
            if v != v:
                has_nan = True
                break
            if v > upper or (size == L and v >= hv[0]):  # the common case, predictable;
                left_out = min(left_out, v)            # on a tie the later index stays out
                continue
            size, out = _heap_push_bounded(hv, hi, size, L, v, t)
            left_out = min(left_out, out)
        if has_nan:
            short_len[i] = 0
            bound[i] = np.nan
            continue
        _store_sorted(hv, hi, size, i, short_idx, short_sq, short_d, short_len)
        bound[i] = left_out


@njit(cache=True, nogil=True)
def grow_lists(x, w, short_idx, short_sq, short_d, short_len, bound, lo, hi):
    """The set grew by the feature ``x`` (weight ``w``): the lists of samples ``lo`` to
    ``hi`` - 1 gain its term (the set's order), are re-sorted and cut to the samples
    strictly below ``bound``, which stays valid (terms only grow). Returns the shortest
    of these lists' lengths."""
    shortest = short_idx.shape[1]
    for i in range(lo, hi):
        length = short_len[i]
        xi = x[i]
        for j in range(length):
            g = xi - x[short_idx[i, j]]
            short_sq[i, j] = short_sq[i, j] + (w * g) * g
        for a in range(1, length):                     # insertion sort: nearly sorted
            v = short_sq[i, a]
            t = short_idx[i, a]
            c = a - 1
            while c >= 0 and _after(short_sq[i, c], short_idx[i, c], v, t):
                short_sq[i, c + 1] = short_sq[i, c]
                short_idx[i, c + 1] = short_idx[i, c]
                c -= 1
            short_sq[i, c + 1] = v
            short_idx[i, c + 1] = t
        keep = 0
        while keep < length and short_sq[i, keep] < bound[i]:
            short_d[i, keep] = np.sqrt(short_sq[i, keep])
            keep += 1
        short_len[i] = keep
        shortest = min(shortest, keep)
    return shortest


@njit(cache=True, nogil=True)
def build_column_lists(cols, col_w, prune_x, prune_w, prune_order, prune_pos, rows,
                       short_idx, short_sq, short_d, short_len, bound):
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
            term, t, left, right, tl, tr = _walk_step(prune_x, prune_w, prune_order, xp, left,
                                                      right, tl, tr)
            if size == L and term > hv[0]:
                left_out = min(left_out, term)         # every sample not visited is beyond
                break
            v = _cols_sq(cols, col_w, i, t)
            size, out = _heap_push_bounded(hv, hi, size, L, v, t)
            left_out = min(left_out, out)
        _store_sorted(hv, hi, size, i, short_idx, short_sq, short_d, short_len)
        bound[i] = left_out


@njit(cache=True, inline="always")
def _kth_smallest(values, k, heap):
    """The k-th smallest of ``values`` (1 <= k <= len; ``heap`` holds at least 3 k
    values). For long inputs the minima of 2 k blocks are taken first: the k-th smallest
    of those minima is k distinct values, an upper bound of the k-th smallest of all, and
    only the values at or below it are selected from; a NaN anywhere leaves the plain
    selection (:func:`_kth_smallest_heap`) to order it as before."""
    n = values.shape[0]
    blocks = 2 * k
    if n < 8 * k:
        return _kth_smallest_heap(values, n, k, heap, np.inf, False)
    minima = heap[k:k + blocks]
    has_nan = False
    for b in range(blocks):
        lo = b * n // blocks
        hi = (b + 1) * n // blocks
        m = np.inf
        for t in range(lo, hi):                        # vectorised
            v = values[t]
            has_nan |= v != v
            m = min(m, v)
        minima[b] = m
    if has_nan:
        return _kth_smallest_heap(values, n, k, heap, np.inf, False)
    upper = _kth_smallest_heap(minima, blocks, k, heap, np.inf, False)
    return _kth_smallest_heap(values, n, k, heap, upper, True)


@njit(cache=True, nogil=True)
def _kth_smallest_heap(values, n, k, heap, upper, filtered):
    """The k-th smallest of ``values[:n]`` by a max-heap of the k smallest; with
    ``filtered``, only values at or below ``upper`` (at least k of them) are offered."""
    size = 0
    for t in range(n):
        v = values[t]
        if filtered and not v <= upper:
            continue
        if size == k:
            if v >= heap[0]:
                continue
            heap[0] = v
            pos = 0
            while True:                                 # sift down
                c = 2 * pos + 1
                if c >= size:
                    break
                if c + 1 < size and heap[c + 1] > heap[c]:
                    c += 1
                if heap[c] > heap[pos]:
                    tmp = heap[c]
                    heap[c] = heap[pos]
                    heap[pos] = tmp
                    pos = c
                else:
                    break
        else:
            pos = size
            size += 1
            heap[pos] = v
            while pos > 0 and heap[(pos - 1) // 2] < heap[pos]:
                parent = (pos - 1) // 2
                tmp = heap[parent]
                heap[parent] = heap[pos]
                heap[pos] = tmp
                pos = parent
    return heap[0]


@njit(cache=True, nogil=True)
def lists_from_approximate(cols, col_w, rows, dots, norms, margin, short_idx, short_sq,
                           short_d, short_len, bound):
    """The shortlists of ``rows`` on a set given by its columns, from approximate terms.

    Row ``rows[q]`` = i approximates its terms to every sample t as ``norms[i] + norms[t]
    - 2 dots[q, t]`` (``dots`` a matrix product of the set's centred, weighted columns,
    ``norms`` their squared norms), each within ``margin[q]`` of the exact sum. With
    ``a`` the L-th smallest approximation, every sample at or below ``a + 2 margin`` is
    a candidate and its terms are summed exactly (the set's order); any other sample's
    exact terms are above ``a + margin``, which is at least the L smallest candidates'
    exact terms: so the L first by (terms, index) are candidates. ``bound`` is the
    smallest exact value left out among the candidates, or the smallest approximation
    above the threshold minus the margin, if lower.
    """
    L = short_idx.shape[1]
    n = dots.shape[1]
    hv = np.empty(L)
    hi = np.empty(L, np.int64)
    heap = np.empty(3 * L)
    a_row = np.empty(n)
    for q in range(rows.shape[0]):
        i = rows[q]
        d_row = dots[q]
        norm_i = norms[i]
        for t in range(n):                             # vectorised
            a_row[t] = (norm_i + norms[t]) - 2.0 * d_row[t]
        a_row[i] = np.inf
        t_q = _kth_smallest(a_row, min(L, n - 1), heap) + 2.0 * margin[q]
        above = np.inf
        for t in range(n):                             # vectorised
            v = a_row[t]
            above = min(above, v if v > t_q else np.inf)
        size = 0
        left_out = above - margin[q]
        for t in range(n):
            if a_row[t] <= t_q and t != i:
                v = _cols_sq(cols, col_w, i, t)
                size, out = _heap_push_bounded(hv, hi, size, L, v, t)
                left_out = min(left_out, out)
        _store_sorted(hv, hi, size, i, short_idx, short_sq, short_d, short_len)
        bound[i] = left_out
