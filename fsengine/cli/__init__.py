"""Command line: ``python -m fsengine COMMAND ...``.

One concern per module: :mod:`~fsengine.cli.options` (flags computed from the method
specifications, and their routing to the methods), :mod:`~fsengine.cli.parser` (every
command's options), :mod:`~fsengine.cli.common` (reading the task, writing output), one
module per group of commands (:mod:`~fsengine.cli.selecting`: info, select, stability;
:mod:`~fsengine.cli.protocol`: evaluate, sweep; :mod:`~fsengine.cli.study`: benchmark;
:mod:`~fsengine.cli.docs`: methods and the generated reference;
:mod:`~fsengine.cli.kernels`: kernels), and :func:`main`.

Every error is one line on standard error and exit status 2.
"""

from __future__ import annotations

import sys

from fsengine.cli.docs import cmd_methods, methods_markdown
from fsengine.cli.kernels import cmd_kernels
from fsengine.cli.options import RUN_FLAGS, MethodOption, cli_words, method_options
from fsengine.cli.parser import build_parser
from fsengine.cli.protocol import cmd_evaluate, cmd_sweep
from fsengine.cli.selecting import cmd_info, cmd_select, cmd_stability
from fsengine.cli.study import cmd_benchmark
from fsengine.errors import FSEngineError

__all__ = [
    "COMMANDS",
    "EXIT_ERROR",
    "RUN_FLAGS",
    "MethodOption",
    "build_parser",
    "cli_words",
    "main",
    "method_options",
    "methods_markdown",
]

#: Exit status of every error.
EXIT_ERROR = 2

#: Each command's function, by the command's name.
COMMANDS = {
    "info": cmd_info,
    "select": cmd_select,
    "stability": cmd_stability,
    "evaluate": cmd_evaluate,
    "sweep": cmd_sweep,
    "methods": cmd_methods,
    "benchmark": cmd_benchmark,
    "kernels": cmd_kernels,
}


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status (0, or 2 on any error).

    Parameters
    ----------
    argv : list of str, optional
        The arguments (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        0; 2 for any error (one line on standard error); 130 when interrupted.
    """
    try:
        args = build_parser().parse_args(argv)
        COMMANDS[args.command](args)
    except FSEngineError as exc:
        print(f"fsengine: error: {exc.describe(cli_words)}", file=sys.stderr)
        return EXIT_ERROR
    except MemoryError:
        print(
            "fsengine: error: out of memory; the data set is too large for this machine",
            file=sys.stderr,
        )
        return EXIT_ERROR
    except KeyboardInterrupt as exc:
        print("fsengine: interrupted" + (f"; {exc}" if str(exc) else ""), file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    return 0
