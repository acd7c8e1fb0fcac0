"""The tables the Benchmark page shows and offers for download (fsengine.export.writers):
the study's long table as run_study writes it, the rank table and the pairwise tests."""

import numpy as np
import pandas as pd
import pytest

from conftest import GLIOMA, SAMPLE
from fsengine.evaluation.benchmark import run_study, study_table
from fsengine.evaluation.statistics import compare_methods
from fsengine.evaluation.study import StudyDataset, study_from
from fsengine.export.writers import PAIR_COLUMNS, RANK_ROWS, pairs_frame, rank_frame

VALUES = np.array(
    [
        [0.90, 0.80, 0.70],
        [0.85, 0.86, 0.60],
        [0.95, 0.70, 0.75],
        [0.80, 0.78, 0.79],
        [0.88, 0.87, 0.50],
    ]
)


@pytest.fixture(scope="module")
def comparison():
    return compare_methods(
        VALUES, ["b", "a", "c"], [f"d{i}" for i in range(5)], metric="gmean_svm", alpha=0.10
    )


def test_the_downloads_are_the_bytes_run_study_writes(tmp_path):
    study = study_from(
        [StudyDataset("SRBCT", SAMPLE, "2"), StudyDataset("GLIOMA", GLIOMA, "2")],
        ["fisher", "s2n"],
        splits=2,
        top=3,
    )
    table = run_study(study, tmp_path / "out", engine="serial")
    assert study_table(table, "csv") == (tmp_path / "out.csv").read_bytes()
    assert study_table(table) == study_table(table, "csv")
    assert study_table(table, "parquet") == (tmp_path / "out.parquet").read_bytes()
    # the table rebuilt from JSON-able records (a stored study) gives the same bytes
    again = pd.DataFrame(table.to_dict("records"))
    assert study_table(again, "csv") == study_table(table, "csv")
    assert study_table(again, "parquet") == study_table(table, "parquet")
    with pytest.raises(ValueError, match="unknown format 'xlsx'"):
        study_table(table, "xlsx")


def test_rank_frame_is_the_values_then_mean_and_average_rank(comparison):
    frame = rank_frame(comparison)
    order = np.argsort(comparison.average_ranks, kind="stable")
    assert list(frame.columns) == [comparison.methods[j] for j in order] == ["b", "a", "c"]
    assert list(frame.index) == ["d0", "d1", "d2", "d3", "d4", *RANK_ROWS]
    assert frame.index.name == "data set"
    assert frame.loc["d1", "a"] == 0.86 and frame.loc["d4", "c"] == 0.50
    assert frame.loc["mean"].tolist() == pytest.approx(VALUES.mean(axis=0).tolist())
    assert frame.loc["average rank"].tolist() == pytest.approx([1.2, 2.2, 2.6])
    assert [r["method"] for r in comparison.rank_table()] == list(frame.columns)


def test_pairs_frame_is_every_pair_with_its_tests(comparison):
    frame = pairs_frame(comparison)
    assert tuple(frame.columns) == PAIR_COLUMNS
    assert len(frame) == 3
    for row, pair in zip(frame.to_dict("records"), comparison.pairs):
        assert (row["method"], row["versus"]) == (pair.first, pair.second)
        assert row["Nemenyi p"] == pair.nemenyi_p
        assert row["Wilcoxon T"] == pair.wilcoxon_statistic
        assert row["Wilcoxon p"] == pair.wilcoxon_p
        assert row["Holm p"] == pair.wilcoxon_p_holm
        assert row["Holm significant"] == (pair.wilcoxon_p_holm < 0.10)
        # Nemenyi at alpha: exactly the pairs further apart than the critical difference
        assert row["Nemenyi significant"] == (pair.rank_difference > comparison.critical_difference)
    assert frame["Nemenyi significant"].tolist() == [False, True, False]  # b-c: 1.4 > CD 1.30
