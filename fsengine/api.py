"""The functions ``import fsengine as fs`` gives: select and sweep (and list_methods, the
registry's).

Each is a thin door onto the function that does the work, the same code path as the
command line's and the dashboard's: :func:`select` onto :func:`fsengine.methods.runs.run_selection`
(or :func:`fsengine.adata.select` for an AnnData object), :func:`sweep` onto
:func:`fsengine.evaluation.sweep_values` and :func:`fsengine.evaluation.sweep_top`,
:func:`list_methods` is the registry's own (:func:`fsengine.methods.registry.list_methods`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from fsengine import adata as _adata
from fsengine.data.dataset import Dataset
from fsengine.data.task import Task
from fsengine.errors import FSEngineError, is_integer_in
from fsengine.evaluation import Evaluation, sweep_top, sweep_values
from fsengine.evaluation.protocol import Progress
from fsengine.methods.registry import RunResult, list_methods
from fsengine.methods.runs import run_selection

if TYPE_CHECKING:
    from anndata import AnnData

__all__ = ["list_methods", "select", "sweep"]


def _is_anndata(data) -> bool:
    """Whether ``data`` is an AnnData object, told without importing anndata."""
    return any(
        cls.__name__ == "AnnData" and cls.__module__.split(".")[0] == "anndata"
        for cls in type(data).__mro__
    )


def select(
    data: Task | Dataset | AnnData,
    method: str = "kofsd",
    *,
    minority=None,
    groupby: str | None = None,
    top: int | None = None,
    **params,
) -> RunResult:
    """Select features of ``data`` with ``method`` for one class against the rest.

    Parameters
    ----------
    data : Task, Dataset or anndata.AnnData
        A task (:class:`fsengine.Task`), a data set (:func:`fsengine.read`), or an AnnData
        object, cells or samples in rows, into which the selection is written as scanpy's
        tools write theirs (:func:`fsengine.adata.select`; an object opened backed keeps
        its matrix on disk).
    method : str
        A registered method (:func:`list_methods`), e.g. ``"kofsd"``, ``"welch"``.
    minority : optional
        The class to select for; default: the data set's
        (:meth:`fsengine.Dataset.default_minority`). With a task: None or its own class.
    groupby : str, optional
        AnnData only: the ``obs`` column of the classes (default: the only class-like one).
    top : int, optional
        A ranker's number of features (default: all, in rank order; with AnnData: 50).
    **params
        The method's parameters, and ``order``, ``seed``, ``events`` and ``client`` of
        :func:`fsengine.methods.runs.run_selection`.

    Returns
    -------
    RunResult
        The selection, its scores, the events of an online selector and the record that
        repeats the run (``params``).

    Raises
    ------
    FSEngineError
        For an unknown method, a parameter it does not take, a class not in the data, or
        ``groupby`` given with something other than an AnnData object.
    """
    if _is_anndata(data):
        return _adata.select(data, groupby, minority, method, top=top, **params)
    if groupby is not None:
        raise FSEngineError(
            "groupby names an obs column of an AnnData object; a task or data set has its "
            "classes already (give the class to select for as minority)"
        )
    return run_selection(data, minority, method, top=top, **params)


def sweep(
    data: Task | Dataset,
    method: str | Sequence[str] = "kofsd",
    *,
    minority=None,
    over: str = "k",
    values: Sequence,
    n_splits: int = 20,
    seed: int = 0,
    params: dict | None = None,
    progress: Progress | None = None,
    n_jobs: int | None = None,
) -> Evaluation:
    """A method's parameter, or the number of features rankers keep, swept under the
    evaluation protocol of :func:`fsengine.evaluate` (the K-OFSD paper's Figs. 2-7 sweep K).

    Parameters
    ----------
    data : Task or Dataset
        A task, or a data set (as :func:`select`).
    method : str or sequence of str
        An online selector whose parameter ``over`` is swept; with ``over="top"``, one or
        more rankers.
    minority : optional
        With a data set: the class to select for (default: the data set's).
    over : str
        The parameter swept (``"k"``, ``"alpha"``, ...: :func:`list_methods` lists each
        method's), or ``"top"``: the rankers' number of features.
    values : sequence
        The values of ``over``, in the order the records come.
    n_splits, seed, params, progress, n_jobs
        As :func:`fsengine.evaluate`; ``params`` are the method's other parameters (with
        ``over="top"``: per method, ``{method: {...}}``).

    Returns
    -------
    Evaluation
        One record per value and split (and ranker), each with the value under ``over``.

    Raises
    ------
    FSEngineError
        For an online selector swept over ``"top"``, a ranker over a parameter, an unknown
        parameter or a value out of its range (of ``"top"``: not a whole number of 1 or
        more).
    """
    if over == "top":
        methods_ = [method] if isinstance(method, str) else list(method)
        tops = list(values)
        wrong = [v for v in tops if not is_integer_in(v, 1)]
        if wrong:
            raise FSEngineError(
                f"the values of top are numbers of features (1 or more); got {wrong[0]!r}",
                parameter="values",
            )
        return sweep_top(
            data,
            minority,
            methods_,
            [int(v) for v in tops],
            n_splits=n_splits,
            seed=seed,
            params=params,
            progress=progress,
            n_jobs=n_jobs,
        )
    if not isinstance(method, str):
        raise FSEngineError(f"a sweep over {over!r} is of one method; got {list(method)}")
    return sweep_values(
        data,
        minority,
        method,
        over,
        values,
        n_splits=n_splits,
        seed=seed,
        progress=progress,
        n_jobs=n_jobs,
        params=params,
    )
