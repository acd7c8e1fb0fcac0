"""The ``kernels`` command: the compiled kernels' state, and building them."""

from __future__ import annotations

import sys

from fsengine.errors import FSEngineError

__all__ = ["cmd_kernels"]


def cmd_kernels(args) -> None:
    """The ``kernels`` command: the cache folder and whether each family of compiled
    kernels is built for the current sources; ``--compile`` builds them first."""
    from fsengine._compute import kernels

    if args.compile:
        try:
            kernels.compile_kernels()
        except RuntimeError as exc:
            raise FSEngineError(str(exc)) from None
        except OSError as exc:
            raise FSEngineError(
                f"cannot write the kernels to {kernels.cache_dir()}: {exc.strerror or exc}; "
                "set FSENGINE_CACHE_DIR to a writable directory"
            ) from None
    rows = kernels.status()
    lines = [f"cache: {kernels.cache_dir()} (mode: {kernels.mode()})"]
    for row in rows:
        state = (
            f"built in {row['seconds']} s for {row['cpu']} (numba {row['numba']})"
            if row["built"]
            else "not built for the current sources"
        )
        lines.append(f"  {row['family']}: {state}")
    sys.stdout.write("\n".join(lines) + "\n")
