"""The pieces of the site build that need no build: `run` fences, section outputs, chapter keys, the checkout check."""

import shutil

import nbformat
import pytest
from conftest import ROOT

from sitebuild.in_chapter import execute
from sitebuild.in_chapter.kernel import WrongCheckoutError, check_checkout
from sitebuild.in_mkdocs import chapters, pages

REPOSITORY = "https://github.com/example/attention-by-hand"  # repo_url, as mkdocs.yml gives it

PAGE = """# A page

```python run
--8<-- "docs/masks/script.py:setup"
--8<-- "docs/masks/script.py:padding"
```

!!! note

    ```python run="markdown"
    --8<-- "docs/masks/script.py:table"
    ```
"""
OUTPUTS = {"setup": "", "padding": "tensor([True])\n", "table": "| a |\n|---|\n"}


def test_a_run_fence_becomes_the_code_and_what_it_printed():
    filled = pages.fill(PAGE, "page.md", lambda chapter, section, prose: OUTPUTS[section])
    assert '```python\n--8<-- "docs/masks/script.py:setup"\n' in filled
    assert "```text\ntensor([True])\n```" in filled
    assert "    | a |\n    |---|\n" in filled and ":table" not in filled  # Markdown, indented in the admonition
    assert "run" not in filled.replace("tutorial_code", "")


def test_run_fences_are_listed_in_page_order():
    assert pages.run_fences(PAGE) == [
        ("text", [("masks", "setup"), ("masks", "padding")]),
        ("markdown", [("masks", "table")]),
    ]


@pytest.mark.parametrize(
    ("page", "message"),
    [
        ("```python run\nprint(1)\n```\n", "holds only include lines of a chapter script"),
        ('```python run\n--8<-- "docs/masks/script.py:setup"\n', "never closed"),
    ],
)
def test_a_bad_run_fence_is_explained(page, message):
    with pytest.raises(pages.PageError, match=message):
        pages.fill(page, "page.md", lambda chapter, section, prose: "")


def executed(*outputs) -> nbformat.NotebookNode:
    cell = nbformat.v4.new_code_cell("x = 1")
    cell.outputs = list(outputs)
    return nbformat.v4.new_notebook(cells=[cell])


def chapter(sections=("only",)) -> chapters.ChapterNotebook:
    return chapters.ChapterNotebook("demo", ROOT / "docs" / "demo" / "script.py", executed(), list(sections))


def test_a_section_keeps_what_it_printed_and_drew():
    png = nbformat.v4.new_output("display_data", data={"image/png": "iVBORw0K", "text/plain": "<Figure>"})
    text = nbformat.v4.new_output("stream", name="stdout", text="hello\n")
    found = chapters.sections_of(chapter(), executed(text, png))
    assert found["only"].text == "hello\n" and found["only"].png.startswith(b"\x89PNG")


@pytest.mark.parametrize(
    ("outputs", "message"),
    [
        ([nbformat.v4.new_output("stream", name="stderr", text="/tmp/x.py:6: UserWarning")], "wrote to standard error"),
        ([nbformat.v4.new_output("display_data", data={"image/png": "AA=="})] * 2, "drew two figures"),
        ([nbformat.v4.new_output("execute_result", data={"text/plain": "1"}, execution_count=1)], "not with an expr"),
    ],
)
def test_what_a_page_must_not_show_stops_the_build_and_names_the_section(outputs, message):
    with pytest.raises(chapters.ChapterError, match=rf"chapter 'demo', section 'only' .*{message}"):
        chapters.sections_of(chapter(), executed(*outputs))


def test_a_code_cell_without_exactly_one_section_is_refused(tmp_path):
    script = tmp_path / "broken.py"
    script.write_text("# %%\nprint(1)\n", encoding="utf-8")
    with pytest.raises(chapters.ChapterError, match="exactly one named section"):
        chapters.read_notebook(script)


