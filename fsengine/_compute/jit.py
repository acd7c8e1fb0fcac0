"""The decorator of a kernel's entry point: a numba function and the signatures it is built for.

Kernel modules (``fsengine/methods/online/_*_kernels.py``,
``fsengine/methods/rankers/_*_kernels.py``) write their entry points as::

    @kernel("void(f8[:, ::1], i8[::1])", nogil=True)
    def add_counts(block, out): ...

The function stays an ordinary numba function (``njit(cache=True)``), which the tests and
the just-in-time fallback call; its declared signatures are what
:mod:`fsengine._compute._build` compiles ahead of time and what
:func:`fsengine._compute.signatures.checked` admits on every call, in either mode. Helpers
that only other kernels call keep a plain ``@njit``. This module imports numba: only kernel
modules and the build import it.
"""

from __future__ import annotations

from numba import njit

#: The attribute of a kernel entry point that holds its declared signatures.
SIGNATURES_ATTRIBUTE = "kernel_signatures"


def kernel(*signatures: str, nogil: bool = False, error_model: str = "python"):
    """Declare a kernel entry point compiled for exactly ``signatures``.

    Parameters
    ----------
    *signatures : str
        numba signature strings (``"f8(f8[:, ::1], i8)"``), one per argument-type
        combination the callers pass; the first that matches a call is used.
    nogil : bool
        Run without the GIL (the kernels that :func:`fsengine._compute.parallel.run_chunks` runs on
        several threads). Ahead of time, every entry point releases the GIL.
    error_model : {"python", "numpy"}
        numba's error model: "numpy" divides by zero as IEEE does (inf, NaN) instead of
        raising; used ahead of time too.

    Returns
    -------
    callable
        A decorator that returns the numba dispatcher, with the signatures attached.
    """
    if not signatures:
        raise ValueError("a kernel declares at least one signature")

    def decorate(function):
        dispatcher = njit(cache=True, nogil=nogil, error_model=error_model)(function)
        setattr(dispatcher, SIGNATURES_ATTRIBUTE, tuple(signatures))
        function.kernel_error_model = error_model
        return dispatcher

    return decorate


def entry_points(module) -> dict:
    """The kernel entry points of a module: {name: (dispatcher, signatures)}, by name."""
    found = {}
    for name, value in vars(module).items():
        signatures = getattr(value, SIGNATURES_ATTRIBUTE, None)
        if signatures is not None and hasattr(value, "py_func"):
            found[name] = (value, signatures)
    return dict(sorted(found.items()))
