"""Independent tasks (splits of an evaluation or a sweep) on the machine's cores, and their
cancellation.

Results come back in task order whatever the number of processes, so a parallel run
gives the same records as a serial one.

A run that may have to stop before its end (a dashboard's run: its Cancel button, a closed
tab) runs under :func:`cancellable` with a :class:`Cancellation`: :func:`run_tasks` then
computes in worker processes even for one task, and :meth:`Cancellation.cancel`, from any
thread, kills those processes at once; the run raises :class:`RunCancelled`.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import threading
import time
import weakref
from collections.abc import Callable, Iterator, Sequence

from fsengine.config import get_config, set_config
from fsengine.errors import FSEngineError, is_integer_in


def available_cores() -> int:
    """The number of CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
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


class RunCancelled(Exception):
    """The run was cancelled (:meth:`Cancellation.cancel`) before its end."""


class Cancellation:
    """A token that ends a run from another thread.

    The run checks it (:meth:`check`) where it can stop, and registers what stops its
    current work (:meth:`on_cancel`: :func:`run_tasks` kills its worker processes).
    """

    def __init__(self) -> None:
        self._event = threading.Event()
        self._lock = threading.Lock()
        self._callbacks: list[Callable[[], None]] = []

    @property
    def cancelled(self) -> bool:
        """Whether :meth:`cancel` was called."""
        return self._event.is_set()

    def cancel(self) -> None:
        """Cancel the run: the registered callbacks run now, in this thread (once)."""
        with self._lock:
            if self._event.is_set():
                return
            self._event.set()
            callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            try:
                callback()
            except Exception:  # noqa: BLE001 - stopping is best effort; the run still ends
                pass

    def check(self) -> None:
        """Raise :class:`RunCancelled` if the run was cancelled."""
        if self._event.is_set():
            raise RunCancelled("the run was cancelled")

    def wait(self, seconds: float) -> bool:
        """Wait up to ``seconds`` for a cancellation; whether it came."""
        return self._event.wait(seconds)

    @contextlib.contextmanager
    def on_cancel(self, callback: Callable[[], None]) -> Iterator[None]:
        """Within the block, :meth:`cancel` calls ``callback`` (at once if already
        cancelled)."""
        with self._lock:
            now = self._event.is_set()
            if not now:
                self._callbacks.append(callback)
        if now:
            callback()
        try:
            yield
        finally:
            with self._lock:
                if callback in self._callbacks:
                    self._callbacks.remove(callback)


_CANCELLATION: contextvars.ContextVar[Cancellation | None] = contextvars.ContextVar(
    "fsengine_cancellation", default=None
)


@contextlib.contextmanager
def cancellable(token: Cancellation) -> Iterator[Cancellation]:
    """Run the block under ``token``: the :func:`run_tasks` calls within it (in this
    thread) compute in worker processes that ``token.cancel()`` kills."""
    reset = _CANCELLATION.set(token)
    try:
        yield token
    finally:
        _CANCELLATION.reset(reset)


def current_cancellation() -> Cancellation | None:
    """The token of the enclosing :func:`cancellable` block, if any."""
    return _CANCELLATION.get()


_executor = None
_executor_lock = threading.Lock()


def kernel_threads() -> int:
    """The number of threads a compiled kernel may use within one run (the setting
    ``kernel_threads`` of :mod:`fsengine.config`; None there: every available core)."""
    threads = get_config()["kernel_threads"]
    return available_cores() if threads is None else threads


def set_kernel_threads(n: int | None) -> None:
    """Set the threads of the compiled kernels (None: every available core; 1: none):
    :func:`fsengine.config.set_config` with ``kernel_threads``."""
    set_config(kernel_threads=None if n is None else max(1, int(n)))


_blas_controller = None


