"""The compiled kernels: declared signatures, checked calls, builds ahead of time keyed by the
sources, one build at a time across processes, the message while building, and the
just-in-time fallback giving the same numbers."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from conftest import ROOT, SLOW_SECONDS
from fsengine._compute import budget, kernels
from fsengine._compute.signatures import ArrayArg, arguments, checked

#: A child process that may compile every kernel family on a busy machine: a bound on a
#: hang only (compiling them all just in time took 123 s on an idle machine and about 500 s
#: with both cores busy beside the suite's two processes, 2 December 2026).
CHILD_TIMEOUT = 3 * SLOW_SECONDS
SMALL_FAMILY = "methods.rankers._relieff_kernels"  # one entry point: its build takes a few seconds


def test_signature_arguments_are_read_with_their_layouts():
    args = arguments("UniTuple(i8, 2)(f8[:, ::1], f8[::1, :], f8[:, :], i8[::1], b1, f8, int64)")
    f8, i8 = np.dtype(np.float64), np.dtype(np.int64)
    assert args == [
        ArrayArg(f8, 2, "C"),
        ArrayArg(f8, 2, "F"),
        ArrayArg(f8, 2, "A"),
        ArrayArg(i8, 1, "C"),
        None,
        None,
        None,
    ]
    assert arguments("void()") == []
    assert arguments("Tuple((i8, f8))(boolean[::1])") == [ArrayArg(np.dtype(bool), 1, "C")]


@pytest.mark.parametrize(
    "signature", ["f8(f8[:, ::2])", "f8(x8)", "f8(f8[::1, ::1])", "f8 f8", "f8(f8[:, ::1]"]
)
def test_a_signature_the_grammar_does_not_cover_is_refused(signature):
    with pytest.raises(ValueError):
        arguments(signature)


def test_a_checked_kernel_refuses_arrays_it_was_not_compiled_for():
    seen = []
    call = checked("demo", [(lambda a, k: seen.append((a, k)) or "ran", "f8(f8[:, ::1], i8)")])
    a = np.zeros((3, 2))
    assert call(a, 1) == "ran"
    for wrong, words in [
        (np.zeros((3, 2), dtype=np.int64), "int64 array"),  # dtype
        (np.asfortranarray(np.zeros((3, 2))), "layout F"),  # layout
        (np.zeros((3, 4))[:, ::2], "layout A"),  # a strided view
        (np.zeros(3), "1-D"),  # dimensions
        ([[0.0]], "list"),  # not an array
    ]:
        with pytest.raises(TypeError, match=f"kernel demo, argument 0: .*{words}"):
            call(wrong, 1)
    with pytest.raises(TypeError, match="takes 2 arguments, got 1"):
        call(a)
    assert len(seen) == 1


def test_a_checked_kernel_calls_the_variant_compiled_for_the_layout_it_gets():
    call = checked("demo", [(lambda a: "C", "f8(f8[:, ::1])"), (lambda a: "F", "f8(f8[::1, :])")])
    assert call(np.zeros((3, 2))) == "C"
    assert call(np.zeros((3, 2)).T) == "F"
    with pytest.raises(TypeError, match="compiled for a float64 array, 2-D, C-contiguous"):
        call(np.zeros((3, 4))[:, ::2])


def test_every_family_declares_signatures_the_checker_reads():
    """The kernel modules' declarations (numba imported here) against the grammar."""
    import importlib

    from fsengine._compute.jit import entry_points

    assert len(kernels.families()) == 19
    for family in kernels.families():
        entries = entry_points(importlib.import_module(f"fsengine.{family}"))
        assert entries, family
        for name, (dispatcher, signatures) in entries.items():
            for signature in signatures:
                n_params = dispatcher.py_func.__code__.co_argcount
                assert len(arguments(signature)) == n_params, (family, name, signature)


def test_the_built_families_are_the_current_sources_and_release_the_gil():
    """`make test` builds the kernels first: every family is built, for the sources as
    they are, and its exported functions release the GIL (the threads of run_chunks):
    only those wrappers call PyEval_SaveThread, numba's C helpers never do."""
    for row in kernels.status():
        assert row["built"], row
        assert b"PyEval_SaveThread" in Path(row["path"]).read_bytes(), row["family"]


