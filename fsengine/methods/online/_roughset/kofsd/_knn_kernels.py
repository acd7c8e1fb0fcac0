"""Compiled (numba) kernels of K-OFSD's exact nearest-neighbour rule.

Every kernel enumerates, for a query sample, the first ``M = K + 1`` samples of the
stable order by (distance, sample index), NaN last: the list the reference sorts
``sort(D(i, :))`` and whose positions 2..K+1 (reference variant) or whose members
other than x_i (paper variant) are the K neighbours. From that list it writes, for every
requested K at once (the first K+1 of the order for a smaller K are a prefix of those
for a larger K), the number of minority neighbours turned into the number of same-label
neighbours, and the summed distances to same- and other-label neighbours (added one
neighbour at a time in neighbour order, as the definition does).

Here, the single features and a set's own statistics (the set tests, the neighbours on
S + f, are in :mod:`fsengine.methods.online._roughset.kofsd._set_kernels`), all exact:

* one feature (:func:`single_feature_stats`): the samples sorted by value (ties by index);
  from a sample, distances grow along each side of the sorted order. Counts alone come
  from a sliding window (:func:`_window_pass`, O(N) per K); distance sums from a walk
  outwards that takes whole groups of equal distance and, at the group that crosses
  position M, the lowest sample indices of the group (:func:`_walk_list`). Samples with
  equal values share one list. Cost O(N log N + N K) per feature, whatever the ties;
* a set (:func:`set_stats_dense`): from the set's full distance matrix, one pass per row
  keeping the M best (distance, index) pairs.

Distances are ``sqrt((w * d) * d)`` per feature and, for a set, the terms are summed in the
set's order: the arithmetic of the authors' ``pdist(X, 'seuclidean')``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from fsengine._compute.jit import kernel
from fsengine._compute.line_orders import ordered_ties, sort_run, stable_line_order

# Card functions known to the kernels (for early rejection), by their codes.
from fsengine.methods.online._codes import CARD_CONSISTENCY, CARD_IMBALANCED, WINDOW_MAX_KS


@njit(cache=True, inline="always")
def _before(d_a, i_a, d_b, i_b):
    """(d_a, i_a) comes before (d_b, i_b) in the stable order, NaN distances last."""
    if d_a != d_a:  # a is NaN
        return d_b != d_b and i_a < i_b
    if d_b != d_b:
        return True
    return d_a < d_b or (d_a == d_b and i_a < i_b)


@njit(cache=True)
def _write_stats(
    enum_idx,
    enum_lab,
    enum_d,
    members,
    member_lab,
    ks,
    paper,
    with_dist,
    same,
    same_d,
    other_d,
    col,
    cum_min,
    cum_d1,
    cum_d0,
):
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
def same_label_count(enum_idx, lab, i, k, paper):
    """Sample i's number of same-label neighbours among its list's first K + 1 (one K, no
    distances: what :func:`_write_stats` writes into ``same``)."""
    n_min = 0
    if not paper:
        for j in range(1, k + 1):  # sorted positions 2..K+1
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
def query_workspace(ks):
    """Work arrays of one query: M = max(K) + 1, the list, its prefix sums, one member."""
    m = 0
    for t in range(ks.shape[0]):
        m = max(m, ks[t] + 1)
    return (
        m,
        np.empty(m, np.int64),
        np.empty(m, np.int64),
        np.empty(m),
        np.empty(m + 1, np.int64),
        np.empty(m + 1),
        np.empty(m + 1),
        np.empty(1, np.int64),
        np.empty(1, np.int64),
    )


@njit(cache=True, inline="always")
def write_one(ws, i, lab, ks, paper, with_dist, same, same_d, other_d, col):
    """:func:`_write_stats` for the single sample i whose list is in the workspace."""
    m, enum_idx, enum_lab, enum_d, cum_min, cum_d1, cum_d0, one, one_lab = ws
    for j in range(m):
        enum_lab[j] = lab[enum_idx[j]]
    one[0] = i
    one_lab[0] = lab[i]
    _write_stats(
        enum_idx,
        enum_lab,
        enum_d,
        one,
        one_lab,
        ks,
        paper,
        with_dist,
        same,
        same_d,
        other_d,
        col,
        cum_min,
        cum_d1,
        cum_d0,
    )


@njit(cache=True, inline="always")
def card_value(card, gamma, same, k, label):
    """A sample's card value from its number of same-label neighbours (cards.py's rules)."""
    if card == CARD_IMBALANCED:
        if label == 1:
            return same / k
        return 1.0 if same == k else 0.0
    if card == CARD_CONSISTENCY:
        return 1.0 if same == k else 0.0
    fraction = same / k  # Card_Weight
    return fraction if fraction > gamma else 0.0


@njit(cache=True, inline="always")
def _feature_distance(a, b, w):
    d = a - b
    return np.sqrt((w * d) * d)


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
def _index_ordered_runs(v, o, run_start, run_end):
    """Runs of equal values in the sorted column ``v``: each run's indices ``o`` sorted (ties
    to the lower index) and every position's run [run_start, run_end)."""
    n = v.shape[0]
    start = 0
    for p in range(1, n + 1):
        if p == n or v[p] != v[start]:
            sort_run(o, start, p)
            for q in range(start, p):
                run_start[q] = start
                run_end[q] = p
            start = p


