"""The package as a learner installs it: a wheel built from this checkout, run from a folder outside it.

The wheel is installed into a fresh venv (the dependencies, torch, matplotlib and the rest, borrowed from this
environment), and run with its interpreter from another temporary folder: what the chapters, the exercises and
the checks read must come with the wheel, not from the checkout.
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
    """A fresh venv outside the checkout with the wheel installed in it: `(wheel, environment)`, where the
    environment's PATH starts with the venv's bin. Its own site-packages holds the package; the dependencies
    (torch, matplotlib, ...) come from this environment through a .pth line, which adds their folder without
    running its .pth files, so this checkout's editable install stays out of reach."""
    import sysconfig
    import venv

    wheels, home = tmp_path_factory.mktemp("wheel"), tmp_path_factory.mktemp("venv")
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--quiet"]
    subprocess.run([*pip, "wheel", "--no-deps", "--no-build-isolation", "-w", str(wheels), str(ROOT)], check=True)
    wheel = next(wheels.glob("transformer_tutorial-*.whl"))
    venv.create(home, with_pip=False)
    python = home / "bin" / "python"
    site = Path(
        subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
            capture_output=True, text=True, check=True,
        ).stdout.strip()
    )  # fmt: skip
    subprocess.run([*pip, "install", "--no-deps", "--target", str(site), str(wheel)], check=True)
    (site / "dependencies.pth").write_text(sysconfig.get_path("purelib") + "\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k not in ("TUTORIAL_CACHE_DIR", "PYTHONPATH", "VIRTUAL_ENV")}
    env.update(PATH=f"{home / 'bin'}{os.pathsep}{env.get('PATH', '')}", TQDM_DISABLE="1", VENV=str(home))
    return wheel, env


def python(env: dict) -> str:
    """The fresh venv's interpreter."""
    return str(Path(env["VENV"]) / "bin" / "python")


def run(env: dict, cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [python(env), "-m", "tutorial_tools", *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=600
    )


def test_the_wheel_holds_the_package_data_and_the_license(installed):
    wheel, _ = installed
    names = zipfile.ZipFile(wheel).namelist()
    assert "tutorial_code/results-cpu.json" in names
    assert any(name.endswith(".dist-info/licenses/LICENSE") for name in names)
    assert "tutorial_chapters/overview/script.py" in names
    assert "tutorial_i18n/cli.zh.yml" in names  # the Chinese of the checks: the tools', and each chapter's
    assert "tutorial_chapters/masks/cli.zh.yml" in names
    assert "tutorial_chapters/contents.yml" in names and "tutorial_chapters/masks/chapter.yml" in names


def test_the_installed_package_is_the_one_that_runs(installed, tmp_path):
    _, env = installed
    where = subprocess.run(
        [python(env), "-c", "import sys, tutorial_code, tutorial_tools; print(tutorial_code.__file__, sys.prefix)"],
        capture_output=True, text=True, cwd=tmp_path, env=env, check=True,
    ).stdout  # fmt: skip
    assert where.count(env["VENV"]) == 2 and str(ROOT) not in where  # the venv's own copy, and its own prefix


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
    """The notebook a reader downloads, run by nbclient from an empty folder in a kernel of the fresh venv
    (a kernel spec of its own, found through JUPYTER_PATH): its install cell finds the package there and installs
    nothing; every cell prints what the build's run printed."""
    import json

    import nbformat
    from conftest import stdout_of
    from nbclient import NotebookClient

    _, env = installed
    kernels = tmp_path / "jupyter" / "kernels" / "fresh-venv"
    kernels.mkdir(parents=True)
    argv = [python(env), "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    (kernels / "kernel.json").write_text(json.dumps({"argv": argv, "display_name": "fresh", "language": "python"}))
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "jupyter"))
    for key in ("TUTORIAL_CACHE_DIR", "PYTHONPATH"):
        monkeypatch.delenv(key, raising=False)
    built = nbformat.read(site / "notebooks" / "masks" / "masks.ipynb", as_version=4)
    fresh = nbformat.read(site / "notebooks" / "masks" / "masks.ipynb", as_version=4)
    for cell in fresh.cells:
        if cell.cell_type == "code":
            cell.outputs = []
    fresh.cells.append(nbformat.v4.new_code_cell("import tutorial_code\nprint(tutorial_code.__file__)"))
    folder = tmp_path / "empty"
    folder.mkdir()
    client = NotebookClient(fresh, timeout=300, kernel_name="fresh-venv", resources={"metadata": {"path": str(folder)}})
    client.execute()
    printed = stdout_of(fresh)
    assert printed[-1].startswith(env["VENV"]), printed[-1]  # the wheel's copy, not the checkout's
    assert printed[:-1] == stdout_of(built)
    assert list(folder.iterdir()) == []  # it wrote nothing where it ran


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
    subprocess.run([python(env), "-c", keep], cwd=tmp_path, env=env, check=True)
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
        [python(env), "-c", EVERY_CHAPTER, env["VENV"]], capture_output=True, text=True, cwd=tmp_path, env=env
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.split() == list(chapters())
