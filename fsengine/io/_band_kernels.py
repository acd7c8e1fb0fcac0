"""Compiled (numba) kernel of a first pass over a CSR matrix on disk, a band of rows at a
time (:meth:`fsengine.io.backed.BackedColumns.profile`)."""

from __future__ import annotations

import math

from fsengine._compute.jit import kernel


@kernel(
    "b1(f8[::1], i4[::1], i8[::1], f8[::1], f8[::1], i8[::1], i8[::1], f8[::1], b1[::1], f8[::1])",
    "b1(f8[::1], i8[::1], i8[::1], f8[::1], f8[::1], i8[::1], i8[::1], f8[::1], b1[::1], f8[::1])",
)
def band_profile(data, indices, pointers, low, high, stored, nonzero, positive, integer, totals):
    """One band of rows of a CSR matrix added to each column's smallest and largest stored
    value, count of stored values and of non-zero values, smallest value above 0 and
    whether its values are integers, and each row's total, added in column order (the
    bits of the column-by-column pass).

    Parameters
    ----------
    data, indices, pointers : the band's CSR arrays (pointers from 0).
    low, high, stored, nonzero, positive, integer : (p,) updated in place.
    totals : (rows of the band,) written.

    Returns
    -------
    bool
        Whether every value was finite and every row's columns strictly ascending and in
        range (else the caller reads the matrix by columns, which names a bad value, sums
        duplicates and sorts: what was added is not valid).
    """
    width = low.shape[0]
    for r in range(pointers.shape[0] - 1):
        total = 0.0
        last = -1
        for q in range(pointers[r], pointers[r + 1]):
            c = indices[q]
            v = data[q]
            if c <= last or c >= width or not math.isfinite(v):
                return False
            last = c
            stored[c] += 1
            low[c] = min(low[c], v)
            high[c] = max(high[c], v)
            if v != 0.0:
                nonzero[c] += 1
            if v > 0.0:
                positive[c] = min(positive[c], v)
            if v != math.floor(v):
                integer[c] = False
            total += v
        totals[r] = total
    return True
