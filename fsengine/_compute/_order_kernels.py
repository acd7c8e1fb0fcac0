"""Compiled (numba) kernels of :func:`fsengine._compute.sparse.stable_order`: the passes
over every value of a block of lines; numpy sorts each line's non-zero values between
them (its sorts are several times faster than numba's)."""

from __future__ import annotations

from fsengine._compute.jit import kernel
from fsengine._compute.line_orders import stable_line_order


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
    argsort of its non-zero values that need not be stable (:func:`stable_line_order`).

    Parameters
    ----------
    values, rows, counts : :func:`nonzero_lines`' arrays.
    by_value : (b, n) line r's first ``counts[r]``: an argsort of its non-zero values
        (reordered in place within runs of equal values).
    order : (b, n) written.
    """
    for r in range(order.shape[0]):
        stable_line_order(values[r], rows[r], by_value[r], counts[r], order[r])
