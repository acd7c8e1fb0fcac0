"""Compiled (numba) MIToolbox measures for SFS-FI and OSSFS-DD, equal bit for bit to the
definitions in :mod:`.mitoolbox` (and so to MIToolbox's C).

A feature is kept as its integer states (``floor(x) - min``) and their number. Every sum
runs over the occupied cells in MIToolbox's order with MIToolbox's operations: ``c / n``
probabilities, the ``log`` of the same quotient (the C library's ``log``, as numba calls
it), one running sum, then ``/ log(2)``.

``I(A; Y | Z) = H(A | Z) - H(A | YZ)`` is the measure both selectors call most, always
with the labels Y in the middle and a feature Z as the condition. A condition is prepared
once (:func:`_prepare_condition`): the samples grouped by Z's state in ascending order, and
grouped by the joint state YZ in the order of first appearance (MIToolbox's
``mergeArrays`` numbering); each group lists its samples by index. Then
``H(A | groups) = -sum_groups sum_a (c/n) log((c/n) / (g/n))`` runs over the groups in
order and, within a group of g samples, over A's states in ascending order with their
counts c: MIToolbox's joint index ``group * numStatesA + stateA``. Within a group A's
states are counted with a dense counter when A has few states for the groups, else sorted.
A pure cell (c = g) adds ``-(c/n) * log(1) = -0``, which changes nothing: it is skipped.
When the cells (YZ state, A's state) are few (at most :data:`COUNTED_CELLS`, as with most
microarrays' floor(x) states), one pass counts them all and the same terms are summed in
the same order from that table (:func:`_counted_cmi`); Z is then never grouped.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from fsengine._compute.jit import kernel

#: A dense table of counts is used when it has at most this many cells per sample.
DENSE_CELLS_PER_SAMPLE = 4
#: Joint-state keys stay below this (int64); beyond, the occupied states are ranked first.
MAX_KEY = 2**62


@njit(cache=True)
def _states(x, out):
    """``floor(x) - min`` into ``out`` (int64); returns the number of states."""
    n = x.shape[0]
    low = math.floor(x[0])
    high = low
    for i in range(n):
        f = math.floor(x[i])
        if f < low:
            low = f
        if f > high:
            high = f
    for i in range(n):
        out[i] = np.int64(math.floor(x[i]) - low)
    return np.int64(high - low) + 1


@njit(cache=True)
def _runs(keys, n_keys, uniq, counts):
    """The distinct values of ``keys`` in ascending order and their counts; returns how
    many. A dense counter when the range is small, else a sort."""
    n = keys.shape[0]
    if n_keys <= DENSE_CELLS_PER_SAMPLE * n + 16:
        tally = np.zeros(n_keys, dtype=np.int64)
        for i in range(n):
            tally[keys[i]] += 1
        m = 0
        for v in range(n_keys):
            if tally[v] > 0:
                uniq[m] = v
                counts[m] = tally[v]
                m += 1
        return m
    ordered = np.sort(keys)
    m = 0
    i = 0
    while i < n:
        j = i
        while j < n and ordered[j] == ordered[i]:
            j += 1
        uniq[m] = ordered[i]
        counts[m] = j - i
        m += 1
        i = j
    return m


@njit(cache=True)
def _entropy(s, k, uniq, counts):
    """H(S) in bits for states ``s`` (k states)."""
    n = s.shape[0]
    nf = float(n)
    m = _runs(s, k, uniq, counts)
    h = 0.0
    for r in range(m):
        p = counts[r] / nf
        h -= p * math.log(p)
    return h / math.log(2.0)


@njit(cache=True)
def _rank_of(values, m, v):
    """The position of ``v`` among the ``m`` ascending ``values`` (binary search)."""
    lo = 0
    hi = m
    while lo < hi:
        mid = (lo + hi) // 2
        if values[mid] < v:
            lo = mid + 1
        else:
            hi = mid
    return lo


@njit(cache=True)
def _mutual_information(sx, kx, sy, ky, scratch):
    """I(X; Y) in bits: joint index ``stateY * kx + stateX`` ascending (``scratch``: 7 x n
    int64 working rows)."""
    keys, uniq, counts = scratch[0], scratch[1], scratch[2]
    ux, cx, uy, cy = scratch[3], scratch[4], scratch[5], scratch[6]
    n = sx.shape[0]
    nf = float(n)
    mx = _runs(sx, kx, ux, cx)
    my = _runs(sy, ky, uy, cy)
    if ky > MAX_KEY // kx:
        # kx * ky would overflow: the occupied states' ranks keep the order of the cells
        for i in range(n):
            keys[i] = _rank_of(uy, my, sy[i]) * mx + _rank_of(ux, mx, sx[i])
        m = _runs(keys, mx * my, uniq, counts)
        total = 0.0
        for r in range(m):
            joint = counts[r] / nf
            px = cx[uniq[r] % mx] / nf
            py = cy[uniq[r] // mx] / nf
            total += joint * math.log(joint / px / py)
        return total / math.log(2.0)
    for i in range(n):
        keys[i] = sy[i] * kx + sx[i]
    m = _runs(keys, kx * ky, uniq, counts)
    total = 0.0
    for r in range(m):
        joint = counts[r] / nf
        px = cx[_rank_of(ux, mx, uniq[r] % kx)] / nf
        py = cy[_rank_of(uy, my, uniq[r] // kx)] / nf
        total += joint * math.log(joint / px / py)
    return total / math.log(2.0)


@njit(cache=True)
def _dense_entropy_and_mi(s, k, sy, ky, tally_x, tally_xy, tally_y):
    """H(X) and I(X; Y) in bits from dense tallies, with :func:`_entropy`'s and
    :func:`_mutual_information`'s sums in their order (states, then cells
    ``stateY * k + stateX``, ascending). ``tally_y`` holds Y's counts; the other two
    tallies have at least k and k * ky zeroed cells and are left zeroed."""
    n = s.shape[0]
    nf = float(n)
    for i in range(n):
        tally_x[s[i]] += 1
        tally_xy[sy[i] * k + s[i]] += 1
    h = 0.0
    for v in range(k):
        if tally_x[v] > 0:
            p = tally_x[v] / nf
            h -= p * math.log(p)
    total = 0.0
    for yv in range(ky):
        base = yv * k
        for v in range(k):
            c = tally_xy[base + v]
            if c > 0:
                joint = c / nf
                px = tally_x[v] / nf
                py = tally_y[yv] / nf
                total += joint * math.log(joint / px / py)
                tally_xy[base + v] = 0
    for v in range(k):
        tally_x[v] = 0
    return h / math.log(2.0), total / math.log(2.0)


@kernel(
    "void(f8[:, :], i8[::1], i8, f8, i8[::1, :], i8[::1], f8[::1], f8[::1], f8[::1])",
    nogil=True,
)
def column_measures(block, y_states, y_count, y_entropy, states, n_states, h, mi, su):
    """For every column of ``block``: its states (into ``states``, one column each), their
    number, H(X), I(X; Y) and ``SU = (2 I) / (H(X) + H(Y))`` (``mi/SU.m``; NaN for 0 / 0).

    Parameters
    ----------
    block : float64 (n, b)
    y_states : int64 (n,)
        The labels' states; ``y_count`` their number, ``y_entropy`` H(Y).
    states : int64 (n, b), Fortran order (out)
    n_states : int64 (b,) (out)
    h, mi, su : float64 (b,) (out)
    """
    n, b = block.shape
    scratch = np.empty((7, n), dtype=np.int64)
    # dense tallies, allocated once: X's states and the joint cells stateY * k + stateX
    cells = DENSE_CELLS_PER_SAMPLE * n + 16
    tally_x = np.zeros(cells, dtype=np.int64)
    tally_xy = np.zeros(cells, dtype=np.int64)
    tally_y = np.zeros(y_count, dtype=np.int64)
    for i in range(n):
        tally_y[y_states[i]] += 1
    for j in range(b):
        s = states[:, j]
        k = _states(block[:, j], s)
        n_states[j] = k
        if k * y_count <= cells:
            h[j], mi[j] = _dense_entropy_and_mi(s, k, y_states, y_count, tally_x, tally_xy, tally_y)
        else:
            h[j] = _entropy(s, k, scratch[1], scratch[2])
            mi[j] = _mutual_information(s, k, y_states, y_count, scratch)
        score = 2.0 * mi[j]
        total = h[j] + y_entropy
        if total == 0.0:
            su[j] = np.nan if score == 0.0 else np.inf * score
        else:
            su[j] = score / total


@kernel("f8(i8[::1], i8, i8[::1], i8, f8, f8)", nogil=True)
def pair_symmetric_uncertainty(sa, ka, sb, kb, ha, hb):
    """``SU(A, B) = (2 I(A; B)) / (H(A) + H(B))`` (``mi/SU.m`` on two features, A first),
    given their entropies."""
    n = sa.shape[0]
    scratch = np.empty((7, n), dtype=np.int64)
    score = 2.0 * _mutual_information(sa, ka, sb, kb, scratch)
    total = ha + hb
    if total == 0.0:
        return np.nan if score == 0.0 else np.inf * score
    return score / total


@kernel("f8(i8[::1], i8, i8[::1], i8)", nogil=True)
def pair_mutual_information(sa, ka, sb, kb):
    """``I(A; B)`` (``mi/mi.m`` with A first) in bits."""
    n = sa.shape[0]
    scratch = np.empty((7, n), dtype=np.int64)
    return _mutual_information(sa, ka, sb, kb, scratch)


@njit(cache=True)
def _group(keys, order, starts):
    """Samples grouped by ``keys`` ascending, by index within a group (a stable sort):
    ``order`` the samples, ``starts`` the groups' bounds; returns the number of groups."""
    n = keys.shape[0]
    idx = np.argsort(keys, kind="mergesort")
    g = 0
    for i in range(n):
        order[i] = idx[i]
        if i == 0 or keys[idx[i]] != keys[idx[i - 1]]:
            starts[g] = i
            g += 1
    starts[g] = n
    return g


