"""A Dask cluster on 127.0.0.1 for the tests: `dask scheduler` and `dask worker` processes
on free ports, started and stopped by their process ids (:class:`Cluster`), shared by the
study tests and the gene-parallel selection tests."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from conftest import SLOW_SECONDS, free_port

DASK = Path(sys.executable).with_name("dask")
#: A scheduler's or a worker's start, or a command's first tasks, on 2 busy cores.
START_SECONDS = SLOW_SECONDS


def default_sigint() -> None:
    """In a child before it runs: Ctrl-C (SIGINT) at its default. A process started while
    SIGINT is ignored (as for a background job; some test runs leave it so) inherits the
    ignoring, and then no Ctrl-C reaches the command."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def listening(address: str) -> bool:
    host, port = address.removeprefix("tcp://").rsplit(":", 1)
    with socket.socket() as s:
        return s.connect_ex((host, int(port))) == 0


def stop(process: subprocess.Popen) -> None:
    """Stop a server by its process id: SIGTERM, then SIGKILL after 10 s."""
    if process.poll() is None:
        os.kill(process.pid, signal.SIGTERM)
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            os.kill(process.pid, signal.SIGKILL)
            process.wait(10)


class Cluster:
    """A scheduler and its workers, each a process of its own; the workers run in an
    empty folder, so the data files are not where they look."""

    def __init__(self, folder: Path, n_workers: int):
        self.folder = folder
        self.address = f"tcp://127.0.0.1:{free_port()}"
        self.scheduler, self.workers = None, []
        try:
            self._start_all(n_workers)
        except BaseException:
            self.close()
            raise

    def _start_all(self, n_workers: int) -> None:
        self.scheduler = self._start(
            "scheduler",
            [
                "scheduler",
                "--host",
                "127.0.0.1",
                "--port",
                self.address.rsplit(":", 1)[1],
                "--no-dashboard",
            ],
        )
        deadline = time.monotonic() + START_SECONDS
        while not listening(self.address) and time.monotonic() < deadline:
            assert self.scheduler.poll() is None, (self.folder / "scheduler.log").read_text()
            time.sleep(0.1)
        self.workers = [self._start_worker() for _ in range(n_workers)]
        if n_workers:
            self._wait_for_workers(n_workers)

    def _start_worker(self) -> subprocess.Popen:
        return self._start(
            f"worker{len(self.workers)}",
            [
                "worker",
                self.address,
                "--host",
                "127.0.0.1",
                "--nthreads",
                "1",
                "--no-nanny",
                "--no-dashboard",
                "--death-timeout",
                str(START_SECONDS),
            ],
        )

    def _wait_for_workers(self, n: int) -> None:
        from distributed import Client

        with Client(self.address, timeout=f"{START_SECONDS}s") as client:
            client.wait_for_workers(n, timeout=START_SECONDS)

    def add_worker(self) -> subprocess.Popen:
        """Start one more worker; return once the scheduler counts it."""
        worker = self._start_worker()
        self.workers.append(worker)
        self._wait_for_workers(len(self.workers))
        return worker

    def _start(self, name: str, args: list[str]) -> subprocess.Popen:
        log = open(self.folder / f"{name}.log", "w")  # noqa: SIM115 - closed with the process
        return subprocess.Popen(
            [str(DASK), *args],
            cwd=self.folder,
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )

    def n_workers(self) -> int:
        from distributed import Client

        with Client(self.address, timeout=f"{SLOW_SECONDS}s") as client:
            return len(client.scheduler_info(n_workers=-1)["workers"])

    def close(self) -> None:
        for process in [*self.workers, self.scheduler]:
            if process is not None:
                stop(process)
