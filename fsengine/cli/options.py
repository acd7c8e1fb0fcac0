"""Command-line options computed from the method specifications, and their parsing.

Every method parameter's flag comes from its :class:`fsengine.spec.Param`; a flag that
several methods share is one option (:func:`method_options`). The given options are routed
to the methods they apply to (:func:`method_params`, :func:`params_per_method`).
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass

from fsengine.data.preprocess import PREPROCESSING
from fsengine.errors import FSEngineError
from fsengine.methods.registry import METHODS, ONLINE_METHODS, REGISTRY
from fsengine.spec import RUN_FLAGS, Param

__all__ = [
    "MethodOption",
    "Parser",
    "add_backed_option",
    "add_data_options",
    "add_method_options",
    "add_protocol_options",
    "cli_words",
    "int_range",
    "method_options",
    "method_params",
    "name_list",
    "params_per_method",
    "preprocess_params",
    "values_of",
]


class Parser(argparse.ArgumentParser):
    """argparse with one-line errors (argparse prints the usage block by default)."""

    def error(self, message):
        raise FSEngineError(f"{message} (see {self.prog} --help)")


def add_data_options(p: argparse.ArgumentParser) -> None:
    """Add to ``p`` the options of every command that reads a data set: the file, its label
    column, ``--transpose``, ``--drop-constant``, the preprocessing steps, the sample groups,
    a sample sheet, and an AnnData file's layer and gene names."""
    p.add_argument(
        "data",
        metavar="DATA",
        help="CSV, TSV, gzip-compressed CSV/TSV, Parquet, GEO series matrix or AnnData "
        "(.h5ad) file; samples in rows",
    )
    p.add_argument(
        "--label",
        metavar="COL",
        help="label column (default: a column named label/class/target, any case; "
        "else the last non-numeric column; else the last column)",
    )
    p.add_argument(
        "--transpose",
        action="store_true",
        help="the file has genes in rows and samples in columns (first column = "
        "gene names, one row = the labels)",
    )
    p.add_argument(
        "--drop-constant",
        action="store_true",
        help="drop features that have one value over all samples",
    )
    for param in PREPROCESSING.parameters.values():
        p.add_argument(
            param.cli_flag,
            dest=f"preprocess_{param.name}",
            type=param.parse,
            choices=list(param.choices) if hasattr(param, "choices") else None,
            metavar=None if hasattr(param, "choices") else "X",
            help=f"preprocessing: {param.help} ({param.range_text()}; default: nothing done)",
        )
    p.add_argument(
        RUN_FLAGS["sample_groups"],
        metavar="COL",
        help="the column (or sample line / obs column) naming each sample's patient, donor "
        "or batch: not a feature, and the 50/50 splits keep each group on one side",
    )
    p.add_argument(
        RUN_FLAGS["samples"],
        metavar="FILE",
        help="a sample sheet (CSV, TSV or Parquet, one row per sample) holding the class: "
        "DATA is then numbers only, with the sample identifiers as its first column or as "
        "its header (genes in rows: found from the sheet's identifiers); --label names the "
        "sheet's class column",
    )
    p.add_argument(
        RUN_FLAGS["layer"],
        metavar="NAME",
        help="AnnData files: read the matrix from this layers entry (raw counts, say) instead of X",
    )
    p.add_argument(
        RUN_FLAGS["gene_names"],
        metavar="COL",
        help="AnnData files: name the genes by this var column (gene symbols, say) instead "
        "of var_names",
    )


def add_backed_option(p: argparse.ArgumentParser) -> None:
    """``--backed`` / ``--no-backed``: an AnnData file's matrix left on disk, read a block of
    genes at a time (the commands whose methods need no more: info, select, stability)."""
    p.add_argument(
        "--backed",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="AnnData files (.h5ad) and Zarr stores: leave the matrix on disk and read it a "
        "block of genes at a time, in bounded memory (a CSR matrix is first copied gene by "
        "gene to a temporary folder); --no-backed reads it into memory. Default: backed "
        "when the matrix in memory would take more than 1 GiB or a quarter of the "
        "available memory",
    )


