"""The dashboard's wording of library errors: options and parameters named by the widgets
that set them ("load it with the 'Genes in rows (transpose)' toggle"), not as the Python
API spells them (``transpose=True``) or the command line (``--transpose``)."""

from __future__ import annotations

from fsengine.data.preprocess import PREPROCESSING
from fsengine.errors import FSEngineError, library_words

#: The Data page's widgets, by the library name of the loader option or parameter each
#: one sets: (the widget's label, what kind of widget it is). dashboard/pages/data.py labels its
#: widgets from here, so a message names the widget as the page shows it.
WIDGETS = {
    "transpose": ("Genes in rows (transpose)", "toggle"),
    "drop_constant": ("Drop constant features", "toggle"),
    "label": ("Label column", "box"),
    "minority": ("Minority class (one versus rest)", "box"),
    "samples": ("Sample sheet (optional): class and groups by sample id", "uploader"),
    "sample_groups": ("Sample groups (patient, donor, batch)", "box"),
    "layer": ("Matrix (AnnData: X or a layer)", "box"),
    "gene_names": ("Gene names (AnnData: var_names or a var column)", "box"),
    # the preprocessing's widgets, labelled from its specification (dashboard.widgets)
    **{
        name: (p.label[0].upper() + p.label[1:], "box")
        for name, p in PREPROCESSING.parameters.items()
    },
}


def label(name: str) -> str:
    """The label of the widget that sets option ``name``."""
    return WIDGETS[name][0]


def words(name: str) -> str:
    """The dashboard's name for a library option or parameter: its widget, else the
    library's spelling."""
    if name in WIDGETS:
        text, kind = WIDGETS[name]
        return f"the '{text}' {kind}"
    return library_words(name)


def method_words(method: str | None):
    """:func:`words`, with ``method``'s parameters named by their widgets' labels (from
    the method's specification, as :mod:`dashboard.widgets` draws them)."""
    from fsengine.methods.registry import REGISTRY

    parameters = REGISTRY[method].spec.parameters if method in REGISTRY else {}

    def spell(name: str) -> str:
        if name in parameters:
            return f"'{parameters[name].label[0].upper() + parameters[name].label[1:]}'"
        return words(name)

    return spell


def describe(exc: Exception) -> str:
    """An error's message as the dashboard words it (any other exception: its text)."""
    if not isinstance(exc, FSEngineError):
        return str(exc)
    return exc.describe(method_words(exc.method))
