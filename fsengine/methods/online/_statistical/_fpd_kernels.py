"""Compiled (numba) kernel of OFS-FPD's ranking step: fuzzy Pareto dominance scores.

The same arithmetic as :func:`fsengine.methods.online._statistical.ofsfpd.dominance_scores`
(objectives clipped at 0, a factor of 1 where ``u <= v + tolerance`` else ``v / u``, factors
multiplied in objective order, the largest degree over the other rows), without
numpy's per-call overhead on matrices of a dozen rows.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from fsengine._compute.jit import kernel


@kernel("f8[::1](f8[:, ::1], f8)")
def dominance_scores(objectives, tolerance):
    """Each row's largest degree of being dominated by another row (0 for a single row).

    Parameters
    ----------
    objectives : float64 array (m, n_objectives)
    tolerance : float
        Objectives within this are equal.

    Returns
    -------
    float64 array (m,)
    """
    m, k = objectives.shape
    clipped = np.empty((m, k))
    for a in range(m):
        for i in range(k):
            clipped[a, i] = max(objectives[a, i], 0.0)
    scores = np.zeros(m)
    for b in range(m):
        best = 0.0
        for a in range(m):
            if a == b:
                continue
            degree = 1.0
            for i in range(k):
                u = clipped[a, i]
                v = clipped[b, i]
                factor = 1.0 if u <= v + tolerance else v / u
                degree = factor if i == 0 else degree * factor
            if degree > best:
                best = degree
        scores[b] = best
    return scores


@njit(cache=True)
def _capacity(t):
    """``max(1, ceil(log2 t))`` for t >= 1 (as ``ofsfpd.capacity``)."""
    c = 0
    v = t - 1
    while v > 0:
        c += 1
        v >>= 1
    return max(1, c)


@njit(cache=True)
def _enter(members, m, unit, e2, e3, position):
    """A relevant feature (Algorithm 1, line 4: the caller's test) enters S as its member
    ``m`` (line 5): its |corr| with each member, its unit column, its objectives E2, E3 and
    its arrival position. ``members``: (mem_units, mem_abs, mem_e2, mem_e3, mem_pos), as
    :func:`stream_block`."""
    mem_units, mem_abs, mem_e2, mem_e3, mem_pos = members
    for a in range(m):
        c = abs(np.dot(unit, mem_units[a]))
        mem_abs[m, a] = c
        mem_abs[a, m] = c
    mem_abs[m, m] = np.inf
    mem_units[m, :] = unit
    mem_e2[m] = e2
    mem_e3[m] = e3
    mem_pos[m] = position


@njit(cache=True)
def _rank(members, m, tolerance, objectives, scores, keys, order):
    """The ``m`` members of S ranked by dominance (Algorithm 1, lines 8-14; eqs. 3-4): each one's
    objectives (E1 = its smallest |corr| with another member, capped at 1; E2; E3), its
    dominance score (``scores``), and ``order`` by (score within ``tolerance``, arrival)."""
    _, mem_abs, mem_e2, mem_e3, mem_pos = members
    for a in range(m):
        e1 = 0.0
        if m > 1:
            e1 = np.inf
            for c in range(m):
                if mem_abs[a, c] < e1:
                    e1 = mem_abs[a, c]
        objectives[a, 0] = min(e1, 1.0)
        objectives[a, 1] = mem_e2[a]
        objectives[a, 2] = mem_e3[a]
    sc = dominance_scores(objectives[:m], tolerance)
    for a in range(m):
        scores[a] = sc[a]
        keys[a] = np.rint(sc[a] / tolerance)
        order[a] = a
    for a in range(1, m):  # by (key, arrival), insertion sort
        cur = order[a]
        c = a - 1
        while c >= 0 and (
            keys[order[c]] > keys[cur]
            or (keys[order[c]] == keys[cur] and mem_pos[order[c]] > mem_pos[cur])
        ):
            order[c + 1] = order[c]
            c -= 1
        order[c + 1] = cur


@njit(cache=True)
def _keep_first(members, order, cap):
    """S keeps its first ``cap`` members in ranking ``order`` (Algorithm 1, line 16), in
    that order."""
    mem_units, mem_abs, mem_e2, mem_e3, mem_pos = members
    n = mem_units.shape[1]
    new_abs = np.empty((cap, cap))
    for r in range(cap):
        for c in range(cap):
            new_abs[r, c] = mem_abs[order[r], order[c]]
    new_units = np.empty((cap, n))
    new_e2 = np.empty(cap)
    new_e3 = np.empty(cap)
    new_pos = np.empty(cap, np.int64)
    for r in range(cap):
        new_units[r] = mem_units[order[r]]
        new_e2[r] = mem_e2[order[r]]
        new_e3[r] = mem_e3[order[r]]
        new_pos[r] = mem_pos[order[r]]
    mem_abs[:cap, :cap] = new_abs
    mem_units[:cap] = new_units
    mem_e2[:cap] = new_e2
    mem_e3[:cap] = new_e3
    mem_pos[:cap] = new_pos


@kernel(
    (
        "void(f8[:, ::1], f8[::1], f8[::1], b1[::1], i8, f8, f8[:, ::1], f8[:, ::1], f8[::1], "
        "f8[::1], i8[::1], i8[::1], i8[:, ::1], i8[::1], f8[:, ::1], i8[:, ::1], i8[::1])"
    ),
)
def stream_block(
    units,
    e2_new,
    e3_new,
    relevant,
    first_position,
    tolerance,
    mem_units,
    mem_abs,
    mem_e2,
    mem_e3,
    mem_pos,
    state,
    out_dropped,
    out_n_dropped,
    out_dominance,
    out_members,
    out_n_members,
):
    """OFS-FPD's decisions (Algorithm 1) for a block of arriving features, in order.

    Parameters
    ----------
    units : float64 array (b, n)
        The block's unit centred columns, one per row.
    e2_new, e3_new : float64 arrays (b,)
        Their objectives E2 = 1 - relevance and E3 = 1 - cosine relevance.
    relevant : bool array (b,)
        Whether each enters S.
    first_position : int
        Arrival position (0-based) of the block's first feature.
    tolerance : float
        Objectives and scores within this are equal.
    mem_units, mem_abs, mem_e2, mem_e3, mem_pos : arrays
        The members of S (capacity rows): unit columns, |corr| between them (diagonal
        inf), objectives, arrival positions; updated in place. ``state[0]`` is |S|.
    out_dropped, out_dominance, out_members : arrays (b, capacity)
        Per feature: arrival positions of the members dropped at that step, the
        dominance scores of the kept ones (in kept order), the members after the step.
    out_n_dropped, out_n_members : int arrays (b,)
        How many of each (no ranking: out_n_dropped = -1).
    """
    b = units.shape[0]
    m = state[0]
    scores = np.empty(mem_pos.shape[0])
    keys = np.empty(mem_pos.shape[0])
    order = np.empty(mem_pos.shape[0], np.int64)
    objectives = np.empty((mem_pos.shape[0], 3))
    members = (mem_units, mem_abs, mem_e2, mem_e3, mem_pos)
    for j in range(b):
        position = first_position + j
        cap = _capacity(position + 1)
        out_n_dropped[j] = -1
        if relevant[j]:
            _enter(members, m, units[j], e2_new[j], e3_new[j], position)
            m += 1
        if m > cap:
            _rank(members, m, tolerance, objectives, scores, keys, order)
            for r in range(m - cap):
                out_dropped[j, r] = mem_pos[order[cap + r]]
            out_n_dropped[j] = m - cap
            for r in range(cap):
                out_dominance[j, r] = scores[order[r]]
            _keep_first(members, order, cap)
            m = cap
        for r in range(m):
            out_members[j, r] = mem_pos[r]
        out_n_members[j] = m
    state[0] = m
