"""The session's work on the current data set as report sections (:mod:`fsengine.export.report`):
every comparison, sweep, finished stream and exported selection, each with its parameters,
protocol, results table, figures and CSVs, from the same functions the pages draw with."""

from __future__ import annotations

from dashboard import session, streams
from dashboard.pages import BY_NAME
from fsengine.export.report import ReportSection
from fsengine.export.writers import (
    events_to_csv,
    records_to_csv,
    selection_rows,
    selection_to_csv,
    summary_frame,
)
from fsengine.methods.registry import METHOD_LABELS, get_method
from fsengine.pl.figures import (
    comparison_figure,
    jaccard_figure,
    k_sweep_figure,
    sweep_figure,
    topk_sweep_figure,
)


def _protocol(params: dict) -> dict:
    return {
        "splits": params.get("splits"),
        "seed": params.get("seed"),
        "design": "random stratified 50/50 splits; selection and training on one half, "
        "G-mean / F1 / AUC on the other",
    }


def report_sections() -> list[ReportSection]:
    """Every result of this session on the current data set and minority class: its
    comparisons, sweeps (of K, of a parameter, of top-k), the finished stream and the
    selections computed on the Export page, in that order."""
    return [
        *_comparison_sections(),
        *_k_sweep_sections(),
        *_value_sweep_sections(),
        *_top_sweep_sections(),
        *_stream_section(),
        *_selection_sections(),
    ]


def _comparison_sections() -> list[ReportSection]:
    sections = []
    for i, result in enumerate(session.current_results(BY_NAME["compare"].results["compare"]), 1):
        evaluation = result["evaluation"]
        settings = evaluation.params["settings"]
        summary = evaluation.summary()
        top = evaluation.params.get("top")
        sections.append(
            ReportSection(
                title=f"Comparison {i}",
                text="Rankers keep "
                + (
                    f"their top {top} features."
                    if top
                    else "as many features as K-OFSD "
                    "selected on the same split (the K-OFSD paper's rule)."
                )
                + " Means and standard deviations over the splits, on the test halves.",
                params={**_protocol(evaluation.params), "methods": settings},
                table=summary_frame(summary, settings),
                figures=[
                    comparison_figure(summary, "G-mean on the test halves", labels=METHOD_LABELS),
                    jaccard_figure(
                        list(result["selections"]),
                        [set(s) for s in result["selections"].values()],
                        labels=METHOD_LABELS,
                    ),
                ],
                csv={
                    f"comparison_{i}_records.csv": records_to_csv(
                        evaluation.records, ("method", "split")
                    )
                },
            )
        )
    return sections


def _k_sweep_sections() -> list[ReportSection]:
    sections = []
    for i, result in enumerate(session.current_results(BY_NAME["sweep"].results["sweep-k"]), 1):
        summary = result.summary(("k",))
        sections.append(
            ReportSection(
                title=f"K sweep {i}",
                text="K-OFSD over K; every K from one sorted pass per split.",
                params={
                    **_protocol(result.params),
                    "K": result.params.get("ks"),
                    "other parameters": result.params.get("params"),
                },
                table=summary_frame(
                    [{**row, "method": f"K = {row['k']}"} for row in summary], key="method"
                ),
                figures=[k_sweep_figure(summary)],
                csv={f"sweep_k_{i}_records.csv": records_to_csv(result.records, ("k", "split"))},
            )
        )
    return sections


def _value_sweep_sections() -> list[ReportSection]:
    sections = []
    for i, result in enumerate(
        session.current_results(BY_NAME["sweep"].results["sweep-values"]), 1
    ):
        method, parameter = result.params["method"], result.params["parameter"]
        spec = get_method(method).spec
        summary = result.summary((parameter,))
        sections.append(
            ReportSection(
                title=f"{spec.label} {parameter} sweep {i}",
                text=f"{spec.label} over {parameter}; every other parameter fixed.",
                params={
                    **_protocol(result.params),
                    "method": method,
                    parameter: result.params.get("values"),
                    "other parameters": result.params.get("params"),
                },
                table=summary_frame(
                    [{**row, "method": f"{parameter} = {row[parameter]}"} for row in summary],
                    key="method",
                ),
                figures=[sweep_figure(summary, parameter, spec.parameters[parameter].label)],
                csv={
                    f"sweep_{method}_{parameter}_{i}_records.csv": records_to_csv(
                        result.records, (parameter, "split")
                    )
                },
            )
        )
    return sections


def _top_sweep_sections() -> list[ReportSection]:
    sections = []
    for i, result in enumerate(session.current_results(BY_NAME["sweep"].results["sweep-top"]), 1):
        summary = result.summary(("method", "top"))
        sections.append(
            ReportSection(
                title=f"Top-k sweep {i}",
                params={
                    **_protocol(result.params),
                    "top-k": result.params.get("tops"),
                    "methods": result.params.get("settings"),
                },
                table=summary_frame(
                    [{**row, "method": f"{row['method']} top {row['top']}"} for row in summary]
                ),
                figures=[topk_sweep_figure(summary, labels=METHOD_LABELS)],
                csv={
                    f"sweep_top_{i}_records.csv": records_to_csv(
                        result.records, ("method", "top", "split")
                    )
                },
            )
        )
    return sections


def _fallback_sentence(selection) -> str:
    """The pages' sentence saying a selection is its method's fallback ("" when it is not)."""
    return selection.fallback_text(METHOD_LABELS.get(selection.method, selection.method)) or ""


def _selection_table(selection) -> list[dict]:
    return [
        {k: row[k] for k in ("rank", "feature", "score", "status")}
        for row in selection_rows(selection)
    ]


def _stream_section() -> list[ReportSection]:
    """The finished stream of the Stream page (none while it streams)."""
    stream = streams.current()
    live = stream.live if stream is not None else None
    if live is None or not live.done:
        return []
    selection = live.selection()
    spec = get_method(live.method).spec
    fallback = _fallback_sentence(selection)
    return [
        ReportSection(
            title="Stream",
            text=f"{spec.label} over all {live.total} features in {live.order_name} order "
            "on all samples (the command line's selection)." + (f" {fallback}" if fallback else ""),
            params={
                "method": live.method,
                **spec.record(live.params),
                "order": live.order_name,
                "seed": live.seed,
            },
            table=_selection_table(selection),
            csv={
                "stream_selected.csv": selection_to_csv(selection),
                "stream_events.csv": events_to_csv(live.events, live.method),
            },
        )
    ]


def _selection_sections() -> list[ReportSection]:
    """The selections computed on the Export page for this data set and minority class."""
    results = session.state.export_results_shown(session.current())
    return [
        ReportSection(
            title=f"Selection: {METHOD_LABELS.get(method, method)}",
            text=_fallback_sentence(result.selection),
            params=result.params,
            table=_selection_table(result.selection),
            csv={f"{method}_selected.csv": selection_to_csv(result.selection)},
        )
        for (minority, method, _top, _params), result in results.items()
        if minority == session.state.minority
    ]
