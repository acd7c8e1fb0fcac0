"""A process that writes to a workspace store the way the dashboard's server does, until it
is killed: the child of tests/unit/dashboard/test_crash_safety.py.

``python tests/crash_writer.py KIND FOLDER SEED [CAP_BYTES]`` writes, through
:class:`dashboard.workspace.Store` (the server's own code), one kind of write over and over:

- ``stream``: a stream's position and snapshot saved as it goes (``stop_run``, as the
  Stream page does every 2 s), then finished at its end;
- ``compare``: a comparison started, its progress noted, its result recorded
  (``finish_run`` with a payload of 0.05 to 1 MB);
- ``upload``: an uploaded file stored (``put_dataset``) and the workspace's state saved
  to use it;
- ``evict``: all three at once in three threads under a small cap, so that eviction runs
  after nearly every write.

Before a write it prints what it is about to write and after the call returns what the
user would now be told (one JSON object a line, flushed): ``saving``/``saved`` (a stream's
run and position), ``finishing``/``finished`` (a run and the SHA-256 of its payload's
JSON), ``noted`` (a comparison's progress), ``storing``/``stored`` (a data set's key),
``state``/``state_saved``.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
import threading
from pathlib import Path

from dashboard.workspace import Store

_PRINT = threading.Lock()


def say(**fields) -> None:
    """One line of the protocol, flushed (it reaches the parent even if we die next)."""
    with _PRINT:
        sys.stdout.write(json.dumps(fields) + "\n")
        sys.stdout.flush()


def digest(payload) -> str:
    """The SHA-256 of a payload's canonical JSON (the parent computes it from what it reads)."""
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


def streams(store: Store, workspace: str, rng: random.Random, sha: str) -> None:
    """Streams of 2,000 features saved every few features, each finished at its end."""
    while True:
        total = 2000
        run = store.start_run(workspace, "stream", sha, "K-OFSD", {"method": "kofsd"})
        position, history = 0, []
        while position < total:
            position = min(total, position + rng.randint(1, 60))
            history.extend(rng.random() for _ in range(rng.randint(50, 400)))
            payload = {"position": position, "total": total, "snapshot": {"trace": history}}
            if position < total:
                say(saving=[run, position])
                store.stop_run(run, payload, position / 100)
                say(saved=[run, position])
            else:
                say(finishing=[run, digest(payload)])
                store.finish_run(run, payload, position / 100)
                say(finished=[run, digest(payload)])


def comparisons(store: Store, workspace: str, rng: random.Random, sha: str) -> None:
    """Comparisons with progress noted, each recorded with a payload of 0.05 to 1 MB."""
    while True:
        run = store.start_run(workspace, "compare", sha, "Compare", {"splits": 20})
        for split in range(rng.randint(1, 5)):
            store.note_reached(run, f"split {split + 1}/20")
            say(noted=[run, split + 1])
        records = [
            {"split": i, "method": "kofsd", "gmean": rng.random(), "genes": rng.getrandbits(64)}
            for i in range(rng.randint(500, 10_000))
        ]
        payload = {"records": records}
        say(finishing=[run, digest(payload)])
        store.finish_run(run, payload, 1.0)
        say(finished=[run, digest(payload)])


def uploads(store: Store, workspace: str, rng: random.Random) -> None:
    """Files of 1 KB to 3 MB stored, each then made the workspace's current data set."""
    while True:
        raw = rng.randbytes(rng.randint(1_000, 3_000_000))
        sha = hashlib.sha256(raw).hexdigest()
        say(storing=sha)
        store.put_dataset(raw, f"upload-{sha[:8]}.csv", workspace_id=workspace)
        say(stored=sha)
        say(state=sha)
        store.save_state(workspace, {"dataset": sha})
        say(state_saved=sha)


def main() -> None:
    kind, folder, seed = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3])
    cap = int(sys.argv[4]) if len(sys.argv) > 4 else None
    store = Store(folder, cap_bytes=cap)
    workspace, _ = store.open_workspace(None)
    rng = random.Random(seed)
    sha = store.put_dataset(rng.randbytes(10_000), "data.csv", workspace_id=workspace)
    store.save_state(workspace, {"dataset": sha})
    say(ready=workspace)
    if kind == "stream":
        streams(store, workspace, rng, sha)
    elif kind == "compare":
        comparisons(store, workspace, rng, sha)
    elif kind == "upload":
        uploads(store, workspace, rng)
    elif kind == "evict":
        workers = [
            threading.Thread(target=streams, args=(store, workspace, random.Random(seed), sha)),
            threading.Thread(
                target=comparisons, args=(store, workspace, random.Random(~seed), sha)
            ),
            threading.Thread(target=uploads, args=(store, workspace, random.Random(seed * 7))),
        ]
        for worker in workers:
            worker.daemon = True
            worker.start()
        for worker in workers:
            worker.join()
    else:
        raise SystemExit(f"unknown kind {kind!r}")


if __name__ == "__main__":
    main()
