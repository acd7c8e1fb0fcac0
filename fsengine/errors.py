"""The one error type that fsengine raises for bad input or bad parameters."""


class FSEngineError(ValueError):
    """A problem with the caller's input (data file, labels or parameters).

    The message names the problem, where it is (column, row) and, where one
    exists, what to do about it. The command line prints it as one line and
    exits with status 2; the app shows it in an error box.
    """
