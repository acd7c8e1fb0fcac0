"""Method specifications: every method's name, citation and parameters, declared once.

A method (an online selector or a ranker) carries one :class:`MethodSpec`. Its
parameters are :class:`Param` objects (:class:`Int`, :class:`Real`, :class:`Choice`,
:class:`Bool`) that know their default, range or choices, one line of help and the
paper equation or code line they come from. Validation, the run record, the command
line's options, the dashboard's widgets, the repeat command line, the trace columns,
the scikit-learn wrapper and the docs' parameter tables are all read from them, in
the manner of scikit-learn's ``_parameter_constraints``.
"""

from __future__ import annotations

import dataclasses
import math
import numbers
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from fsengine.errors import FSEngineError

__all__ = [
    "MAX_SWEEP_VALUES",
    "ONLINE",
    "RANKER",
    "RUN_FLAGS",
    "Bool",
    "Choice",
    "Int",
    "MethodSpec",
    "Param",
    "Real",
    "check_sweep_values",
    "default_sweep_values",
    "parse_sweep_values",
    "sweep_range",
    "sweepable_parameters",
]

#: The command line's flag of each run-level parameter and loader option (a method
#: parameter's flag is its :attr:`Param.cli_flag`): read by the CLI's parser and error
#: messages and by the command that repeats a run
#: (:func:`fsengine.export.writers.select_arguments`).
RUN_FLAGS = {
    "minority": "--minority",
    "label": "--label",
    "transpose": "--transpose",
    "drop_constant": "--drop-constant",
    "samples": "--samples",
    "sample_groups": "--sample-groups",
    "layer": "--layer",
    "gene_names": "--gene-names",
    "method": "--method",
    "order": "--order",
    "seed": "--seed",
    "top": "--top",
    "count_from": "--count-from",
    "orders": "--orders",
    "methods": "--methods",
}

#: The kinds of method: streaming selectors and filter rankers.
ONLINE, RANKER = "online", "ranker"


@dataclass(frozen=True)
class Param:
    """One parameter of a method.

    Attributes
    ----------
    default : object
        The value used when the parameter is not given.
    help : str
        One line: what the parameter does.
    source : str
        Where it comes from (paper equation, algorithm line or the authors' code).
    label : str
        Display name (dashboard widgets, docs); default: the parameter's name.
    when : tuple (name, values), optional
        The parameter applies only when parameter ``name`` has one of ``values``
        (K-OFSD's ``gamma`` only with ``card="weight"``); otherwise it is left out of
        the run record and the dashboard hides it.
    flag : str, optional
        Command-line flag without dashes (default: the name, ``_`` as ``-``).
    name : str
        Set by :class:`MethodSpec` from its key.
    """

    default: Any
    help: str
    source: str = ""
    label: str = ""
    when: tuple[str, tuple] | None = None
    flag: str | None = None
    name: str = ""

    kind = "value"

    def named(self, name: str) -> Param:
        """This parameter under ``name`` (its label defaults to the name)."""
        return dataclasses.replace(self, name=name, label=self.label or name)

    @property
    def cli_flag(self) -> str:
        """The command-line flag: ``--`` + (``flag`` or the name with ``_`` as ``-``)."""
        return "--" + (self.flag or self.name.replace("_", "-"))

    def _error(self, problem: str, method: str | None) -> FSEngineError:
        return FSEngineError(problem, parameter=self.name, method=method)

    def check(self, value, *, method: str | None = None, n_samples: int | None = None):
        """``value`` as the method stores it, or FSEngineError naming the parameter."""
        return value

    def parse(self, text: str):
        """A command-line string as a value of this parameter (ValueError if it is not)."""
        return text

    def range_text(self) -> str:
        """The allowed values, for help and docs."""
        return ""

    def applies(self, params: Mapping[str, Any]) -> bool:
        """Whether this parameter is in effect given the other parameters' values."""
        return self.when is None or params.get(self.when[0]) in self.when[1]


def _is_number(value) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


