"""One API page per namespace, listing what its ``__all__`` holds.

When the configuration is read (before Sphinx lists its sources and autosummary looks
for its directives), ``api/<namespace>.rst`` is written for each
namespace of :data:`NAMESPACES`: the module's docstring, then its functions and its
classes, each on a page of its own that autosummary generates from the docstring. The
lists are read from ``__all__`` at every build, so a new public name gets its page.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import shutil
from pathlib import Path

#: (module, what its page is for), in the order of the API reference's index.
NAMESPACES = (
    ("fsengine", "the face: read, Task, select, evaluate, sweep, the selectors"),
    ("fsengine.tl", "tools on AnnData objects, in scanpy's manner"),
    ("fsengine.get", "getters of what fs.tl wrote"),
    ("fsengine.pl", "plots of what fs.tl wrote"),
    ("fsengine.data", "data sets and tasks"),
    ("fsengine.io", "the readers of every file format"),
    ("fsengine.adata", "selections on AnnData objects and h5ad files"),
    ("fsengine.methods", "the registry of methods and their runs"),
    ("fsengine.sklearn", "scikit-learn selectors"),
    ("fsengine.methods.online", "the online streaming selectors and their interface"),
    ("fsengine.methods.rankers", "the filter rankers"),
    ("fsengine.evaluation", "the K-OFSD paper's evaluation protocol"),
    ("fsengine.export.writers", "the files the command line and the dashboard write"),
    ("fsengine.checks", "the contract, for a selector of your own"),
    ("fsengine.config", "process-wide settings"),
    ("fsengine.errors", "the one error type"),
)


@functools.cache
def _homes() -> dict[int, tuple[str, str]]:
    """``id`` of every public object -> (the most specific namespace exporting it, its name
    there), read once per build."""
    found: dict[int, tuple[str, str]] = {}
    for name, _ in sorted(NAMESPACES, key=lambda pair: len(pair[0])):  # specific ones last
        module = importlib.import_module(name)
        for exported in module.__all__:
            found[id(getattr(module, exported))] = (name, exported)
    return found


def home(obj, modname: str) -> tuple[str, str]:
    """The namespace whose page documents ``obj`` (the most specific one exporting it) and
    the name it has there."""
    return _homes().get(id(obj), (modname, obj.__name__))


def page(modname: str) -> str:
    """The reStructuredText of one namespace's page: its own functions and classes, each
    with a page, then the names it re-exports from a more specific namespace, linked."""
    module = importlib.import_module(modname)
    functions, classes, elsewhere = [], [], []
    for name in module.__all__:
        obj = getattr(module, name)
        if inspect.ismodule(obj) or not callable(obj):
            continue
        namespace, exported = home(obj, modname)
        if namespace != modname:
            elsewhere.append(f"{namespace}.{exported}".removeprefix(f"{modname}."))
        else:
            (classes if inspect.isclass(obj) else functions).append(name)
    lines = [modname, "=" * len(modname), "", f".. automodule:: {modname}", ""]
    for title, names, options in (
        ("Functions", functions, ["   :toctree: generated"]),
        ("Classes", classes, ["   :toctree: generated", "   :template: class.rst"]),
        ("Also here, documented in their namespace", elsewhere, []),
    ):
        if names:
            lines += [f".. rubric:: {title}", "", ".. autosummary::", *options, ""]
            lines += [*(f"   {name}" for name in names), ""]
    return "\n".join(lines)


def write_pages(app, config) -> None:
    """Write ``api/<namespace>.rst`` for every namespace (only when it changed) and clear
    the pages autosummary generated last time and those of namespaces no longer listed,
    so that a name no longer public leaves no page behind (a page outside the index is a
    warning, and warnings are errors). Runs when the configuration is read, before Sphinx
    lists the sources."""
    folder = Path(app.srcdir) / "api"
    shutil.rmtree(folder / "generated", ignore_errors=True)
    listed = {f"{modname}.rst" for modname, _ in NAMESPACES}
    for stale in folder.glob("fsengine*.rst"):
        if stale.name not in listed:
            stale.unlink()
    for modname, _ in NAMESPACES:
        path = folder / f"{modname}.rst"
        text = page(modname)
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")


def setup(app):
    app.connect("config-inited", write_pages)
    return {"parallel_read_safe": True, "version": "1"}
