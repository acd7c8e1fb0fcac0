"""Dependencies run one way: base -> core (io, data, methods) -> runs and evaluation ->
front ends (export, cli). Checked on every module's top-level imports."""

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "fsengine"

#: Layer of each module (the first pattern that matches its dotted name).
LAYERS = [
    (0, r"fsengine\.(errors|spec|labels|discretise|progress|figures|parallel|statistics)$"),
    (0, r"fsengine\._compute(\..*)?$"),  # compiled kernels: built, loaded, when they run
    (1, r"fsengine\.(io(\..*)?|data)$"),
    (1, r"fsengine\.online(\._(?!sklearn).*)?$"),
    (1, r"fsengine\.rankers(\._(?!selector).*)?$"),
    (2, r"fsengine\.methods$"),
    (3, r"fsengine\.(runs|evaluation|stability|live|online\._sklearn|rankers\._selector)$"),
    (3, r"fsengine\.(study|benchmark)$"),  # benchmark studies: over data and evaluation
    (3, r"fsengine\.(genes|gene_figures)$"),  # the Genes view: over data and evaluation
    (4, r"fsengine\.(export|report|cli|__main__)$"),
    (4, r"fsengine$"),
]


def _layer(module: str) -> int:
    for layer, pattern in LAYERS:
        if re.match(pattern, module):
            return layer
    raise AssertionError(f"{module} has no layer: add it to LAYERS")


def _modules():
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        yield name, path


def _top_level_imports(path: Path) -> set[str]:
    found = set()
    for node in ast.parse(path.read_text()).body:  # module level only
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("fsengine"):
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                found.add(full if any(full == m for m, _ in _modules()) else node.module)
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("fsengine")}
    return found


@pytest.mark.parametrize("module,path", list(_modules()), ids=lambda v: str(v))
def test_imports_go_down_the_layers(module, path):
    mine = _layer(module)
    for imported in _top_level_imports(path):
        if (
            imported.startswith(module + ".")
            or module.startswith(imported + ".")
            and imported != "fsengine"
        ):
            continue  # a package and its parts
        assert _layer(imported) <= mine, (
            f"{module} (layer {mine}) imports {imported} (layer {_layer(imported)})"
        )


def test_the_library_never_imports_streamlit_nor_names_cli_flags_in_messages():
    for module, path in _modules():
        text = path.read_text()
        assert "import streamlit" not in text, module
        if module in ("fsengine.cli", "fsengine.export"):
            continue  # the command line's own words
        strings = [
            n.value
            for n in ast.walk(ast.parse(text))
            if isinstance(n, ast.Constant) and isinstance(n.value, str)
        ]
        flags = [
            s
            for s in strings
            if re.search(r"(^|\s)--[a-z]", s) and not s.lstrip().startswith(("``", '"""'))
        ]
        assert not [
            s
            for s in flags
            if "toggle" in s
            or "--transpose" in s
            or "--label" in s
            or "--k " in s
            or "--minority" in s
        ], (module, flags)