@dataclass(frozen=True)
class Int(Param):
    """An integer in ``[low, high]``.

    ``high`` may be a function of the number of samples (checked when the labels are
    known), described by ``high_text``; ``none`` allows None (a default computed from
    the data, described by ``none_text``); ``ui_high`` caps dashboard sliders.
    """

    low: int = 1
    high: int | Callable[[int], int] | None = None
    high_text: str = ""
    none: bool = False
    none_text: str = ""
    ui_high: int | None = None

    kind = "int"

    def check(self, value, *, method=None, n_samples=None):
        if value is None and self.none:
            return None
        high = (
            self.high(n_samples)
            if callable(self.high) and n_samples is not None
            else (None if callable(self.high) else self.high)
        )
        if not (
            isinstance(value, numbers.Integral)
            and not isinstance(value, bool)
            and value >= self.low
            and (high is None or value <= high)
        ):
            bound = f"from {self.low} to {high}" if high is not None else f">= {self.low}"
            if high is not None and self.high_text:
                bound += f" ({self.high_text})"
            raise self._error(f"must be an integer {bound}, got {value!r}", method)
        return int(value)

    def parse(self, text: str):
        if self.none and text.strip().lower() in ("", "none", "auto"):
            return None
        return int(text)

    def range_text(self) -> str:
        if self.high is None:
            text = f"integer >= {self.low}"
        elif callable(self.high):
            text = f"integer from {self.low} to {self.high_text}"
        else:
            text = f"integer from {self.low} to {self.high}"
        return text + (f"; none: {self.none_text}" if self.none else "")


@dataclass(frozen=True)
class Real(Param):
    """A real number in an interval (``low_open`` / ``high_open`` exclude the ends)."""

    low: float = -math.inf
    high: float = math.inf
    low_open: bool = False
    high_open: bool = False
    step: float | None = None

    kind = "real"

    def check(self, value, *, method=None, n_samples=None):
        ok = _is_number(value) and not math.isnan(value)
        if ok:
            ok = (value > self.low if self.low_open else value >= self.low) and (
                value < self.high if self.high_open else value <= self.high
            )
        if not ok:
            raise self._error(f"must be a number in {self.range_text()}, got {value!r}", method)
        return float(value)

    def parse(self, text: str):
        return float(text)

    def range_text(self) -> str:
        left = "(" if self.low_open or self.low == -math.inf else "["
        right = ")" if self.high_open or self.high == math.inf else "]"
        return f"{left}{_number_text(self.low)}, {_number_text(self.high)}{right}"


def _number_text(x: float) -> str:
    if x == math.inf:
        return "inf"
    if x == -math.inf:
        return "-inf"
    return f"{x:g}"


@dataclass(frozen=True)
class Choice(Param):
    """One of a fixed set of strings; ``choices`` maps each to one line saying what it is."""

    choices: Mapping[str, str] = field(default_factory=dict)

    kind = "choice"

    def check(self, value, *, method=None, n_samples=None):
        if not isinstance(value, str) or value not in self.choices:
            raise self._error(f"must be one of {', '.join(self.choices)}, got {value!r}", method)
        return value

    def range_text(self) -> str:
        return " | ".join(self.choices)


@dataclass(frozen=True)
class Bool(Param):
    """True or False."""

    kind = "bool"

    def check(self, value, *, method=None, n_samples=None):
        if not isinstance(value, (bool,)) and type(value).__name__ != "bool_":
            raise self._error(f"must be True or False, got {value!r}", method)
        return bool(value)

    def parse(self, text: str):
        lowered = text.strip().lower()
        if lowered in ("true", "yes", "1"):
            return True
        if lowered in ("false", "no", "0"):
            return False
        raise ValueError(text)

    def range_text(self) -> str:
        return "true | false"