@njit(cache=True)
def _walk_list(
    v, o, slab, run_start, run_end, rs, re, w, m, enum_idx, enum_lab, enum_d, grp_lo, grp_hi, heads
):
    """The first m of the stable distance order of the samples at sorted positions
    [rs, re) (one run of equal values): a walk outwards, one group of equal distance at a
    time; the group that crosses m is merged by sample index. Returns the list's length."""
    n = v.shape[0]
    vq = v[rs]
    # The first group, at distance 0, holds this run and any value whose distance
    # underflows to 0.
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
        if n_runs == 1:  # one run: already in index order
            q = grp_lo[0]
            while taken < m and q < grp_hi[0]:
                enum_idx[taken] = o[q]
                enum_lab[taken] = slab[q]
                enum_d[taken] = dist
                taken += 1
                q += 1
            n_runs = 0
            continue
        # Merge the group's runs (each in index order) up to the m-th element.
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
    return taken


@njit(cache=True, inline="always")
def _sq_term(u, x, w):
    """One feature's squared distance term ``(w * d) * d``, d = u - x."""
    d = u - x
    return (w * d) * d


@njit(cache=True, inline="always")
def _same_distance(sa, sb):
    """sqrt(sa) == sqrt(sb) for squared terms sa, sb >= 0. Two doubles share a root only
    within a relative 4.4e-16 of each other (none among subnormals), so the roots are
    taken only when the two are that close (with a wide margin)."""
    if sa == sb:
        return True
    if abs(sa - sb) > 1e-14 * min(sa, sb):
        return False
    return np.sqrt(sa) == np.sqrt(sb)


@njit(cache=True, inline="always")
def _strictly_nearer(sa, sb):
    """sqrt(sa) < sqrt(sb) (sb may be +inf)."""
    return sa < sb and (sb - sa > 1e-14 * sa or np.sqrt(sa) != np.sqrt(sb))