def preprocess_params(args) -> dict:
    """The preprocessing options given on the command line (:data:`PREPROCESSING`)."""
    return {
        name: getattr(args, f"preprocess_{name}")
        for name in PREPROCESSING.parameters
        if getattr(args, f"preprocess_{name}", None) is not None
    }


def cli_words(name: str) -> str:
    """The command line's flag for a library parameter or option named in an error."""
    if name in RUN_FLAGS:
        return RUN_FLAGS[name]
    if name in PREPROCESSING.parameters:
        return PREPROCESSING.parameters[name].cli_flag
    for method in REGISTRY.values():
        if name in method.spec.parameters:
            return method.spec.parameters[name].cli_flag
    return "--" + name.replace("_", "-")


@dataclass(frozen=True)
class MethodOption:
    """One command-line flag of the method parameters, computed from the specs: the
    parameters (method name -> Param) that share it."""

    flag: str
    params: dict[str, Param]

    @property
    def dest(self) -> str:
        return "param_" + self.flag[2:].replace("-", "_")

    @property
    def methods(self) -> tuple[str, ...]:
        return tuple(self.params)

    def keywords(self) -> dict:
        """argparse keywords: type or choices, and a help computed from the specs."""
        first = next(iter(self.params.values()))
        kinds = {p.kind for p in self.params.values()}
        if len(kinds) > 1:
            raise RuntimeError(f"{self.flag} has parameters of different kinds: {kinds}")
        keywords: dict = {"default": None}
        if first.kind == "choice":
            keywords["choices"] = list(
                dict.fromkeys(c for p in self.params.values() for c in p.choices)
            )
        elif first.kind == "bool":
            keywords["action"] = argparse.BooleanOptionalAction
        else:
            keywords["type"] = _parser_of(first)
            keywords["metavar"] = first.name.upper()
        helps = list(dict.fromkeys(p.help for p in self.params.values()))
        if len(helps) == 1:
            text = helps[0]
        else:
            text = "; ".join(f"{m}: {p.help}" for m, p in self.params.items())
        if first.kind == "choice":
            described = {c: d for p in self.params.values() for c, d in p.choices.items()}
            text += " (" + "; ".join(f"{c} = {d}" for c, d in described.items()) + ")"
        by_default: dict[str, list[str]] = {}
        for m, p in self.params.items():
            shown = p.none_text if getattr(p, "none", False) and p.default is None else p.default
            by_default.setdefault(str(shown), []).append(m)
        if len(by_default) == 1:
            text += f" (default: {next(iter(by_default))})"
        else:
            text += (
                " (default: "
                + "; ".join(f"{d} for {', '.join(ms)}" for d, ms in by_default.items())
                + ")"
            )
        keywords["help"] = text.replace("%", "%%") + f" [--method {'|'.join(self.methods)}]"
        return keywords


def _parser_of(param: Param):
    """argparse ``type=`` for a parameter: its ``parse``, with argparse's message."""

    def parse(text: str):
        try:
            return param.parse(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{text!r} is not a valid {param.range_text()}"
            ) from None

    parse.__name__ = param.kind
    return parse


def method_options() -> list[MethodOption]:
    """Every method parameter's flag, computed from the registry: a flag that several
    methods' parameters share is one option (``--bins`` for cie-osfs, hellinger, mi, d-mi)."""
    flags: dict[str, dict[str, Param]] = {}
    for name, method in REGISTRY.items():
        for param in method.spec.parameters.values():
            flags.setdefault(param.cli_flag, {})[name] = param
    return [MethodOption(flag, params) for flag, params in flags.items()]