@dataclass(frozen=True)
class MethodSpec:
    """Everything the front ends need to know about a method, declared once.

    Attributes
    ----------
    name : str
        The method's name on the command line and in records ("kofsd").
    label : str
        Display name ("K-OFSD").
    citation : str
        The paper (authors, title, venue, year).
    kind : {"online", "ranker"}
    score : str
        What a feature's score means (the selection CSV's ``score`` column).
    set_score : str
        What the selected set's score means (online selectors; the Stream page's curve).
    parameters : dict of str -> Param
        Every parameter, in the order of the constructor (rankers: of the score function).
    actions : dict of str -> str
        Online selectors: each action an event can report and what it means.
    action_codes : dict of str -> int
        Numeric codes of the actions in the authors' trace files, where they have them.
    event : type, optional
        The event dataclass an online selector's step returns.
    columnwise : bool
        Rankers: a feature's score depends on its own column alone (not on the others),
        so a sparse matrix is scored a block of columns at a time, never made dense.
    parametric : bool
        Rankers: the score is built from class means and variances (Fisher, S2N, PCC,
        Welch's t), which assume normalised, roughly symmetric values: on raw counts a few
        cells with large counts (library size) and a class's zero variance (genes it does
        not express) decide the ranking. On raw counts a run of such a ranker is warned
        about (:func:`fsengine.data.preprocess.counts_warning`).
    """

    name: str
    label: str
    citation: str
    kind: str
    score: str
    parameters: dict[str, Param] = field(default_factory=dict)
    set_score: str = ""
    actions: dict[str, str] = field(default_factory=dict)
    action_codes: dict[str, int] = field(default_factory=dict)
    event: type | None = None
    columnwise: bool = False
    parametric: bool = False

    def __post_init__(self):
        named = {name: p.named(name) for name, p in self.parameters.items()}
        for position, p in enumerate(named.values()):
            if p.when is not None and p.when[0] not in list(named)[:position]:
                raise ValueError(
                    f"{self.name}: {p.name} applies when {p.when[0]} ..., which "
                    "must be a parameter declared before it"
                )
        object.__setattr__(self, "parameters", named)

    @property
    def online(self) -> bool:
        """Whether the method is a streaming selector (else a ranker)."""
        return self.kind == ONLINE

    @property
    def short_citation(self) -> str:
        """The citation in a few words: "Zhou et al., 2017" (first author, "et al." for
        several, the first year named), or the citation's first phrase when it does not
        begin with authors (a method known only from its code)."""
        head = self.citation.split(". ", 1)[0].split(";", 1)[0].strip()
        authors = [a.strip() for a in head.split(",")]
        names = all(re.fullmatch(r"[A-Z][\w'-]+( [A-Z][\w'-]+)?( et al)?", a) for a in authors)
        if not names:
            first = re.split(r" \(|,", head, maxsplit=1)[0]
            return first if len(first) <= 40 else first[:39] + "\u2026"
        year = re.search(r"\b(19|20)\d\d\b", self.citation)
        cite = authors[0].removesuffix(" et al")
        cite += " et al." if len(authors) > 1 or head.endswith("et al") else ""
        return f"{cite}, {year.group(0)}" if year else cite

    def defaults(self) -> dict:
        """Every parameter's default."""
        return {name: p.default for name, p in self.parameters.items()}

    def check(self, params: Mapping[str, Any], *, n_samples: int | None = None) -> dict:
        """Every parameter checked, defaults filled in.

        Parameters
        ----------
        params : mapping
            Parameters given by the caller.
        n_samples : int, optional
            Number of samples, for bounds that depend on the data (K <= n - 1).

        Returns
        -------
        dict
            Every parameter's value, in declaration order.

        Raises
        ------
        FSEngineError
            For a parameter the method does not take (``parameter`` names it) or a
            value outside its range or choices.
        """
        values = self.given(params)
        return {
            name: p.check(values[name], method=self.name, n_samples=n_samples)
            for name, p in self.parameters.items()
        }

    def given(self, params: Mapping[str, Any]) -> dict:
        """The parameters as given over the defaults, their values not checked: what a
        selector keeps from its constructor until its run starts and :meth:`check` checks
        them once (as scikit-learn's estimators do at ``fit``).

        Raises
        ------
        FSEngineError
            For a parameter the method does not take (``parameter`` names it).
        """
        unknown = [name for name in params if name not in self.parameters]
        if unknown:
            takes = ", ".join(self.parameters) or "no parameters"
            raise FSEngineError(
                f"is not a parameter of {self.name} (it takes {takes})",
                parameter=unknown[0],
                method=self.name,
            )
        return {**self.defaults(), **params}

    def unused(self, given: Mapping[str, Any]) -> list[str]:
        """Sentences for the parameters in ``given`` that take no effect: set to other
        than their default while the parameter they depend on (``when``) has a value
        they do not apply with (OFS-Density's ``tolerance`` without ``variant="paper"``,
        K-OFSD's ``gamma`` without ``card="weight"``), as scikit-learn warns of
        ``l1_ratio`` without ``penalty="elasticnet"``.

        Parameters
        ----------
        given : mapping
            The parameters a caller set (checked values).

        Returns
        -------
        list of str
            One sentence per such parameter, in declaration order.
        """
        values = {**self.defaults(), **given}
        found = []
        for name, p in self.parameters.items():
            if name in given and given[name] != p.default and not p.applies(values):
                other, allowed = p.when
                shown = " or ".join(repr(v) for v in allowed)
                found.append(
                    f"{name} = {given[name]!r} has no effect: it applies only when {other} "
                    f"is {shown} ({other} is {values[other]!r})"
                )
        return found

    def check_swept(self, parameter: str, params: Mapping[str, Any]) -> None:
        """Refuse a single value for ``parameter`` when it is swept: the one rule of every
        sweep (the library's, the command line's and the Sweep page's).

        Parameters
        ----------
        parameter : str
            The parameter swept.
        params : mapping
            The method's other parameters.

        Raises
        ------
        FSEngineError
            When ``params`` gives ``parameter`` a value, or the method has no such
            parameter.
        """
        if parameter not in self.parameters:
            raise FSEngineError(
                f"is not a parameter of {self.name}; its parameters are "
                f"{', '.join(self.parameters) or 'none'}",
                parameter=parameter,
            )
        if parameter in params:
            raise FSEngineError(
                "is swept: it takes a list of values, not a single value",
                parameter=parameter,
                method=self.name,
                remedy="list them in",
                remedy_option="values",
            )

    def record(self, values: Mapping[str, Any]) -> dict:
        """The parameters in effect for a run's record: those that apply given the others."""
        return {name: values[name] for name, p in self.parameters.items() if p.applies(values)}

    def settings_text(self, values: Mapping[str, Any]) -> str:
        """The parameters in effect as one short line, "k=7, alpha=0.5" ("defaults"
        style is never used: every value is spelled out; "" for no parameters)."""
        return ", ".join(f"{name}={value}" for name, value in self.record(values).items())


