"""One calling convention for the set-dependency kernels of the distance models.

The k-nearest and radius models of SFSF and OSFS-ET (:mod:`._roughset_kernels`) and the
neighbourhoods of OFS-A3M and OFS-Density (:mod:`._dependency_kernels`,
:mod:`._printed_kernels`) compute a set's dependency degree (Definition 1 / eq. 3 of each
paper) with the same three kernels: ``set_dependency`` (the set from a prefix's sums plus
some columns), ``set_dependency_sorted`` (S + one column from S's sorted rows) and
``set_dependency_without`` (R - f from R's running sums). A model describes a call by a
:class:`SetDependencyCall`; the functions below are the one place each kernel's arguments
are flattened.
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = [
    "SetDependencyCall",
    "set_dependency",
    "set_dependency_sorted",
    "set_dependency_without",
]


class SetDependencyCall(NamedTuple):
    """One call of a set-dependency kernel, its arguments by name and in groups.

    Attributes
    ----------
    columns : tuple
        How the set's squared distances are made. ``set_dependency`` and
        ``set_dependency_without``: (base, extra, extra_w), the sums over a prefix of S (n, n)
        plus the terms of the columns ``extra`` (e, n) with weights ``extra_w`` (e,), added in
        order. ``set_dependency_sorted``: (base, values, index, x, w), S's sums, S's rows
        sorted, and the new column with its weight.
    neighbourhood : tuple
        The labels and the rule: (y, rule) for OFS-A3M and OFS-Density, (y, rule, k, radius)
        for the k-nearest and radius models.
    floor : float
        Only whether the dependency reaches ``floor`` matters (``-inf``: compute it).
    outputs : tuple
        (rows, cards): the visiting order of the rows, kept between calls, and each card.
    running : tuple
        ``set_dependency_without`` only: (full, drop, drop_w, n_ops) for OFS-A3M and
        OFS-Density, (full, scale, drop, drop_w, n_ops) for the k-nearest and radius models:
        R's running sums, the bound on their partial sums, the member to leave out with its
        weight, and the additions and subtractions the sums carry.
    """

    columns: tuple
    neighbourhood: tuple
    floor: float
    outputs: tuple
    running: tuple = ()


def set_dependency(family, call: SetDependencyCall) -> float:
    """``family``'s ``set_dependency`` on ``call`` (the one place its arguments are
    flattened).

    Returns
    -------
    float
        The dependency, or a negative code when it cannot reach ``call.floor``.
    """
    return float(
        family.set_dependency(*call.columns, *call.neighbourhood, call.floor, *call.outputs)
    )


def set_dependency_sorted(family, call: SetDependencyCall) -> float:
    """``family``'s ``set_dependency_sorted`` on ``call`` (the one place its arguments are
    flattened).

    Returns
    -------
    float
        As :func:`set_dependency`.
    """
    return float(
        family.set_dependency_sorted(*call.columns, *call.neighbourhood, call.floor, *call.outputs)
    )


def set_dependency_without(family, call: SetDependencyCall) -> float:
    """``family``'s ``set_dependency_without`` on ``call`` (the one place its arguments are
    flattened).

    Returns
    -------
    float
        As :func:`set_dependency`.
    """
    return float(
        family.set_dependency_without(
            *call.running, *call.columns, *call.neighbourhood, call.floor, *call.outputs
        )
    )