@njit(cache=True)
def _prepare_condition(sz, sy, ky, z_order, z_starts, yz_order, yz_starts, n_groups):
    """The groups of a condition Z (:func:`_cmi`): by Z's state ascending (``z_order``,
    ``z_starts``), and by the joint state YZ numbered by first appearance (``yz_order``,
    ``yz_starts``); each ``*_starts`` has n + 1 slots. ``n_groups`` (2,) receives the two
    numbers of groups."""
    n = sz.shape[0]
    n_groups[0] = _group(sz, z_order, z_starts)
    keys = np.empty(n, dtype=np.int64)
    for i in range(n):
        keys[i] = sy[i] + sz[i] * ky  # mergeArrays(Y, Z): Y's state + Z's state * numStatesY
    order = np.empty(n, dtype=np.int64)
    starts = np.empty(n + 1, dtype=np.int64)
    gyz = _group(keys, order, starts)
    first = np.empty(gyz, dtype=np.int64)
    for g in range(gyz):
        first[g] = order[starts[g]]  # a stable sort: the group's lowest index
    rank = np.argsort(first)
    position = 0
    for r in range(gyz):
        g = rank[r]
        yz_starts[r] = position
        for t in range(starts[g], starts[g + 1]):
            yz_order[position] = order[t]
            position += 1
    yz_starts[gyz] = n
    n_groups[1] = gyz


