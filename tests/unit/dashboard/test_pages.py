"""Each page of the dashboard is a module under dashboard/pages/ with a ``render()``: its
script (the one app.py's navigation runs) defines, and draws only when Streamlit runs it
as ``__main__``, so a test imports its helpers without drawing anything."""

import ast
import importlib

import pytest

from conftest import ROOT
from dashboard.pages import PAGES

#: What a page module holds at its top level besides the guarded call of render().
DEFINITIONS = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.ClassDef, ast.Assign)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_a_page_is_a_module_whose_render_streamlit_calls(page):
    path = ROOT / page.script
    assert path.parent == ROOT / "dashboard" / "pages" and path.stem == page.name
    tree = ast.parse(path.read_text(encoding="utf-8"))
    *body, guard = tree.body[1:]  # after the module's docstring
    assert all(isinstance(node, DEFINITIONS) for node in body), [
        (node.lineno, type(node).__name__) for node in body if not isinstance(node, DEFINITIONS)
    ]
    assert ast.unparse(guard) == "if __name__ == '__main__':\n    render()"
    module = importlib.import_module(f"dashboard.pages.{page.name}")
    assert callable(module.render) and module.render.__doc__.startswith("Draw the ")


def test_every_page_module_is_declared():
    modules = {p.stem for p in (ROOT / "dashboard" / "pages").glob("*.py")} - {"__init__"}
    assert modules == {page.name for page in PAGES}
