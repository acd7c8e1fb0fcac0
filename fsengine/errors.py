"""The one error type that fsengine raises for bad input or bad parameters.

An error carries its parts as fields (what is wrong, where, what to do) so that each
front end words it for its own users: the library names parameters and options as the
Python API spells them (``k``, ``transpose=True``), the command line as flags (``--k``,
``--transpose``), the dashboard as its widgets ("K (neighbours)", the 'Genes in rows'
toggle). No caller needs to read the message text to decide what to do.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

__all__ = ["FSEngineError"]

#: How the library spells an option it suggests in a remedy (default: the option's name).
LIBRARY_WORDS = {"transpose": "transpose=True", "drop_constant": "drop_constant=True"}


def library_words(name: str) -> str:
    """The Python API's spelling of parameter or option ``name``."""
    return LIBRARY_WORDS.get(name, name)


class FSEngineError(ValueError):
    """A problem with the caller's input (data file, labels or parameters).

    Parameters
    ----------
    problem : str
        What is wrong. When ``parameter`` is given, ``problem`` is worded without its
        subject ("must be an integer from 1 to 75, got 80") and the subject is the
        parameter, spelled by the front end.
    parameter : str, optional
        The parameter or loader option at fault, by its library name ("k", "label").
    method : str, optional
        The method whose parameter it is ("kofsd").
    row : int, optional
        1-based row (line) of the data at fault.
    column : str, optional
        The data column at fault.
    remedy : str, optional
        What to do, ending with the option to use when ``remedy_option`` is given
        ("load the file with" + ``transpose``).
    remedy_option : str, optional
        Library name of the option the remedy suggests.
    choices : sequence of str, optional
        The values the option can take, when the problem is a choice (a file's sample
        annotations that may hold the class): a front end can offer them.

    The command line prints :meth:`describe` with its flags as one line and exits with
    status 2; the app shows it with its widget names in an error box.
    """

    def __init__(
        self,
        problem: str,
        *,
        parameter: str | None = None,
        method: str | None = None,
        row: int | None = None,
        column: str | None = None,
        remedy: str | None = None,
        remedy_option: str | None = None,
        choices: Sequence[str] = (),
    ):
        self.problem = problem
        self.choices = tuple(choices)
        self.parameter = parameter
        self.method = method
        self.row = row
        self.column = column
        self.remedy = remedy
        self.remedy_option = remedy_option
        super().__init__(self.describe())

    def describe(self, words: Callable[[str], str] = library_words) -> str:
        """The message with parameters and options spelled by ``words`` (name -> text).

        ``words`` returns the front end's name for a library parameter or option: the
        default spells them as the Python API does. The message is one line: a line break
        it quotes from a file is written ``\\n``.
        """
        text = self.problem
        if self.parameter is not None:
            text = f"{words(self.parameter)} {text}"
            if self.method is not None:
                text = f"{self.method}: {text}"
        if self.remedy:
            remedy = self.remedy
            if self.remedy_option is not None:
                remedy = f"{remedy} {words(self.remedy_option)}"
            text = f"{text}; {remedy}"
        return text.replace("\r\n", "\\n").replace("\n", "\\n").replace("\r", "\\r")

    def _fields(self) -> dict:
        """Every field but the problem, as the constructor takes them."""
        return dict(
            parameter=self.parameter,
            method=self.method,
            row=self.row,
            column=self.column,
            remedy=self.remedy,
            remedy_option=self.remedy_option,
            choices=self.choices,
        )

    def reworded(self, problem: str) -> FSEngineError:
        """This error with ``problem`` in place of its own, every other field kept (a
        caller that knows more of the context says it)."""
        return FSEngineError(problem, **self._fields())

    def __reduce__(self):
        """Pickle with every field (worker processes raise these)."""
        return (_rebuild, (self.problem, self._fields()))


def _rebuild(problem: str, fields: dict) -> FSEngineError:
    return FSEngineError(problem, **fields)


def is_integer_in(value, low, high=float("inf")) -> bool:
    """True for an integer (numpy integers included, booleans excluded) with
    ``low <= value <= high``: the check behind every integer parameter's message."""
    import numbers

    return (
        isinstance(value, numbers.Integral) and not isinstance(value, bool) and low <= value <= high
    )
