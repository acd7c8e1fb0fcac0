"""Running a study: the records equal evaluate's; an interrupted study resumes with only the
missing tasks and ends with the same table."""

import io
import os

import pandas as pd
import pytest

from conftest import GLIOMA, SAMPLE
from fsengine import load_dataset
from fsengine.errors import FSEngineError
from fsengine.evaluation import evaluate
from fsengine.evaluation.benchmark import journal_path, read_journal, run_study, study_tasks
from fsengine.evaluation.study import load_manifest

METHODS = ["kofsd", "fisher", "alpha-investing"]


@pytest.fixture
def study(tmp_path):
    path = tmp_path / "study.toml"
    path.write_text(
        f"""
[study]
methods = {METHODS!r}
splits = 3
seed = 4

[[dataset]]
path = "{os.path.relpath(SAMPLE, tmp_path)}"
minority = "2"

[[dataset]]
path = "{os.path.relpath(GLIOMA, tmp_path)}"
minority = "2"
""".replace("'", '"')
    )
    return load_manifest(path)


def without_seconds(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.drop(columns="seconds").reset_index(drop=True)


def test_records_equal_evaluate(study, tmp_path):
    table = run_study(study, tmp_path / "out" / "study", engine="serial")
    assert list(zip(table.dataset, table.method, table.split)) == study_tasks(study)
    for name, source in (("SRBCT", SAMPLE), ("GLIOMA", GLIOMA)):
        expected = evaluate(load_dataset(source), "2", METHODS, n_splits=3, seed=4, n_jobs=1)
        mine = table[table.dataset == name].drop(columns="dataset")
        theirs = pd.DataFrame(expected.records)[list(mine.columns)]
        theirs = theirs.sort_values(
            ["method", "split"],
            key=lambda c: c.map({m: i for i, m in enumerate(METHODS)}) if c.name == "method" else c,
        )
        pd.testing.assert_frame_equal(without_seconds(mine), without_seconds(theirs))
    saved = pd.read_parquet(tmp_path / "out" / "study.parquet")
    pd.testing.assert_frame_equal(saved, table)
    assert len(pd.read_csv(tmp_path / "out" / "study.csv")) == study.n_tasks


def test_an_interrupted_study_resumes_with_only_the_missing_tasks(study, tmp_path):
    out = tmp_path / "study"
    calls = []

    def stop_after_five(done, total, message):
        calls.append(message)
        if len(calls) == 5:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_study(study, out, progress=stop_after_five, engine="serial")
    assert len(read_journal(journal_path(out))) == 5
    with open(journal_path(out), "a") as journal:
        journal.write('{"dataset": "SRBCT", "meth')  # a line cut by the interruption
    with pytest.raises(FSEngineError, match="resume"):
        run_study(study, out, engine="serial")
    seen = []
    table = run_study(
        study, out, resume=True, progress=lambda d, t, m: seen.append((d, t)), engine="serial"
    )
    assert seen[0] == (6, study.n_tasks) and seen[-1] == (study.n_tasks, study.n_tasks)
    assert len(seen) == study.n_tasks - 5
    assert len(read_journal(journal_path(out))) == study.n_tasks  # the cut line is gone
    fresh = run_study(study, tmp_path / "fresh", engine="serial")
    pd.testing.assert_frame_equal(without_seconds(table), without_seconds(fresh))


def test_a_journal_of_another_protocol_is_refused(study, tmp_path):
    from dataclasses import replace

    out = tmp_path / "study"

    def stop(done, total, message):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_study(study, out, progress=stop, engine="serial")
    with pytest.raises(FSEngineError, match="another version of this study"):
        run_study(replace(study, seed=5), out, resume=True, engine="serial")


def test_the_benchmark_command(study, tmp_path, capsys):
    from fsengine.cli import main
    from fsengine.evaluation.benchmark import compare_study
    from fsengine.evaluation.statistics import compare_methods

    manifest = next(tmp_path.glob("*.toml"))
    assert main(["benchmark", str(manifest), "--out", str(tmp_path / "res")]) == 0
    shown = capsys.readouterr().out
    table = pd.read_parquet(tmp_path / "res.parquet")
    assert len(table) == study.n_tasks
    results = compare_study(table, study)
    means = table.pivot_table(index="dataset", columns="method", values="gmean_1nn")
    expected = compare_methods(
        means.loc[["SRBCT", "GLIOMA"], METHODS].to_numpy(), METHODS, ["SRBCT", "GLIOMA"]
    )
    assert results["gmean_1nn"].friedman_chi2 == expected.friedman_chi2
    assert f"gmean_1nn: Friedman chi2 {expected.friedman_chi2:.3f}" in shown
    assert main(["benchmark", str(manifest), "--out", str(tmp_path / "res")]) == 2
    assert "resume" in capsys.readouterr().err
    assert (
        main(["benchmark", str(manifest), "--out", str(tmp_path / "res"), "--resume", "--serial"])
        == 0
    )


def test_a_bad_manifest_is_one_line_and_status_2(tmp_path, capsys):
    from fsengine.cli import main

    bad = tmp_path / "bad.toml"
    bad.write_text('[study]\nmethods = ["kofsd"]\nsplits = "many"\n')
    assert main(["benchmark", str(bad)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "splits: must be a positive integer" in err


def test_a_journal_of_other_data_is_refused_and_given_data_is_used(study, tmp_path):
    from dataclasses import replace

    from fsengine.evaluation.benchmark import read_study_data

    data = read_study_data(study)
    out = tmp_path / "study"

    def stop(done, total, message):
        if done == 10:  # one record of GLIOMA
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_study(study, out, progress=stop, engine="serial", data=data)
    changed = dict(data, GLIOMA=replace(data["GLIOMA"], X=data["GLIOMA"].X.round(1)))
    with pytest.raises(FSEngineError, match="the data set GLIOMA differ"):
        run_study(study, out, resume=True, engine="serial", data=changed)
    table = run_study(study, out, resume=True, engine="serial", data=data)
    fresh = run_study(study, engine="serial")
    pd.testing.assert_frame_equal(without_seconds(table), without_seconds(fresh))
    assert not list(tmp_path.glob("fresh*"))
    with pytest.raises(FSEngineError, match="no data for the data set GLIOMA"):
        run_study(study, engine="serial", data={"SRBCT": data["SRBCT"]})


def test_time_is_summarised_by_the_median_and_the_rest_by_the_mean():
    from fsengine.evaluation.benchmark import study_means

    table = pd.DataFrame(
        {
            "dataset": ["a"] * 3 + ["b"] * 3,
            "method": ["m"] * 6,
            "split": [0, 1, 2] * 2,
            "gmean_1nn": [0.5, 0.7, 0.9, 0.0, 0.3, 0.3],
            "seconds": [9.0, 1.0, 2.0, 0.1, 0.2, 0.4],
        }
    )
    means = study_means(table, ["gmean_1nn", "seconds"])
    assert means.loc[("a", "m"), "gmean_1nn"] == pytest.approx(0.7)
    assert means.loc[("a", "m"), "seconds"] == 2.0  # not the mean 4.0 of a cold start
    assert means.loc[("b", "m"), "seconds"] == 0.2


def test_a_logged_run_reports_progress_with_the_time_left(study, tmp_path, capsys):
    from fsengine._compute.progress import logged_progress
    from fsengine.cli import main

    manifest = next(tmp_path.glob("*.toml"))
    assert main(["benchmark", str(manifest), "--out", str(tmp_path / "r"), "--serial"]) == 0
    lines = capsys.readouterr().err.splitlines()  # not a terminal: at most one per 30 s
    assert lines[-1].startswith(f"fsengine: {study.n_tasks}/{study.n_tasks} tasks done, about 0 s")
    log = io.StringIO()
    run_study(study, engine="serial", progress=logged_progress(log, every=0))
    seen = log.getvalue().splitlines()
    assert len(seen) == study.n_tasks
    assert seen[0].startswith(f"fsengine: 1/{study.n_tasks} tasks done, about ")
    assert " s left: SRBCT kofsd split 1/3" in seen[0]


def test_tasks_are_batched_by_method_in_order():
    from fsengine.evaluation.benchmark import MAX_BATCH, task_batches

    tasks = [(d, m, s) for d in "ab" for m in ("x", "y") for s in range(12)]
    batches = task_batches(tasks, n_threads=2)  # 48 tasks, 8 per thread: batches of 3
    assert [b[2] for b in batches[:4]] == [(0, 1, 2), (3, 4, 5), (6, 7, 8), (9, 10, 11)]
    assert [t for name, m, splits in batches for t in ((name, m, s) for s in splits)] == tasks
    assert all(len({(b[0], b[1])}) == 1 for b in batches)
    assert {len(b[2]) for b in task_batches(tasks, n_threads=1)} == {MAX_BATCH, 2}
    assert {len(b[2]) for b in task_batches(tasks, n_threads=64)} == {1}
    gaps = [("a", "x", s) for s in (0, 5, 6)] + [("a", "y", s) for s in range(13)]
    batches = task_batches(gaps, 1)  # what a resumed study misses: 16 tasks, batches of 2
    assert batches[:3] == [("a", "x", (0, 5)), ("a", "x", (6,)), ("a", "y", (0, 1))]


def test_a_k_too_large_for_one_data_sets_halves_is_refused_before_any_task(study, monkeypatch):
    """K = 30 fits SRBCT's smallest training half (42 samples at 3 splits) but not
    GLIOMA's (25): the study is refused at once, naming GLIOMA and its half, and no task
    runs; a ranker's count comes from K-OFSD, whose K is checked as well."""
    import dataclasses

    import fsengine.evaluation.benchmark as benchmark
    from fsengine.evaluation import stratified_splits

    def no_task(*args, **kwargs):
        raise AssertionError("a task ran")

    monkeypatch.setattr(benchmark, "_serial_records", no_task)
    data = benchmark.read_study_data(study)
    halves = {
        name: min(len(t) for t, _ in stratified_splits(task.y, 3, 4, task.groups))
        for name, task in data.items()
    }
    assert halves == {"SRBCT": 42, "GLIOMA": 25}
    too_large = dataclasses.replace(study, params={"kofsd": {"k": 30}})
    with pytest.raises(FSEngineError) as caught:
        run_study(too_large, engine="serial", data=data)
    assert caught.value.parameter == "k" and caught.value.method == "kofsd"
    assert str(caught.value).endswith(
        "(the number of samples minus one), got 30: the samples here are those of the "
        "smallest training half of the splits (25), in the data set GLIOMA"
    )
    ranked = dataclasses.replace(too_large, methods=("fisher",))  # K-OFSD gives its count
    with pytest.raises(FSEngineError, match="in the data set GLIOMA"):
        run_study(ranked, engine="serial", data=data)
    fixed = dataclasses.replace(ranked, top=5)  # no count asked of K-OFSD: nothing to refuse
    with pytest.raises(AssertionError, match="a task ran"):
        run_study(fixed, engine="serial", data=data)


def test_an_error_reworded_keeps_every_other_field():
    error = FSEngineError(
        "is bad", parameter="k", method="kofsd", row=3, column="c", remedy="use",
        remedy_option="k", choices=("a", "b"),
    )  # fmt: skip
    again = error.reworded("is worse")
    assert again.problem == "is worse"
    fields = ("parameter", "method", "row", "column", "remedy", "remedy_option", "choices")
    assert all(getattr(again, f) == getattr(error, f) for f in fields)
    assert str(again) == "kofsd: k is worse; use k"