def test_a_family_loaded_ahead_of_time_runs_checked_calls():
    family = kernels.load(SMALL_FAMILY)
    assert family.mode == "ahead-of-time" and kernels.loaded()[SMALL_FAMILY] == "ahead-of-time"
    X = np.array([[0.0, 1.0], [2.0, 4.0], [3.0, 3.0]])  # 3 samples, 2 features
    expected = np.abs(X[:, None, :] - X[None, :, :]).sum(axis=2)
    assert np.array_equal(family.cityblock(np.ascontiguousarray(X.T)), expected)
    with pytest.raises(TypeError, match="kernel cityblock, argument 0"):
        family.cityblock(X.T)  # Fortran-ordered: refused, never misread


def test_budget_uses_the_kernels_once_they_load_at_once(compiled_kernels):
    compiled_kernels(None)  # the budget decides
    assert kernels.ready(SMALL_FAMILY)
    assert budget.use_compiled(1, SMALL_FAMILY)  # built: whatever the size


def _copy_sources(tmp_path: Path) -> Path:
    copy = tmp_path / "fsengine"
    shutil.copytree(ROOT / "fsengine", copy, ignore=shutil.ignore_patterns("__pycache__"))
    return copy


def test_the_digest_follows_a_family_s_sources_and_what_it_imports(tmp_path, monkeypatch):
    before = {f: kernels.digest(f) for f in kernels.families()}
    copy = _copy_sources(tmp_path)
    monkeypatch.setattr(kernels, "PACKAGE_DIR", copy)
    monkeypatch.setattr(kernels, "_digests", {})
    assert {f: kernels.digest(f) for f in kernels.families()} == before  # same bytes
    knn = copy / "methods" / "online" / "_roughset" / "kofsd" / "_knn_kernels.py"
    knn.write_text(knn.read_text() + "\n# edited\n")
    monkeypatch.setattr(kernels, "_digests", {})
    after = {f: kernels.digest(f) for f in kernels.families()}
    changed = {f for f in after if after[f] != before[f]}
    # _set_kernels and _point_kernels import _knn_kernels: all three are rebuilt, nothing
    # else.
    assert changed == {
        "methods.online._roughset.kofsd._knn_kernels",
        "methods.online._roughset.kofsd._set_kernels",
        "methods.online._roughset.kofsd._point_kernels",
    }
    (copy / "_compute" / "_build.py").write_text("# another build\n")
    monkeypatch.setattr(kernels, "_digests", {})
    assert all(kernels.digest(f) != after[f] for f in kernels.families())


def _cache_without(tmp_path: Path, family: str) -> Path:
    """A cache directory holding every built family but ``family``."""
    cache = tmp_path / "cache"
    cache.mkdir()
    for row in kernels.status():
        if row["family"] != family:
            extension = Path(row["path"])
            manifest = extension.parent / (extension.name.split(".")[0] + ".json")
            shutil.copy2(extension, cache)
            shutil.copy2(manifest, cache)
    return cache