#: The most values one parameter sweep takes (each value is one run per split).
MAX_SWEEP_VALUES = 15
#: The widest choice of integers a sweep offers from a parameter's lowest value.
SWEEP_INT_SPAN = 50
#: Multiples of a positive default that a sweep of a real parameter tries first.
_SWEEP_MULTIPLES = (0.1, 0.2, 0.5, 1, 2, 5, 10)


def sweepable_parameters(spec: MethodSpec, values: Mapping[str, Any] | None = None) -> dict:
    """The parameters of ``spec`` a sweep can run over: its numbers (:class:`Int`,
    :class:`Real`), in declaration order.

    Parameters
    ----------
    spec : MethodSpec
    values : mapping, optional
        The method's other parameters. Given, a parameter that does not apply under
        them is left out (K-OFSD's ``gamma`` unless ``card="weight"``): sweeping it
        would change nothing.

    Returns
    -------
    dict of str -> Param
    """
    return {
        name: p
        for name, p in spec.parameters.items()
        if p.kind in (Int.kind, Real.kind) and (values is None or p.applies(values))
    }


def sweep_range(param: Param, n_samples: int | None = None) -> tuple[int, int]:
    """The integers a sweep of integer parameter ``param`` may choose from.

    From its lowest value to the smallest of its highest (given ``n_samples``, for a
    bound that depends on the data), its dashboard cap ``ui_high`` and
    ``low + SWEEP_INT_SPAN - 1``.

    Raises
    ------
    ValueError
        For a parameter that is not an :class:`Int`.
    """
    if param.kind != Int.kind:
        raise ValueError(f"{param.name} is not an integer parameter")
    high = param.high
    if callable(high):
        high = high(n_samples) if n_samples is not None else None
    candidates = [param.low + SWEEP_INT_SPAN - 1]
    candidates += [h for h in (high, param.ui_high) if h is not None]
    return param.low, max(param.low, min(candidates))


