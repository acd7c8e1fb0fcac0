"""Compiled (numba) kernels of K-OFSD's exact nearest-neighbour rule.

Every kernel enumerates, for a query sample, the first ``M = K + 1`` samples of the
stable order by (distance, sample index), NaN last: the list the reference sorts
``sort(D(i, :))`` and whose positions 2..K+1 (reference variant) or whose members
other than x_i (paper variant) are the K neighbours. From that list it writes, for every
requested K at once (the first K+1 of the order for a smaller K are a prefix of those
for a larger K), the number of minority neighbours turned into the number of same-label
neighbours, and the summed distances to same- and other-label neighbours (added one
neighbour at a time in neighbour order, as the definition does).

Three ways to find the list, all exact:

* one feature (:func:`single_feature_stats`): the samples sorted by value (ties by index);
  from a sample, distances grow along each side of the sorted order, so the list is a
  walk outwards that takes whole groups of equal distance and, at the group that crosses
  position M, the lowest sample indices of the group (a bounded merge of the group's runs
  of equal values, each already in index order). Samples with equal values share one
  list. Cost O(N log N + N K) per feature, whatever the ties;
* a set, small N (:func:`set_stats_dense`): from the set's full distance matrix, one pass
  per row keeping the M best (distance, index) pairs;
* a set, large N (:func:`set_stats_candidates`): from candidate lists that are known to
  contain every sample of the M first (see ``_neighbours.set_neighbour_stats``).

Distances are ``sqrt((w * d) * d)`` per feature and, for a set, the terms are summed in the
set's order: the arithmetic of the authors' ``pdist(X, 'seuclidean')``.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, inline="always")
def _before(d_a, i_a, d_b, i_b):
    """(d_a, i_a) comes before (d_b, i_b) in the stable order, NaN distances last."""
    if d_a != d_a:                                  # a is NaN
        return d_b != d_b and i_a < i_b
    if d_b != d_b:
        return True
    return d_a < d_b or (d_a == d_b and i_a < i_b)


@njit(cache=True)
def _write_stats(enum_idx, enum_lab, enum_d, members, member_lab, ks, paper, with_dist,
                 same, same_d, other_d, col, cum_min, cum_d1, cum_d0):
    """Neighbour statistics of ``members`` (samples sharing the list ``enum_*``) for every K.

    ``same``/``same_d``/``other_d`` have shape (len(ks), b, n) and feature ``col`` is written
    (b = 1 for a set); ``cum_*`` are work arrays of length len(enum_idx) + 1. The list's
    element 0 has distance 0 (the sample itself or an equal
    one), so adding it to a distance sum changes nothing.
    """
    m = enum_idx.shape[0]
    cum_min[0] = 0
    cum_d1[0] = 0.0
    cum_d0[0] = 0.0
    for j in range(m):
        cum_min[j + 1] = cum_min[j] + enum_lab[j]
        if enum_lab[j] == 1:
            cum_d1[j + 1] = cum_d1[j] + enum_d[j]
            cum_d0[j + 1] = cum_d0[j]
        else:
            cum_d0[j + 1] = cum_d0[j] + enum_d[j]
            cum_d1[j + 1] = cum_d1[j]
    for t in range(ks.shape[0]):
        k = ks[t]
        for q in range(members.shape[0]):
            s = members[q]
            ys = member_lab[q]
            if not paper:
                # Reference: sorted positions 2..K+1 (the first element is skipped).
                n_min = cum_min[k + 1] - enum_lab[0]
                end = k + 1
            else:
                # Paper: the sample itself is excluded; if it is not among the first K+1
                # (equal samples of lower index fill them), the K first are its neighbours.
                inside = False
                for j in range(k + 1):
                    if enum_idx[j] == s:
                        inside = True
                        break
                if inside:
                    n_min = cum_min[k + 1] - ys
                    end = k + 1
                else:
                    n_min = cum_min[k]
                    end = k
            if ys == 1:
                same[t, col, s] = n_min
                if with_dist:
                    same_d[t, col, s] = cum_d1[end]
                    other_d[t, col, s] = cum_d0[end]
            else:
                same[t, col, s] = k - n_min
                if with_dist:
                    same_d[t, col, s] = cum_d0[end]
                    other_d[t, col, s] = cum_d1[end]


@njit(cache=True, inline="always")
def _same_count(enum_idx, lab, i, k, paper):
    """Sample i's number of same-label neighbours among its list's first K + 1 (one K, no
    distances: what :func:`_write_stats` writes into ``same``)."""
    n_min = 0
    if not paper:
        for j in range(1, k + 1):                  # sorted positions 2..K+1
            n_min += lab[enum_idx[j]]
    else:
        inside = False
        for j in range(k + 1):
            if enum_idx[j] == i:
                inside = True
                break
        last = k + 1 if inside else k
        for j in range(last):
            n_min += lab[enum_idx[j]]
        if inside:
            n_min -= lab[i]
    return n_min if lab[i] == 1 else k - n_min


@njit(cache=True)
def _workspace(ks):
    """Work arrays of one query: M = max(K) + 1, the list, its prefix sums, one member."""
    m = 0
    for t in range(ks.shape[0]):
        m = max(m, ks[t] + 1)
    return (m, np.empty(m, np.int64), np.empty(m, np.int64), np.empty(m),
            np.empty(m + 1, np.int64), np.empty(m + 1), np.empty(m + 1),
            np.empty(1, np.int64), np.empty(1, np.int64))


@njit(cache=True, inline="always")
def _write_one(ws, i, lab, ks, paper, with_dist, same, same_d, other_d, col):
    """:func:`_write_stats` for the single sample i whose list is in the workspace."""
    m, enum_idx, enum_lab, enum_d, cum_min, cum_d1, cum_d0, one, one_lab = ws
    for j in range(m):
        enum_lab[j] = lab[enum_idx[j]]
    one[0] = i
    one_lab[0] = lab[i]
    _write_stats(enum_idx, enum_lab, enum_d, one, one_lab, ks, paper, with_dist,
                 same, same_d, other_d, col, cum_min, cum_d1, cum_d0)


#: Card functions known to the kernels (for early rejection): codes of
#: Card_Imbalanced, Card_Consistency, Card_Weight; NO_CARD: none.
CARD_CODES = {"imbalanced": 0, "consistency": 1, "weight": 2}
NO_CARD = -1


@njit(cache=True, inline="always")
def _card_value(card, gamma, same, k, label):
    """A sample's card value from its number of same-label neighbours (cards.py's rules)."""
    if card == 0:
        if label == 1:
            return same / k
        return 1.0 if same == k else 0.0
    if card == 1:
        return 1.0 if same == k else 0.0
    fraction = same / k
    return fraction if fraction > gamma else 0.0


@njit(cache=True, inline="always")
def _feature_distance(a, b, w):
    d = a - b
    return np.sqrt((w * d) * d)


@njit(cache=True)
def _stable_runs(values, order):
    """Sort the indices inside every run of equal values (ties to the lower index)."""
    n = values.shape[0]
    start = 0
    for p in range(1, n + 1):
        if p == n or values[p] != values[start]:
            if p - start > 32:
                order[start:p] = np.sort(order[start:p])
            else:
                for a in range(start + 1, p):          # insertion sort of a short run
                    key = order[a]
                    c = a - 1
                    while c >= start and order[c] > key:
                        order[c + 1] = order[c]
                        c -= 1
                    order[c + 1] = key
            start = p


@njit(cache=True)
def _enumerate_by_definition(x, s, w, m, enum_idx, enum_lab, enum_d, lab):
    """The first m of sample s's stable distance order, by computing its whole row
    (for a feature whose weight is not a positive finite number)."""
    n = x.shape[0]
    count = 0
    for t in range(n):
        d = 0.0 if t == s else _feature_distance(x[s], x[t], w)
        if count < m:
            pos = count
            count += 1
        elif _before(d, t, enum_d[m - 1], enum_idx[m - 1]):
            pos = m - 1
        else:
            continue
        while pos > 0 and _before(d, t, enum_d[pos - 1], enum_idx[pos - 1]):
            enum_d[pos] = enum_d[pos - 1]
            enum_idx[pos] = enum_idx[pos - 1]
            pos -= 1
        enum_d[pos] = d
        enum_idx[pos] = t
    for j in range(m):
        enum_lab[j] = lab[enum_idx[j]]


@njit(cache=True)
def single_feature_stats(columns, order, lab, weights, ks, paper, with_dist,
                         same, same_d, other_d):
    """Neighbour statistics of every sample on each single feature, for every K in ``ks``.

    Parameters
    ----------
    columns : float64 array (b, n)
        One row per feature.
    order : int64 array (b, n)
        Each row's ascending order (any order among equal values; fixed here in place so
        that equal values go to the lower sample index).
    lab : int64 array (n,)
        Labels, 1 = minority.
    weights : float64 array (b,)
        Per-feature weight of the distance.
    ks : int64 array
        The values of K, each 1 <= K <= n - 1.
    paper : bool
        Paper variant (exclude x_i) instead of the reference rule (skip the first).
    with_dist : bool
        Also write the distance sums.
    same, same_d, other_d : arrays (len(ks), b, n)
        Outputs, one row per feature.
    """
    b, n = columns.shape
    m = 0
    for t in range(ks.shape[0]):
        m = max(m, ks[t] + 1)
    enum_idx = np.empty(m, np.int64)
    enum_lab = np.empty(m, np.int64)
    enum_d = np.empty(m)
    cum_min = np.empty(m + 1, np.int64)
    cum_d1 = np.empty(m + 1)
    cum_d0 = np.empty(m + 1)
    run_start = np.empty(n, np.int64)
    run_end = np.empty(n, np.int64)
    v = np.empty(n)
    slab = np.empty(n, np.int64)
    grp_lo = np.empty(n, np.int64)
    grp_hi = np.empty(n, np.int64)
    heads = np.empty(n, np.int64)
    one = np.empty(1, np.int64)
    one_lab = np.empty(1, np.int64)
    for f in range(b):
        x = columns[f]
        o = order[f]
        for p in range(n):
            v[p] = x[o[p]]
        _stable_runs(v, o)
        for p in range(n):
            slab[p] = lab[o[p]]
        w = weights[f]
        if not (w > 0.0 and w < np.inf):
            for s in range(n):
                if v[0] == v[n - 1] and w == np.inf:
                    # A constant column under 'seuclidean': every other distance is NaN,
                    # so the list is the sample, then the others by index.
                    enum_idx[0] = s
                    enum_d[0] = 0.0
                    t = 0
                    for j in range(1, m):
                        if t == s:
                            t += 1
                        enum_idx[j] = t
                        enum_d[j] = np.nan
                        t += 1
                    for j in range(m):
                        enum_lab[j] = lab[enum_idx[j]]
                else:
                    _enumerate_by_definition(x, s, w, m, enum_idx, enum_lab, enum_d, lab)
                one[0] = s
                one_lab[0] = lab[s]
                _write_stats(enum_idx, enum_lab, enum_d, one, one_lab, ks, paper, with_dist,
                             same, same_d, other_d, f, cum_min, cum_d1, cum_d0)
            continue
        # Runs of equal values in sorted order.
        start = 0
        for p in range(1, n + 1):
            if p == n or v[p] != v[start]:
                for q in range(start, p):
                    run_start[q] = start
                    run_end[q] = p
                start = p
        p = 0
        while p < n:
            rs, re = p, run_end[p]
            vq = v[rs]
            # Walk outwards, one group of equal distance at a time (the first group, at
            # distance 0, holds this run and any value whose distance underflows to 0).
            left, right = rs - 1, re
            dl = _feature_distance(vq, v[left], w) if left >= 0 else np.inf
            dr = _feature_distance(vq, v[right], w) if right < n else np.inf
            taken = 0
            dist = 0.0
            grp_lo[0] = rs
            grp_hi[0] = re
            n_runs = 1
            while taken < m:
                if n_runs == 0:
                    if left < 0 and right >= n:
                        break
                    if left < 0:
                        dist = dr
                    elif right >= n:
                        dist = dl
                    else:
                        dist = min(dl, dr)
                while left >= 0 and dl == dist:
                    grp_lo[n_runs] = run_start[left]
                    grp_hi[n_runs] = left + 1
                    n_runs += 1
                    left = run_start[left] - 1
                    if left >= 0:
                        dl = _feature_distance(vq, v[left], w)
                while right < n and dr == dist:
                    grp_lo[n_runs] = right
                    grp_hi[n_runs] = run_end[right]
                    n_runs += 1
                    right = run_end[right]
                    if right < n:
                        dr = _feature_distance(vq, v[right], w)
                if n_runs == 1:                        # one run: already in index order
                    q = grp_lo[0]
                    while taken < m and q < grp_hi[0]:
                        enum_idx[taken] = o[q]
                        enum_lab[taken] = slab[q]
                        enum_d[taken] = dist
                        taken += 1
                        q += 1
                    n_runs = 0
                    continue
                # Merge the group's runs (each in index order) up to the M-th element.
                for g in range(n_runs):
                    heads[g] = grp_lo[g]
                while taken < m:
                    best = -1
                    for g in range(n_runs):
                        if heads[g] < grp_hi[g] and (best < 0 or o[heads[g]] < o[heads[best]]):
                            best = g
                    if best < 0:
                        break
                    q = heads[best]
                    enum_idx[taken] = o[q]
                    enum_lab[taken] = slab[q]
                    enum_d[taken] = dist
                    taken += 1
                    heads[best] = q + 1
                n_runs = 0
            _write_stats(enum_idx, enum_lab, enum_d, o[rs:re], slab[rs:re], ks, paper,
                         with_dist, same, same_d, other_d, f, cum_min, cum_d1, cum_d0)
            p = re


@njit(cache=True)
def _select_row(row, m, enum_idx, enum_d):
    """The first m of ``row`` in the stable order by (distance, index), NaN last.

    Two passes so that the distances can be computed in a vectorised loop first: the
    finite-or-infinite values by a running top-m (indices arrive in increasing order, so
    an equal distance never displaces a kept one), then NaNs by index if places remain.
    """
    n = row.shape[0]
    count = 0
    for t in range(n):
        d = row[t]
        if count == m:
            if not (d < enum_d[m - 1]):
                continue
            pos = m - 1
        elif d == d:
            pos = count
            count += 1
        else:
            continue
        while pos > 0 and d < enum_d[pos - 1]:
            enum_d[pos] = enum_d[pos - 1]
            enum_idx[pos] = enum_idx[pos - 1]
            pos -= 1
        enum_d[pos] = d
        enum_idx[pos] = t
    t = 0
    while count < m:
        if row[t] != row[t]:
            enum_d[count] = row[t]
            enum_idx[count] = t
            count += 1
        t += 1


@njit(cache=True, inline="always")
def _insert_any(enum_idx, enum_d, count, m, d, t):
    """Insert (d, t) into the sorted list of the ``count`` best (at most m), NaN last;
    returns the new count."""
    if count < m:
        pos = count
        count += 1
    elif _before(d, t, enum_d[m - 1], enum_idx[m - 1]):
        pos = m - 1
    else:
        return count
    while pos > 0 and _before(d, t, enum_d[pos - 1], enum_idx[pos - 1]):
        enum_d[pos] = enum_d[pos - 1]
        enum_idx[pos] = enum_idx[pos - 1]
        pos -= 1
    enum_d[pos] = d
    enum_idx[pos] = t
    return count


@njit(cache=True)
def set_stats_dense(dist, lab, ks, paper, with_dist, same, same_d, other_d):
    """Neighbour statistics on a feature set from its distance matrix (zero diagonal).

    ``same``, ``same_d``, ``other_d`` have shape (len(ks), 1, n).
    """
    n = dist.shape[0]
    ws = _workspace(ks)
    m, enum_idx, enum_lab, enum_d, cum_min, cum_d1, cum_d0, one, one_lab = ws
    for i in range(n):
        _select_row(dist[i], m, enum_idx, enum_d)
        _write_one(ws, i, lab, ks, paper, with_dist, same, same_d, other_d, 0)


@njit(cache=True)
def set_distance(cols, weights, i, j):
    """Distance of samples i and j on a set: terms ``(w * d) * d`` summed in set order."""
    if i == j:
        return 0.0
    sq = 0.0
    for f in range(cols.shape[0]):
        d = cols[f, i] - cols[f, j]
        sq = sq + (weights[f] * d) * d
    return np.sqrt(sq)


@njit(cache=True, inline="always")
def _set_distance_below(cols, weights, i, j, limit):
    """:func:`set_distance`, or +inf as soon as a partial sum's root exceeds ``limit``
    (the terms are non-negative and rounding is monotone, so the full distance would
    exceed it too)."""
    sq = 0.0
    for f in range(cols.shape[0]):
        d = cols[f, i] - cols[f, j]
        sq = sq + (weights[f] * d) * d
        if np.sqrt(sq) > limit:
            return np.inf
    return np.sqrt(sq)


@njit(cache=True)
def set_stats_candidates(cols, weights, lab, rows, cand, n_cand, ks, paper, with_dist,
                         same, same_d, other_d):
    """Neighbour statistics of ``rows`` on a set, from candidate lists.

    Parameters
    ----------
    cols : float64 array (|S|, n)
        The set's features, in summation order.
    weights : float64 array (|S|,)
    rows : int64 array (r,)
        Query samples.
    cand : int64 array (r, c)
        For each row, candidate samples (the first ``n_cand[q]`` entries are valid); they
        must include every sample of the row's first K+1 in the stable distance order.
    """
    ws = _workspace(ks)
    m, enum_idx, enum_lab, enum_d, cum_min, cum_d1, cum_d0, one, one_lab = ws
    for q in range(rows.shape[0]):
        i = rows[q]
        count = _insert_any(enum_idx, enum_d, 0, m, 0.0, i)
        for c in range(n_cand[q]):
            t = cand[q, c]
            if t != i:
                count = _insert_any(enum_idx, enum_d, count, m, set_distance(cols, weights, i, t), t)
        _write_one(ws, i, lab, ks, paper, with_dist, same, same_d, other_d, 0)


@njit(cache=True)
def set_stats_scan(cols, weights, lab, prune, sorted_idx, position, rows, ks, paper, with_dist,
                   same, same_d, other_d):
    """Neighbour statistics of ``rows`` on a set by an exact pruned scan.

    Samples are visited outwards in the sorted order of the set's feature ``prune``; a side
    stops once its single-feature distance exceeds the current M-th best set distance. In
    floating point a set distance is never below one of its feature's distances (the terms
    are non-negative and rounding is monotone), so nothing beyond can enter the list.
    Every weight must be a positive finite number.
    """
    n = cols.shape[1]
    ws = _workspace(ks)
    m, enum_idx, enum_lab, enum_d, cum_min, cum_d1, cum_d0, one, one_lab = ws
    xp = cols[prune]
    wp = weights[prune]
    for q in range(rows.shape[0]):
        i = rows[q]
        p = position[i]
        count = _insert_any(enum_idx, enum_d, 0, m, 0.0, i)
        left, right = p - 1, p + 1
        while left >= 0 or right < n:
            bl = _feature_distance(xp[i], xp[sorted_idx[left]], wp) if left >= 0 else np.inf
            br = _feature_distance(xp[i], xp[sorted_idx[right]], wp) if right < n else np.inf
            if left >= 0 and (right >= n or bl <= br):
                bound, t = bl, sorted_idx[left]
                left -= 1
            else:
                bound, t = br, sorted_idx[right]
                right += 1
            if count == m and bound > enum_d[m - 1]:
                break                                  # both sides are beyond the list
            limit = enum_d[m - 1] if count == m else np.inf
            count = _insert_any(enum_idx, enum_d, count, m,
                                _set_distance_below(cols, weights, i, t, limit), t)
        _write_one(ws, i, lab, ks, paper, with_dist, same, same_d, other_d, 0)


@njit(cache=True)
def set_plus_feature_stats_dense(sq, cand, cand_w, lab, ks, paper, with_dist,
                                 same, same_d, other_d):
    """Neighbour statistics on S + f for several candidate features f at once.

    Parameters
    ----------
    sq : float64 array (n, n)
        The set's summed distance terms (zeros for the empty set).
    cand : float64 array (c, n)
        Candidate features, one row each.
    cand_w : float64 array (c,)
        Their distance weights.
    same, same_d, other_d : arrays (len(ks), c, n)
        Outputs, one row per candidate. The distance of S + f is
        ``sqrt(sq + (w * d) * d)``, the set's sum followed by the candidate's term.
    """
    n = sq.shape[0]
    set_plus_feature_stats_short(sq, np.empty((n, 0), np.int64), np.empty((n, 0)),
                                 np.full(n, np.nan), cand, cand_w, lab, ks, paper, with_dist,
                                 same, same_d, other_d, NO_CARD, 0.0, -np.inf,
                                 np.zeros(cand.shape[0], np.bool_), np.arange(n))


@njit(cache=True)
def add_terms(sq, x, w, replace):
    """``sq = (w * d) * d`` (``replace``) or ``sq = sq + (w * d) * d`` for every pair, in place,
    d = x_i - x_j: one feature's terms, the same arithmetic as the definition."""
    n = x.shape[0]
    for i in range(n):
        _add_row_terms(sq[i], x, x[i], w, replace)


