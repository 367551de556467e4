"""Checks of the repository itself, offline: lint and format, and the GitHub workflows."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT

BIN = Path(sys.executable).parent


def tool(name: str) -> str:
    path = BIN / name if (BIN / name).exists() else shutil.which(name)
    if path is None:
        pytest.fail(f"{name} is not installed: run the README's install (bash scripts/dev.sh test)")
    return str(path)


def run(*command: str) -> subprocess.CompletedProcess:
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)


def test_ruff_lint_passes():
    result = run(tool("ruff"), "check", ".")
    assert result.returncode == 0, result.stdout


def test_no_private_name_of_any_dependency_is_used():
    """A private name (`_x`, `_internal`) breaks on the next upgrade: importing one (PLC2701), using one (SLF001)."""
    folders = ("scripts", "tutorial_code", "sitebuild", "benchmarks")
    result = run(tool("ruff"), "check", "--preview", "--select", "PLC2701,SLF001", "--no-cache", *folders)
    assert result.returncode == 0, result.stdout
    exempted = run("git", "grep", "-n", "-E", "noqa: *(PLC2701|SLF001)", "--", *folders)
    assert exempted.stdout == "", "no line is exempted"


def test_ruff_format_is_applied():
    result = run(tool("ruff"), "format", "--check", ".")
    assert result.returncode == 0, result.stdout


def test_actionlint_finds_nothing():
    result = run(tool("actionlint"), "-no-color")
    assert result.returncode == 0, result.stdout + result.stderr


def test_zizmor_finds_nothing():
    result = run(tool("zizmor"), "--offline", "--no-progress", ".github")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "No findings" in result.stdout + result.stderr


def test_only_the_deploy_and_notebook_jobs_write():
    import yaml

    for workflow in (ROOT / ".github" / "workflows").glob("*.yml"):
        text = workflow.read_text(encoding="utf-8")
        assert "pull_request_target" not in text, workflow.name
        config = yaml.safe_load(text)
        assert config.get("permissions") == {}, f"{workflow.name}: set top-level permissions: {{}}"
        for name, job in config["jobs"].items():
            writes = {k for k, v in job.get("permissions", {}).items() if v == "write"}
            if writes:
                allowed = {("pages.yml", "deploy"): {"pages", "id-token"}, ("pages.yml", "notebooks"): {"contents"}}
                assert allowed.get((workflow.name, name)) == writes, f"{workflow.name}:{name} writes {writes}"
        if workflow.name == "pages.yml":  # the notebook job runs nothing of the repository: no checkout
            assert not any("checkout" in step.get("uses", "") for step in config["jobs"]["notebooks"]["steps"])


def test_no_file_of_the_repository_points_outside_it():
    """A clone works alone: no tracked file reads or names a path beside the repository (`../shared`), but for
    the test below, which compares the yardstick with the shared one where that is present."""
    pattern = r"\.\./shared|/ \"shared\""
    found = run("git", "grep", "-n", "-I", "-E", pattern, "--", ".", ":!tests/site/test_repository.py")
    assert found.stdout == "", found.stdout


def test_the_yardstick_of_the_repository_is_the_shared_one():
    """benchmarks/yardstick.py is a copy of the team's yardstick, so a clone needs nothing beside it; its function
    must stay the same, or the ratios of two machines would measure different work."""
    import ast

    shared = ROOT.parent / "shared" / "yardstick.py"
    if not shared.exists():
        pytest.skip("no shared yardstick beside this checkout")

    def function(path):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        return next(ast.dump(node) for node in tree.body if isinstance(node, ast.FunctionDef))

    assert function(ROOT / "benchmarks" / "yardstick.py") == function(shared)


def test_the_build_times_in_the_readme_are_the_measured_ones():
    """README's build-time table is written by scripts/measure_build.py from its JSON file, never by hand."""
    import json

    from conftest import load_file

    measure = load_file("scripts/measure_build.py")
    times = json.loads((ROOT / "benchmarks" / "build-times.json").read_text(encoding="utf-8"))
    assert measure.readme_text(times) in (ROOT / "README.md").read_text(encoding="utf-8")
    # The cold build's ratio to the yardstick is a benchmark (scripts/measure_build.py), not a bound tested here.
    assert times["prose_edit_seconds"] <= 3, "mkdocs serve shows a prose edit within 3 s"
    # The Chinese edition: its pass runs no chapter, and its pages show an edit as fast as the English ones.
    chinese = times["cold"]["chinese_pass_seconds"]
    assert chinese / (times["cold"]["seconds"] - chinese) <= 0.15, "both editions within 15 % of English alone"
    assert times["prose_edit_zh_seconds"] <= 3, "mkdocs serve shows a prose edit of a Chinese page within 3 s"


def test_text_files_end_in_one_newline_without_trailing_spaces():
    """What pre-commit's end-of-file-fixer and trailing-whitespace hooks would change (vendored KaTeX aside)."""
    listed = run("git", "ls-files", "-z", "--", ".", ":!docs/assets/katex/").stdout.split("\0")
    wrong = []
    for name in filter(None, listed):
        data = (ROOT / name).read_bytes()
        if b"\0" in data or not data or name.endswith((".png", ".svg", ".ico", ".woff2")):
            continue
        lines = data.split(b"\n")
        if not data.endswith(b"\n") or data.endswith(b"\n\n"):
            wrong.append(f"{name}: should end in exactly one newline")
        wrong += [
            f"{name}:{number}: trailing whitespace" for number, line in enumerate(lines, 1) if line.rstrip() != line
        ]
    assert not wrong, "\n".join(wrong[:20])


def test_one_python_floor_stated_the_same_everywhere():
    """pyproject's requires-python is what the README, the home pages and ruff's target say, and what runs here."""
    import re
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    floor = project["project"]["requires-python"].removeprefix(">=")
    assert re.fullmatch(r"3\.\d+", floor)
    assert project["tool"]["ruff"]["target-version"] == "py" + floor.replace(".", "")
    assert sys.version_info >= tuple(map(int, floor.split(".")))
    stated = {
        "README.md": f"Python {floor}+",
        "docs/index.md": f"Python {floor} or newer",
        "docs/index.zh.md": f"Python {floor} 或更高版本",
    }
    for name, words in stated.items():
        text = (ROOT / name).read_text(encoding="utf-8")
        assert words in text, name
        others = set(re.findall(r"Python (3\.\d+)", text)) - {floor}
        assert not others, f"{name} names another Python: {others}"