@kernel("void(i8, f8[::1])", nogil=True)
def term_table(n, out):
    """``out[g * (n + 1) + c] = (c/n) * log((c/n) / (g/n))`` for 1 <= c <= g <= n: the term
    of a cell of c samples in a group of g (:func:`_grouped_entropy`), computed once."""
    nf = float(n)
    for g in range(1, n + 1):
        cond = g / nf
        for c in range(1, g + 1):
            joint = c / nf
            out[g * (n + 1) + c] = joint * math.log(joint / cond)


@njit(cache=True)
def _term(c, g, nf, table, width):
    if table.shape[0] > 0:
        return table[g * width + c]
    joint = c / nf
    return joint * math.log(joint / (g / nf))


@njit(cache=True)
def _grouped_entropy(sa, ka, order, starts, n_groups, buffer, tally, table):
    """``H(A | groups)`` in bits: groups in order, A's states ascending within each; the
    terms from ``table`` (:func:`term_table`) when it is not empty."""
    n = sa.shape[0]
    nf = float(n)
    width = n + 1
    h = 0.0
    dense = ka * n_groups <= DENSE_CELLS_PER_SAMPLE * n + 16
    for g in range(n_groups):
        lo = starts[g]
        hi = starts[g + 1]
        size = hi - lo
        if size == 1:
            continue  # one cell of one sample: a pure cell
        if dense:
            for t in range(lo, hi):
                tally[sa[order[t]]] += 1
            for a in range(ka):
                c = tally[a]
                if c > 0:
                    tally[a] = 0
                    if c != size:  # a pure cell adds -(c/n) * log(1) = -0
                        h -= _term(c, size, nf, table, width)
            continue
        for t in range(size):
            buffer[t] = sa[order[lo + t]]
        if size <= 32:  # insertion sort
            for t in range(1, size):
                v = buffer[t]
                u = t - 1
                while u >= 0 and buffer[u] > v:
                    buffer[u + 1] = buffer[u]
                    u -= 1
                buffer[u + 1] = v
        else:
            part = np.sort(buffer[:size])
            for t in range(size):
                buffer[t] = part[t]
        t = 0
        while t < size:
            u = t
            while u < size and buffer[u] == buffer[t]:
                u += 1
            c = u - t
            if c != size:
                h -= _term(c, size, nf, table, width)
            t = u
    return h / math.log(2.0)


