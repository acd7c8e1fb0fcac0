"""Dask clusters for fsengine: a client of a new local cluster or of an existing one
(:func:`dask_client`), checked to run this version of fsengine; the one-thread limit each
worker task sets on its process (:func:`limit_worker_threads`); and a function over blocks
of genes on the workers, which read a matrix on disk themselves (:func:`map_column_blocks`).

Used by the benchmark studies (:mod:`fsengine.evaluation.benchmark`) and by the
gene-parallel pass of a selection (:mod:`fsengine.methods.online._roughset.kofsd.gene_pass`;
the columnwise rankers'
:func:`fsengine.methods.rankers.score_matrix`).
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass

from fsengine._compute.parallel import resolve_jobs, set_kernel_threads
from fsengine._compute.sparse import block_width, dense_block, is_backed
from fsengine.errors import FSEngineError
from fsengine.version import __version__

#: Seconds to wait for a scheduler to answer and for its first worker to join.
CONNECT_TIMEOUT = 20

_worker_limited = False


def limit_worker_threads() -> None:
    """The compiled kernels and BLAS on one thread in this (worker) process, for the rest
    of its life: each single-threaded Dask worker runs one task at a time, and more threads
    per task would oversubscribe the cores. Set once per process: setting the limits around
    each task cost 3 ms a task."""
    global _worker_limited
    if not _worker_limited:
        from threadpoolctl import threadpool_limits

        set_kernel_threads(1)
        threadpool_limits(1)  # not a context: for the rest of the worker's life
        _worker_limited = True


def _worker_versions() -> str:
    return __version__


@contextmanager
def _interrupt_deferred(interrupted: list) -> Iterator[None]:
    """Ctrl-C (SIGINT) during the block is noted in ``interrupted`` instead of raised, in
    the main thread (elsewhere the block runs as it is): a local Dask cluster interrupted
    half-started cannot be closed, and distributed then prints tracebacks at exit."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, lambda signum, frame: interrupted.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


@contextmanager
def dask_client(scheduler: str | None = None, n_jobs: int | None = None):
    """A :class:`distributed.Client`: of the cluster at ``scheduler`` (checked to answer, to
    have a worker and to run this version of fsengine), or of a new in-process LocalCluster
    of ``n_jobs`` single-threaded worker processes (None: every available core), closed on
    exit.

    Raises
    ------
    FSEngineError
        If the scheduler cannot be reached, has no worker, or a worker cannot import
        fsengine or runs another version of it.
    """
    import logging

    from distributed import Client, LocalCluster

    if scheduler is None:
        import dask

        # Dask's nanny starts workers with MALLOC_TRIM_THRESHOLD_=65536, which also fixes
        # glibc's mmap threshold: every temporary array above 128 KB is then mapped and
        # unmapped, page faults included (Fisher, S2N and ReliefF ran twice as slowly in a
        # worker as in this process). The workers keep glibc's defaults, as this process,
        # and do without the statistical profiler (a stack sample every 10 ms) that only
        # Dask's dashboard shows.
        environ = dict(dask.config.get("distributed.nanny.pre-spawn-environ", {}))
        environ.pop("MALLOC_TRIM_THRESHOLD_", None)
        settings = {
            "distributed.nanny.pre-spawn-environ": environ,
            "distributed.worker.profile.enabled": False,
        }
        interrupted: list = []
        with ExitStack() as stack:
            # Each part is closed on the way out as soon as it exists; Ctrl-C while they
            # start takes effect once both can be closed.
            with _interrupt_deferred(interrupted), dask.config.set(settings):
                cluster = stack.enter_context(
                    LocalCluster(
                        n_workers=resolve_jobs(n_jobs),
                        threads_per_worker=1,
                        processes=True,
                        host="127.0.0.1",
                        dashboard_address="127.0.0.1:0",
                        silence_logs=logging.CRITICAL,  # e.g. a worker's last heartbeat
                    )
                )
                client = stack.enter_context(Client(cluster))
            if interrupted:
                raise KeyboardInterrupt
            yield client
        return
    try:
        client = Client(scheduler, timeout=f"{CONNECT_TIMEOUT}s")
    except Exception as exc:  # noqa: BLE001 - OSError, TimeoutError, ValueError (address)
        raise FSEngineError(
            f"cannot reach the Dask scheduler at {scheduler}: {exc}",
            remedy="start one with 'dask scheduler' and workers with 'dask worker ADDRESS', "
            "or check the address (tcp://HOST:PORT)",
        ) from None
    with client:
        try:
            client.wait_for_workers(1, timeout=CONNECT_TIMEOUT)
            versions = client.run(_worker_versions)
        except TimeoutError:
            raise FSEngineError(
                f"the Dask scheduler at {scheduler} has no worker "
                f"(none joined within {CONNECT_TIMEOUT} s)",
                remedy=f"start workers with 'dask worker {scheduler}'",
            ) from None
        except Exception as exc:  # noqa: BLE001 - raised on a worker
            raise FSEngineError(
                f"a Dask worker of {scheduler} cannot run fsengine: {exc}",
                remedy="start the workers from an environment with fsengine installed",
            ) from None
        other = {w: v for w, v in versions.items() if v != __version__}
        if other:
            worker, version = next(iter(other.items()))
            raise FSEngineError(
                f"the Dask worker {worker} runs fsengine {version}, this is {__version__}",
                remedy="start the workers from the same environment as this command",
            )
        yield client


