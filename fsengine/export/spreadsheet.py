"""Cells a spreadsheet shows as text and never runs: the CSV exports' defence against CSV
injection (OWASP), shared by the command line's and the app's writers
(:mod:`fsengine.export.writers`) and the study tables (:mod:`fsengine.evaluation.benchmark`)."""

from __future__ import annotations

import csv

__all__ = ["FORMULA_STARTS", "SafeWriter", "spreadsheet_safe", "spreadsheet_safe_frame"]

#: First characters that make a spreadsheet read a cell as a formula (OWASP's list for
#: CSV injection: ``=``, ``+``, ``-``, ``@``, tab, carriage return).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_safe(value):
    """``value`` as a CSV cell a spreadsheet shows as text and never runs: a text that
    starts like a formula (:data:`FORMULA_STARTS`) gets a leading ``'``, as OWASP
    recommends against CSV injection (``=HYPERLINK(...)`` is written ``'=HYPERLINK(...)``).
    Numbers, texts that spell a number (``-0.5``, ``-inf``) and every other value are
    unchanged, so an export without such a name is byte for byte what it was.

    Parameters
    ----------
    value : object
        A cell.

    Returns
    -------
    object
        ``value``, or the quoted text.
    """
    if not isinstance(value, str) or not value.startswith(FORMULA_STARTS):
        return value
    try:
        float(value)
    except ValueError:
        return "'" + value
    return value


class SafeWriter:
    """``csv.writer`` whose rows go through :func:`spreadsheet_safe` (``\\n`` line ends)."""

    def __init__(self, out):
        self._writer = csv.writer(out, lineterminator="\n")

    def writerow(self, row) -> None:
        self._writer.writerow([spreadsheet_safe(cell) for cell in row])

    def writerows(self, rows) -> None:
        for row in rows:
            self.writerow(row)


def spreadsheet_safe_frame(frame):
    """A copy of the DataFrame ``frame`` with its cells, column names and index through
    :func:`spreadsheet_safe`, for ``to_csv``."""
    safe = frame.map(spreadsheet_safe)
    safe.columns = frame.columns.map(spreadsheet_safe)
    safe.index = frame.index.map(spreadsheet_safe)
    return safe
