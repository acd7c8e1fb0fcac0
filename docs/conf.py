"""Sphinx configuration of fsengine's documentation site, built by ``make docs``.

The pages are Markdown (MyST); the API pages are generated from the docstrings
(autodoc, autosummary, numpydoc); the speed page from ``make bench``'s results
(``benchmarks/results/*.json``, by the ``bench_results`` extension in ``_ext/``).
Warnings are errors (``make docs`` and the test that builds the site pass ``-W``), and
every build starts from a fresh environment (``-E``): the API pages are written anew.
"""

import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS.parent))  # the checkout's fsengine, as the tests import it
sys.path.insert(0, str(DOCS / "_ext"))

import fsengine  # noqa: E402

project = "fsengine"
author = "the fsengine authors"
copyright = "2026, the fsengine authors"
release = fsengine.__version__
version = release

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "numpydoc",
    "bench_results",
    "namespaces",
]
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
root_doc = "index"
exclude_patterns = ["_build", "_ext", "screenshots/issue-*"]

myst_heading_anchors = 4
myst_enable_extensions = ["colon_fence"]
suppress_warnings = ["myst.header"]  # the long pages start at level 2 under their title

autosummary_generate = True
autodoc_default_options = {"members": False}
autodoc_typehints = "none"  # numpydoc's Parameters sections give the types
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False

html_theme = "pydata_sphinx_theme"
html_title = f"fsengine {release}"
html_theme_options = {"navigation_depth": 2, "show_toc_level": 2}
html_static_path: list[str] = []
templates_path = ["_templates"]
autosummary_ignore_module_all = False  # a namespace's page lists its __all__
autosummary_imported_members = True  # the namespaces re-export their private modules' names
