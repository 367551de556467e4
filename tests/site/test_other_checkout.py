"""One environment builds the checkout whose mkdocs.yml it is given (`sitebuild/checkout.py`).

A copy of this checkout, with an edit deep in `tutorial_code`, is built from this checkout's environment (its
editable install points here): the copy's pages show the copy's output, and this checkout's `.cache/` and recorded
runs stay as they were. The copy is built twice in one process, as `mkdocs serve` rebuilds, with a Chinese word
edited between the builds: the second build shows the new word.
"""

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

from conftest import ROOT

EDITED_OUTPUT = "EDITED-IN-THE-COPY"
OLD_WORD, NEW_WORD = "运行本章", "运行这一章"  # i18n/strings.yml, zh: run_box_title

TWO_BUILDS = f"""
import sys
from pathlib import Path

from mkdocs.commands.build import build
from mkdocs.config import load_config


def main(checkout: Path, out: Path) -> None:
    for name in ("first", "second"):
        if name == "second":  # an edit between two rebuilds of one process, as under mkdocs serve
            words = checkout / "i18n" / "strings.yml"
            text = words.read_text(encoding="utf-8")
            words.write_text(text.replace({OLD_WORD!r}, {NEW_WORD!r}), encoding="utf-8")
        config = load_config(str(checkout / "mkdocs.yml"), site_dir=str(out / name), strict=True)
        config.plugins.on_startup(command="serve", dirty=False)
        try:
            build(config)
        finally:
            config.plugins.on_shutdown()


if __name__ == "__main__":  # the chapters' processes start from this file too (multiprocessing's forkserver)
    main(Path(sys.argv[1]), Path(sys.argv[2]))
"""

IGNORED = shutil.ignore_patterns(
    ".git", ".venv*", ".cache", "site", "build", "node_modules", "__pycache__", "*.egg-info"
)


def snapshot(folder: Path) -> dict[str, str]:
    """Every file under `folder`, by path, with a hash of its bytes."""
    return {
        str(path.relative_to(folder)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def test_a_copy_builds_its_own_code_and_a_rebuild_shows_an_edited_word(site, tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(ROOT, copy, ignore=IGNORED)
    for kept in ("chapters", "trainings"):  # this checkout's runs: the copy reruns only what its edit touches
        shutil.copytree(ROOT / ".cache" / kept, copy / ".cache" / kept)
    module = copy / "tutorial_code" / "debugging.py"
    code = module.read_text(encoding="utf-8")
    shape_line = 'f"{name or type(module).__name__:<32} {tuple(first.shape)}"'
    assert shape_line in code
    module.write_text(code.replace(shape_line, f'"{EDITED_OUTPUT} " + {shape_line}'), encoding="utf-8")
    kept = ("chapters", "notebook-pages")
    before = (
        [snapshot(ROOT / ".cache" / name) for name in kept],
        (ROOT / "benchmarks" / "recorded-runs.json").read_bytes(),
    )

    script = tmp_path / "two_builds.py"
    script.write_text(TWO_BUILDS, encoding="utf-8")
    # a contributor's shell: the environment's install of the build, nothing pointing at a checkout
    left_out = ("PYTHONPATH", "TUTORIAL_CACHE_DIR", "TUTORIAL_CHECKOUT", "TUTORIAL_RECORDS_FILE")
    env = {name: value for name, value in os.environ.items() if name not in left_out}
    env |= {"DISABLE_MKDOCS_2_WARNING": "true", "NO_MKDOCS_2_WARNING": "1"}
    result = subprocess.run(
        [sys.executable, str(script), str(copy), str(tmp_path / "out")],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-4000:]

    first, second = tmp_path / "out" / "first", tmp_path / "out" / "second"
    page = "troubleshooting/index.html"
    assert EDITED_OUTPUT in (first / page).read_text(encoding="utf-8"), "the copy's page shows another checkout's run"
    assert EDITED_OUTPUT not in (site / page).read_text(encoding="utf-8")
    chinese = "zh/masks/index.html"
    assert OLD_WORD in (first / chinese).read_text(encoding="utf-8")
    assert NEW_WORD in (second / chinese).read_text(encoding="utf-8"), "the rebuild kept the words of the last build"
    after = (
        [snapshot(ROOT / ".cache" / name) for name in kept],
        (ROOT / "benchmarks" / "recorded-runs.json").read_bytes(),
    )
    assert after == before, "building the copy changed this checkout's .cache/ or records"
    assert any(path.name.startswith("troubleshooting-") for path in (copy / ".cache" / "chapters").iterdir())
