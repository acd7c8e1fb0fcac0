"""The task object (fsengine.data.task): built once from (data set, minority), by hand-counted
values on the bundled SRBCT sample (83 samples, class 2 has 11) and small matrices."""

import pickle

import numpy as np
import pytest

from fsengine.data.dataset import load_dataset
from fsengine.data.task import Task, as_task, training_size
from fsengine.errors import FSEngineError
from fsengine.evaluation.benchmark import read_study_data
from fsengine.evaluation.study import Study, StudyDataset
from tests.conftest import SAMPLE


@pytest.fixture(scope="module")
def srbct():
    return load_dataset(SAMPLE)


def test_a_task_from_a_data_set(srbct):
    task = Task.from_dataset(srbct, "2")
    assert task.minority == 2 and type(task.minority) is int  # the label as stored
    assert (task.n_samples, task.n_features, task.n_minority) == (83, 2308, 11)
    assert task.n_train == 42  # ceil(83 / 2)
    assert task.y.dtype == np.int8 and task.y.sum() == 11
    assert np.array_equal(task.y, (srbct.labels == 2).astype(np.int8))
    assert task.X is srbct.X  # shared, not copied
    assert task.record() == {"data": "SRBCT.parquet", "label_column": "label", "minority": 2}
    assert Task.from_dataset(srbct).minority == srbct.default_minority()


def test_training_size_is_the_ceiling_of_half():
    assert [training_size(n) for n in (4, 5, 6, 83)] == [2, 3, 3, 42]


def test_as_task_takes_a_task_or_a_data_set(srbct):
    task = as_task(srbct, "2")
    assert as_task(task) is task and as_task(task, "2") is task and as_task(task, 2) is task
    with pytest.raises(FSEngineError, match="the task is for minority class 2, not '3'"):
        as_task(task, "3")
    with pytest.raises(TypeError, match="Task or a Dataset"):
        as_task(srbct.X)


def test_the_digest_follows_the_content(srbct):
    task = Task.from_dataset(srbct, "2")
    assert len(task.digest) == 64
    assert Task.from_dataset(srbct, "2").digest == task.digest
    assert Task.from_dataset(srbct, "3").digest != task.digest
    X = srbct.X.copy(order="F")
    X[0, 0] += 1
    assert Task(X, task.y, task.names).digest != task.digest
    # The study's data are tasks: the same digest keys their records.
    study = Study((StudyDataset("SRBCT", SAMPLE, "2"),), methods=("kofsd",), splits=2)
    assert read_study_data(study)["SRBCT"].digest == task.digest


def test_a_task_pickles_without_its_data_set(srbct):
    task = Task.from_dataset(srbct, "2")
    back = pickle.loads(pickle.dumps(task))
    assert back.dataset is None and back.digest == task.digest
    assert back.record() == task.record()


def test_bad_arrays_are_refused_with_what_is_wrong():
    with pytest.raises(FSEngineError, match="X has 4 rows but y has 3 labels"):
        Task.from_arrays(np.zeros((4, 2)), [0, 1, 1])
    with pytest.raises(FSEngineError, match="labels must be binary"):
        Task.from_arrays(np.zeros((3, 2)), [0, 1, 2])
    with pytest.raises(FSEngineError, match="2 columns but there are 1 names"):
        Task(np.zeros((4, 2)), [0, 1, 1, 0], ("a",))
    task = Task.from_arrays(np.zeros((4, 2)), [0, 1, 1, 0])
    assert task.names == ("x0", "x1") and task.minority == 1 and task.n_train == 2


def test_the_digest_includes_the_sample_groups_and_is_unchanged_without(srbct):
    # the digest of SRBCT, minority 2, before groups existed (commit 868bd42)
    plain = Task.from_dataset(srbct, "2")
    assert plain.digest == "8bbbcc83571816c21c9506b1ee906e99eb2256bd100fdb26098e7e000b451f85"
    halves = np.array([f"p{k // 2}" for k in range(srbct.n_samples)], dtype=object)
    thirds = np.array([f"p{k // 3}" for k in range(srbct.n_samples)], dtype=object)
    grouped = Task(plain.X, plain.y, plain.names, sample_groups=halves)
    assert grouped.digest != plain.digest  # other splits, other results
    assert Task(plain.X, plain.y, plain.names, sample_groups=halves.copy()).digest == grouped.digest
    assert Task(plain.X, plain.y, plain.names, sample_groups=thirds).digest != grouped.digest
    assert pickle.loads(pickle.dumps(grouped)).digest == grouped.digest  # a worker's