@njit(cache=True, inline="always")
def _tie_zone_count(
    v, o, sl, cm, run_start, run_end, u, w, lo, hi, rs, re, s_star, m, grp_lo, grp_hi, heads
):
    """Minority count of the list of the run [rs, re) (value ``u``) when a sample next to
    the window [lo, hi] is at the window's largest distance d* (squared term ``s_star``):
    every sample nearer than d*, then the lowest indices among those at d*. Returns -1
    when a boundary is not as expected (the caller then walks)."""
    n = v.shape[0]
    # Left: [l1, l2) at d*, [l2, rs) nearer; right: [re, r1) nearer, [r1, r2) at d*. Each
    # loop stops at the first sample not at d*, which must then be on the expected side.
    if not s_star > 0.0:
        return -1
    l2 = lo
    while l2 < rs:
        sq = _sq_term(u, v[l2], w)
        if not _same_distance(sq, s_star):
            if not sq < s_star:
                return -1
            break
        l2 = run_end[l2]
    l1 = lo
    while l1 > 0:
        sq = _sq_term(u, v[l1 - 1], w)
        if not _same_distance(sq, s_star):
            if not sq > s_star:
                return -1
            break
        l1 = run_start[l1 - 1]
    r1 = hi + 1
    while r1 > re:
        sq = _sq_term(u, v[r1 - 1], w)
        if not _same_distance(sq, s_star):
            if not sq < s_star:
                return -1
            break
        r1 = run_start[r1 - 1]
    r2 = hi + 1
    while r2 < n:
        sq = _sq_term(u, v[r2], w)
        if not _same_distance(sq, s_star):
            if not sq > s_star:
                return -1
            break
        r2 = run_end[r2]
    if r1 < re:
        return -1
    need = m - (r1 - l2)
    if not 0 < need <= (l2 - l1) + (r2 - r1):
        return -1
    base = cm[r1] - cm[l2]
    if r2 == r1 and run_start[l2 - 1] <= l1:  # one run on the left
        return base + cm[l1 + need] - cm[l1]
    if l2 == l1 and run_end[r1] >= r2:  # one run on the right
        return base + cm[r1 + need] - cm[r1]
    g = 0  # merge the runs at d* by index
    for q0, q1 in ((l1, l2), (r1, r2)):
        q = q0
        while q < q1:
            grp_lo[g] = q
            grp_hi[g] = run_end[q]
            heads[g] = q
            q = run_end[q]
            g += 1
    count = base
    for _ in range(need):
        best = -1
        for h in range(g):
            if heads[h] < grp_hi[h] and (best < 0 or o[heads[h]] < o[heads[best]]):
                best = h
        count += sl[heads[best]]
        heads[best] += 1
    return count


#: :func:`_window_list_count`'s count when a sample next to the window is at d*: the
#: caller counts the tie zone (:func:`_window_tie_count`).
TIE_ZONE = -2


@njit(cache=True, inline="always")
def _window_list_count(v, o, sl, cm, run_start, run_end, w, m, rs, re, lo):
    """The minority count of the list that the run of equal values ``v[rs:re]`` shares,
    when the run is shorter than M and both samples next to the window of M consecutive
    sorted positions that minimises its largest distance d* are farther than d*.

    ``lo``: the window's first position for the previous run (it only moves right).

    Returns
    -------
    (int, int)
        The count, or :data:`TIE_ZONE` when a sample next to the window is at d*
        (:func:`_window_tie_count` then counts), and the window's first position, for
        the next run and for :func:`_window_tie_count`.
    """
    n = v.shape[0]
    u = v[rs]
    if lo < rs - m + 1:
        lo = rs - m + 1
    # Slide while the sample after the window is nearer than its first.
    s_lo = _sq_term(u, v[lo], w)
    s_after = _sq_term(u, v[lo + m], w) if lo + m < n else np.inf
    while lo < rs and s_after < s_lo:
        lo += 1
        s_lo = _sq_term(u, v[lo], w)
        s_after = _sq_term(u, v[lo + m], w) if lo + m < n else np.inf
    hi = lo + m - 1
    s_star = max(s_lo, _sq_term(u, v[hi], w))
    s_before = _sq_term(u, v[lo - 1], w) if lo > 0 else np.inf
    if _strictly_nearer(s_star, s_before) and _strictly_nearer(s_star, s_after):
        # Both samples outside are farther than d*: the list is the window.
        return cm[hi + 1] - cm[lo], lo
    return TIE_ZONE, lo


@njit(cache=True, inline="always")
def _window_tie_count(v, o, sl, cm, run_start, run_end, w, m, rs, re, lo, grp_lo, grp_hi, heads):
    """:func:`_tie_zone_count` of the run ``v[rs:re]`` for the window that starts at
    ``lo`` (:func:`_window_list_count`'s), apart from the window's common case: with the
    tie zone inside that function (and the variant not a constant), numba kept a
    reference count of each array in :func:`_window_pass`'s loop for every run, and the
    pass took 5x as long on SRBCT (18 ms against 3.7 ms), where few runs reach a tie
    zone."""
    u = v[rs]
    hi = lo + m - 1
    s_star = max(_sq_term(u, v[lo], w), _sq_term(u, v[hi], w))
    return _tie_zone_count(
        v, o, sl, cm, run_start, run_end, u, w, lo, hi, rs, re, s_star, m, grp_lo, grp_hi, heads
    )