def _child(code: str, cache: Path, *args: str, **env) -> subprocess.Popen:
    environment = {**os.environ, "FSENGINE_CACHE_DIR": str(cache), **env}
    return subprocess.Popen(
        [sys.executable, "-c", code, *args],
        cwd=ROOT,
        env=environment,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


_LOAD_AND_RUN = (
    "import json\nimport numpy as np\nfrom fsengine._compute import kernels\n"
    f"family = kernels.load({SMALL_FAMILY!r})\n"
    "out = family.cityblock(np.array([[0.0, 1.0], [2.0, 4.0]]))\n"
    "print(json.dumps([family.mode, out.tolist()]))\n"
)


def test_a_missing_build_is_made_once_while_other_processes_wait_for_it(tmp_path):
    """Two processes need a family the cache lacks: one builds it (and says so on stderr,
    with how long it takes), the other waits for that build and loads it."""
    cache = _cache_without(tmp_path, SMALL_FAMILY)
    children = [_child(_LOAD_AND_RUN, cache) for _ in range(2)]
    outputs = [c.communicate(timeout=CHILD_TIMEOUT) for c in children]
    assert [c.returncode for c in children] == [0, 0], outputs
    for stdout, _ in outputs:
        assert json.loads(stdout.strip().splitlines()[-1]) == [
            "ahead-of-time",
            [[0.0, 3.0], [3.0, 0.0]],
        ]
    messages = [stderr for _, stderr in outputs if stderr.strip()]
    assert len(messages) == 1, outputs  # one build, one message
    assert "compiling 1 kernel families for this machine, once (about" in messages[0]
    assert "kernels compiled in" in messages[0]
    assert len(list(cache.glob("_fsengine_methods_rankers__relieff_kernels_*.json"))) == 1


def test_a_failed_build_is_said_and_numba_compiles_just_in_time(tmp_path):
    """No working C compiler: the build fails, stderr says so and what happens instead,
    the kernels run just in time with the same result, and the next process does not
    try again (the failure is recorded until the sources change)."""
    cache = _cache_without(tmp_path, SMALL_FAMILY)
    first = _child(_LOAD_AND_RUN, cache, CC="false", NUMBA_CACHE_DIR=str(tmp_path / "numba"))
    stdout, stderr = first.communicate(timeout=CHILD_TIMEOUT)
    assert first.returncode == 0, stderr
    assert json.loads(stdout.strip().splitlines()[-1]) == [
        "just-in-time",
        [[0.0, 3.0], [3.0, 0.0]],
    ]
    assert "could not compile the kernels ahead of time" in stderr
    assert "numba compiles each one when first used instead" in stderr
    assert list(cache.glob("build-failed-*.txt"))
    second = _child(_LOAD_AND_RUN, cache, NUMBA_CACHE_DIR=str(tmp_path / "numba"))
    stdout, stderr = second.communicate(timeout=CHILD_TIMEOUT)
    assert second.returncode == 0 and "just-in-time" in stdout and stderr == ""


_SELECTIONS = """
import json, sys
import numpy as np
from fsengine import load_dataset
from fsengine.methods.registry import get_method
from fsengine.methods.online._roughset.kofsd import selector as _kofsd
from fsengine._compute import kernels

ds = load_dataset(sys.argv[1])
y = ds.binarise(ds.resolve_class("2"))
out = {}
for method in ("kofsd", "ofs-a3m", "ofs-density", "osfs", "alpha-investing", "cie-osfs",
               "ofs-fpd", "mi", "relieff"):
    outcome = get_method(method).select(ds.X, y, ds.feature_names, top=None)
    scores = outcome.scores if outcome.scores is not None else outcome.selection.scores
    out[method] = [list(outcome.selection.columns), np.asarray(scores).tolist()]
_kofsd.DENSE_MAX_SAMPLES = 0  # the set kept as columns (Fortran-ordered kernels' inputs)
outcome = get_method("kofsd").select(ds.X, y, ds.feature_names)
out["kofsd-columns"] = [list(outcome.selection.columns), list(outcome.selection.scores)]
out["modes"] = sorted(set(kernels.loaded().values()))
print(json.dumps(out))
"""


def test_just_in_time_kernels_give_the_numbers_of_the_ahead_of_time_ones(tmp_path):
    """Every family, through the methods that use it, on the bundled SRBCT: the
    selections and scores of the numba just-in-time kernels equal the built ones bit
    for bit (the same source and LLVM; JSON keeps every float exactly)."""
    runs = {}
    for mode in ("aot", "jit"):
        child = _child(
            _SELECTIONS,
            kernels.cache_dir(),
            str(ROOT / "sample_data" / "SRBCT.parquet"),
            FSENGINE_KERNELS=mode,
            NUMBA_CACHE_DIR=str(tmp_path / "numba"),
        )
        stdout, stderr = child.communicate(timeout=CHILD_TIMEOUT)
        assert child.returncode == 0, stderr
        runs[mode] = json.loads(stdout.strip().splitlines()[-1])
    assert runs["aot"].pop("modes") == ["ahead-of-time"]
    assert runs["jit"].pop("modes") == ["just-in-time"]
    assert runs["jit"] == runs["aot"]
    assert all(columns for columns, _ in runs["aot"].values())


def test_the_kernels_command_shows_and_builds(tmp_path):
    from fsengine.cli import main

    done = subprocess.run(
        [sys.executable, "-m", "fsengine", "kernels"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=CHILD_TIMEOUT,
    )
    assert done.returncode == 0
    lines = done.stdout.splitlines()
    assert lines[0] == f"cache: {kernels.cache_dir()} (mode: aot)"
    assert [line.split(":")[0].strip() for line in lines[1:]] == list(kernels.families())
    assert all("built in" in line for line in lines[1:])
    blocked = tmp_path / "file"
    blocked.write_text("not a directory")
    bad = subprocess.run(
        [sys.executable, "-m", "fsengine", "kernels", "--compile"],
        cwd=ROOT,
        env={**os.environ, "FSENGINE_CACHE_DIR": str(blocked / "kernels")},
        capture_output=True,
        text=True,
        timeout=CHILD_TIMEOUT,
    )
    assert bad.returncode == 2
    assert bad.stderr.count("\n") == 1 and "cannot write the kernels to" in bad.stderr
    assert main(["kernels", "--compile"]) == 0  # all built: nothing to do
