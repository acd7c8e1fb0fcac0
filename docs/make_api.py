"""Write docs/API.md, the reference of the library's public face, from its docstrings.

The face is what ``import fsengine as fs`` gives (``fs.__all__``), the scanpy-style
modules ``fs.tl``, ``fs.get`` and ``fs.pl``, the scikit-learn selectors and the shipped
contract (``fsengine.testing``). Each entry is the object's signature and its docstring,
its numpydoc sections turned into Markdown. A test (tests/unit/test_docs_examples.py)
checks that docs/API.md is what this script writes.

Run from the repository root:

    .venv/bin/python docs/make_api.py > docs/API.md
"""

from __future__ import annotations

import inspect
import re
import sys

import fsengine as fs
from fsengine.online import SELECTORS

#: (title, module path as users write it, names), in the order the reference lists them.
SECTIONS = (
    ("Data and tasks", "fs", ("read", "Task", "Dataset")),
    ("Selecting", "fs", ("select", "list_methods", "get_method", "run_selection", "run_kofsd")),
    ("Evaluating", "fs", ("evaluate", "sweep")),
    ("On AnnData objects: tools", "fs.tl", None),
    ("On AnnData objects: getters", "fs.get", None),
    ("On AnnData objects: plots", "fs.pl", None),
    ("scikit-learn selectors", "fs", ("KOFSDSelector", "OnlineSelector", "RankerSelector")),
    ("Online selectors", "fs", None),
    ("Writing a selector of your own", "fsengine.testing", ("check_selector", "selector_checks")),
    ("Settings and errors", "fs", ("set_config", "get_config", "config_context", "FSEngineError")),
)


def _module(path: str):
    if path == "fs":
        return fs
    if path.startswith("fs."):
        return getattr(fs, path[3:])
    __import__(path)
    return sys.modules[path]


def _names(path: str, names) -> list[str]:
    module = _module(path)
    if names is not None:
        return list(names)
    if module is fs:  # the online selectors, in the order the front ends list them
        return [cls.__name__ for cls in SELECTORS]
    return list(module.__all__)


def _markdown(doc: str) -> str:
    """A numpydoc docstring in Markdown: section titles in bold, parameters as a list."""
    lines = doc.splitlines()
    out, section = [], None
    i = 0
    while i < len(lines):
        line = lines[i]
        underline = i + 1 < len(lines) and re.fullmatch(r"-{3,}", lines[i + 1].strip())
        if line.strip() and underline:
            section = line.strip()
            out += ["", f"**{section}**", ""]
            i += 2
            continue
        listed = section in ("Parameters", "Returns", "Yields", "Raises", "Attributes")
        if listed and line and not line.startswith(" "):
            name, _, kind = line.partition(" : ")
            out.append(f"- `{name.strip()}`" + (f" ({kind.strip()})" if kind else ""))
        elif listed and line.startswith("    "):
            out.append("  " + line.strip())
        else:
            out.append(line)
        i += 1
    return "\n".join(out).strip()


def _signature(obj) -> str:
    """``obj``'s signature, its annotations evaluated where they can be (``Dataset``
    rather than ``'Dataset'``)."""
    try:
        return str(inspect.signature(obj, eval_str=True))
    except (NameError, TypeError, ValueError, AttributeError, SyntaxError):
        try:
            return str(inspect.signature(obj))
        except (TypeError, ValueError):
            return "(...)"


def _entry(path: str, name: str) -> str:
    obj = getattr(_module(path), name)
    shown = f"{path}.{name}"
    if inspect.isclass(obj):
        signature = "" if issubclass(obj, BaseException) else _signature(obj)
        head = f"### class `{shown}{signature}`"
    else:
        head = f"### `{shown}{_signature(obj)}`"
    return f"{head}\n\n{_markdown(inspect.getdoc(obj) or '')}\n"


def api_markdown() -> str:
    """docs/API.md's text: every section of :data:`SECTIONS`, each entry's signature and
    docstring."""
    parts = [
        "# API reference",
        "",
        "The library's public face, written from its docstrings by `docs/make_api.py`",
        "(`.venv/bin/python docs/make_api.py > docs/API.md`; a test checks it is current).",
        "`import fsengine as fs`; the command line is `python -m fsengine --help`, the",
        "methods' parameters are in [METHODS.md](METHODS.md).",
        "",
    ]
    for title, path, names in SECTIONS:
        parts += [f"## {title}", ""]
        for name in _names(path, names):
            parts.append(_entry(path, name))
    return "\n".join(parts).rstrip("\n") + "\n"


if __name__ == "__main__":
    sys.stdout.write(api_markdown())