@njit(cache=True)
def _cmi(sa, ka, z_order, z_starts, gz, yz_order, yz_starts, gyz, buffer, tally, table):
    first = _grouped_entropy(sa, ka, z_order, z_starts, gz, buffer, tally, table)
    second = _grouped_entropy(sa, ka, yz_order, yz_starts, gyz, buffer, tally, table)
    return first - second


#: The table of a counted condition (:func:`_counted_cmi`) has at most this many cells.
COUNTED_CELLS = 4096


@njit(cache=True)
def _count_plan(sz, kz, sy, ky, codes, plan):
    """Z ready to be counted with any A (:func:`_counted_cmi`): ``codes[i] = Y's state +
    Z's state * ky`` (MIToolbox's ``mergeArrays``) and, in ``plan`` (4 n + 2 slots):
    ``plan[0]`` the number of YZ codes present, ``plan[1]`` of Z's states present; from
    ``plan[2]`` the YZ codes in order of first appearance (the order of the YZ groups of
    :func:`_prepare_condition`), then their sizes, then Z's states present ascending, then
    their sizes (n slots each). ``plan[0] = -1`` when the ``kz * ky`` codes exceed
    :data:`COUNTED_CELLS`: then Z is grouped instead (:func:`_condition_cmi`)."""
    if kz > COUNTED_CELLS // ky:
        plan[0] = -1
        return
    n = sz.shape[0]
    size = np.zeros(kz * ky, dtype=np.int64)
    n_yz = 0
    for i in range(n):
        code = sy[i] + sz[i] * ky
        codes[i] = code
        if size[code] == 0:
            plan[2 + n_yz] = code
            n_yz += 1
        size[code] += 1
    for r in range(n_yz):
        plan[2 + n + r] = size[plan[2 + r]]
    n_z = 0
    for z in range(kz):
        total = 0
        for yv in range(ky):
            total += size[z * ky + yv]
        if total > 0:
            plan[2 + 2 * n + n_z] = z
            plan[2 + 3 * n + n_z] = total
            n_z += 1
    plan[0] = n_yz
    plan[1] = n_z