def add_method_options(
    p: argparse.ArgumentParser, rankers: bool = True, single: bool = True, default: str = "kofsd"
) -> None:
    """--minority and --method (when ``single``) and every method's own options but
    those whose flag the command defines itself (``--seed``, ``--top``)."""
    methods = list(METHODS) if rankers else list(ONLINE_METHODS)
    if single:
        p.add_argument(
            "--minority",
            metavar="CLASS",
            help="the rare class to select for (one versus rest); '2' matches a numeric label 2 "
            "(default: the smallest class the 50/50 protocol can use, with 4 samples or "
            "more, else the smallest; as in the library and the dashboard)",
        )
        p.add_argument(
            "--method",
            choices=methods,
            default=default,
            metavar="METHOD",
            help="selection method: "
            + ", ".join(methods)
            + f" (default: {default}; see `methods`)",
        )
    own = set(p._option_string_actions)
    groups: dict[str, argparse._ArgumentGroup] = {}
    for option in method_options():
        if option.flag in own or not any(m in methods for m in option.methods):
            continue
        if len(option.methods) == 1:
            spec = REGISTRY[option.methods[0]].spec
            title = f"{spec.label} ({spec.name}) options"
        else:
            title = "options of several methods"
        if title not in groups:
            groups[title] = p.add_argument_group(title)
        groups[title].add_argument(option.flag, dest=option.dest, **option.keywords())


def _given_options(args):
    """(option, value) of each method option given on the command line."""
    for option in method_options():
        value = getattr(args, option.dest, None)
        if value is not None:
            yield option, value


def params_per_method(args, methods: list[str]) -> dict[str, dict]:
    """Each given method option routed to every listed method it applies to."""
    params: dict[str, dict] = {}
    for option, value in _given_options(args):
        targets = [m for m in methods if m in option.params]
        if not targets:
            raise FSEngineError(
                f"{option.flag} applies to {'|'.join(option.methods)}, none "
                f"of which is in --methods {','.join(methods)}"
            )
        for m in targets:
            params.setdefault(m, {})[option.params[m].name] = value
    for m, given in params.items():  # what can be checked before the data are read
        REGISTRY[m].spec.check(given)
    return params


def method_params(args, method: str | None = None) -> dict:
    """The options given that apply to the chosen method; one that does not is an error."""
    method = method or args.method
    params = {}
    for option, value in _given_options(args):
        if method not in option.params:
            raise FSEngineError(
                f"{option.flag} applies to --method {'|'.join(option.methods)}, not {method}"
            )
        params[option.params[method].name] = value
    REGISTRY[method].spec.check(params)  # what can be checked before the data are read
    return params


def name_list(text: str) -> list[str]:
    """'a,b,c' as a list of names (an argparse type); an empty list is refused."""
    names = [t.strip() for t in text.split(",") if t.strip()]
    if not names:
        raise argparse.ArgumentTypeError("give at least one name")
    return names


def int_range(text: str) -> list[int]:
    """'1..10', '3,5,7' or '7' as a list of integers."""
    try:
        if ".." in text:
            low, high = (int(t) for t in text.split("..", 1))
            values = list(range(low, high + 1))
        else:
            values = [int(t) for t in text.split(",") if t.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a range like 1..10 or 3,5,7") from None
    if not values:
        raise argparse.ArgumentTypeError(f"{text!r} is an empty range")
    return values


def add_protocol_options(p: argparse.ArgumentParser) -> None:
    """Add to ``p`` the options of the evaluation protocol's commands: ``--minority``,
    ``--splits``, ``--seed`` and ``--jobs``."""
    p.add_argument(
        "--minority",
        metavar="CLASS",
        help="the rare class (one versus rest); '2' matches a numeric label 2 (default: the "
        "smallest class, as in the library and the dashboard)",
    )
    p.add_argument(
        "--splits",
        type=int,
        default=20,
        metavar="R",
        help="random stratified 50/50 splits (default: 20)",
    )
    p.add_argument(
        "--seed", type=int, default=0, metavar="N", help="seed of the splits (default: 0)"
    )
    p.add_argument(
        "--jobs",
        type=int,
        default=None,
        metavar="N",
        help="worker processes for the splits (default: every available core; "
        "1 = serial); the results are the same whatever N",
    )


def values_of(param: Param, texts: list[str]) -> list:
    """--values as the parameter's values ('1..10' for an integer parameter)."""
    values = []
    for text in texts:
        if param.kind == "int" and ".." in text:
            values += int_range(text)
            continue
        try:
            values.append(param.parse(text))
        except ValueError:
            raise FSEngineError(
                f"--values: {text!r} is not a valid {param.range_text()} for {param.cli_flag}"
            ) from None
    return values
