"""Compiled (numba) kernels of :func:`fsengine._compute.sparse.stable_order`: the passes
over every value of a block of lines; numpy sorts each line's non-zero values between
them (its sorts are several times faster than numba's)."""

from __future__ import annotations

import numpy as np

from fsengine._compute.jit import kernel


@kernel("void(f8[:, ::1], f8[:, ::1], i8[:, ::1], i8[::1])")
def nonzero_lines(lines, values, rows, counts):
    """Each line's non-zero values (neither 0.0 nor -0.0) and their positions, in order.

    Parameters
    ----------
    lines : (b, n) values.
    values, rows : (b, n) written: line r's ``counts[r]`` non-zero values and positions
        first.
    counts : (b,) written.
    """
    b, n = lines.shape
    for r in range(b):
        z = 0
        for i in range(n):  # without a branch: the zeros fall anywhere
            v = lines[r, i]
            values[r, z] = v
            rows[r, z] = i
            z += v != 0.0
        counts[r] = z


@kernel("void(f8[:, ::1], i8[:, ::1], i8[:, ::1], i8[::1], i8[:, ::1])")
def orders_from_argsort(values, rows, by_value, counts, order):
    """Each line's stable ascending order (``np.argsort(line, kind="stable")``) from an
    argsort of its non-zero values that need not be stable: each run of equal values is
    put back in position order, then come the negative values, the zeros in position
    order (the gaps between the non-zero values' positions) and the positive values.

    Parameters
    ----------
    values, rows, counts : :func:`nonzero_lines`' arrays.
    by_value : (b, n) line r's first ``counts[r]``: an argsort of its non-zero values
        (reordered in place within runs of equal values).
    order : (b, n) written.
    """
    b, n = order.shape
    for r in range(b):
        z = counts[r]
        line = values[r]
        by = by_value[r]
        q = 0
        while q < z:  # runs of ties: in position order, as a stable sort leaves them
            end = q + 1
            while end < z and line[by[end]] == line[by[q]]:
                end += 1
            if end - q > 16:
                by[q:end] = np.sort(by[q:end])
            else:  # a short run: insertion sort in place
                for k in range(q + 1, end):
                    held = by[k]
                    t = k - 1
                    while t >= q and by[t] > held:
                        by[t + 1] = by[t]
                        t -= 1
                    by[t + 1] = held
            q = end
        negative = 0
        while negative < z and line[by[negative]] < 0.0:
            negative += 1
        for q in range(negative):
            order[r, q] = rows[r, by[q]]
        at = negative
        previous = 0
        for q in range(z):  # the zeros: the gaps between the non-zero positions
            for i in range(previous, rows[r, q]):
                order[r, at] = i
                at += 1
            previous = rows[r, q] + 1
        for i in range(previous, n):
            order[r, at] = i
            at += 1
        for q in range(negative, z):
            order[r, at] = rows[r, by[q]]
            at += 1
