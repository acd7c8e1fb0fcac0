"""The one error type that fsengine raises for bad input or bad parameters."""


class FSEngineError(ValueError):
    """A problem with the caller's input (data file, labels or parameters).

    The message names the problem, where it is (column, row) and, where one
    exists, what to do about it. The command line prints it as one line and
    exits with status 2; the app shows it in an error box.
    """


def is_integer_in(value, low, high=float("inf")) -> bool:
    """True for an integer (numpy integers included, booleans excluded) with
    ``low <= value <= high``: the check behind every integer parameter's message."""
    import numbers

    return (isinstance(value, numbers.Integral) and not isinstance(value, bool)
            and low <= value <= high)
