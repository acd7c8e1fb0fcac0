"""Independent tasks (splits of an evaluation or a sweep) on the machine's cores.

Results come back in task order whatever the number of processes, so a parallel run
gives the same records as a serial one.
"""

from __future__ import annotations

import os
from typing import Callable, Sequence

from fsengine.errors import FSEngineError, is_integer_in


def available_cores() -> int:
    """The number of CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:                                   # not on Linux
        return os.cpu_count() or 1


def resolve_jobs(n_jobs: int | None) -> int:
    """The number of worker processes for ``n_jobs`` (None: every available core).

    Raises
    ------
    FSEngineError
        If ``n_jobs`` is not a positive integer or None.
    """
    if n_jobs is None:
        return available_cores()
    if not is_integer_in(n_jobs, 1):
        raise FSEngineError(f"the number of jobs must be a positive integer, got {n_jobs!r}")
    return int(n_jobs)


def _single_threaded(function, task):
    """Run one task with native thread pools (BLAS, OpenMP) limited to one thread, so
    that the worker processes do not oversubscribe the cores."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(1):
        return function(*task)


def run_tasks(function: Callable, tasks: Sequence[tuple], n_jobs: int | None = None,
              on_done: Callable[[int], None] | None = None) -> list:
    """``[function(*task) for task in tasks]``, on up to ``n_jobs`` processes.

    Parameters
    ----------
    function : callable
        A module-level function (it is sent to worker processes).
    tasks : sequence of tuple
        Its arguments, one tuple per task.
    n_jobs : int, optional
        Worker processes (default: every available core); 1 runs in this process.
    on_done : callable, optional
        Called with the task's index as each task's result arrives, in task order.

    Returns
    -------
    list
        The results in task order. An exception raised by a task is raised here.
    """
    jobs = min(resolve_jobs(n_jobs), len(tasks))
    results = []
    if jobs <= 1:
        for i, task in enumerate(tasks):
            results.append(function(*task))
            if on_done:
                on_done(i)
        return results
    from joblib import Parallel, delayed

    parallel = Parallel(n_jobs=jobs, backend="loky", return_as="generator")
    for i, result in enumerate(parallel(delayed(_single_threaded)(function, task)
                                        for task in tasks)):
        results.append(result)
        if on_done:
            on_done(i)
    return results
