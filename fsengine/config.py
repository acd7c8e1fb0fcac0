"""fsengine's process-wide settings, in one place (as scikit-learn's ``set_config``).

``kernel_threads``
    Threads a compiled kernel may use within one run: None (the default) for every core
    the process may run on, 1 for none. Worker processes (``evaluate``'s splits, a study's
    Dask tasks) set 1, as their processes already fill the cores.
``compiled``
    Where the neighbour, mutual-information and ReliefF work runs: True in the compiled
    kernels, False in numpy (the same definitions, the same numbers), None (the default)
    as :mod:`fsengine._compute.budget` decides (the kernels once built; numpy for a small
    first stretch while they would have to be compiled).

Neither setting changes a result. The caches of the process (the kernel thread pool,
the loaded kernel families, the worker processes started ahead) are not settings.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from fsengine.errors import FSEngineError, is_integer_in

__all__ = ["config_context", "get_config", "set_config"]

_settings: dict = {"kernel_threads": None, "compiled": None}


class _Unchanged:
    """The default of :func:`set_config`'s keywords: the setting is left as it is."""

    def __repr__(self) -> str:
        return "unchanged"


_UNCHANGED = _Unchanged()


def get_config() -> dict:
    """The current settings.

    Returns
    -------
    dict
        A copy: ``{"kernel_threads": ..., "compiled": ...}`` (:func:`set_config`).
    """
    return dict(_settings)


def set_config(*, kernel_threads=_UNCHANGED, compiled=_UNCHANGED) -> None:
    """Change settings for the rest of the process (those not given stay).

    Parameters
    ----------
    kernel_threads : int or None, optional
        Threads of a compiled kernel within one run (None: every available core).
    compiled : bool or None, optional
        True: always the compiled kernels; False: always numpy; None: the budget decides.

    Raises
    ------
    FSEngineError
        If a value is not of the kind above.
    """
    if kernel_threads is not _UNCHANGED:
        if kernel_threads is not None and not is_integer_in(kernel_threads, 1):
            raise FSEngineError(
                f"kernel_threads must be a positive integer or None, got {kernel_threads!r}"
            )
        _settings["kernel_threads"] = None if kernel_threads is None else int(kernel_threads)
    if compiled is not _UNCHANGED:
        if compiled not in (True, False, None):
            raise FSEngineError(f"compiled must be True, False or None, got {compiled!r}")
        _settings["compiled"] = compiled


@contextmanager
def config_context(**settings) -> Iterator[None]:
    """Settings for the duration of a ``with`` block, the previous ones restored on exit,
    also after an error.

    Parameters
    ----------
    **settings
        :func:`set_config`'s keywords.

    Yields
    ------
    None
    """
    before = get_config()
    set_config(**settings)
    try:
        yield
    finally:
        set_config(**before)
