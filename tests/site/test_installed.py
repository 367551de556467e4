"""The package as a learner installs it: a wheel built from this checkout, run from a folder outside it.

The wheel is installed with `--target` into a temporary folder, and run with this environment's interpreter
(torch, matplotlib and the rest are already there) and that folder first on the path, from another temporary
folder: what the chapters, the exercises and the checks read must come with the wheel, not from the checkout.
The chapters run are those that read a file (the benchmark results), with few steps.
"""

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from conftest import ROOT


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> tuple[Path, dict]:
    wheels, target = tmp_path_factory.mktemp("wheel"), tmp_path_factory.mktemp("installed")
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--quiet"]
    subprocess.run([*pip, "wheel", "--no-deps", "--no-build-isolation", "-w", str(wheels), str(ROOT)], check=True)
    wheel = next(wheels.glob("transformer_tutorial-*.whl"))
    subprocess.run([*pip, "install", "--no-deps", "--target", str(target), str(wheel)], check=True)
    env = {k: v for k, v in os.environ.items() if k not in ("TUTORIAL_CACHE_DIR", "PYTHONPATH")}
    env.update(PYTHONPATH=str(target), TQDM_DISABLE="1")
    return wheel, env


def run(env: dict, cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "tutorial_tools", *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=600
    )


def test_the_wheel_holds_the_package_data_and_the_license(installed):
    wheel, _ = installed
    names = zipfile.ZipFile(wheel).namelist()
    assert "tutorial_code/results-cpu.json" in names
    assert any(name.endswith(".dist-info/licenses/LICENSE") for name in names)
    assert "tutorial_chapters/overview/script.py" in names
    assert "tutorial_i18n/cli.zh.yml" in names  # the Chinese of the checks


def test_the_installed_package_is_the_one_that_runs(installed, tmp_path):
    _, env = installed
    where = subprocess.run(
        [sys.executable, "-c", "import tutorial_code, tutorial_tools; print(tutorial_code.__file__)"],
        capture_output=True, text=True, cwd=tmp_path, env=env, check=True,
    ).stdout  # fmt: skip
    assert env["PYTHONPATH"] in where and str(ROOT) not in where


@pytest.mark.parametrize(
    ("chapter", "printed"),
    [
        ("overview", "From `tutorial_code/results-cpu.json`"),
        ("kv-cache", "Measured on"),
    ],
)
def test_a_chapter_that_reads_a_file_runs_installed(installed, tmp_path, chapter, printed):
    _, env = installed
    result = run(env, tmp_path, chapter, "--steps", "2")
    assert result.returncode == 0, result.stderr[-2000:]
    assert printed in result.stdout
    assert "Traceback" not in result.stderr


def test_an_exercise_is_written_and_checked_installed(installed, tmp_path):
    _, env = installed
    assert run(env, tmp_path, "--version").stdout.startswith("transformer-tutorial 0.")
    written = run(env, tmp_path, "exercise", "causal-mask")
    assert written.returncode == 0 and (tmp_path / "causal_mask.py").exists(), written.stderr
    checked = run(env, tmp_path, "check", "causal-mask")
    assert checked.returncode == 1 and "not implemented yet" in checked.stdout  # the starter, untouched
    chinese = run(env, tmp_path, "check", "causal-mask", "--lang", "zh")
    assert chinese.returncode == 1 and "未通过" in chinese.stdout and "not implemented" not in chinese.stdout


def test_a_downloaded_notebook_runs_on_the_installed_wheel(installed, site, tmp_path, monkeypatch):
    """The notebook a reader downloads, run by nbclient in a fresh kernel from an empty folder, with the package
    from the wheel: its install cell finds the package there and installs nothing; every cell prints what the
    build's run printed."""
    import nbformat
    from conftest import stdout_of
    from nbclient import NotebookClient

    _, env = installed
    for key in ("TUTORIAL_CACHE_DIR", "PYTHONPATH"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("PYTHONPATH", env["PYTHONPATH"])
    built = nbformat.read(site / "notebooks" / "masks" / "masks.ipynb", as_version=4)
    fresh = nbformat.read(site / "notebooks" / "masks" / "masks.ipynb", as_version=4)
    for cell in fresh.cells:
        if cell.cell_type == "code":
            cell.outputs = []
    fresh.cells.append(nbformat.v4.new_code_cell("import tutorial_code\nprint(tutorial_code.__file__)"))
    NotebookClient(fresh, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    printed = stdout_of(fresh)
    assert printed[-1].startswith(env["PYTHONPATH"]), printed[-1]  # the wheel's copy, not the checkout's
    assert printed[:-1] == stdout_of(built)
    assert list(tmp_path.iterdir()) == []  # it wrote nothing where it ran


def test_sample_continues_a_prompt_with_a_kept_model_installed(installed, tmp_path):
    """`sample --from DIR` on a model kept with `tutorial_code.saved_models.keep` (as `--save` keeps one; the
    chapter's training itself is left to tests/unit/test_cli_behaviour.py, in-process)."""
    _, env = installed
    keep = (
        "import torch\nfrom tutorial_code.language_model import CharTransformer, CharVocabulary\n"
        "from tutorial_code.saved_models import keep\ntorch.manual_seed(0)\n"
        "vocabulary = CharVocabulary.of('def return x\\n')\n"
        "keep('kept', CharTransformer(len(vocabulary.chars), d_model=16, num_heads=2, num_layers=1), vocabulary)\n"
    )
    subprocess.run([sys.executable, "-c", keep], cwd=tmp_path, env=env, check=True)
    result = run(env, tmp_path, "sample", "--from", "kept", "--prompt", "def ", "--chars", "20", "--top-p", "0.9")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("def ") and len(result.stdout) == 4 + 20 + 1
    assert run(env, tmp_path, "--help").stdout.count("sample") >= 1


EVERY_CHAPTER = """
import ast, contextlib, importlib, io, sys
from tutorial_tools import cli
from tutorial_tools.contents import chapter_folders
for command, chapter in cli.chapters().items():
    script = chapter_folders() / chapter.slug / "script.py"
    for node in ast.walk(ast.parse(script.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("tutorial_code"):
            module = importlib.import_module(node.module)
            assert module.__file__.startswith(sys.argv[1]), module.__file__
            for alias in node.names:
                getattr(module, alias.name)  # every name a chapter imports is in the installed package
    with contextlib.redirect_stdout(io.StringIO()) as shown, contextlib.suppress(SystemExit):
        cli.main([command, "--help"])
    assert "--no-progress" in shown.getvalue(), command
    print(command)
"""


def test_every_chapter_imports_from_the_installed_package_and_shows_its_options(installed, tmp_path):
    """Every chapter's script, as installed, finds each name it imports in the wheel's `tutorial_code`, and its
    command answers --help. (Two chapters run whole above, and the notebook of a third; running all of them
    takes minutes: tests/site/test_cli.py runs four from the checkout.)"""
    from tutorial_tools.cli import chapters

    _, env = installed
    result = subprocess.run(
        [sys.executable, "-c", EVERY_CHAPTER, env["PYTHONPATH"]], capture_output=True, text=True, cwd=tmp_path, env=env
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.split() == list(chapters())