@njit(cache=True)
def _counted_cmi(sa, ka, codes, ky, plan, cells, table):
    """``I(A; Y | Z)`` in bits as :func:`_cmi` computes it (the same terms in the same
    order) from one table of counts of the cells (YZ code, A's state): Z's groups by state
    ascending, the YZ groups in order of first appearance, A's states ascending within
    each, a group of one sample and a pure cell skipped. ``codes`` and ``plan`` from
    :func:`_count_plan`; ``cells`` holds at least ``kz * ky * ka`` zeros and is left
    zeroed."""
    n = sa.shape[0]
    nf = float(n)
    width = n + 1
    for i in range(n):
        cells[codes[i] * ka + sa[i]] += 1
    h = 0.0  # H(A | Z)
    for r in range(plan[1]):
        size = plan[2 + 3 * n + r]
        if size <= 1:
            continue
        lo = plan[2 + 2 * n + r] * ky * ka
        for a in range(ka):
            c = 0
            for yv in range(ky):
                c += cells[lo + yv * ka + a]
            if c > 0 and c != size:
                h -= _term(c, size, nf, table, width)
    first = h / math.log(2.0)
    h = 0.0  # H(A | YZ)
    for r in range(plan[0]):
        size = plan[2 + n + r]
        lo = plan[2 + r] * ka
        if size == 1:
            for a in range(ka):
                cells[lo + a] = 0
            continue
        for a in range(ka):
            c = cells[lo + a]
            if c > 0:
                cells[lo + a] = 0
                if c != size:
                    h -= _term(c, size, nf, table, width)
    return first - h / math.log(2.0)


@njit(cache=True)
def _condition_cmi(sa, ka, sz, sy, ky, codes, kz, plan, cells, prepared, groups, grouping,
                   buffer, tally, table):  # fmt: skip
    """``I(A; Y | Z)`` in bits, Z given by its states (``kz`` of them), its codes and plan
    (:func:`_count_plan`): counted (:func:`_counted_cmi`) when its table fits ``cells``,
    else on the groups of Z, prepared here on first use (``prepared[0]``; ``groups`` their
    numbers; ``grouping`` the four arrays of :func:`_prepare_condition`, 4 n + 2 slots)."""
    if plan[0] >= 0 and ka <= cells.shape[0] // (kz * ky):
        return _counted_cmi(sa, ka, codes, ky, plan, cells, table)
    n = sa.shape[0]
    z_order = grouping[:n]
    z_starts = grouping[n : 2 * n + 1]
    yz_order = grouping[2 * n + 1 : 3 * n + 1]
    yz_starts = grouping[3 * n + 1 :]
    if not prepared[0]:
        _prepare_condition(sz, sy, ky, z_order, z_starts, yz_order, yz_starts, groups)
        prepared[0] = True
    return _cmi(
        sa, ka, z_order, z_starts, groups[0], yz_order, yz_starts, groups[1], buffer, tally, table
    )


@kernel("void(i8[::1, :], i8[::1], i8[::1], i8[::1], i8, f8[::1], f8[::1])", nogil=True)
def conditional_mi_given(states, n_states, sz, sy, ky, table, out):
    """``I(A; Y | Z)`` in bits for every column A of ``states`` (its number of states in
    ``n_states``), Z given by its states ``sz``, Y by ``sy`` (``ky`` states): the values of
    :func:`_cmi` with Z prepared, without preparing Z when the counts fit a small table
    (:func:`_counted_cmi`); into ``out``."""
    n, m = states.shape
    if m == 0:
        return
    kz = 0
    for i in range(n):
        kz = max(kz, sz[i] + 1)
    k_max = 1
    for j in range(m):
        k_max = max(k_max, n_states[j])
    codes = np.empty(n, dtype=np.int64)
    plan = np.empty(4 * n + 2, dtype=np.int64)
    _count_plan(sz, kz, sy, ky, codes, plan)
    cells = np.zeros(min(COUNTED_CELLS, kz * ky * k_max) if plan[0] >= 0 else 0, dtype=np.int64)
    grouping = np.empty(4 * n + 2, dtype=np.int64)
    groups = np.empty(2, dtype=np.int64)
    prepared = np.zeros(1, dtype=np.bool_)
    buffer = np.empty(n, dtype=np.int64)
    tally = np.zeros(min(k_max, DENSE_CELLS_PER_SAMPLE * n + 16), dtype=np.int64)
    for j in range(m):
        out[j] = _condition_cmi(
            states[:, j], n_states[j], sz, sy, ky, codes, kz, plan, cells, prepared, groups,
            grouping, buffer, tally, table,
        )  # fmt: skip