def default_sweep_values(param: Param, n_samples: int | None = None) -> list:
    """Values a sweep of ``param`` starts with, ascending, all within its range.

    - An integer: its first ten values from :func:`sweep_range` (K-OFSD's K: 1..10).
    - A real whose default is not in the lowest tenth of a bounded interval (K-OFSD's
      alpha in [0, 1]): eleven evenly spaced values across it, open ends left out.
    - Another real with a positive default (significance levels, Alpha-investing's
      wealth): the default times 0.1, 0.2, 0.5, 1, 2, 5 and 10, those in its range.
    - Otherwise: the default plus 0, 0.1, 0.2, 0.5, 1, 2, 5 and 10, those in its range.

    Raises
    ------
    ValueError
        For a parameter that is not a number (see :func:`sweepable_parameters`).
    """
    if param.kind == Int.kind:
        low, high = sweep_range(param, n_samples)
        return list(range(low, min(high, low + 9) + 1))
    if param.kind != Real.kind:
        raise ValueError(f"{param.name} is not a number")
    default = float(param.default)
    width = param.high - param.low
    if math.isfinite(width) and width > 0 and default >= param.low + width / 10:
        candidates = [param.low + width * i / 10 for i in range(11)]
    elif default > 0:
        candidates = [default * m for m in _SWEEP_MULTIPLES]
    else:
        candidates = [default + m for m in (0, *_SWEEP_MULTIPLES)]
    values = []
    for x in candidates:
        x = float(f"{x:.10g}")  # 0.30000000000000004 -> 0.3
        try:
            values.append(param.check(x))
        except FSEngineError:
            continue
    return sorted(set(values))


def parse_sweep_values(
    param: Param, text: str, *, method: str | None = None, n_samples: int | None = None
) -> list:
    """The values of ``param`` written in ``text``, comma-separated ("0.01, 0.05"),
    each checked by the parameter; ascending, each once.

    Parameters
    ----------
    param : Param
    text : str
        Values separated by commas, semicolons or spaces.
    method : str, optional
        The method's name, for the error.
    n_samples : int, optional
        For bounds that depend on the data.

    Returns
    -------
    list

    Raises
    ------
    FSEngineError
        Naming the parameter, the value at fault and the allowed range; also for no
        value and for more than :data:`MAX_SWEEP_VALUES` values.
    """
    tokens = text.replace(";", " ").replace(",", " ").split()
    values = []
    for token in tokens:
        try:
            value = param.parse(token)
        except ValueError:
            allowed = param.range_text()
            allowed = f"an {allowed}" if param.kind == Int.kind else f"a number in {allowed}"
            raise FSEngineError(
                f"must be {allowed}, got {token!r}",
                parameter=param.name,
                method=method,
            ) from None
        values.append(value)
    return check_sweep_values(param, values, method=method, n_samples=n_samples)


def check_sweep_values(
    param: Param, values, *, method: str | None = None, n_samples: int | None = None
) -> list:
    """``values`` of ``param`` for one sweep: each checked by the parameter, ascending,
    each once.

    Raises
    ------
    FSEngineError
        Naming the parameter, the value at fault and the allowed range; also for no
        value and for more than :data:`MAX_SWEEP_VALUES` values.
    """
    values = list(values)
    if any(v is None for v in values):  # an Int with none=True: a value from the data
        raise FSEngineError(
            f"sweeps numbers ({param.range_text()}), got None", parameter=param.name, method=method
        )
    checked = sorted({param.check(v, method=method, n_samples=n_samples) for v in values})
    if not checked:
        raise FSEngineError(
            f"needs at least one value to sweep ({param.range_text()})",
            parameter=param.name,
            method=method,
        )
    if len(checked) > MAX_SWEEP_VALUES:
        raise FSEngineError(
            f"takes at most {MAX_SWEEP_VALUES} values in one sweep, got {len(checked)}",
            parameter=param.name,
            method=method,
        )
    return checked
