"""Parity of SFS-FI and OSSFS-DD with the authors' code (doodzhou/OSFS ``OFSS_FI_mi.m``,
``OSFS_DD_mi2.m``) run unmodified in Octave, and with slow definitions written here.

The reference outputs (tests/reference/infotheo_octave/README.md) hold every selection and
every traced decision: SFS-FI's SU, interaction gain, branch, the comparison that dropped
a feature, the members removed, and each comparison of the redundancy stage; OSSFS-DD's
degree, running mean and standard deviation, thresholds, branch, removals, pool flushes
and each comparison of the redundancy check. The definitions below follow the code line by
line on MIToolbox's C loops over every state (dense tables), independent of the engine's
measures, and are compared with the engine under hypothesis on tie-heavy data.
"""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import GLIOMA, LOFS_REFERENCE, REFERENCE, ROOT, SAMPLE
from fsengine.methods.online import OSSFSDD, SFSFI, stream_events, stream_selection
from fsengine.methods.online._information import mitoolbox as mt

OCT = ROOT / "tests" / "reference" / "infotheo_octave"
SETS = [f"ds{i}" for i in range(1, 8)] + ["SRBCT", "GLIOMA"]


def load(name: str):
    if name in ("SRBCT", "GLIOMA"):
        import pandas as pd

        frame = pd.read_parquet(SAMPLE if name == "SRBCT" else GLIOMA)
        return frame.drop(columns="label").to_numpy(float), (frame["label"] == 2).to_numpy(int)
    folder = REFERENCE if name in SETS[:5] else LOFS_REFERENCE
    X = np.loadtxt(folder / f"{name}_X.csv", delimiter=",")
    return X, np.loadtxt(folder / f"{name}_y.csv").astype(int)


def reference_selection(name, method):
    text = (OCT / f"{name}_{method}_selected.csv").read_text().strip()
    return [int(v) - 1 for v in text.split(",")] if text else []


def rows(name, method, kind, width):
    path = OCT / f"{name}_{method}_{kind}.csv"
    if path.stat().st_size == 0:
        return np.empty((0, width))
    return np.loadtxt(path, delimiter=",", ndmin=2)


def run(cls, X, y, n_features=None, **params):
    selector = cls(**params).start(y, n_features=n_features)
    events = list(stream_events(selector, X, [str(j) for j in range(X.shape[1])]))
    return list(selector.finish().columns), events


def same(a, b):
    return np.array_equal(np.asarray(a, float), np.asarray(b, float), equal_nan=True)


# ------------------------------------------------------------------ SFS-FI


@pytest.mark.parametrize("name", SETS)
def test_sfs_fi_reference_run_reproduced(name):
    X, y = load(name)
    selected, events = run(SFSFI, X, y)
    assert selected == reference_selection(name, "sfs_fi")
    t = rows(name, "sfs_fi", "trace", 8)  # i, SU, IG, act, jbreak, nremoved, kept, |S|
    assert len(t) == len(events) == X.shape[1]
    assert same([e.score for e in events], t[:, 1])
    assert same([e.interaction_gain for e in events], t[:, 2])
    assert [SFSFI.spec.action_codes[e.action] for e in events] == t[:, 3].astype(int).tolist()
    assert [e.dropped_at for e in events] == t[:, 4].astype(int).tolist()
    assert [len(e.removed) for e in events] == t[:, 5].astype(int).tolist()
    assert [int(e.feature in e.selected) for e in events] == t[:, 6].astype(int).tolist()
    assert [len(e.selected) for e in events] == t[:, 7].astype(int).tolist()
    # each comparison of the redundancy stage: i, j, member, skipped, SU(X_i, X_j), SU(member),
    # outcome (0 none, 1 i dropped, 2 member dropped)
    pairs = rows(name, "sfs_fi", "pairs", 7)
    assert (pairs[:, 3] == 0).all()  # Int_Array(ind, j) > 0 never holds
    for i, j, ind, _, su, dep, outcome in pairs.tolist():
        i, j, ind = int(i) - 1, int(j) - 1, int(ind) - 1
        # the code compares with the stream's j-th feature, whatever the j-th member is
        assert mt.symmetric_uncertainty(X[:, i], X[:, j]) == su
        assert mt.symmetric_uncertainty(X[:, ind], y) == dep
        assert (str(ind) in events[i].removed) == (outcome == 2)
        if outcome == 1:
            assert events[i].dropped_at == j + 1


@pytest.mark.parametrize("name", SETS)
def test_sfs_fi_quiet_run_selects_the_same(name):
    X, y = load(name)
    quiet = stream_selection(SFSFI().start(y), X, [str(j) for j in range(X.shape[1])])
    assert list(quiet.columns) == reference_selection(name, "sfs_fi")


