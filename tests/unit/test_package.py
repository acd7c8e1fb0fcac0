"""The project as a package: the wheel built from this checkout holds the library (and not the
dashboard), declares the runtime dependencies and the `fsengine` command, and works when it is
installed outside the checkout."""

import configparser
import csv
import email.parser
import io
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from conftest import ROOT, SLOW_SECONDS, installed_fsengine

TIMEOUT = SLOW_SECONDS  # one command; the build fetches setuptools into pip's build env

# What the copy of the checkout leaves out: the environment, build output, caches.
_NOT_SOURCES = shutil.ignore_patterns(
    ".git",
    ".venv",
    "build",
    "dist",
    "*.egg-info",
    "__pycache__",
    ".pytest_cache",
    "test-artifacts",
    ".bench",
    # written while other test processes copy the checkout
    ".hypothesis",
    ".ruff_cache",
)


def _run(args, *, cwd, pythonpath=None, **extra_env):
    """Run a command to the end (with a timeout), with PYTHONPATH only when given and
    ``extra_env`` added; fail with its output unless it exits 0."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    env.update(extra_env)
    if pythonpath is not None:
        env["PYTHONPATH"] = str(pythonpath)
    done = subprocess.run(
        [str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=TIMEOUT
    )
    assert done.returncode == 0, (
        f"{' '.join(map(str, args))} exited {done.returncode}\n"
        f"stdout:\n{done.stdout}\nstderr:\n{done.stderr}"
    )
    return done


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """(wheel, sources): the wheel of the checkout and the copy of the checkout it was built
    from. setuptools writes build/ and fsengine.egg-info next to the sources it builds, and a
    stale build/lib would end up in the wheel, so the build runs in a copy."""
    tmp = tmp_path_factory.mktemp("package")
    sources = tmp / "sources"
    shutil.copytree(ROOT, sources, ignore=_NOT_SOURCES)
    _run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", tmp / "dist", "."],
        cwd=sources,
    )
    wheels = sorted((tmp / "dist").glob("*.whl"))
    assert [w.name.split("-")[0] for w in wheels] == ["fsengine"]
    return wheels[0], sources


def _version(sources: Path) -> str:
    text = (sources / "fsengine" / "version.py").read_text()
    return re.search(r'^__version__ = "([^"]+)"$', text, re.MULTILINE).group(1)


def _dist_info(wheel: Path, name: str) -> str:
    with zipfile.ZipFile(wheel) as z:
        (path,) = [n for n in z.namelist() if n.endswith(f".dist-info/{name}")]
        return z.read(path).decode()


def test_the_package_is_installed_in_the_test_environment():
    dist = installed_fsengine()
    assert dist is not None and dist.metadata["Name"] == "fsengine"


def test_the_wheel_holds_the_library_and_not_the_dashboard(built):
    wheel, sources = built
    version = _version(sources)
    assert wheel.name == f"fsengine-{version}-py3-none-any.whl"
    names = zipfile.ZipFile(wheel).namelist()
    assert {n.split("/")[0] for n in names} == {"fsengine", f"fsengine-{version}.dist-info"}
    modules = {p.relative_to(sources).as_posix() for p in (sources / "fsengine").rglob("*.py")}
    assert {"fsengine/__init__.py", "fsengine/__main__.py", "fsengine/cli/__init__.py"} <= modules
    assert modules <= set(names), "modules missing from the wheel"
    for outside in ("app.py", "dashboard/", "tests/", "benchmarks/", "sample_data/"):
        assert not any(n == outside or n.startswith(outside) for n in names), outside


def test_the_metadata_lists_the_dependencies_and_the_command(built):
    wheel, sources = built
    meta = email.parser.Parser().parsestr(_dist_info(wheel, "METADATA"))
    assert meta["Name"] == "fsengine" and meta["Version"] == _version(sources)
    assert meta["Requires-Python"] == ">=3.11"
    assert meta["License"] == "BSD-3-Clause"
    names = zipfile.ZipFile(wheel).namelist()
    assert any(n.endswith("LICENSE") and ".dist-info/" in n for n in names)
    requires = {
        canonicalize_name(r.name): r for r in map(Requirement, meta.get_all("Requires-Dist"))
    }
    # Every runtime pin of requirements.txt is declared, and lies in the declared range.
    pins = {}
    for line in (sources / "requirements.txt").read_text().splitlines():
        line = line.split("#")[0].strip()
        if line:
            name, version = line.split("==")
            pins[canonicalize_name(name)] = version
    assert (
        set(requires)
        == set(pins)
        >= {
            "streamlit",
            "numpy",
            "scikit-learn",
            "pandas",
            "plotly",
            "pyarrow",
            "scipy",
            "threadpoolctl",
            "numba",
        }
    )
    for name, version in pins.items():
        assert requires[name].specifier.contains(version), (name, version, requires[name])
        assert not requires[name].marker and not requires[name].extras
    entry_points = configparser.ConfigParser()
    entry_points.read_string(_dist_info(wheel, "entry_points.txt"))
    assert dict(entry_points["console_scripts"]) == {"fsengine": "fsengine.cli:main"}


# A small two-class data set: f0 separates the classes, f1 less so, f2 and f3 are noise.
SMALL_CSV = """f0,f1,f2,f3,label
0.1,1.0,0.5,2.0,0
0.2,1.4,0.1,1.0,0
0.0,0.8,0.9,3.0,0
0.3,1.2,0.4,2.5,0
0.2,0.9,0.7,1.5,0
0.1,1.1,0.2,2.2,0
0.0,1.3,0.6,1.8,0
0.3,0.7,0.3,2.8,0
5.0,2.0,0.5,2.1,1
5.2,2.6,0.4,1.9,1
4.9,2.3,0.6,2.4,1
"""


def test_installed_outside_the_checkout(built, tmp_path):
    wheel, sources = built
    site = tmp_path / "site"
    _run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", site, wheel],
        cwd=tmp_path,
    )
    work = tmp_path / "work"  # not the checkout, so that it is not on sys.path
    work.mkdir()

    where = _run(
        [sys.executable, "-c", "import fsengine; print(fsengine.__file__)"],
        cwd=work,
        pythonpath=site,
    ).stdout.strip()
    assert Path(where).resolve().is_relative_to(site.resolve()), where

    command = site / "bin" / "fsengine"
    version = _run([command, "--version"], cwd=work, pythonpath=site).stdout
    assert version.strip() == f"fsengine {_version(sources)}"
    assert (
        _run([sys.executable, "-m", "fsengine", "--version"], cwd=work, pythonpath=site).stdout
        == version
    )

    (work / "small.csv").write_text(SMALL_CSV)
    out = _run(
        [command, "select", "small.csv", "--minority", "1", "--method", "fisher", "--top", "2"],
        cwd=work,
        pythonpath=site,
    ).stdout
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [(r["rank"], r["feature"], r["method"]) for r in rows] == [
        ("1", "f0", "fisher"),
        ("2", "f1", "fisher"),
    ]
    assert all(float(r["score"]) > 0 for r in rows)


def test_an_installed_wheel_builds_its_kernels_into_the_cache_and_says_so(built, tmp_path):
    """Installed outside the checkout, with a cache that lacks a kernel family a run
    needs: the run builds it once into the cache directory (never into site-packages),
    says so on stderr with how long it takes, and gives the same scores; the next run
    loads it silently."""
    from fsengine._compute import kernels

    wheel, _ = built
    site = tmp_path / "site"
    _run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", site, wheel],
        cwd=tmp_path,
    )
    before = sorted(p.relative_to(site) for p in site.rglob("*") if "__pycache__" not in p.parts)
    cache = tmp_path / "cache"
    cache.mkdir()
    for row in kernels.status():  # every family built but ReliefF's
        if row["family"] != "methods.rankers._relieff_kernels":
            extension = Path(row["path"])
            shutil.copy2(extension, cache)
            shutil.copy2(extension.with_name(extension.name.split(".")[0] + ".json"), cache)
    work = tmp_path / "work"
    work.mkdir()
    rng = np.random.default_rng(0)  # 60 x 1500: beyond the numpy budget, ReliefF compiled
    X = np.round(rng.standard_normal((60, 1500)), 2)
    header = ",".join(f"g{j}" for j in range(1500)) + ",label\n"
    rows = "".join(",".join(map(str, x)) + f",{int(i < 12)}\n" for i, x in enumerate(X.tolist()))
    (work / "wide.csv").write_text(header + rows)
    command = [site / "bin" / "fsengine", "select", "wide.csv", "--minority", "1"]
    command += ["--method", "relieff", "--top", "5"]
    first = _run(command, cwd=work, pythonpath=site, FSENGINE_CACHE_DIR=str(cache))
    assert "compiling 1 kernel families for this machine, once (about" in first.stderr
    assert f"into {cache}" in first.stderr
    assert len(list(cache.glob("_fsengine_methods_rankers__relieff_kernels_*.json"))) == 1
    after = sorted(p.relative_to(site) for p in site.rglob("*") if "__pycache__" not in p.parts)
    assert after == before  # nothing written into the installed package
    second = _run(command, cwd=work, pythonpath=site, FSENGINE_CACHE_DIR=str(cache))
    assert "compiling" not in second.stderr
    assert second.stdout == first.stdout
