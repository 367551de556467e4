"""One run per chapter: the build executes what changed and nothing else, and an incremental build shows exactly
what a cold build of the same tree shows."""

import re
import shutil
import subprocess
import sys

import nbformat
import pytest
from conftest import ROOT, prepared_env

from sitebuild.in_mkdocs import chapters


def build(root, site_dir, env=None, strict=True) -> str:
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict" if strict else "--no-strict", "--site-dir", str(site_dir)],
        cwd=root,
        capture_output=True,
        text=True,
        env=(env or prepared_env()) | {"DISABLE_MKDOCS_2_WARNING": "true", "NO_MKDOCS_2_WARNING": "1"},
        timeout=900,
    )
    assert result.returncode == 0, result.stderr[-4000:]
    return result.stderr


def executed_chapters(log: str) -> set[str]:
    line = re.search(r"chapters executed in [\d.]+ s: (.*)", log)[1]
    return set() if "none, all reused" in line else {part.split()[0] for part in line.split(", ")}


def test_a_second_build_executes_no_chapter(site):
    """What `mkdocs serve` does after a prose edit: nothing runs again. A second build reuses a chapter's stored
    run when the run's key (its code and the code it imports, `ChapterNotebook.key`) is in the store: every
    chapter's is, after the session's build. (The deep-edit test below builds again, and finds the chapters that
    do not import the edited module reused.)"""
    from sitebuild.checkout import Checkout

    missing = [
        name
        for name, script in chapters.chapter_scripts(ROOT).items()
        if not (Checkout(ROOT).store / f"{name}-{chapters.read_notebook(script).key()}.ipynb").exists()
    ]
    assert missing == []


def test_a_failing_cell_stops_the_build_and_names_the_chapter_and_the_error():
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1\n1 / x\nundefined_name")])
    broken = chapters.ChapterNotebook("broken", ROOT / "tutorial_code" / "chapters" / "broken.py", notebook, ["only"])
    with pytest.raises(chapters.ChapterError, match=r"(?s)chapter 'broken' .*failed to execute.*NameError"):
        list(chapters.execute([broken], ROOT, workers=1))


def article_text(site_dir) -> dict[str, str]:
    """The text of every chapter page, with wall-clock times masked."""
    texts = {}
    for page in sorted(site_dir.glob("*/index.html")):
        html = page.read_text(encoding="utf-8")
        article = html[html.find("<article") : html.find("</article>")]
        text = re.sub(r"<[^>]+>", "", article)
        text = re.sub(r"\d+\.\d+ (?:(?:s|ms|times)\b|秒|毫秒)", "<time>", text)  # both editions' units
        texts[page.parent.name] = re.sub(r"(?m)^ *\d+ +\d+\.\d +\d+\.\d +\d+\.\d$", "<timing row>", text)
    return texts


# Chapters not needed to show staleness, left out to keep the test short: the longest, and those that only add
# trainings (kv_cache reuses language_model's model).
LEFT_OUT = [
    "best_practices",
    "feed_forward_and_norm",
    "language_model",
    "kv_cache",
    "encoder_decoder",
    "troubleshooting",
    "multi_head_attention",
    "local_attention",
    "padded_tasks",
    "todays_models",  # its check compares RoPE with chapter 5's rotation, which the edit below changes
    "training",  # it trains a dozen digit models, all with positions, and holds recorded runs that the edit makes stale
]


def copy_of_the_checkout(target):
    """The checkout without the chapters in LEFT_OUT (their pages, scripts and nav entries), to build it twice."""
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT, capture_output=True, text=True)
    for name in files.stdout.splitlines():
        left_out = name.startswith(tuple(f"docs/{chapter}/" for chapter in LEFT_OUT))  # the chapter's folder
        if (ROOT / name).is_file() and not left_out:
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, target / name)
    order = target / "docs" / "contents.yml"  # their lines leave the table of contents
    lines = order.read_text(encoding="utf-8").splitlines(keepends=True)
    order.write_text("".join(line for line in lines if line.strip().removeprefix("- ") not in LEFT_OUT), "utf-8")


def test_after_a_deep_edit_an_incremental_build_shows_what_a_cold_build_shows(site, tmp_path):
    """Edit the base of the sinusoidal table: every chapter that imports positional.py, directly or not, runs again
    (with the trainings it depends on), the others are reused, and the pages equal those of a cold build.
    Two chapters are left out of both trees to keep the test short; links to them only warn (--no-strict)."""
    incremental, cold = tmp_path / "incremental", tmp_path / "cold"
    for tree in (incremental, cold):
        copy_of_the_checkout(tree)
        positional = tree / "tutorial_code" / "positional.py"
        source = positional.read_text(encoding="utf-8")
        assert "10000" in source
        positional.write_text(source.replace("10000", "5000"), encoding="utf-8")
    shutil.copytree(ROOT / ".cache", incremental / ".cache")  # what the session's build left: an incremental build
    env = prepared_env() | {"TUTORIAL_CACHE_DIR": ""}  # each tree's own .cache/trainings
    log = build(incremental, tmp_path / "site-incremental", env, strict=False)
    build(cold, tmp_path / "site-cold", env, strict=False)
    ran = executed_chapters(log)
    # both import positional.py, one through the model (checking_against_pytorch: from_torch -> encoder -> positional)
    assert "positional_encoding" in ran and "checking_against_pytorch" in ran
    assert not ran & {"masks", "scaled_dot_product_attention", "why_attention"}  # none of these imports it
    incremental_pages, cold_pages = article_text(tmp_path / "site-incremental"), article_text(tmp_path / "site-cold")
    assert len(cold_pages) >= 8 and incremental_pages == cold_pages