def test_a_chapter_key_follows_imports_and_ignores_prose(tmp_path):
    for folder in ("tutorial_code", "tutorial_tools", "sitebuild", "docs/positional_encoding", "docs/masks"):
        shutil.copytree(ROOT / folder, tmp_path / folder, ignore=shutil.ignore_patterns("__pycache__"))
    script = tmp_path / "docs" / "positional_encoding" / "script.py"
    masks_chapter = tmp_path / "docs" / "masks" / "script.py"
    before = {path: chapters.read_notebook(path).key() for path in (script, masks_chapter)}
    positional = tmp_path / "tutorial_code" / "positional.py"
    positional.write_text(positional.read_text(encoding="utf-8").replace("10000", "5000"), encoding="utf-8")
    assert chapters.read_notebook(script).key() != before[script]  # imports positional, directly
    assert chapters.read_notebook(masks_chapter).key() == before[masks_chapter]  # does not import it at all
    script.write_text(script.read_text(encoding="utf-8").replace("# # 6.", "# # 6. Prose edit:"), encoding="utf-8")
    assert chapters.read_notebook(script).key() == chapters.read_notebook(script).key()
    prose_only = chapters.read_notebook(script).key()
    positional.write_text(positional.read_text(encoding="utf-8").replace("5000", "10000"), encoding="utf-8")
    assert chapters.read_notebook(script).key() != prose_only
    assert chapters.read_notebook(script).key() == before[script]  # a Markdown cell edit changes no key
    runners = (
        "sitebuild/in_chapter/kernel.py",
        "sitebuild/in_chapter/recorded_runs.py",
        "sitebuild/in_chapter/claims.py",
        "docs/masks/checks.py",
        "docs/masks/chapter.yml",  # its entry: the values the run keeps
        "tutorial_tools/contents.py",  # which reads that entry in the chapter's process
    )
    for runner in runners:  # they run in the chapter's process
        path = tmp_path / runner
        original = path.read_text(encoding="utf-8")
        path.write_text(original + "\nEDITED = True\n", encoding="utf-8")
        assert chapters.read_notebook(masks_chapter).key() != before[masks_chapter], runner
        path.write_text(original, encoding="utf-8")
    for mkdocs_side in ("build.py", "editions.py"):  # they run inside MkDocs only
        (tmp_path / "sitebuild" / mkdocs_side).write_text("# edited\n", encoding="utf-8")
    (tmp_path / "tutorial_tools" / "cli.py").write_text("# edited\n", encoding="utf-8")  # the command line
    assert chapters.read_notebook(masks_chapter).key() == before[masks_chapter]


def test_a_chapter_key_covers_the_package_data_and_the_records_it_reads(tmp_path):
    """tutorial_code/results-cpu.json (the benchmark results) and benchmarks/recorded-runs.json are read by some
    chapters: an edit to either runs those chapters again, and no other."""
    for folder in ("tutorial_code", "tutorial_tools", "sitebuild", "docs", "benchmarks"):
        shutil.copytree(ROOT / folder, tmp_path / folder, ignore=shutil.ignore_patterns("__pycache__"))
    scripts = chapters.chapter_scripts(tmp_path)

    def keys() -> dict[str, str]:
        return {name: chapters.read_notebook(path).key() for name, path in scripts.items()}

    def changed(before: dict[str, str]) -> set[str]:
        return {name for name, key in keys().items() if key != before[name]}

    before = keys()
    results = tmp_path / "tutorial_code" / "results-cpu.json"
    results.write_text(results.read_text(encoding="utf-8").replace('"matmul_gflops": ', '"matmul_gflops": 1'))
    assert changed(before) == {"best_practices", "kv_cache", "overview"}  # the three that show the benchmark

    before = keys()
    records = tmp_path / "benchmarks" / "recorded-runs.json"
    records.write_text(records.read_text(encoding="utf-8").replace('"date": "', '"date": "1'), encoding="utf-8")
    rerun = changed(before)
    assert "overview" in rerun, "the home page lists the recorded runs: a new record must show there"
    assert {"training", "best_practices", "encoder_decoder", "language_model", "todays_models"} <= rerun
    assert not rerun & {"masks", "positional_encoding", "multi_head_attention"}  # they read no record


def test_the_build_refuses_another_copy_of_the_package(tmp_path):
    check_checkout(ROOT)  # the tests import the checkout
    with pytest.raises(WrongCheckoutError, match=r"imported tutorial_code from .*pip install -e"):
        check_checkout(tmp_path)


