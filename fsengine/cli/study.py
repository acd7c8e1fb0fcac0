"""The ``benchmark`` command: a whole study from its manifest, on Dask or serially."""

from __future__ import annotations

import sys
from pathlib import Path

from fsengine._compute.progress import logged_progress, terminal_progress
from fsengine.errors import FSEngineError

#: The manifest's keys of a ``[[dataset]]`` table that an error may name.
DATASET_KEYS = ("label", "minority", "sample_groups", "preprocessing")

__all__ = ["cmd_benchmark"]


def cmd_benchmark(args) -> None:
    """The ``benchmark`` command: the study of a manifest run on Dask or serially (resumable
    from its journal), its table written, each metric's ranks and tests reported."""
    from fsengine.evaluation.benchmark import compare_study, journal_path, read_journal, run_study
    from fsengine.evaluation.study import load_manifest

    study = load_manifest(args.manifest)
    manifest = Path(args.manifest)
    out = Path(args.out) if args.out else manifest.with_name(manifest.stem + "_results")
    try:
        table = run_study(
            study,
            out,
            resume=args.resume,
            progress=terminal_progress() or logged_progress(),
            engine="serial" if args.serial else "dask",
            scheduler=args.scheduler,
            n_jobs=args.jobs,
        )
    except FSEngineError as exc:
        raise _in_manifest_words(exc, args.manifest, study) from None
    except KeyboardInterrupt:
        kept = len(read_journal(journal_path(out)))
        raise KeyboardInterrupt(
            f"{kept} of {study.n_tasks} tasks are kept in {journal_path(out)}: "
            "continue with --resume"
        ) from None
    lines = [
        f"{len(study.datasets)} data sets x {len(study.methods)} methods x {study.splits} "
        f"splits (seed {study.seed}): {len(table)} tasks; table in "
        f"{out.with_suffix('.parquet')} and {out.with_suffix('.csv')}"
    ]
    for metric, result in compare_study(table, study).items():
        lines.append(
            f"\n{metric}: Friedman chi2 {result.friedman_chi2:.3f} (p {result.friedman_p:.3g}), "
            f"Iman-Davenport F {result.iman_davenport_f:.3f} (p {result.iman_davenport_p:.3g}), "
            f"Nemenyi CD {result.critical_difference:.3f} at alpha {result.alpha:g}"
        )
        lines += [
            f"  {row['method']:<16} average rank {row['average_rank']:.3f}  "
            f"mean {row[f'mean_{metric}']:.4g}"
            for row in result.rank_table()
        ]
    sys.stdout.write("\n".join(lines) + "\n")


def _in_manifest_words(error: FSEngineError, manifest: str, study) -> FSEngineError:
    """``error`` of a study's run with its parameter named where the manifest sets it
    (``study.toml [study.params.kofsd] k``, ``[[dataset]] minority``, ``[study] top``),
    not as a command-line flag ``benchmark`` does not take; a method's default names the
    table to set it in."""
    if error.parameter is None:
        return error
    if error.method is None:  # a data set's option or the protocol's
        section = "[[dataset]]" if error.parameter in DATASET_KEYS else "[study]"
        remedy = error.remedy
        if remedy and error.remedy_option:
            where = "[[dataset]]" if error.remedy_option in DATASET_KEYS else "[study]"
            remedy = f"{remedy} {where} {error.remedy_option}"
        return FSEngineError(
            f"{manifest} {section} {error.parameter}: {error.problem}", remedy=remedy
        )
    section = f"[study.params.{error.method}]"
    if error.method in study.params:
        return FSEngineError(f"{manifest} {section} {error.parameter}: {error.problem}")
    counts = error.method not in study.methods  # the count_from method, on its defaults
    role = " (it counts the rankers' features)" if counts else ""
    return FSEngineError(
        f"{manifest}: {error.method}{role}, by default, {error.parameter} {error.problem}",
        remedy=f"set {error.parameter} in {section}"
        + (" or the rankers' number of features, [study] top" if counts else ""),
    )
