"""Each chapter script runs from a terminal and prints its results."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CHAPTERS = sorted(p.stem for p in (ROOT / "tutorial_code" / "chapters").glob("*.py") if p.stem != "__init__")


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_chapter_script_runs(chapter):
    result = subprocess.run(
        [sys.executable, "-m", f"tutorial_code.chapters.{chapter}"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert len(result.stdout.splitlines()) >= 1
    assert "Traceback" not in result.stderr
