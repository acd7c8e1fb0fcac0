"""Running methods: the registry of every online selector and ranker, and their runs.

- :mod:`~fsengine.methods.registry`: :class:`Method` (one protocol that runs any method,
  from its specification) and the registry, :data:`METHODS`, :func:`get_method`;
- :mod:`~fsengine.methods.runs`: :func:`run_selection`, a selection with its run record,
  as the command line and the dashboard run it;
- :mod:`~fsengine.methods.estimates`: how long a run will take, said before it starts;
- :mod:`~fsengine.methods.live`: a stream advanced a little at a time (the dashboard's
  animation).

Runs compute on this machine's processes, and a run can be cancelled from another
thread: :class:`Cancellation`, :class:`RunCancelled`, :func:`cancellable`,
:func:`available_cores`, :func:`warm_up` (the worker processes started ahead) and
:func:`import_in_background`, for the front ends.

The package is also callable: ``fs.methods()`` is :func:`list_methods`, the table of every
registered method (``fsengine methods``).

The methods themselves are the subpackages :mod:`fsengine.methods.online` (the streaming
selectors, in families by what they decide on) and :mod:`fsengine.methods.rankers` (the
filter rankers).
"""

import copyreg as _copyreg
import sys as _sys
from importlib import import_module as _import_module
from types import ModuleType as _ModuleType

from fsengine._compute.parallel import (
    Cancellation,
    RunCancelled,
    available_cores,
    cancellable,
    import_in_background,
    warm_up,
)
from fsengine.methods.registry import (
    METHOD_LABELS,
    METHODS,
    ONLINE_METHODS,
    ONLINE_SELECTORS,
    RANKER_METHODS,
    REGISTRY,
    Method,
    RunResult,
    get_method,
    list_methods,
    method_descriptions,
)
from fsengine.methods.runs import run_selection

__all__ = [
    "Cancellation",
    "RunCancelled",
    "available_cores",
    "cancellable",
    "import_in_background",
    "warm_up",
    "METHOD_LABELS",
    "METHODS",
    "ONLINE_METHODS",
    "ONLINE_SELECTORS",
    "RANKER_METHODS",
    "REGISTRY",
    "Method",
    "RunResult",
    "get_method",
    "list_methods",
    "method_descriptions",
    "run_selection",
]


class _CallablePackage(_ModuleType):
    """This package's module type: a module that ``fs.methods()`` calls for the table of
    methods, while ``fs.methods.online`` and ``import fsengine.methods`` stay the package."""

    def __call__(self):
        """Every registered method, one row each: :func:`list_methods`."""
        return list_methods()


def _imported_again(package: _CallablePackage):
    """Pickle the package by its name, as pickle and cloudpickle do a plain module (a
    function sent to Dask or loky workers may refer to it)."""
    return _import_module, (package.__name__,)


_copyreg.pickle(_CallablePackage, _imported_again)
_sys.modules[__name__].__class__ = _CallablePackage