def test_sfs_fi_reference_runs_reach_every_branch():
    """Across the nine reference runs: skipped, first, strong, weak and negative steps, and
    the weak branch's member removals and a dropped feature."""
    acts, outcomes = set(), set()
    for name in SETS:
        acts |= set(rows(name, "sfs_fi", "trace", 8)[:, 3].astype(int).tolist())
        outcomes |= set(rows(name, "sfs_fi", "pairs", 7)[:, 6].astype(int).tolist())
    assert acts == {0, 1, 2, 3, 4}
    assert outcomes >= {0, 2}


# ------------------------------------------------------------------ OSSFS-DD


@pytest.mark.parametrize("name", SETS)
def test_ossfs_dd_reference_run_reproduced(name):
    X, y = load(name)
    selected, events = run(OSSFSDD, X, y)  # the stream's length unannounced: finish() flushes
    assert selected == reference_selection(name, "ossfs_dd")
    # i, SU, mean, std, alpha, beta, act, ndel, new deleted, n flushed (-1: no flush), |S|, pool
    t = rows(name, "ossfs_dd", "trace", 12)
    assert len(t) == len(events) == X.shape[1]
    for k, column in enumerate(["score", "mean", "std", "alpha", "beta"], start=1):
        assert same([getattr(e, column) for e in events], t[:, k]), column
    assert [OSSFSDD.spec.action_codes[e.action] for e in events] == t[:, 6].astype(int).tolist()
    assert [len(e.removed) + (e.action == "redundant") for e in events] == t[:, 7].tolist()
    assert [int(e.action == "redundant") for e in events] == t[:, 8].astype(int).tolist()
    flushes = [len(e.flushed) if e.pool == 0 and e.action == "delayed" else -1 for e in events]
    assert flushes == t[:, 9].astype(int).tolist()
    assert [len(e.selected) for e in events] == t[:, 10].astype(int).tolist()
    assert [e.pool for e in events] == t[:, 11].astype(int).tolist()
    # each pair a flush moved: at (p + 1: the final flush), beta, pool size, i, j, joint
    for at, beta, _, i, j, joint in rows(name, "ossfs_dd", "flush", 6).tolist():
        i, j = int(i) - 1, int(j) - 1
        assert joint == mt.symmetric_uncertainty(X[:, i], y) + mt.conditional_mutual_information(
            X[:, i], y, X[:, j]
        )
        if at <= X.shape[1]:
            assert {str(i), str(j)} <= set(events[int(at) - 1].flushed)
            assert events[int(at) - 1].beta == beta
        else:
            assert events[-1].beta == beta and i in selected and j in selected
    # each comparison of the redundancy check: new, member, joint, SU(member), beta, outcome
    for new, m, joint, su, beta, _ in rows(name, "ossfs_dd", "pairs", 6).tolist():
        new, m = int(new) - 1, int(m) - 1
        assert su == mt.symmetric_uncertainty(X[:, m], y)
        assert joint == mt.conditional_mutual_information(X[:, m], y, X[:, new]) + su
        assert events[new].beta == beta


@pytest.mark.parametrize("name", SETS)
def test_ossfs_dd_announced_stream_flushes_at_its_last_feature(name):
    X, y = load(name)
    selected, events = run(OSSFSDD, X, y, n_features=X.shape[1])
    assert selected == reference_selection(name, "ossfs_dd")
    assert list(events[-1].selected_columns) == selected and events[-1].pool == 0
    final = {int(v) - 1 for r in rows(name, "ossfs_dd", "flush", 6) if r[0] > X.shape[1]
             for v in r[3:5]}  # fmt: skip
    assert {int(f) for f in events[-1].flushed} >= final
    quiet = stream_selection(OSSFSDD().start(y, n_features=X.shape[1]), X, [str(j) for j in
                             range(X.shape[1])])  # fmt: skip
    assert list(quiet.columns) == selected


def test_ossfs_dd_reference_runs_reach_every_branch():
    acts, outcomes, flushed = set(), set(), 0
    for name in SETS:
        acts |= set(rows(name, "ossfs_dd", "trace", 12)[:, 6].astype(int).tolist())
        outcomes |= set(rows(name, "ossfs_dd", "pairs", 6)[:, 5].astype(int).tolist())
        flushed += len(rows(name, "ossfs_dd", "flush", 6))
    assert acts == {0, 1, 2, 3} and outcomes == {0, 1, 2} and flushed > 0


# ------------------------------------------------------------------ definition level


