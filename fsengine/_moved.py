"""The modules that moved into packages by concern (0.2), still importable from their old
paths for one release with a :class:`DeprecationWarning` (removed in 0.3).

``import fsengine.statistics`` gives the module :mod:`fsengine.evaluation.statistics` itself
(not a copy), so attributes set on either are the same; the warning names the new path.
A finder on ``sys.meta_path`` answers only for the names of :data:`MOVED`. The modules
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


class _MovedLoader(importlib.abc.Loader):
    """Loads an old path as the module at its new one, with the warning."""

    def create_module(self, spec):
        new = MOVED[spec.name]
        warnings.warn(
            f"{spec.name} is {new} since fsengine 0.2; the old path goes in 0.3",
            DeprecationWarning,
            stacklevel=2,  # the importer: warnings skips the import machinery's frames
        )
        return importlib.import_module(new)

    def exec_module(self, module) -> None:
        """Nothing to run: the module is the new one, already imported."""


class _MovedFinder(importlib.abc.MetaPathFinder):
    """Finds the old paths of :data:`MOVED` (and nothing else)."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname not in MOVED:
            return None
        return importlib.util.spec_from_loader(fullname, _MovedLoader())


def install() -> None:
    """Put the finder on ``sys.meta_path`` once (``import fsengine`` calls it)."""
    if not any(isinstance(finder, _MovedFinder) for finder in sys.meta_path):
        sys.meta_path.append(_MovedFinder())
