"""A server-wide bound on the heavy runs (comparisons, sweeps, studies, gene tables) that
compute at once, first come first served: on a lab's shared server, eight users pressing
Run at once would otherwise start eight runs that each want every core and a copy of their
data in worker processes, all slower and together past the memory. The others wait in a
queue, their pages saying how many runs are ahead, and can be cancelled while they wait.
The server's own linear algebra (a Genes page's PCA beside those runs) takes one core
(:func:`one_blas_thread`).

Imports nothing of Streamlit.
"""

from __future__ import annotations

import os
import threading
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from fsengine.methods import Cancellation, available_cores

#: The environment variables that set the BLAS libraries' threads when they load, and the
#: libraries (threadpoolctl's ``internal_api``): numpy's and scipy's OpenBLAS, Intel's MKL.
BLAS_THREADS = {"OPENBLAS_NUM_THREADS": "openblas", "MKL_NUM_THREADS": "mkl"}
_BLAS_SET = False  # one_blas_thread has run in this process
#: Environment variable: the runs computing at once (a positive whole number).
CONCURRENT_RUNS = "FSENGINE_CONCURRENT_RUNS"
#: Seconds between two looks at the queue while waiting (for a cancellation, and to say
#: how many runs are ahead).
POLL_SECONDS = 0.2


def default_limit() -> int:
    """:data:`CONCURRENT_RUNS` when set to a positive whole number, else half the cores (at
    least one): each run already spreads its splits over every core."""
    given = os.environ.get(CONCURRENT_RUNS, "").strip()
    if given.isdigit() and int(given) > 0:
        return int(given)
    return max(1, available_cores() // 2)


def one_blas_thread() -> None:
    """Run the server process's BLAS (numpy's and scipy's OpenBLAS, or MKL) on one thread:
    the libraries loaded already (``threadpoolctl``) and those a page loads later (their
    environment variables, :data:`BLAS_THREADS`). A library whose variable was set when
    the server started keeps the administrator's setting.

    The server shares the cores with the runs' worker processes (each on one thread) and
    with its other sessions. A BLAS call on every core there waits for cores that are busy:
    under load, a first Genes page's PCA of SRBCT took 0.48 to 0.83 s on two threads
    against 0.19 to 0.22 s on one. Child processes inherit the variables (the runs'
    workers already ran each task on one thread). Once per process; later calls return at
    once.
    """
    global _BLAS_SET
    if _BLAS_SET:
        return
    _BLAS_SET = True
    ours = [name for name in BLAS_THREADS if name not in os.environ]
    if not ours:
        return
    from threadpoolctl import ThreadpoolController

    controller = ThreadpoolController()
    for name in ours:
        os.environ[name] = "1"
        controller.select(internal_api=BLAS_THREADS[name]).limit(limits=1)


class RunQueue:
    """At most ``limit`` holders of a slot at once; the others wait in arrival order.

    Parameters
    ----------
    limit : int or None
        Slots; None: :func:`default_limit` when a run asks (so a changed environment
        applies to the next run).
    """

    def __init__(self, limit: int | None = None):
        self._limit = limit
        self._condition = threading.Condition()
        self._waiting: deque[object] = deque()
        self._computing: set[object] = set()

    @property
    def limit(self) -> int:
        """The runs that compute at once."""
        return self._limit if self._limit is not None else default_limit()

    @property
    def computing(self) -> int:
        """The runs holding a slot now."""
        with self._condition:
            return len(self._computing)

    @property
    def waiting(self) -> int:
        """The runs waiting for a slot now."""
        with self._condition:
            return len(self._waiting)

    @contextmanager
    def slot(self, token: Cancellation, ahead: Callable[[int], None]) -> Iterator[None]:
        """Hold a slot for the block, waiting for one first.

        Parameters
        ----------
        token : Cancellation
            The run's: a cancellation while it waits ends the wait (RunCancelled).
        ahead : callable
            Called with the number of runs ahead (those computing and those queued
            before it) whenever that number changes while it waits, then with 0.

        Raises
        ------
        fsengine._compute.parallel.RunCancelled
            When the run is cancelled before it gets a slot.
        """
        ticket = object()
        told = None
        with self._condition:
            self._waiting.append(ticket)
            try:
                while not (self._waiting[0] is ticket and len(self._computing) < self.limit):
                    before = len(self._computing) + self._waiting.index(ticket)
                    if before != told:
                        told = before
                        ahead(before)
                    token.check()
                    self._condition.wait(POLL_SECONDS)
                token.check()
            except BaseException:
                self._waiting.remove(ticket)
                self._condition.notify_all()
                raise
            self._waiting.popleft()
            self._computing.add(ticket)
        try:
            ahead(0)
            yield
        finally:
            with self._condition:
                self._computing.discard(ticket)
                self._condition.notify_all()


#: The server's queue (one per process: the runs of every session).
RUNS = RunQueue()
