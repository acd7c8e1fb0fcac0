"""The README's and the docs' examples do what they say: every Python example runs, the
command lines run and print what the pages show, and the study manifest is valid.

A Python block that is only an excerpt of a longer script (names defined elsewhere) says
so on the line before its fence, ``<!-- excerpt: why -->``; every other block is run.
"""

import re
import subprocess
import sys

import pytest

from conftest import ROOT, SLOW_SECONDS
from fsengine.cli import build_parser
from fsengine.evaluation.study import load_manifest

DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^( *)```(\w*)\n(.*?)^\1```", re.M | re.S)
EXCERPT = re.compile(r"<!-- excerpt: [^>]+-->[ \t]*$", re.M)


def _blocks(path):
    """(language, line number, code, marked as an excerpt) of each fenced block."""
    text = path.read_text(encoding="utf-8")
    found = []
    for match in FENCE.finditer(text):
        before = text[: match.start()].rstrip("\n").rsplit("\n", 1)[-1]
        code = "\n".join(line[len(match.group(1)) :] for line in match.group(3).splitlines())
        line = text.count("\n", 0, match.start()) + 1
        found.append((match.group(2), line, code, bool(EXCERPT.search(before))))
    return found


def _python_examples():
    return [
        pytest.param(code, id=f"{path.name}:{line}")
        for path in DOCS
        for language, line, code, excerpt in _blocks(path)
        if language == "python" and not excerpt
    ]


def _run(argv, cwd):
    return subprocess.run(
        argv,
        cwd=cwd,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=SLOW_SECONDS,
    )


def test_the_readme_has_a_library_example():
    assert any(
        p.id.startswith("README.md") and "fs.read(" in p.values[0] for p in _python_examples()
    )


@pytest.mark.parametrize("code", _python_examples())
def test_python_example_runs(code):
    done = _run([sys.executable, "-c", code], ROOT)
    assert done.returncode == 0, done.stderr[-3000:]


def test_excerpts_are_marked_and_say_why():
    """Unmarked blocks are run above; a marked one must be Python and give a reason."""
    for path in DOCS:
        text = path.read_text(encoding="utf-8")
        for marker in re.finditer(r"<!-- excerpt", text):
            assert EXCERPT.match(text, marker.start()), f"{path.name}: a bare excerpt marker"
        for language, line, _, excerpt in _blocks(path):
            assert not excerpt or language == "python", f"{path.name}:{line}"


def _fsengine_lines(code):
    """The block's commands, ``fsengine ...`` or ``python -m fsengine ...`` (continuations
    joined), each as the arguments after the command's name."""
    joined = code.replace("\\\n", " ")
    commands = []
    for line in joined.splitlines():
        words = line.split("#")[0].split()
        if words[:1] == ["fsengine"]:
            commands.append(words[1:])
        elif words[:3] == ["python", "-m", "fsengine"]:
            commands.append(words[3:])
    return commands


#: The pages whose command lines the test below runs.
COMMAND_PAGES = ("README.md", "docs/getting_started.md", "docs/command_line.md")


@pytest.mark.parametrize("page", COMMAND_PAGES)
def test_command_lines_run_and_print_what_the_page_shows(page, tmp_path):
    """Each ``fsengine`` line of the page runs (in a scratch folder that sees the sample
    data; a ``benchmark`` line is parsed and its manifest found, not run: it needs the
    real sets of ../shared/datasets and minutes); a ``select --out -`` line prints the CSV
    of the block after it."""
    (tmp_path / "sample_data").symlink_to(ROOT / "sample_data")
    blocks = _blocks(ROOT / page)
    commands = [
        (i, args)
        for i, (lang, _, code, _) in enumerate(blocks)
        if lang == "sh"
        for args in _fsengine_lines(code)
    ]
    assert {args[0] for _, args in commands} >= {"info", "select"}
    shown_output = 0
    for i, args in commands:
        if args[0] == "benchmark":
            assert build_parser().parse_args(args).command == "benchmark"
            assert (ROOT / args[1]).is_file(), args[1]
            continue
        done = _run([sys.executable, "-m", "fsengine", *args], tmp_path)
        assert done.returncode == 0, f"{' '.join(args)}: {done.stderr[-2000:]}"
        if args[0] == "select" and args[-2:] == ["--out", "-"]:
            language, _, expected, _ = blocks[i + 1]
            assert language == ""
            assert done.stdout.splitlines()[: len(expected.splitlines())] == expected.splitlines()
            shown_output += 1
        for out in (args[args.index("--out") + 1],) if "--out" in args else ():
            assert out == "-" or (tmp_path / out).stat().st_size > 0, out
    assert shown_output == (1 if page == "docs/command_line.md" else 0)


def test_the_readme_shows_the_main_commands():
    blocks = _blocks(ROOT / "README.md")
    commands = {args[0] for _, _, code, _ in blocks for args in _fsengine_lines(code)}
    assert commands >= {"info", "select", "evaluate", "sweep", "benchmark", "methods"}


def test_the_study_manifest_of_the_docs_is_valid(tmp_path):
    (tmp_path / "sample_data").symlink_to(ROOT / "sample_data")
    manifests = [code for lang, _, code, _ in _blocks(ROOT / "docs/studies.md") if lang == "toml"]
    assert len(manifests) == 1
    (tmp_path / "study.toml").write_text(manifests[0])
    study = load_manifest(tmp_path / "study.toml")
    assert study.methods == ("kofsd", "osfs", "fisher", "relieff")
    assert [d.minority for d in study.datasets] == ["2"]
    assert study.params["kofsd"]["k"] == 7


def _layout_names() -> set[str]:
    """The modules and packages the development page's layout names under ``fsengine/``:
    the names ending in ``.py`` or ``/`` at the start of its indented lines."""
    page = ROOT.joinpath("docs", "development.md").read_text(encoding="utf-8")
    layout = page.split("\n## Layout\n")[1]
    block = layout.split("```")[1]
    lines = block.split("\nfsengine/", 1)[1].split("\n")[1:]
    names = set()
    for line in lines:
        if not line.startswith("  "):
            break  # the next top-level entry
        if line.startswith("   "):
            continue  # a description's continuation
        head = line.strip().split("  ")[0]
        names.update(n.strip() for n in head.split(",") if n.strip().endswith((".py", "/")))
    return names


def test_the_layout_names_every_module_and_nothing_else():
    """The layout is written by hand: every public module and package of the library is in
    it, and every name in it exists (it once said ten rankers after there were twelve)."""
    package = ROOT / "fsengine"
    present = {
        p.name + ("/" if p.is_dir() else "")
        for p in package.iterdir()
        if (p.suffix == ".py" or (p.is_dir() and (p / "__init__.py").exists()))
        and not p.name.startswith("__")
        and not (p.name.startswith("_") and p.suffix == ".py")
    }
    named = _layout_names()
    assert named - present == set(), "named in the layout, not in fsengine/"
    assert present - named == set(), "in fsengine/, not named in the layout"
