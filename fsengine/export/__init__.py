"""What leaves fsengine as files: the writers shared by the command line and the
dashboard, the report, and the JSON codec.

- :mod:`~fsengine.export.writers`: the selection, trace, records and summary CSVs, the
  reduced matrix (CSV or Parquet), the parameters and the command line that repeats a run;
- :mod:`~fsengine.export.report`: the self-contained HTML report and its ZIP;
- :mod:`~fsengine.export.codec`: the one JSON codec (strict for the workspace, lenient for
  reports);
- :mod:`~fsengine.export.spreadsheet`: CSV cells a spreadsheet shows as text (names that
  start like formulas quoted).

The writers' names are importable from here too (``from fsengine.export import
selection_to_csv``, as before 0.2); the package itself imports nothing until one is
asked for, so the codec's users do not load the writers.
"""

from __future__ import annotations

import importlib

__all__: list[str] = []  # the modules above are the public names; the writers' come lazily


def __getattr__(name: str):
    """A writer's public name, from :mod:`fsengine.export.writers` when first asked for."""
    writers = importlib.import_module("fsengine.export.writers")
    if name in writers.__all__:
        return getattr(writers, name)
    raise AttributeError(f"module 'fsengine.export' has no attribute {name!r}")