@njit(cache=True)
def _walk_run(v, o, sl, run_start, run_end, rs, re, w, k, paper, same, t, f, ws):
    """The counts of the run of equal values ``v[rs:re]`` by the walk (:func:`_walk_list`,
    :func:`_write_stats`), written to ``same[t, f]``; arguments as :func:`_window_pass`."""
    m = k + 1
    enum_idx, enum_lab, enum_d, cum_min, cum_d1, cum_d0, _, _, grp_lo, grp_hi, heads, ks1 = ws
    _walk_list(
        v, o, sl, run_start, run_end, rs, re, w, m, enum_idx, enum_lab, enum_d, grp_lo, grp_hi,
        heads,
    )  # fmt: skip
    ks1[0] = k
    one_t = same[t : t + 1]
    _write_stats(
        enum_idx[:m], enum_lab[:m], enum_d[:m], o[rs:re], sl[rs:re], ks1, paper, False, one_t,
        one_t, one_t, f, cum_min, cum_d1, cum_d0,
    )  # fmt: skip


@njit(cache=True, inline="always")
def _write_run_counts(out, o, sl, cm, rs, re, k, paper, n_list_min, zero_cut):
    """Each sample of the run ``rs:re`` gets its same-label count from the minority count
    ``n_list_min`` of the run's list (``zero_cut``: d* = 0, the list is the run's first M;
    in the paper variant a sample past them has the run's first K as neighbours)."""
    if not paper:
        n_min = n_list_min - sl[rs]  # the list's first: the run's lowest index
        for q in range(rs, re):
            c = sl[q]
            out[o[q]] = k - n_min + c * (2 * n_min - k)  # n_min if minority, else K - n_min
        return
    for q in range(rs, re):
        c = sl[q]
        if zero_cut and q >= rs + k + 1:  # not among the first M: the first K
            n_min = _past_list_count(cm, sl, rs, k, paper)
        else:
            n_min = n_list_min - c
        out[o[q]] = k - n_min + c * (2 * n_min - k)


@njit(cache=True)
def _window_pass(v, o, sl, cm, run_start, run_end, simple, w, k, paper, same, t, f, ws):
    """Same-label neighbour counts of every sample on one sorted column, for one K, by a
    sliding window; runs with an unusual tie pattern go to :func:`_walk_list`.

    ``v``/``o``/``sl``: sorted values, their sample indices (ties by index) and labels;
    ``cm``: prefix sums of ``sl``. Every weight here is positive and finite. For a run of
    equal values (sharing their list), the d* = M-th smallest distance (M = K + 1) is
    found from the window of M consecutive sorted positions that minimises its largest
    distance (it only moves right as the values grow; :func:`_window_list_count`); then
    the list is every sample nearer than d* (a contiguous range, counted from ``cm``) and
    the lowest indices of those at exactly d* (one run each side at most, unless rounding
    makes distinct values equidistant). Every boundary is checked; anything unusual (d* = 0
    across runs, several runs at d*) takes the walk (:func:`_walk_run`), and so does the
    whole column unless ``simple`` (no distance between distinct values underflows to 0).
    O(N) per column and K, the squared terms compared and roots taken only near a tie.
    ``same[t, f]`` receives the counts; ``ws``: the work arrays of :func:`_stats_work`.
    """
    n = v.shape[0]
    m = k + 1
    out = same[t, f]
    lo = 0
    p = 0
    while p < n:
        rs = p
        re = run_end[p]
        p = re
        n_list_min = -1  # minority count of the list; -1: walk
        zero_cut = False  # d* = 0: the list is the run's first M
        if not simple:
            pass
        elif re - rs >= m:
            n_list_min = cm[rs + m] - cm[rs]
            zero_cut = True
        else:
            n_list_min, lo = _window_list_count(v, o, sl, cm, run_start, run_end, w, m, rs, re, lo)
            if n_list_min == TIE_ZONE:
                n_list_min = _window_tie_count(
                    v, o, sl, cm, run_start, run_end, w, m, rs, re, lo, ws[8], ws[9], ws[10]
                )
        if n_list_min < 0:
            _walk_run(v, o, sl, run_start, run_end, rs, re, w, k, paper, same, t, f, ws)
        else:
            _write_run_counts(out, o, sl, cm, rs, re, k, paper, n_list_min, zero_cut)