@kernel("i8(i8[::1, :], i8[::1], i8[::1], i8, f8[::1], f8, f8[::1], b1[::1])", nogil=True)
def flush_pool(states, n_states, sy, ky, su, beta2, table, chosen):
    """OSSFS-DD's ``flushDeterPool``: for each pooled feature i in order, the first later
    one j with ``su[i] + I(i; Y | j) > beta2`` (``2 * beta``); both are chosen. The pool's
    features are the columns of ``states`` (``n_states`` their numbers of states), each a
    condition as in :func:`conditional_mi_given` (``sy``, ``ky``: the labels' states and
    their number).

    Returns
    -------
    int
        The number of conditional informations computed.
    """
    n, m = states.shape
    codes = np.empty((m, n), dtype=np.int64).T  # Fortran order: columns contiguous
    plans = np.empty((m, 4 * n + 2), dtype=np.int64).T
    groupings = np.empty((m, 4 * n + 2), dtype=np.int64).T
    groups = np.empty((m, 2), dtype=np.int64)
    prepared = np.zeros((m, 1), dtype=np.bool_)
    k_max = 1
    for j in range(m):
        k_max = max(k_max, n_states[j])
    for j in range(1, m):  # the first is never a condition
        _count_plan(states[:, j], n_states[j], sy, ky, codes[:, j], plans[:, j])
    cells = np.zeros(COUNTED_CELLS, dtype=np.int64)
    buffer = np.empty(n, dtype=np.int64)
    tally = np.zeros(min(k_max, DENSE_CELLS_PER_SAMPLE * n + 16), dtype=np.int64)
    computed = 0
    for i in range(m):
        for j in range(i + 1, m):
            value = _condition_cmi(
                states[:, i], n_states[i], states[:, j], sy, ky, codes[:, j], n_states[j],
                plans[:, j], cells, prepared[j], groups[j], groupings[:, j], buffer, tally,
                table,
            )  # fmt: skip
            computed += 1
            if su[i] + value > beta2:
                chosen[i] = True
                chosen[j] = True
                break
    return computed


@kernel("void(f8[::1], i8, f8, f8, f8, f8, f8[::1], f8[::1], f8[::1])", nogil=True)
def running_statistics(su, t0, mean, std, k1, two, means, stds, alphas):
    """OSSFS-DD's ``updateMeanStd`` over a run of degrees, the t-th (t = t0 + 1, ... >= 3)
    with the code's operations: after each, its mean, std and
    ``alpha = mean + k1 * std`` into ``means``, ``stds``, ``alphas``. ``two`` is 2.0,
    passed in so that ``pow(x, two)`` stays the C library's call as in Octave and Python
    (a constant 2 would be compiled to ``x * x``, which differs in the last bit)."""
    for j in range(su.shape[0]):
        num = float(t0 + j + 1)
        value = su[j]
        sn = (1 / (num - 1)) * (
            (num - 2) * math.pow(std, two) + ((num - 1) / num) * math.pow(value - mean, two)
        )
        mean = mean + (value - mean) / num
        std = math.sqrt(sn)
        means[j] = mean
        stds[j] = std
        alphas[j] = mean + k1 * std
