"""The ``methods`` command and the generated method reference (docs/METHODS.md)."""

from __future__ import annotations

import json
import sys

from fsengine.methods.registry import method_descriptions

__all__ = ["cmd_methods", "methods_markdown"]


def _md_cell(text: str) -> str:
    """Text for a Markdown table cell: a ``|`` would end the cell, so it is escaped."""
    return str(text).replace("|", "\\|")


def methods_markdown() -> str:
    """Every method's parameter table in Markdown: docs/METHODS.md, generated from the
    specs (``python -m fsengine methods --markdown > docs/METHODS.md``; a test checks it)."""
    lines = [
        "# Methods and their parameters",
        "",
        "Generated from the method specifications by `python -m fsengine methods "
        "--markdown`; do not edit by hand (a test compares this file with the specs).",
        "",
        "Counts (single-cell UMIs, RNA-seq reads): normalise and log-transform them first, "
        "as scanpy users do (`normalize_total`, then `log1p`): `--transform log1p-cpm` (or "
        "`log-cpm`). The rankers whose entry says they assume normalised values score a "
        "gene by class means and variances; on raw counts a few cells with many counts and "
        "a class's zero variance (genes it does not express) decide their ranking, and a "
        "run warns.",
        "",
    ]
    for m in method_descriptions():
        lines += [
            f"## `{m['name']}`: {m['label']} ({m['kind']})",
            "",
            m["citation"] + ".",
            "",
            f"Score of a feature: {m['score']}.",
        ]
        if m["set_score"]:
            lines.append(f"Score of the selected set: {m['set_score']}.")
        lines.append(f"A sparse matrix (scipy CSR/CSC) is {m['sparse_input']}.")
        if m["assumes_normalised"]:
            lines.append(
                "It assumes normalised values: a parametric score (class means and variances);"
                " normalise and log-transform counts first (a run on raw counts warns)."
            )
        if m["actions"]:
            lines += ["", "| action | meaning |", "|---|---|"]
            lines += [f"| `{a}` | {_md_cell(d)} |" for a, d in m["actions"].items()]
            lines += [
                "",
                "Trace columns of its own: "
                + (", ".join(f"`{c}`" for c in m["trace_columns"]) or "none")
                + ".",
            ]
        lines.append("")
        if m["parameters"]:
            lines += [
                "| parameter | flag | values | default | what it does | source |",
                "|---|---|---|---|---|---|",
            ]
            for p in m["parameters"]:
                when = "".join(
                    f" (only with `{k}={'|'.join(v)}`)"
                    for k, v in (p["applies_when"] or {}).items()
                )
                values = p["range"].replace(" | ", ", ")
                lines.append(
                    f"| `{p['name']}` | `{p['flag']}` | {_md_cell(values)} | "
                    f"`{p['default']}` | {_md_cell(p['help'] + when)} | {_md_cell(p['source'])} |"
                )
        else:
            lines.append("No parameters.")
        lines.append("")
    return "\n".join(lines)


def cmd_methods(args) -> None:
    """The ``methods`` command: every method's name, citation, score and parameters, as
    text, JSON (``--json``) or the Markdown of docs/METHODS.md (``--markdown``)."""
    if args.markdown:
        sys.stdout.write(methods_markdown())
        return
    described = method_descriptions()
    if args.json:
        sys.stdout.write(json.dumps(described, indent=2) + "\n")
        return
    lines = []
    for m in described:
        lines.append(f"{m['name']}  {m['label']} ({m['kind']})")
        lines.append(f"    {m['citation']}")
        lines.append(f"    score: {m['score']}")
        if m["set_score"]:
            lines.append(f"    set score: {m['set_score']}")
        if m["actions"]:
            lines.append("    actions: " + ", ".join(m["actions"]))
        for p in m["parameters"]:
            when = "".join(
                f"; only with {k}={'|'.join(v)}" for k, v in (p["applies_when"] or {}).items()
            )
            lines.append(
                f"    {p['flag']} {p['range']} (default: {p['default']}): "
                f"{p['help']}{when} [{p['source']}]"
            )
        lines.append("")
    sys.stdout.write("\n".join(lines))
