"""OSSFS-DD: online scalable streaming feature selection via dynamic decision.

Zhou, Zhao, Yan, Wu, "Online Scalable Streaming Feature Selection via Dynamic Decision",
ACM TKDD 16(5), 2022 (Algorithm 1), as the authors' code runs it (doodzhou/OSFS,
``OSFS_DD_mi2.m``; reference outputs in ``tests/reference/infotheo_octave``). Information
is MIToolbox's on the states ``floor(x)`` (:mod:`.mitoolbox`); a feature's membership
degree is ``SU(f, Y) = 2 I / (H(f) + H(Y))`` (``mi/SU.m``, the paper's NMI).

For the t-th feature f with degree s (the code):

* t <= 2: the mean and the standard deviation of the degrees so far (``mean``, ``std``);
  the feature is neither selected nor kept;
* t >= 3: ``mean += (s - mean) / t``, ``std = sqrt((1/(t-1)) ((t-2) std^2 +
  ((t-1)/t) (s - mean_old)^2))`` (eqs. 5 and 6 of the paper, rearranged);
  ``alpha = mean + k1 std``, ``beta = mean + k2 std``;
* ``s <= alpha``: discarded; else ``s >= beta``: selected, then for each earlier selected
  m in order, if ``I(m; Y | f) + SU(m) < 2 beta``: if ``s < SU(m)``, f is dropped (and
  only f: the members marked so far stay) and the check ends, else m is dropped;
* otherwise f waits in the pool; when the pool holds ``pool_size`` features it is flushed:
  for each pooled feature i in order, the first later j with ``SU(i) + I(i; Y | j) >
  2 beta`` moves both i and j into S (ascending, after the members); the pool empties.
* After the last feature the pool is flushed once more with the last beta.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from fsengine.methods.online._information import mitoolbox
from fsengine.methods.online._information._features import (
    MITOOLBOX_KERNELS,
    Labels,
    Measured,
    Store,
    conditional_mi,
    pool_pairs,
    running_statistics,
)
from fsengine.methods.online._stream import Selection, StreamEvent, StreamingSelector
from fsengine.spec import ONLINE, Int, MethodSpec, Real

WARM_UP, DISCARDED, SELECTED, REDUNDANT, DELAYED = (
    "warm-up",
    "discarded",
    "selected",
    "redundant",
    "delayed",
)
#: The action codes of the reference trace (2 = selected, then kept or dropped).
ACTION_CODES = {WARM_UP: 0, DISCARDED: 1, SELECTED: 2, REDUNDANT: 2, DELAYED: 3}


@dataclass(frozen=True, slots=True)
class OSSFSDDEvent(StreamEvent):
    """One OSSFS-DD step (``OSFS_DD_mi2.m``, loop body).

    ``score`` is the feature's degree SU(f, class); ``mean`` and ``std`` the running
    statistics after it; ``alpha`` and ``beta`` the thresholds it was compared with (NaN
    during the warm-up). ``removed``: members dropped by the redundancy check; ``pool``:
    features waiting after the step; ``flushed``: features the pool moved into S at this
    step (the last feature's step includes the final flush when the stream's length is
    known).
    """

    mean: float = math.nan
    std: float = math.nan
    alpha: float = math.nan
    beta: float = math.nan
    removed: tuple[str, ...] = ()
    pool: int = 0
    flushed: tuple[str, ...] = ()


class _Feature:
    __slots__ = ("name", "column", "position", "su", "states", "n_states")

    def __init__(self, name, column, position, su, states, n_states):
        self.name = name
        self.column = column
        self.position = position
        self.su = su
        self.states = states
        self.n_states = n_states


def first_statistics(values: list[float]) -> tuple[float, float]:
    """Octave's ``mean`` and ``std`` of one or two values (the code's first two steps)."""
    if len(values) == 1:
        return values[0] / 1, 0.0
    mean = (values[0] + values[1]) / 2
    d0, d1 = values[0] - mean, values[1] - mean
    return mean, math.sqrt((d0 * d0 + d1 * d1) / 1)


class OSSFSDD(StreamingSelector):
    """OSSFS-DD as an online selector: one feature in, one event out.

    Parameters
    ----------
    k1 : float, default 1.0
        ``alpha = mean + k1 * std``: at or below it a feature is discarded.
    k2 : float, default 2.0
        ``beta = mean + k2 * std``: at or above it a feature is selected; between the two
        it waits in the pool.
    pool_size : int, default 100
        The pool is flushed when it holds this many features.

    Notes
    -----
    The published code (``OSFS_DD_mi2.m``), reproduced exactly, departs from the printed
    Algorithm 1 (docs/ALGORITHMS.md lists every difference): the first two features only
    start the statistics (the printed updates divide by 0 at t = 1); the "joint
    information" of two features is ``SU(m) + I(m; Y | f)``, an NMI plus a conditional
    mutual information in bits, where the paper writes ``I({f1, f2}; d)``; a flush moves
    a pooled feature with its first qualifying later partner only, on a strict ``>``; the
    pool is also flushed after the last feature.
    """

    kernel_families = (MITOOLBOX_KERNELS,)

    spec = MethodSpec(
        name="ossfs-dd",
        label="OSSFS-DD",
        kind=ONLINE,
        citation="Zhou, Zhao, Yan, Wu. Online Scalable Streaming Feature Selection via "
        "Dynamic Decision. ACM TKDD 16(5), 2022 (code: doodzhou/OSFS, OSFS_DD_mi2.m)",
        score="membership degree SU(f, class) = 2 I / (H(f) + H(class)) (NMI), MIToolbox's "
        "states floor(x)",
        set_score="mean SU of the selected set with the class",
        parameters={
            "k1": Real(
                1.0,
                "lower threshold alpha = mean + k1 * std of the degrees so far: at or below "
                "it a feature is discarded",
                label="k1 (discard below)",
                source="paper section 4.2: (k1, k2) = (1, 2); the code's sig1 = 1",
                low=0.0,
                high=6.0,
            ),
            "k2": Real(
                2.0,
                "upper threshold beta = mean + k2 * std: at or above it a feature is "
                "selected; between alpha and beta it waits in the pool",
                label="k2 (select above)",
                source="paper section 4.2: (k1, k2) = (1, 2); the code's sig2 = 2",
                low=0.0,
                high=6.0,
            ),
            "pool_size": Int(
                100,
                "the pool of undecided features is flushed when it holds this many",
                label="Pool size",
                source="paper section 4.2: N_SU = 100; the code's PoolSize = 100",
                low=1,
                high=100_000,
                ui_high=500,
            ),
        },
        actions={
            WARM_UP: "one of the first two features: only starts the statistics",
            DISCARDED: "degree at or below alpha: discarded",
            SELECTED: "degree at or above beta: selected (redundant members may be dropped)",
            REDUNDANT: "degree at or above beta, then dropped as redundant with a member",
            DELAYED: "degree between alpha and beta: waits in the pool",
        },
        action_codes=ACTION_CODES,
        event=OSSFSDDEvent,
    )

    def _start(self) -> None:
        self._labels = Labels(self.y)
        self._members: list[_Feature] = []
        self._member_states = Store(len(self.y))
        self._pool: list[_Feature] = []
        self._first: list[float] = []
        self.mean = 0.0
        self.std = 0.0
        self.alpha = math.nan
        self.beta = math.nan

    # -------------------------------------------------------------- stream
    def _step_block(self, block, names, columns) -> list[OSSFSDDEvent]:
        return self._run_block(block, names, columns, events=True)

    def _step_block_quiet(self, block, names, columns) -> None:
        self._run_block(block, names, columns, events=False)

    def _run_block(self, block, names, columns, events: bool):
        mitoolbox.check_range(block, names, self.spec.label)
        measured = Measured(block, self._labels)
        if not events:
            self._run_quiet(measured, names, columns)
            return []
        means, stds, alphas = self._statistics(measured.su, self.n_seen)
        out = []
        for j in range(block.shape[1]):
            position = self.n_seen
            self.n_seen += 1
            feature = self._feature(measured, names, columns, j, position)
            info = self._decide(feature, means[j], stds[j], alphas[j])
            if self.n_features is not None and self.n_seen == self.n_features and self._pool:
                info["flushed"] = info.get("flushed", ()) + self._flush()
            su = [m.su for m in self._members]
            out.append(
                OSSFSDDEvent(
                    position,
                    names[j],
                    columns[j],
                    feature.su,
                    info.pop("action"),
                    self._selected_names,
                    self._selected_columns,
                    float(np.mean(su)) if su else math.nan,
                    mean=self.mean,
                    std=self.std,
                    pool=len(self._pool),
                    **info,
                )
            )
        return out

    def _statistics(self, su: np.ndarray, seen: int):
        """The running statistics after each of ``su``, the degrees of the features after
        the first ``seen`` (``updateMeanStd``): Octave's mean and std of the first two
        (kept in ``_first``), then one kernel (:func:`._features.running_statistics`).
        They do not depend on the decisions.

        Returns
        -------
        (ndarray, ndarray, ndarray)
            Mean, std and ``alpha = mean + k1 * std`` after each (alpha NaN for the first
            two features).
        """
        m = len(su)
        means, stds, alphas = np.empty(m), np.empty(m), np.full(m, math.nan)
        mean, std = self.mean, self.std
        start = 0
        while start < m and seen + start < 2:
            self._first.append(float(su[start]))
            mean, std = first_statistics(self._first)
            means[start], stds[start] = mean, std
            start += 1
        if start < m:
            means[start:], stds[start:], alphas[start:] = running_statistics(
                su[start:], seen + start, mean, std, self._params["k1"]
            )
        return means, stds, alphas

    @staticmethod
    def _feature(measured: Measured, names, columns, j: int, position: int) -> _Feature:
        return _Feature(
            names[j],
            columns[j],
            position,
            float(measured.su[j]),
            measured.states[:, j],
            int(measured.n_states[j]),
        )

    def _run_quiet(self, measured: Measured, names, columns) -> None:
        """:meth:`_decide` over a block without events, the same decisions: the block is cut
        after the announced last feature when that falls inside it (the pool is flushed
        there, as :meth:`_run_block` does), and each part run by :meth:`_run_quiet_part`."""
        b = len(measured.su)
        cut = b
        if self.n_features is not None and 0 < self.n_features - self.n_seen < b:
            cut = self.n_features - self.n_seen
        self._run_quiet_part(measured, names, columns, 0, cut)
        if cut < b:
            self._run_quiet_part(measured, names, columns, cut, b)

    def _run_quiet_part(self, measured: Measured, names, columns, lo: int, hi: int) -> None:
        """Columns ``lo`` to ``hi`` of a block without events: the statistics of them all
        first (:meth:`_statistics`), then :meth:`_decide` on the features above alpha only
        (the others are discarded, which changes nothing else)."""
        t0 = self.n_seen - lo  # the stream position of the block's column 0
        means, stds, alphas = self._statistics(measured.su[lo:hi], self.n_seen)
        for j in (lo + np.flatnonzero(measured.su[lo:hi] > alphas)).tolist():
            feature = self._feature(measured, names, columns, j, t0 + j)
            self._decide(feature, means[j - lo], stds[j - lo], alphas[j - lo])
        self.n_seen = t0 + hi
        if hi > lo:
            self.mean, self.std = float(means[-1]), float(stds[-1])
            if self.n_seen > 2:
                self.alpha = float(alphas[-1])
                self.beta = self.mean + self._params["k2"] * self.std
        if self.n_features is not None and self.n_seen == self.n_features and self._pool:
            self._flush()

    def _publish(self) -> None:
        self._set_selected([m.name for m in self._members], [m.column for m in self._members])

    def _decide(self, f: _Feature, mean: float, std: float, alpha: float) -> dict:
        """The decision on f given the statistics after it (:meth:`_statistics`)."""
        self.mean, self.std = float(mean), float(std)
        if f.position < 2:
            return {"action": WARM_UP}
        self.alpha = float(alpha)
        self.beta = self.mean + self._params["k2"] * self.std
        info: dict = {"alpha": self.alpha, "beta": self.beta}
        if f.su <= self.alpha:
            info["action"] = DISCARDED
        elif f.su >= self.beta:
            info.update(self._accept(f))
        else:
            info["action"] = DELAYED
            f.states = np.array(f.states)  # its own copy, not a view of the block's states
            self._pool.append(f)
            if len(self._pool) >= self._params["pool_size"]:
                info["flushed"] = self._flush()
        return info

    def _accept(self, f: _Feature) -> dict:
        """``checkPoolRedundancy`` with f appended to S."""
        drop_new, dropped = False, []
        if self._members:
            cmi = conditional_mi(self._member_states, f.states, self._labels)
            two_beta = 2 * self.beta
            for m, value in zip(self._members, cmi.tolist()):
                if value + m.su < two_beta:
                    if f.su < m.su:
                        drop_new, dropped = True, []
                        break
                    dropped.append(m)
        if drop_new:
            return {"action": REDUNDANT}
        if dropped:
            gone = {id(m) for m in dropped}
            keep = [id(m) not in gone for m in self._members]
            self._members = [m for m, k in zip(self._members, keep) if k]
            self._member_states.keep(keep)
        self._members.append(f)
        self._member_states.append(f.states, f.n_states)
        f.states = None  # kept in the store
        self._publish()
        return {"action": SELECTED, "removed": tuple(m.name for m in dropped)}

    def _pool_choice(self) -> list[_Feature]:
        """``flushDeterPool``: the pooled features that pair up, in arrival order (``unique``
        sorts them)."""
        pool = self._pool
        chosen = pool_pairs(
            [f.states for f in pool],
            [f.n_states for f in pool],
            [f.su for f in pool],
            2 * self.beta,
            self._labels,
        )
        return [f for f, c in zip(pool, chosen) if c]

    def _flush(self) -> tuple[str, ...]:
        moved = self._pool_choice()
        self._pool = []
        for f in moved:
            self._members.append(f)
            self._member_states.append(f.states, f.n_states)
            f.states = None  # kept in the store
        self._publish()
        return tuple(f.name for f in moved)

    def finish(self) -> Selection:
        """S in the code's order (``AccIndexs``: selected features by arrival, each flush's
        features appended after them), with the final flush of a pool still waiting (a
        stream whose length was not announced); scores are SU(f, class)."""
        members = self._members + self._pool_choice()
        return Selection(
            self.method,
            tuple(m.name for m in members),
            tuple(m.column for m in members),
            tuple(m.su for m in members),
            "selection order (flushed features after the members selected before them)",
        )