class Dense:
    """MIToolbox 1.x as its C loops run: every state of the dense tables, in order."""

    @staticmethod
    def states(x):
        f = [math.floor(v) for v in x]
        low = min(f)
        return [v - low for v in f], max(f) - low + 1

    @classmethod
    def h(cls, x):
        s, k = cls.states(x)
        n = len(s)
        counts = [0] * k
        for v in s:
            counts[v] += 1
        h = 0.0
        for c in counts:
            p = c / n
            if p > 0:
                h -= p * math.log(p)
        return h / math.log(2.0)

    @classmethod
    def joint(cls, a, b):
        sa, ka = cls.states(a)
        sb, kb = cls.states(b)
        n = len(sa)
        pj, pa, pb = [0] * (ka * kb), [0] * ka, [0] * kb
        for u, v in zip(sa, sb):
            pj[v * ka + u] += 1
            pa[u] += 1
            pb[v] += 1
        return [c / n for c in pj], [c / n for c in pa], [c / n for c in pb], ka

    @classmethod
    def mi(cls, a, b):
        pj, pa, pb, ka = cls.joint(a, b)
        m = 0.0
        for i, p in enumerate(pj):
            if p > 0 and pa[i % ka] > 0 and pb[i // ka] > 0:
                m += p * math.log(p / pa[i % ka] / pb[i // ka])
        return m / math.log(2.0)

    @classmethod
    def ch(cls, a, c):
        pj, _, pc, ka = cls.joint(a, c)
        h = 0.0
        for i, p in enumerate(pj):
            if p > 0 and pc[i // ka] > 0:
                h -= p * math.log(p / pc[i // ka])
        return h / math.log(2.0)

    @classmethod
    def merge(cls, a, b):
        sa, ka = cls.states(a)
        sb, kb = cls.states(b)
        number, out = [0] * (ka * kb), []
        count = 1
        for u, v in zip(sa, sb):
            if number[u + v * ka] == 0:
                number[u + v * ka] = count
                count += 1
            out.append(float(number[u + v * ka]))
        return out

    @classmethod
    def cmi(cls, x, y, z):
        return cls.ch(x, z) - cls.ch(x, cls.merge(y, z))

    @classmethod
    def su(cls, a, b):
        total = cls.h(a) + cls.h(b)
        score = 2 * cls.mi(a, b)
        return math.nan if total == 0 else score / total


def definition_sfs_fi(X, y, gamma=0.01):
    """``OFSS_FI_mi.m`` line by line (1-based indices kept; Int_Array written and read)."""
    cols = [X[:, j].tolist() for j in range(X.shape[1])]
    y = y.tolist()
    p = len(cols)
    mode, dep, interaction = [0] * (p + 1), [0.0] * (p + 1), {}
    for i in range(1, p + 1):
        dep_f = Dense.su(cols[i - 1], y)
        if dep_f == 0:
            continue
        if sum(mode) == 0:
            dep[i], mode[i] = dep_f, 1
            continue
        selected = [k for k in range(1, p + 1) if mode[k]]
        val = 0.0
        for ind in selected:
            c = Dense.cmi(cols[ind - 1], y, cols[i - 1])
            val = val + c - dep[ind]
            interaction[(ind, i)] = c - dep[ind]
        val = val / len(selected)
        if val >= gamma:
            mode[i], dep[i] = 1, dep_f
        elif val > 0:
            mode[i], dep[i] = 1, dep_f
            selected = [k for k in range(1, p + 1) if mode[k]]
            for j in range(1, len(selected)):
                ind = selected[j - 1]
                if interaction.get((ind, j), 0.0) > 0:
                    continue
                mi_ij = Dense.su(cols[i - 1], cols[j - 1])
                if dep[ind] > dep_f and mi_ij > dep[i]:
                    mode[i], dep[i] = 0, 0.0
                    break
                if dep_f > dep[ind] and mi_ij > dep[ind]:
                    mode[ind], dep[ind] = 0, 0.0
    return [k - 1 for k in range(1, p + 1) if mode[k]]


def definition_sfs_fi_paper(X, y, gamma=0.01):
    """The printed Algorithm 1 (eq. 3 a sum; MI throughout; the test against each member with
    >=), started as the code starts: while S is empty a feature with I(f; D) > 0 joins."""
    cols = [X[:, j].tolist() for j in range(X.shape[1])]
    y = y.tolist()
    S, dep = [], {}
    for i in range(len(cols)):
        d = Dense.mi(cols[i], y)
        if not S:
            if d > 0:
                S, dep[i] = [i], d
            continue
        val = 0.0
        for s in S:
            val = val + Dense.cmi(cols[s], y, cols[i]) - dep[s]
        if val >= gamma:
            S, dep[i] = S + [i], d
        elif val > 0:
            dropped = False
            for s in list(S):
                both = Dense.mi(cols[i], cols[s])
                if dep[s] > d and both >= d:
                    dropped = True
                    break
                if d > dep[s] and both >= dep[s]:
                    S.remove(s)
            if not dropped:
                S, dep[i] = S + [i], d
    return S


def definition_ossfs_dd(X, y, sig1=1.0, sig2=2.0, pool_size=100):
    """``OSFS_DD_mi2.m`` line by line (1-based indices kept)."""
    cols = [X[:, j].tolist() for j in range(X.shape[1])]
    y = y.tolist()
    acc, deter, mi_array = [], [], [0.0]
    mean = std = 0.0
    beta = math.nan

    def cmi(a, b):
        return Dense.cmi(cols[a - 1], y, cols[b - 1])

    def flush(pool):
        chosen = []
        for a in range(len(pool)):
            for b in range(a + 1, len(pool)):
                if mi_array[pool[a]] + cmi(pool[a], pool[b]) > 2 * beta:
                    chosen += [pool[a], pool[b]]
                    break
        return sorted(set(chosen))

    for i in range(1, len(cols) + 1):
        mi_f = Dense.su(cols[i - 1], y)
        mi_array.append(mi_f)
        if i <= 2:
            vals = mi_array[1:]
            mean = sum(vals) / len(vals)
            std = (
                math.sqrt(sum((v - mean) * (v - mean) for v in vals) / (len(vals) - 1))
                if i == 2
                else 0.0
            )
            continue
        old = mean
        mean = old + (mi_f - old) / i
        std = math.sqrt((1 / (i - 1)) * ((i - 2) * std**2 + ((i - 1) / i) * (mi_f - old) ** 2))
        alpha, beta = mean + sig1 * std, mean + sig2 * std
        if mi_f <= alpha:
            continue
        if mi_f >= beta:
            acc.append(i)
            delete = []
            for ind in acc[:-1]:
                if cmi(ind, i) + mi_array[ind] < 2 * beta:
                    if mi_f < mi_array[ind]:
                        delete = [i]
                        break
                    delete.append(ind)
            acc = [a for a in acc if a not in delete]
        else:
            deter.append(i)
            if len(deter) >= pool_size:
                acc += flush(deter)
                deter = []
    if deter:
        acc += flush(deter)
    return [a - 1 for a in acc]


@st.composite
def tie_heavy(draw):
    """Few samples, few levels (and fractions, which share states): ties, constants, copies,
    columns that separate the classes and XOR partners (with the previous column they
    determine the class: a large I(a; Y | b) for two features of small SU)."""
    n = draw(st.integers(4, 14))
    p = draw(st.integers(1, 12))
    y = np.zeros(n, dtype=int)
    y[draw(st.permutations(range(n)))[: draw(st.integers(2, n // 2))]] = 1
    levels = draw(st.sampled_from([2, 3, 5]))
    X = np.array(draw(st.lists(st.integers(0, levels - 1), min_size=n * p, max_size=n * p)), float)
    X = X.reshape(n, p) * draw(st.sampled_from([1.0, 0.6, -1.5]))
    for j in range(p):
        kind = draw(st.sampled_from(["plain"] * 3 + ["constant", "copy", "separating", "xor"]))
        if kind == "constant":
            X[:, j] = 2.0
        elif kind == "copy" and j > 0:
            X[:, j] = X[:, draw(st.integers(0, j - 1))]
        elif kind == "separating":
            X[:, j] = y * 3.0 + X[:, j] * 0.1
        elif kind == "xor" and j > 0:
            X[:, j] = (np.floor(X[:, j - 1]) + y) % 2
    return X, y


@settings(max_examples=150, deadline=None)
@given(data=tie_heavy(), gamma=st.sampled_from([0.0, 0.01, 0.2, 1.0]))
def test_sfs_fi_equals_the_definition(data, gamma):
    X, y = data
    expected = definition_sfs_fi(X, y, gamma)
    selected, events = run(SFSFI, X, y, gamma=gamma)
    assert selected == expected
    names = [str(j) for j in range(X.shape[1])]
    assert list(stream_selection(SFSFI(gamma=gamma).start(y), X, names).columns) == expected


@settings(max_examples=150, deadline=None)
@given(data=tie_heavy(), gamma=st.sampled_from([0.0, 0.01, 0.2, 1.0]))
def test_sfs_fi_paper_variant_equals_the_printed_algorithm(data, gamma):
    X, y = data
    expected = definition_sfs_fi_paper(X, y, gamma)
    assert run(SFSFI, X, y, gamma=gamma, variant="paper")[0] == expected


def test_an_exact_copy_has_a_negative_interaction_gain():
    """IG of a copy of the only member: I(f; Y | f) - score(f) = 0 - score(f)."""
    X, y = load("ds7")
    copy = np.column_stack([X[:, 0], X[:, 0]])
    for variant in ("reference", "paper"):
        selected, events = run(SFSFI, copy, y, variant=variant)
        assert selected == [0] and events[1].action == "negative"
        assert events[1].interaction_gain == -events[0].score


def test_xor_partners_pass_the_paper_but_not_the_code():
    """The paper's motivating case: y = a XOR b, each independent of y (I = 0 exactly).
    The printed IG selects both after a relevant r (I(a; Y | b) = 1 bit); the code skips
    both at its SU = 0 filter."""
    a = np.array([0, 0, 1, 1, 0, 0, 1, 1.0])
    b = np.array([0, 1, 0, 1, 0, 1, 0, 1.0])
    y = (a + b) % 2
    r = y.copy()
    r[4] = 1  # agrees with y on 7 of 8 samples
    X = np.column_stack([r, a, b])
    i_r = 3 / 8 + 1 / 2 * math.log2(8 / 5) + 1 / 8 * math.log2(2 / 5)  # by hand
    assert mt.mutual_information(r, y) == pytest.approx(i_r, abs=1e-15)
    assert mt.mutual_information(a, y) == mt.mutual_information(b, y) == 0
    assert mt.conditional_mutual_information(a, y, b) == 1
    selected, events = run(SFSFI, X, y.astype(int), variant="paper")
    assert selected == [0, 1, 2] and [e.action for e in events] == ["first", "strong", "strong"]
    gain_r = mt.conditional_mutual_information(r, y, b) - i_r
    assert events[2].interaction_gain == pytest.approx(gain_r + 1, abs=1e-14)
    selected, events = run(SFSFI, X, y.astype(int))
    assert selected == [0] and [e.action for e in events] == ["first", "irrelevant", "irrelevant"]


@settings(max_examples=150, deadline=None)
@given(
    data=tie_heavy(),
    k=st.sampled_from([(1.0, 2.0), (0.0, 0.5), (0.0, 1.0), (0.0, 3.0), (0.5, 0.5), (2.0, 1.0)]),
    pool=st.sampled_from([1, 2, 3, 4, 100]),
    chunk=st.integers(1, 5),
    early=st.integers(1, 12),
)
def test_ossfs_dd_equals_the_definition(data, k, pool, chunk, early):
    X, y = data
    expected = definition_ossfs_dd(X, y, k[0], k[1], pool)
    params = {"k1": k[0], "k2": k[1], "pool_size": pool}
    assert run(OSSFSDD, X, y, **params)[0] == expected
    assert run(OSSFSDD, X, y, n_features=X.shape[1], **params)[0] == expected
    names = [str(j) for j in range(X.shape[1])]
    quiet = stream_selection(OSSFSDD(**params).start(y), X, names)
    assert list(quiet.columns) == expected
    # blocks of a few features: the warm-up, the statistics and the pool across blocks
    announced = OSSFSDD(**params).start(y, n_features=X.shape[1])
    assert list(stream_selection(announced, X, names, chunk=chunk).columns) == expected
    # a stream announced shorter than it is: the pool is flushed after the announced last
    # feature, wherever a block ends, as one feature at a time does
    short = min(early, X.shape[1])
    one_by_one = run(OSSFSDD, X, y, n_features=short, **params)[0]
    quiet = OSSFSDD(**params).start(y, n_features=short)
    assert list(stream_selection(quiet, X, names, chunk=chunk).columns) == one_by_one


@pytest.mark.parametrize("seed,announced", [(1, 3), (2, 3), (4, 4)])
@pytest.mark.parametrize("chunk", [1, 5, 12])
def test_ossfs_dd_announced_end_inside_a_block(seed, announced, chunk):
    """A stream announced shorter than it is, its end inside a block: the pool is flushed
    after the announced last feature as one feature at a time does (these seeds selected
    differently when only a block's end was checked)."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, (20, 12)).astype(float)
    y = rng.integers(0, 2, 20)
    params = {"k1": 0.0, "k2": 2.0, "pool_size": 100}
    expected = run(OSSFSDD, X, y, n_features=announced, **params)[0]
    selector = OSSFSDD(**params).start(y, n_features=announced)
    names = [str(j) for j in range(12)]
    assert list(stream_selection(selector, X, names, chunk=chunk).columns) == expected