@pytest.mark.integration
def test_every_curriculum_module_has_an_api_page_and_no_other_module_has_one():
    import subprocess
    import sys

    result = subprocess.run(
        [sys.executable, "scripts/gen_api_pages.py", "--check"], cwd=ROOT, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout


@pytest.mark.parametrize("library", ["torch", "numpy", "matplotlib", "mkdocs-material"])
def test_another_installed_version_of_a_library_runs_every_chapter_and_training_again(monkeypatch, library):
    """A torch upgrade changes numbers and PyTorch's error texts: runs made with the old one must not be reused."""
    import importlib.metadata

    from sitebuild import fingerprint
    from sitebuild.in_chapter import training_cache

    script = ROOT / "docs" / "masks" / "script.py"
    chapter_before, training_before = chapters.read_notebook(script).key(), training_cache.torch_build()
    installed = importlib.metadata.version

    def upgraded(name: str) -> str:
        return "999.0" if name == library else installed(name)

    monkeypatch.setattr(fingerprint.importlib.metadata, "version", upgraded)
    assert chapters.read_notebook(script).key() != chapter_before
    assert training_cache.torch_build() != training_before
    monkeypatch.undo()
    assert chapters.read_notebook(script).key() == chapter_before  # the same versions give the same key


def test_the_chinese_troubleshooting_table_is_rendered_from_the_rows_the_chapter_ran():
    from sitebuild.in_mkdocs import editions
    from tutorial_code.troubleshooting import PROBLEMS, Row, markdown_table

    printed = [f"RuntimeError: symptom {i} | piped" for i in range(3)]  # PyTorch's words: kept as printed
    rows = [Row(p.name, p.title, printed[i], f"loss = 0.{i}", True, True) for i, p in enumerate(PROBLEMS[:3])]
    data = {"torch": "9.9.9", "value": execute.as_data(rows)}
    chinese = editions.rendered("troubleshooting", "table", data, "zh", ROOT).splitlines()
    english = markdown_table(rows).splitlines()
    assert len(chinese) == len(english) and "9.9.9" in chinese[0]
    for i, line in enumerate(chinese[4:]):
        assert f"`RuntimeError: symptom {i} \\| piped`" in line and line.endswith(f"| 损失 = 0.{i} |")
        assert PROBLEMS[i].title not in line and PROBLEMS[i].cause not in line  # the prose is the Chinese one
    assert editions.rendered("troubleshooting", "table", data, "en", ROOT) is None  # English shows what was printed


def test_a_notebook_figure_links_to_the_published_file_with_the_same_bytes(tmp_path):
    import base64

    from sitebuild.in_mkdocs.build import linked_figures

    (tmp_path / "figures").mkdir()
    (tmp_path / "figures" / "loss.png").write_bytes(b"\x89PNG same bytes")
    inline = base64.b64encode(b"\x89PNG same bytes").decode()
    other = base64.b64encode(b"\x89PNG drawn only here").decode()
    page = f'<img src="data:image/png;base64,{inline}"><img src="data:image/png;base64,{other}">'
    assert linked_figures(page, "../../", str(tmp_path)) == (
        f'<img src="../../figures/loss.png"><img src="data:image/png;base64,{other}">'
    )


def test_the_downloaded_script_has_no_markers_installs_first_and_saves_each_figure():
    from sitebuild.in_mkdocs import downloads

    source = (
        "# %% [markdown]\n# # 3. Masks\n\n\n# %%\n# --8<-- [start:setup]\nimport torch\n# --8<-- [end:setup]\n\n\n"
        "# %%\n# --8<-- [start:maps]\nfig = draw()\n# --8<-- [end:maps]\n\n\n# %%\n# --8<-- [start:text]\n"
        "print(1)\n# --8<-- [end:text]\n"
    )
    script = downloads.downloadable_script(source, {"maps"}, REPOSITORY)
    assert "--8<--" not in script
    cells = script.split("# %%")
    assert cells[1].startswith(" [markdown]") and "find_spec" in cells[2] and "import matplotlib.pyplot" in cells[3]
    assert 'fig = draw()\nplt.savefig("maps.png", bbox_inches="tight")\n' in script
    assert script.count("savefig") == 1
    assert "savefig" not in downloads.downloadable_script(source, set(), REPOSITORY) and "matplotlib" not in (
        downloads.downloadable_script(source, set(), REPOSITORY)
    )
    compile(script.replace("draw()", "None"), "masks.py", "exec")


def test_the_notebook_zip_is_the_same_bytes_for_the_same_notebooks():
    import io
    import zipfile

    from sitebuild.in_mkdocs import downloads

    notebooks = {"masks": b'{"cells": []}', "training": b"{}"}
    first = downloads.notebooks_zip(notebooks)
    assert first == downloads.notebooks_zip(notebooks)
    archive = zipfile.ZipFile(io.BytesIO(first))
    assert archive.namelist() == ["notebooks/masks.ipynb", "notebooks/training.ipynb"]
    assert archive.read("notebooks/training.ipynb") == b"{}"
    assert downloads.colab_url("masks", REPOSITORY).endswith("/blob/notebooks/masks.ipynb")


def test_the_run_box_is_folded_at_the_end_of_a_chapter_and_the_home_page_has_none():
    from sitebuild.in_mkdocs import editions
    from tutorial_tools import contents

    page = "# Masks\n\nThe lesson starts here.\n"
    masks = contents.by_slug()["masks"]
    shown = editions.with_run_box(page, masks, "en", ROOT)
    assert shown.startswith(page.rstrip("\n")) and shown.rstrip().endswith("notebooks.md).")
    assert '??? example "Run this chapter"' in shown
    assert editions.with_run_box(page, contents.by_slug()["overview"], "en", ROOT) == page


def test_the_install_cell_takes_the_pinned_cpu_torch_and_the_commit_built_and_says_what_to_do_when_it_fails(
    monkeypatch, capsys
):
    import importlib.util
    import shutil
    import subprocess
    import sys

    from sitebuild.in_mkdocs import downloads

    cell = downloads.install_cell(REPOSITORY, "abc123", "2.13.0", ("today",))
    calls, failing = [], set()

    def pip(command, **_):
        calls.append(command[4:])
        return subprocess.CompletedProcess(command, 1 if any(word in command[-1] for word in failing) else 0)

    monkeypatch.setattr(subprocess, "run", pip)
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)  # a fresh Jupyter: nothing installed
    monkeypatch.setattr(shutil, "which", lambda name: None)  # no NVIDIA GPU
    monkeypatch.setattr(sys, "platform", "linux")
    package = f"transformer-tutorial[today] @ git+{REPOSITORY}@abc123"
    exec(compile(cell, "install", "exec"), {})
    assert calls == [["torch==2.13.0", "--index-url", downloads.CPU_TORCH_INDEX], [package]]
    assert capsys.readouterr().out.strip() == f"Installed {package}"  # one line: what it installed
    calls.clear()
    failing |= {downloads.CPU_TORCH_INDEX, "transformer-tutorial"}  # neither PyTorch's index nor the repository
    exec(compile(cell, "install", "exec"), {})
    assert calls == [["torch==2.13.0", "--index-url", downloads.CPU_TORCH_INDEX], ["torch==2.13.0"], [package]]
    assert "Clone it, run `pip install -e .`" in capsys.readouterr().out  # no traceback: what to do
    calls.clear()
    monkeypatch.setattr(shutil, "which", lambda name: "/usr/bin/nvidia-smi")  # a GPU: pip's torch (CUDA) is right
    exec(compile(cell, "install", "exec"), {})
    assert calls == [[package]]
    calls.clear()
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: object() if name == "torch" else None)  # Colab
    exec(compile(downloads.install_cell(REPOSITORY), "install", "exec"), {})
    assert calls == [[f"transformer-tutorial @ git+{REPOSITORY}"]]  # its own torch is kept


def test_the_build_installs_the_torch_it_was_built_with():
    from sitebuild.in_mkdocs import build

    assert build.pinned_torch(ROOT) == next(
        line.split("==")[1]
        for line in (ROOT / "requirements.txt").read_text().splitlines()
        if line.startswith("torch==")
    )


def test_the_commit_is_read_from_the_git_folder_loose_packed_or_detached(tmp_path):
    from sitebuild.in_mkdocs.build import commit_of

    assert commit_of(tmp_path) == ""  # no checkout
    git = tmp_path / ".git"
    (git / "refs" / "heads").mkdir(parents=True)
    (git / "HEAD").write_text("ref: refs/heads/main\n", encoding="utf-8")
    (git / "packed-refs").write_text("# pack-refs with: peeled\n" + "a" * 40 + " refs/heads/main\n", "utf-8")
    assert commit_of(tmp_path) == "a" * 40
    (git / "refs" / "heads" / "main").write_text("b" * 40 + "\n", encoding="utf-8")
    assert commit_of(tmp_path) == "b" * 40  # a loose ref is newer than the packed one
    (git / "HEAD").write_text("c" * 40 + "\n", encoding="utf-8")
    assert commit_of(tmp_path) == "c" * 40