def _one_blas_thread():
    """A context in which BLAS (numpy's and scipy's, which numba's ``np.dot`` calls) runs on
    one thread: the chunks of :func:`run_chunks` already use the cores, and a threaded
    BLAS inside each of them slows the whole down (1.6x on K-OFSD's large-N lists)."""
    global _blas_controller
    if _blas_controller is None:
        import scipy.linalg.cython_blas  # noqa: F401  (loaded first, so that it is seen)
        from threadpoolctl import ThreadpoolController

        _blas_controller = ThreadpoolController()
    return _blas_controller.limit(limits=1, user_api="blas")


def run_chunks(
    function: Callable[[int, int], None], n_items: int, min_chunk: int = 1, blas: bool = False
) -> None:
    """Call ``function(lo, hi)`` over a partition of ``range(n_items)`` into contiguous
    chunks, on up to :func:`kernel_threads` threads (the function must release the GIL
    to gain anything: the compiled kernels and numpy's sort do). Chunks of fewer than
    ``min_chunk`` items are not split further. With ``blas`` (the function's kernels
    multiply matrices), BLAS runs on one thread meanwhile; without, nothing is imported
    for it (scipy's BLAS: about 0.1 s). The partition changes only which thread computes
    what, never a result."""
    global _executor
    threads = min(kernel_threads(), n_items // max(min_chunk, 1))
    if threads <= 1:
        function(0, n_items)
        return
    with _executor_lock:
        if _executor is None or _executor._max_workers < threads:
            from concurrent.futures import ThreadPoolExecutor

            _executor = ThreadPoolExecutor(
                max_workers=threads, thread_name_prefix="fsengine-kernel"
            )
        executor = _executor
    bounds = [n_items * t // threads for t in range(threads + 1)]
    with _one_blas_thread() if blas else contextlib.nullcontext():
        futures = [executor.submit(function, bounds[t], bounds[t + 1]) for t in range(1, threads)]
        function(bounds[0], bounds[1])
        for future in futures:
            future.result()


def _single_threaded(function, task):
    """Run one task with native thread pools (BLAS, OpenMP) and the compiled kernels
    limited to one thread, so that the worker processes do not oversubscribe the cores."""
    from threadpoolctl import threadpool_limits

    set_kernel_threads(1)
    with threadpool_limits(1):
        return function(*task)


#: The worker processes are shared by the whole process: runs from several threads (the
#: dashboard's sessions, the warm-up) take turns, as concurrent runs on one pool can hang.
_POOL_LOCK = threading.Lock()


def run_tasks(
    function: Callable,
    tasks: Sequence[tuple],
    n_jobs: int | None = None,
    on_done: Callable[[int], None] | None = None,
) -> list:
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

    Raises
    ------
    RunCancelled
        Under :func:`cancellable`, when its token is cancelled: the worker processes are
        killed at once (the tasks then compute in worker processes even when
        ``n_jobs`` is 1, so that they can be).
    """
    token = current_cancellation()
    jobs = min(resolve_jobs(n_jobs), len(tasks))
    results = []
    if token is not None:
        token.check()
    if jobs <= 1 and token is None:
        for i, task in enumerate(tasks):
            results.append(function(*task))
            if on_done:
                on_done(i)
        return results
    from joblib import Parallel, delayed

    if token is not None and jobs <= 1:
        # joblib runs n_jobs=1 in this process, where nothing could stop it: the pool of
        # the warm-up (every core) computes it instead, one worker busy
        jobs = max(2, available_cores())
    with _pool(token):  # one parallel run at a time per process (several sessions)
        parallel = Parallel(n_jobs=jobs, backend="loky", return_as="generator")
        outputs = parallel(delayed(_single_threaded)(function, task) for task in tasks)
        with token.on_cancel(lambda: _kill_workers(parallel)) if token else _nothing():
            try:
                for i, result in enumerate(outputs):
                    if token is not None:
                        token.check()
                    results.append(result)
                    if on_done:
                        on_done(i)
            except Exception as exc:
                if token is not None and token.cancelled:
                    raise RunCancelled("the run was cancelled") from exc
                raise
            finally:
                outputs.close()
    return results


@contextlib.contextmanager
def _nothing() -> Iterator[None]:
    yield


@contextlib.contextmanager
def _pool(token: Cancellation | None) -> Iterator[None]:
    """Hold :data:`_POOL_LOCK`; waiting for it ends when ``token`` is cancelled."""
    if token is None:
        with _POOL_LOCK:
            yield
        return
    while not _POOL_LOCK.acquire(timeout=0.1):
        token.check()
    try:
        token.check()
        yield
    finally:
        _POOL_LOCK.release()


def _kill_workers(parallel) -> None:
    """Kill the worker processes of a running ``joblib.Parallel`` (its abort on an error,
    without a new pool): their tasks end at once, and the iteration raises."""
    backend = getattr(parallel, "_backend", None)
    abort = getattr(backend, "abort_everything", None)
    if abort is not None:
        abort(ensure_ready=False)


_warmed = False
_imported_ahead = False


def import_in_background(modules: Sequence[str], delay: float = 0.0) -> None:
    """Import ``modules`` (dotted names) in this process, in a background thread that
    waits ``delay`` seconds first; once per process, returns at once.

    A server gives its first page the cores, then imports what its first run will need
    (:data:`fsengine.evaluation.RUN_IMPORTS`) while the user reads the page. A run that
    starts meanwhile waits for the import in progress (Python's import lock), never
    imports twice. A failure is ignored: the run then reports it when it imports.

    Parameters
    ----------
    modules : sequence of str
    delay : float
        Seconds to wait before the first import.
    """
    global _imported_ahead
    if _imported_ahead:
        return
    _imported_ahead = True
    modules = tuple(modules)

    def load() -> None:
        import importlib

        time.sleep(delay)
        for module in modules:
            try:
                importlib.import_module(module)
            except Exception:  # noqa: BLE001 - only a head start
                pass

    threading.Thread(target=load, name="fsengine-import-ahead", daemon=True).start()


def prepare_process(modules: Sequence[str] = ()) -> int:
    """Get a process ready for tasks: import ``modules`` (dotted names) and load every
    kernel family (built ahead of time: milliseconds each; see
    :mod:`fsengine._compute.kernels`), so that its first task pays for neither.

    Parameters
    ----------
    modules : sequence of str
        What the tasks will import (:data:`fsengine.evaluation.RUN_IMPORTS`: scikit-learn,
        about 0.6 s).

    Returns
    -------
    int
        This process's id.
    """
    import importlib

    from fsengine._compute import kernels

    for module in modules:
        importlib.import_module(module)
    for family in kernels.families():
        kernels.load(family)
    return os.getpid()


def warm_up(n_jobs: int | None = None, modules: Sequence[str] = (), delay: float = 0.0) -> None:
    """Start the worker processes of :func:`run_tasks` in the background, once per process,
    and have each run :func:`prepare_process` with ``modules``.

    The first parallel run otherwise pays for starting the processes and importing what
    its tasks need in each (seconds on a 2-core machine). Returns at once; this process
    imports nothing more; a failure is ignored (the first run then starts the workers
    itself). ``delay`` seconds pass first (the dashboard leaves the cores to its first
    pages); a parallel run started meanwhile starts the workers itself.
    """
    global _warmed
    jobs = resolve_jobs(n_jobs)
    if _warmed or jobs <= 1:
        return
    _warmed = True
    modules = tuple(modules)

    def start() -> None:
        time.sleep(delay)
        try:
            run_tasks(prepare_process, [(modules,)] * jobs, n_jobs=jobs)
        except Exception:  # noqa: BLE001 - only a head start
            pass

    threading.Thread(target=start, name="fsengine-warm-up", daemon=True).start()


_instance_locks: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_instance_locks_guard = threading.Lock()


def instance_lock(owner: object) -> threading.Lock:
    """A lock of its own for ``owner`` (made at the first call, gone with it), for state
    that threads of one run share; kept outside the object, so that its state stays plain
    data (a stream's snapshot, pickling to Dask workers)."""
    with _instance_locks_guard:
        lock = _instance_locks.get(owner)
        if lock is None:
            lock = _instance_locks[owner] = threading.Lock()
        return lock
