"""Evaluation protocol of the K-OFSD paper (Zhou et al. 2017, section 4.1), and sweeps.

R random stratified 50/50 splits (default 20, seeded): every selector and ranker
sees only the training half; a classifier trained on the training half's selected
features is scored on the test half. Rankers get as many features as an online selector
(``count_from``, default K-OFSD: the paper's rule) selected on the same split, unless a
fixed ``top`` is given.

One concern per module:

- :mod:`~fsengine.evaluation.metrics`: G-mean, F1 and AUC on the minority class, the
  1-NN and linear SVM classifiers;
- :mod:`~fsengine.evaluation.protocol`: the splits, selection on a training half, the
  protocol's warnings and the parameters in effect;
- :mod:`~fsengine.evaluation.group_splits`: the splits with sample groups (random,
  class-balanced assignments of whole groups to the halves, and how many there are);
- :mod:`~fsengine.evaluation.comparison`: :func:`evaluate` (methods compared over the
  splits, :class:`Evaluation`), one split's records, selections on the whole data;
- :mod:`~fsengine.evaluation.sweeps`: a parameter or the number of features swept;
- :mod:`~fsengine.evaluation.stability`: a selection's stability to the feature order;
- :mod:`~fsengine.evaluation.genes`: per-gene statistics of a selection (Hedges' g,
  Welch, BH), clustering, PCA, selection frequencies;
- studies of several data sets: :mod:`~fsengine.evaluation.study` (manifests),
  :mod:`~fsengine.evaluation.benchmark` (running them, on Dask or serially) and
  :mod:`~fsengine.evaluation.statistics` (Friedman / Iman-Davenport, Nemenyi,
  Wilcoxon-Holm over data sets, as Demsar 2006).

Every driver takes a :class:`fsengine.data.task.Task` (or a data set and its minority class).
"""

from fsengine.data.task import training_size
from fsengine.evaluation.comparison import (
    Evaluation,
    Plan,
    evaluate,
    evaluate_split,
    feature_frequencies,
    whole_data_runs,
    whole_data_selections,
)
from fsengine.evaluation.metrics import (
    CLASSIFIERS,
    METRICS,
    classify,
    confusion,
    f1_minority,
    gmean,
    make_classifier,
    roc_auc,
    score_columns,
)
from fsengine.evaluation.protocol import (
    COUNT_FROM,
    MIN_PROTOCOL_MINORITY,
    PAPER_METHODS,
    RUN_IMPORTS,
    half_minority_sizes,
    method_settings,
    protocol_defaults,
    protocol_minority_sizes,
    protocol_refusal,
    protocol_warnings,
    select_on,
    stratified_splits,
    study_defaults,
    training_halves,
)
from fsengine.evaluation.sweeps import best_sweep_values, sweep_k, sweep_top, sweep_values

__all__ = [
    "CLASSIFIERS",
    "COUNT_FROM",
    "Evaluation",
    "METRICS",
    "MIN_PROTOCOL_MINORITY",
    "PAPER_METHODS",
    "Plan",
    "RUN_IMPORTS",
    "best_sweep_values",
    "classify",
    "confusion",
    "evaluate",
    "evaluate_split",
    "f1_minority",
    "feature_frequencies",
    "gmean",
    "half_minority_sizes",
    "make_classifier",
    "method_settings",
    "protocol_defaults",
    "protocol_minority_sizes",
    "protocol_refusal",
    "protocol_warnings",
    "roc_auc",
    "score_columns",
    "select_on",
    "stratified_splits",
    "study_defaults",
    "sweep_k",
    "sweep_top",
    "sweep_values",
    "training_halves",
    "training_size",
    "whole_data_runs",
    "whole_data_selections",
]