#: Values of X read by one worker task of :func:`map_column_blocks` (whole columns).
TASK_ELEMENTS = 4_000_000


def _on_block(function, source, columns, *args):
    """On a worker: ``function(block, *args)`` for the dense block ``source[:, columns]`` (a
    matrix on disk is read here)."""
    limit_worker_threads()
    return function(dense_block(source, columns), *args)


def task_bounds(n_samples: int, n_features: int, n_workers: int) -> list[tuple[int, int]]:
    """Column ranges of the worker tasks: about TASK_ELEMENTS values each, and at least
    four tasks per worker while there are columns for them (the last ones then balance).

    Returns
    -------
    list of (lo, hi)
        Consecutive, covering ``range(n_features)``.
    """
    width = block_width(n_samples, TASK_ELEMENTS)
    width = max(1, min(width, -(-n_features // (4 * max(n_workers, 1)))))
    return [(lo, min(lo + width, n_features)) for lo in range(0, n_features, width)]


@dataclass(frozen=True)
class BlockTasks:
    """The Dask tasks of :func:`map_column_blocks`: keep it until their results are in.

    Attributes
    ----------
    bounds : list of (lo, hi)
        Each task's columns (:func:`task_bounds`).
    futures : list of distributed.Future
        Each task's result, in the order of ``bounds``.
    inputs : tuple of distributed.Future
        What was scattered for them (held: data scattered and then released is lost to
        the tasks still waiting for it).
    """

    bounds: list[tuple[int, int]]
    futures: list
    inputs: tuple


def map_column_blocks(client, function, X, *args) -> BlockTasks:
    """``function(block, *args)`` over blocks of consecutive columns of ``X`` on the workers
    of ``client``, as Dask futures in column order.

    Parameters
    ----------
    client : distributed.Client
    function : callable
        Module-level (it is pickled); takes a dense float64 block (n_samples, b) first.
    X : ndarray, scipy CSC matrix or BackedMatrix, shape (n_samples, n_features)
        A matrix on disk is opened once by each worker, which reads its blocks itself (a
        CSR file's column copy is made once per worker); another is sent a block per task.
    *args
        Passed on after the block; each is scattered to every worker once.

    Returns
    -------
    BlockTasks
    """
    n_workers = len(client.scheduler_info().get("workers", {}))
    bounds = task_bounds(X.shape[0], X.shape[1], n_workers)
    # Keys of their own (hash=False): a key named by the contents would be shared with an
    # earlier call's, whose release could then drop it under this call's tasks.
    on_disk = client.scatter(X, broadcast=True, hash=False) if is_backed(X) else None
    shared = client.scatter(list(args), broadcast=True, hash=False)  # each one whole
    futures = [
        client.submit(
            _on_block,
            function,
            on_disk if on_disk is not None else X[:, lo:hi],
            slice(lo, hi) if on_disk is not None else slice(None),
            *shared,
            pure=False,
        )
        for lo, hi in bounds
    ]
    return BlockTasks(bounds, futures, (on_disk, *shared))
