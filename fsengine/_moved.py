"""The modules that moved into packages by concern (0.2), still importable from their old
paths for one release with a :class:`DeprecationWarning` (removed in 0.3).

Two packages moved whole, with every module in them: ``fsengine.online`` is
:mod:`fsengine.methods.online` and ``fsengine.rankers`` is :mod:`fsengine.methods.rankers`
(:data:`MOVED_PACKAGES`, which also names where each selector family went, for the selector
states that workspaces stored under the old names: :func:`new_name`).

``import fsengine.statistics`` gives the module :mod:`fsengine.evaluation.statistics` itself
(not a copy), so attributes set on either are the same; the warning names the new path.
A finder, first on ``sys.meta_path``, answers only for the names of :data:`MOVED` and those
under :data:`MOVED_PACKAGES`; a module keeps its own ``__spec__`` (its path now). Only
dotted imports reach a private module under an old package path
(``import fsengine.online._kofsd.selector``); ``from fsengine.online import _kofsd``
does not. The modules
that became packages (``fsengine.data``, ``fsengine.methods``, ``fsengine.export``) keep
their public names in the package.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import warnings

#: Old module path -> the module it is now.
MOVED = {
    "fsengine.stability": "fsengine.evaluation.stability",
    "fsengine.statistics": "fsengine.evaluation.statistics",
    "fsengine.study": "fsengine.evaluation.study",
    "fsengine.benchmark": "fsengine.evaluation.benchmark",
    "fsengine.genes": "fsengine.evaluation.genes",
    "fsengine.report": "fsengine.export.report",
    "fsengine.spreadsheet": "fsengine.export.spreadsheet",
    "fsengine.codec": "fsengine.export.codec",
    "fsengine.labels": "fsengine.data.labels",
    "fsengine.task": "fsengine.data.task",
    "fsengine.preprocess": "fsengine.data.preprocess",
    "fsengine.runs": "fsengine.methods.runs",
    "fsengine.estimates": "fsengine.methods.estimates",
    "fsengine.live": "fsengine.methods.live",
    "fsengine.parallel": "fsengine._compute.parallel",
    "fsengine.cluster": "fsengine._compute.cluster",
    "fsengine.discretise": "fsengine._compute.discretise",
    "fsengine.progress": "fsengine._compute.progress",
    "fsengine.figures": "fsengine.pl.figures",
    "fsengine.gene_figures": "fsengine.pl.gene_figures",
}

#: Old package path -> its path now, the most specific first (a family's modules went into
#: the folder of what its selectors decide on).
MOVED_PACKAGES = (
    (
        "fsengine.online._zhou._zhou_kernels",
        "fsengine.methods.online._roughset._dependency_kernels",
    ),
    ("fsengine.online._zhou", "fsengine.methods.online._roughset"),
    ("fsengine.online._kofsd", "fsengine.methods.online._roughset.kofsd"),
    ("fsengine.online._ofsfpd.selector", "fsengine.methods.online._statistical.ofsfpd"),
    ("fsengine.online._ofsfpd", "fsengine.methods.online._statistical"),
    ("fsengine.online._lofs", "fsengine.methods.online._statistical"),
    ("fsengine.online._cieosfs.selector", "fsengine.methods.online._information.cieosfs"),
    ("fsengine.online._cieosfs", "fsengine.methods.online._information"),
    ("fsengine.online._infotheo", "fsengine.methods.online._information"),
    ("fsengine.online._grafting.selector", "fsengine.methods.online._embedded.grafting"),
    ("fsengine.online._grafting", "fsengine.methods.online._embedded"),
    ("fsengine.online", "fsengine.methods.online"),
    ("fsengine.rankers", "fsengine.methods.rankers"),
)

#: The prefixes of every old path (what the finder answers for).
_MOVED_PREFIXES = tuple(MOVED) + tuple(old for old, _ in MOVED_PACKAGES)


def new_name(name: str) -> str | None:
    """The module path now of the old path ``name`` (a module of :data:`MOVED` or in a
    package of :data:`MOVED_PACKAGES`), or None for a path that did not move.

    Parameters
    ----------
    name : str
        A dotted module path (``fsengine.online._kofsd.selector``).

    Returns
    -------
    str or None
        Its path now (``fsengine.methods.online._roughset.kofsd.selector``).
    """
    if name in MOVED:
        return MOVED[name]
    for old, new in MOVED_PACKAGES:
        if name == old or name.startswith(old + "."):
            return new + name[len(old) :]
    return None


class _MovedLoader(importlib.abc.Loader):
    """Loads an old path as the module at its new one, with the warning."""

    def create_module(self, spec):
        new = new_name(spec.name)
        warnings.warn(
            f"{spec.name} is {new} since fsengine 0.2; the old path goes in 0.3",
            DeprecationWarning,
            stacklevel=2,  # the importer: warnings skips the import machinery's frames
        )
        module = importlib.import_module(new)
        self._own_spec = module.__spec__
        return module

    def exec_module(self, module) -> None:
        """Nothing to run: the module is the new one, already imported. The import machinery
        has just given it the old name's spec: it gets its own back."""
        module.__spec__ = self._own_spec


class _MovedFinder(importlib.abc.MetaPathFinder):
    """Finds the old paths of :data:`MOVED` and :data:`MOVED_PACKAGES` (and nothing else).
    It comes first on ``sys.meta_path``: otherwise a module under an old package path would
    be found again by the path finder, through the package's new folder, as a second copy."""

    def find_spec(self, fullname, path=None, target=None):
        # every import asks: a name outside the moved paths is refused by one prefix test
        if not fullname.startswith(_MOVED_PREFIXES) or new_name(fullname) is None:
            return None
        return importlib.util.spec_from_loader(fullname, _MovedLoader())


def install() -> None:
    """Put the finder first on ``sys.meta_path``, once (``import fsengine`` calls it)."""
    if not any(isinstance(finder, _MovedFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, _MovedFinder())