@njit(cache=True, inline="always")
def _add_row_terms(row, x, xi, w, replace):
    n = x.shape[0]
    if replace:
        for t in range(n):
            g = xi - x[t]
            row[t] = (w * g) * g
    else:
        for t in range(n):
            g = xi - x[t]
            row[t] = row[t] + (w * g) * g


@njit(cache=True, inline="always")
def _after(va, ia, vb, ib):
    """(va, ia) comes after (vb, ib) in the order by (value, index); no NaN."""
    return va > vb or (va == vb and ia > ib)


@njit(cache=True)
def _sift_down(hv, hi, size, pos):
    """Restore the max-heap (by value, then index) below ``pos``."""
    v = hv[pos]
    ix = hi[pos]
    while True:
        c = 2 * pos + 1
        if c >= size:
            break
        if c + 1 < size and _after(hv[c + 1], hi[c + 1], hv[c], hi[c]):
            c += 1
        if _after(hv[c], hi[c], v, ix):
            hv[pos] = hv[c]
            hi[pos] = hi[c]
            pos = c
        else:
            break
    hv[pos] = v
    hi[pos] = ix


@njit(cache=True)
def build_shortlists(sq, hints, short_idx, short_sq, bound, x, w):
    """Each sample's shortlist on a set: its L first other samples by (summed terms, index).

    With ``x`` non-empty, the feature ``x`` (weight ``w``) is first added to the sums (as
    :func:`add_terms`), row by row in the same pass.

    ``short_idx[i]`` / ``short_sq[i]`` (shape (n, L), L <= n - 2, in heap order) receive the
    list and ``bound[i]`` the smallest value left out, so that no sample outside the list
    is below it; a row with NaN gets bound NaN (the caller scores that row in full). One
    pass per row with a max-heap of the L best; with ``hints`` the heap starts from the
    previous lists (the set grew by a feature, so they are still among the nearest and the
    pass rarely inserts).
    """
    n = sq.shape[0]
    L = short_idx.shape[1]
    member = np.zeros(n, np.bool_)
    hv = np.empty(L)
    hi = np.empty(L, np.int64)
    first = np.empty(L, np.int64)
    for i in range(n):
        row = sq[i]
        if x.shape[0] > 0:
            _add_row_terms(row, x, x[i], w, False)
        has_nan = False
        if hints:
            for j in range(L):
                hi[j] = short_idx[i, j]
        else:
            t = 0
            for j in range(L):
                if t == i:
                    t += 1
                hi[j] = t
                t += 1
        for j in range(L):
            first[j] = hi[j]
            hv[j] = row[hi[j]]
            member[hi[j]] = True
            if hv[j] != hv[j]:
                has_nan = True
        for j in range(L // 2 - 1, -1, -1):
            _sift_down(hv, hi, L, j)
        left_out = np.inf
        if not has_nan:
            for t in range(n):
                if t == i or member[t]:
                    continue
                v = row[t]
                if v < hv[0] or (v == hv[0] and t < hi[0]):
                    left_out = min(left_out, hv[0])
                    hv[0] = v
                    hi[0] = t
                    _sift_down(hv, hi, L, 0)
                elif v != v:
                    has_nan = True
                    break
                else:
                    left_out = min(left_out, v)
        for j in range(L):
            member[first[j]] = False
            short_idx[i, j] = hi[j]
            short_sq[i, j] = hv[j]
        bound[i] = np.nan if has_nan else left_out


@njit(cache=True)
def set_plus_feature_stats_short(sq, short_idx, short_sq, bound, cand, cand_w, lab, ks,
                                 paper, with_dist, same, same_d, other_d, card, gamma,
                                 reject_sum, rejected, rows):
    """:func:`set_plus_feature_stats_dense` from the shortlists of :func:`build_shortlists`.

    Early rejection (``card`` one of the card codes, not ``NO_CARD``): the samples' card
    values (for ``ks[0]``) are added up as rows are done; once even cards of 1 for every
    remaining sample could not bring the sum to ``reject_sum``, the candidate is marked in
    ``rejected`` and its remaining rows are skipped (its outputs are then incomplete).
    Rows are done in the order ``rows`` (a permutation of the samples: the likeliest to
    lower the sum first). Returns (rows scored in full, rows done).

    For sample i only its listed samples are scored: every other sample t has
    ``sq[i, t] >= bound[i]``, so its distance on S + f, ``sqrt(sq + term)``, is at least
    ``sqrt(bound[i])`` (the term is non-negative and rounding is monotone). When that is
    strictly above the M-th distance found, the list holds the exact M first; otherwise (or
    with NaN, or a candidate whose weight is not a positive finite number) the whole row is
    scored; once a candidate needed that for more than half of the rows (few distinct
    distances on S), the following candidates skip the lists. Same outputs, bit for bit.
    Returns the number of rows scored in full.
    """
    n = sq.shape[0]
    ws = _workspace(ks)
    m, enum_idx, enum_lab, enum_d, cum_min, cum_d1, cum_d0, one, one_lab = ws
    dbuf = np.empty(n)
    full = 0
    done = 0
    lists_pay = True
    single_count = ks.shape[0] == 1 and not with_dist
    k0 = ks[0]
    for f in range(cand.shape[0]):
        x = cand[f]
        w = cand_w[f]
        usable = w > 0.0 and w < np.inf and lists_pay
        full_before = full
        card_sum = 0.0
        for r in range(n):
            i = rows[r]
            done += 1
            xi = x[i]
            c = short_idx.shape[1]
            exact = False
            if usable and bound[i] == bound[i]:
                for j in range(c):
                    g = xi - x[short_idx[i, j]]
                    dbuf[j] = np.sqrt(short_sq[i, j] + (w * g) * g)
                enum_idx[0] = i
                enum_d[0] = 0.0
                count = 1
                for j in range(c):
                    d = dbuf[j]
                    if count == m:
                        if not (d <= enum_d[m - 1]):
                            continue
                        t = short_idx[i, j]
                        if d == enum_d[m - 1] and t > enum_idx[m - 1]:
                            continue
                        pos = m - 1
                    else:
                        t = short_idx[i, j]
                        pos = count
                        count += 1
                    while pos > 0 and (d < enum_d[pos - 1]
                                       or (d == enum_d[pos - 1] and t < enum_idx[pos - 1])):
                        enum_d[pos] = enum_d[pos - 1]
                        enum_idx[pos] = enum_idx[pos - 1]
                        pos -= 1
                    enum_d[pos] = d
                    enum_idx[pos] = t
                exact = count == m and np.sqrt(bound[i]) > enum_d[m - 1]
            if not exact:
                full += 1
                row = sq[i]
                for t in range(n):
                    g = xi - x[t]
                    dbuf[t] = np.sqrt(row[t] + (w * g) * g)
                dbuf[i] = 0.0
                _select_row(dbuf, m, enum_idx, enum_d)
            if single_count:
                same[0, f, i] = _same_count(enum_idx, lab, i, k0, paper)
            else:
                _write_one(ws, i, lab, ks, paper, with_dist, same, same_d, other_d, f)
            if card != NO_CARD:
                card_sum += _card_value(card, gamma, same[0, f, i], ks[0], lab[i])
                if card_sum + (n - 1 - r) < reject_sum:
                    rejected[f] = True
                    break
        if usable and full - full_before > n // 2:
            lists_pay = False
    return full, done