@kernel(
    (
        "void(f8[:, ::1], i8[:, ::1], i8[::1], f8[::1], i8[::1], b1, b1, i8[:, :, ::1], "
        "f8[:, :, ::1], f8[:, :, ::1])"
    ),
    nogil=True,
)
def single_feature_stats(columns, order, lab, weights, ks, paper, with_dist, same, same_d, other_d):
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

    Counts alone (no distances) come from :func:`_window_pass`, O(N) per column and K;
    distance sums, which must be added in list order, from the list of each run of
    equal values (:func:`_walk_list`), O(N K).
    """
    if paper:  # a constant below (:func:`_single_stats`)
        _single_stats(columns, order, lab, weights, ks, True, with_dist, same, same_d, other_d)
    else:
        _single_stats(columns, order, lab, weights, ks, False, with_dist, same, same_d, other_d)


@njit(cache=True)
def _single_stats(columns, order, lab, weights, ks, paper, with_dist, same, same_d, other_d):
    """:func:`single_feature_stats`'s work, compiled for ``paper`` as a constant: with the
    variant a value known only at run time, numba kept reference counts of the arrays
    in the per-sample loops of both variants' code, and a column took twice as long
    (SRBCT: 13.4 ms against 7.3 ms)."""
    n = columns.shape[1]
    work = _stats_work(n, ks)
    for f in range(columns.shape[0]):
        _column_stats(
            columns[f], order[f], n, lab, weights[f], ks, paper, with_dist, same, same_d,
            other_d, f, work,
        )  # fmt: skip


@kernel(
    (
        "void(f8[:, ::1], f8[:, ::1], i8[:, ::1], i8[:, ::1], i8[::1], i8[::1], f8[::1], "
        "i8[::1], b1, i8[:, :, ::1])"
    ),
    nogil=True,
)
def sparse_feature_counts(columns, values, rows, by_value, counts, lab, weights, ks, paper, same):
    """:func:`single_feature_stats` without distances, from each column's non-zero values
    sorted (:func:`fsengine._compute.sparse.nonzero_order`), in O(z log z + K) a column of
    z non-zero values and n - z zeros, plus one pass over the zeros' samples to write
    their counts.

    A column's zeros, when there are more than m = K + 1 (the largest K) of them, enter
    the sliding window as their m lowest sample indices only: a list of another value
    takes at most K of them (the lowest indices, the stable order's ties), and the zeros'
    own list is their first m. Every other zero has the count of a sample past the
    list's end (:func:`_past_list_count`). A column with m zeros or fewer, whose distinct
    values do not all lie apart (a distance that underflows to 0), or whose weight is not
    positive and finite, takes the whole stable order, and so does every column when
    ``ks`` holds more than :data:`WINDOW_MAX_KS` values.

    Parameters
    ----------
    columns : float64 array (b, n)
    values, rows, by_value, counts
        :func:`fsengine._compute.sparse.nonzero_order` of ``columns`` (``by_value``'s
        runs of ties are put in position order here, in place).
    lab, weights, ks, paper
        As :func:`single_feature_stats`.
    same : int64 array (len(ks), b, n)
        Written.
    """
    if paper:  # a constant below, as in :func:`single_feature_stats`
        _sparse_counts(columns, values, rows, by_value, counts, lab, weights, ks, True, same)
    else:
        _sparse_counts(columns, values, rows, by_value, counts, lab, weights, ks, False, same)


@njit(cache=True)
def _sparse_counts(columns, values, rows, by_value, counts, lab, weights, ks, paper, same):
    """:func:`sparse_feature_counts`'s work, compiled for ``paper`` as a constant."""
    b, n = columns.shape
    work = _stats_work(n, ks)
    m = work[0].shape[0]
    o = np.empty(n, np.int64)
    none = np.empty((0, 0, 0))  # no distance sums
    for f in range(b):
        z = counts[f]
        x, w, nonzero, by = columns[f], weights[f], rows[f], by_value[f]
        if n - z > m and w > 0.0 and w < np.inf and ks.shape[0] <= WINDOW_MAX_KS:
            negative = ordered_ties(values[f], by, z)
            for q in range(negative):
                o[q] = nonzero[by[q]]
            at, i, q = negative, 0, 0  # the m lowest positions of the zeros
            while at < negative + m:
                if q < z and nonzero[q] == i:
                    q += 1
                else:
                    o[at] = i
                    at += 1
                i += 1
            for r in range(negative, z):
                o[at] = nonzero[by[r]]
                at += 1
            if _column_stats(x, o, z + m, lab, w, ks, paper, False, same, none, none, f, work):
                # the zeros past the m kept: each the count of a sample past the list
                cm, sl = work[16], work[15]
                for t in range(ks.shape[0]):
                    k = ks[t]
                    n_min = _past_list_count(cm, sl, negative, k, paper)
                    out = same[t, f]
                    next_nonzero = q
                    for r in range(i, n):
                        if next_nonzero < z and nonzero[next_nonzero] == r:
                            next_nonzero += 1
                        else:
                            out[r] = k - n_min + lab[r] * (2 * n_min - k)
                continue
        stable_line_order(values[f], nonzero, by, z, o)
        _column_stats(x, o, n, lab, w, ks, paper, False, same, none, none, f, work)


@njit(cache=True)
def _stats_work(n, ks):
    """The working arrays of :func:`_column_stats` for columns of n samples and the K of
    ``ks``: the lists' (m = the largest K + 1), then each sorted position's run, value and
    label, and the labels' prefix sums."""
    m = 0
    for t in range(ks.shape[0]):
        m = max(m, ks[t] + 1)
    return (
        np.empty(m, np.int64),  # enum_idx
        np.empty(m, np.int64),  # enum_lab
        np.empty(m),  # enum_d
        np.empty(m + 1, np.int64),  # cum_min
        np.empty(m + 1),  # cum_d1
        np.empty(m + 1),  # cum_d0
        np.empty(1, np.int64),  # one
        np.empty(1, np.int64),  # one_lab
        np.empty(n, np.int64),  # grp_lo
        np.empty(n, np.int64),  # grp_hi
        np.empty(n, np.int64),  # heads
        np.empty(1, np.int64),  # ks1
        np.empty(n, np.int64),  # run_start
        np.empty(n, np.int64),  # run_end
        np.empty(n),  # v
        np.empty(n, np.int64),  # slab
        np.empty(n + 1, np.int64),  # cm
    )


@njit(cache=True)
def _column_stats(x, order, L, lab, w, ks, paper, with_dist, same, same_d, other_d, f, work):
    """One column's statistics (:func:`single_feature_stats`) from ``order[:L]``: its
    ascending order, whole (``L`` = n), or with a long run of equal values cut to its
    lowest indices (:func:`sparse_feature_counts`; counts alone). Returns False, having
    written nothing, when a cut order cannot serve (distinct values at distance 0)."""
    n = x.shape[0]
    (
        enum_idx,
        enum_lab,
        enum_d,
        cum_min,
        cum_d1,
        cum_d0,
        one,
        one_lab,
        grp_lo,
        grp_hi,
        heads,
        ks1,
        run_start,
        run_end,
        v,
        slab,
        cm,
    ) = work
    ws = work[:12]
    m = enum_idx.shape[0]
    o = order[:L]
    for p in range(L):
        v[p] = x[o[p]]
    _index_ordered_runs(v[:L], o, run_start, run_end)
    for p in range(L):
        slab[p] = lab[o[p]]
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
            _write_stats(
                enum_idx, enum_lab, enum_d, one, one_lab, ks, paper, with_dist, same, same_d,
                other_d, f, cum_min, cum_d1, cum_d0,
            )  # fmt: skip
        return True
    if not with_dist and ks.shape[0] <= WINDOW_MAX_KS:
        cm[0] = 0
        simple = True
        for p in range(L):
            cm[p + 1] = cm[p] + slab[p]
            if p > 0 and v[p] != v[p - 1] and not _sq_term(v[p], v[p - 1], w) > 0.0:
                simple = False  # distinct values at distance 0 (underflow)
        if not simple and L < n:
            return False
        for t in range(ks.shape[0]):
            _window_pass(
                v[:L], o, slab[:L], cm[: L + 1], run_start, run_end, simple, w, ks[t], paper,
                same, t, f, ws,
            )  # fmt: skip
        return True
    p = 0
    while p < n:
        rs, re = p, run_end[p]
        _walk_list(v, o, slab, run_start, run_end, rs, re, w, m, enum_idx, enum_lab, enum_d,
                   grp_lo, grp_hi, heads)  # fmt: skip
        _write_stats(
            enum_idx, enum_lab, enum_d, o[rs:re], slab[rs:re], ks, paper, with_dist, same,
            same_d, other_d, f, cum_min, cum_d1, cum_d0,
        )  # fmt: skip
        p = re
    return True


@njit(cache=True, inline="always")
def _past_list_count(cm, sl, rs, k, paper):
    """The same-label count's minority part for a sample of the run starting at sorted
    position ``rs`` that is not among the run's first K + 1 (the run's list): under the
    reference rule the list less its first sample, under the paper's the list's first
    K."""
    if paper:
        return cm[rs + k] - cm[rs]
    return cm[rs + k + 1] - cm[rs] - sl[rs]


@kernel("void(i8[:, :, ::1], i8[::1], i8[::1], i8, f8, f8[:, ::1])", nogil=True)
def dependencies_from_counts(same, lab, ks, card, gamma, deps):
    """Each feature's dependency from its same-label counts: the card values (``card``, a
    code of :data:`fsengine.methods.online._codes.CARD_CODES`) summed in sample order, divided by n,
    as ``_cards.dependency_from_cards`` does. ``same`` (len(ks), b, n); ``deps`` (len(ks), b)."""
    n_k, b, n = same.shape
    for t in range(n_k):
        k = ks[t]
        for f in range(b):
            total = 0.0
            for i in range(n):
                total += card_value(card, gamma, same[t, f, i], k, lab[i])
            deps[t, f] = total / n


@njit(cache=True)
def select_row(row, m, enum_idx, enum_d):
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


@kernel(
    "void(f8[:, ::1], i8[::1], i8[::1], b1, b1, i8[:, :, ::1], f8[:, :, ::1], f8[:, :, ::1])",
)
def set_stats_dense(dist, lab, ks, paper, with_dist, same, same_d, other_d):
    """Neighbour statistics on a feature set from its distance matrix (zero diagonal).

    ``same``, ``same_d``, ``other_d`` have shape (len(ks), 1, n).
    """
    n = dist.shape[0]
    ws = query_workspace(ks)
    m, enum_idx, enum_lab, enum_d, cum_min, cum_d1, cum_d0, one, one_lab = ws
    for i in range(n):
        select_row(dist[i], m, enum_idx, enum_d)
        write_one(ws, i, lab, ks, paper, with_dist, same, same_d, other_d, 0)


@kernel("void(f8[:, ::1], f8[::1], f8, b1, i8, i8)", nogil=True)
def add_terms(sq, x, w, replace, lo, hi):
    """``sq = (w * d) * d`` (``replace``) or ``sq = sq + (w * d) * d`` for every pair of rows
    ``lo`` to ``hi`` - 1, in place, d = x_i - x_j: one feature's terms, the same arithmetic
    as the definition."""
    for i in range(lo, hi):
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
def comes_after(va, ia, vb, ib):
    """(va, ia) comes after (vb, ib) in the order by (value, index); no NaN."""
    return va > vb or (va == vb and ia > ib)


@njit(cache=True)
def sift_down(hv, hi, size, pos):
    """Restore the max-heap (by value, then index) below ``pos``."""
    v = hv[pos]
    ix = hi[pos]
    while True:
        c = 2 * pos + 1
        if c >= size:
            break
        if c + 1 < size and comes_after(hv[c + 1], hi[c + 1], hv[c], hi[c]):
            c += 1
        if comes_after(hv[c], hi[c], v, ix):
            hv[pos] = hv[c]
            hi[pos] = hi[c]
            pos = c
        else:
            break
    hv[pos] = v
    hi[pos] = ix
