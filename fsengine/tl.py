"""Tools on AnnData objects in scanpy's manner: ``fs.tl.select(adata, groupby=..., group=...)``.

As ``scanpy.tl``: the object comes first, every option is keyword-only, the result is
written into the object (``uns[key_added]`` and var columns) and nothing is returned
unless ``copy=True``. :mod:`fsengine.get` reads the result back as a table and
:mod:`fsengine.pl` draws it. The run is :func:`fsengine.adata.select`'s, the command
line's and the dashboard's code path.
"""

from __future__ import annotations

import warnings

from fsengine import adata as _adata
from fsengine.errors import FSEngineError

__all__ = ["select"]


def select(
    adata,
    *,
    groupby: str | None = None,
    group=None,
    method: str = "kofsd",
    key_added: str | None = None,
    top: int | None = None,
    copy: bool = False,
    **params,
):
    """Select genes for one group of ``obs[groupby]`` against the rest and write them into
    ``adata``.

    Parameters
    ----------
    adata : anndata.AnnData
        Cells or samples in rows (an object opened backed keeps X on disk).
    groupby : str, optional
        The obs column of the groups (default: the only class-like column).
    group : optional
        The group to select genes for (default: the smallest the 50/50 protocol can use).
    method : str
        Any method of :func:`fsengine.list_methods` (default K-OFSD).
    key_added : str, optional
        The ``uns`` key of the result and the prefix of its var columns
        (``{key_added}_selected``, ``_rank``, ``_score``); default ``fsengine_{method}``
        and ``{method}``.
    top : int, optional
        A ranker's number of genes (default 50); an online selector decides its own.
    copy : bool
        Work on a copy of ``adata`` and return it (not for an object opened backed: the
        copy would be in memory).
    **params
        The method's parameters (``k``, ``alpha``, ``ties``, ...).

    Returns
    -------
    anndata.AnnData or None
        The copy with the result, with ``copy=True``; else None (``adata`` holds it). The
        run's notes (the tie rule chosen for counts, a ranker on raw counts) are issued
        as :class:`UserWarning`.
    """
    if copy and getattr(adata, "isbacked", False):
        raise FSEngineError(
            "copy=True copies the whole object into memory, and this one is opened backed "
            "(its X on disk): select in place (copy=False), or open it without backed='r'"
        )
    target = adata.copy() if copy else adata
    result = _adata.select(target, groupby, group, method, top=top, key_added=key_added, **params)
    for note in result.warnings:
        warnings.warn(note, UserWarning, stacklevel=2)
    return target if copy else None
