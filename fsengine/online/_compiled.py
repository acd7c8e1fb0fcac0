"""When the compiled (numba) kernels run, and when numpy does the same work.

Loading numba and the cached kernels takes about 0.6 s in a fresh process, longer than
the whole work on a small file. So a process starts with numpy implementations of the
same definitions (exact, the same numbers: the tests run both) and loads the kernels
once its numpy work passes :data:`NUMPY_BUDGET` elements, or at once for a piece of
work (or a run, :func:`plan`) larger than that; after that everything runs compiled. Which
one runs never
changes a result.
"""

from __future__ import annotations

import sys

#: Card functions the kernels compute (their codes), and no card.
CARD_IMBALANCED, CARD_CONSISTENCY, CARD_WEIGHT, NO_CARD = 0, 1, 2, -1
CARD_CODES = {"imbalanced": CARD_IMBALANCED, "consistency": CARD_CONSISTENCY, "weight": CARD_WEIGHT}
#: Elements of numpy work (about 0.2 s of it, at some 40 ns an element of an N x N
#: distance block) a process does before loading the kernels.
NUMPY_BUDGET = 5_000_000
_KERNEL_MODULES = (
    "fsengine.online._knn_kernels",
    "fsengine.online._set_kernels",
    "fsengine.online._column_kernels",
)
_numpy_work = 0
_forced: bool | None = None
_planned = False


def use_compiled(work: int) -> bool:
    """Whether a piece of work of about ``work`` elements should run compiled.

    True once the kernels are loaded, or when this work (or the numpy work done so far
    with it) is beyond the budget; False otherwise, and the work is counted.
    """
    global _numpy_work
    if _forced is not None:
        return _forced
    if _planned or any(name in sys.modules for name in _KERNEL_MODULES):
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
    """Always (True) or never (False) run compiled; None: the budget decides (tests)."""
    global _forced
    _forced = compiled
