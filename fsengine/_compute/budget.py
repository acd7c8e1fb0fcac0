"""When the compiled kernels run, and when numpy does the same work.

Kernels built ahead of time (:mod:`fsengine._compute.kernels`) load in about a millisecond,
so they run for any work once built. Without a build (just-in-time mode, or before the
first build) loading numba and its cached kernels takes about 0.6 s in a fresh process,
longer than the whole work on a small file: a process then starts with numpy
implementations of the same definitions (exact, the same numbers: the tests run both) and
turns to the kernels once its numpy work passes :data:`NUMPY_BUDGET` elements, or at once
for a piece of work (or a run, :func:`plan`) larger than that. Which one runs never changes
a result.
"""

from __future__ import annotations

from fsengine._compute import kernels
from fsengine.config import get_config, set_config

#: Elements of numpy work (about 0.2 s of it, at some 40 ns an element of an N x N
#: distance block) a process does before loading just-in-time kernels.
NUMPY_BUDGET = 5_000_000
_numpy_work = 0
_planned = False


def use_compiled(work: int, family: str) -> bool:
    """Whether a piece of work of about ``work`` elements should run compiled.

    Parameters
    ----------
    work : int
        Elements the work touches (an N x N block: N * N).
    family : str
        The kernel family it would use (``methods.online._roughset.kofsd._knn_kernels``).

    Returns
    -------
    bool
        The setting ``compiled`` of :mod:`fsengine.config` when it is True or False; else
        True when the family loads at once (built ahead of time, or already loaded), when
        a run announced more than the budget, or when this work (with the numpy work done
        so far) is beyond it; False otherwise, and the work is counted.
    """
    global _numpy_work
    forced = get_config()["compiled"]
    if forced is not None:
        return forced
    if _planned or kernels.ready(family):
        return True
    if _numpy_work + work > NUMPY_BUDGET:
        return True
    _numpy_work += work
    return False


def plan(work: int) -> None:
    """A run announces its whole work (elements): beyond the budget, the kernels are used
    from its first step instead of after a first stretch in numpy."""
    global _planned
    if work > NUMPY_BUDGET:
        _planned = True


def force(compiled: bool | None) -> None:
    """Always (True) or never (False) run compiled; None: the budget decides (the setting
    ``compiled`` of :func:`fsengine.config.set_config`)."""
    set_config(compiled=compiled)
