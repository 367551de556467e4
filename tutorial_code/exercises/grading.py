"""Grade a learner's file: load it, run its exercise's checks, report each one.

`transformer-tutorial check` runs `grade_file` in a separate Python process with a time limit
(`grade_in_subprocess`), so an endless loop or a crash in the learner's code is reported instead of
hanging or killing the command.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import traceback
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

from tutorial_code.exercises.catalogue import EXERCISES, Exercise

if TYPE_CHECKING:
    from tutorial_code.exercises.checks import Check

DEFAULT_TIME_LIMIT = 60.0  # seconds; the reference solutions take about one, most of it importing torch


class LoadError(Exception):
    """The learner's file could not be run at all; the message says why, in the learner's terms."""


def load(path: Path) -> ModuleType:
    """Run the learner's file as a module; the usual failures become a `LoadError` that says what to fix."""
    if not path.is_file():
        raise LoadError(f"there is no file {path}; write the starter with `transformer-tutorial exercise NAME`")
    spec = importlib.util.spec_from_file_location(f"learner_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except SyntaxError as error:
        line = (error.text or "").rstrip("\n")
        pointer = f"\n    {line}\n    {' ' * max(0, (error.offset or 1) - 1)}^" if line else ""
        raise LoadError(f"{path.name} has a syntax error on line {error.lineno}: {error.msg}{pointer}") from None
    except ModuleNotFoundError as error:
        raise LoadError(
            f"{path.name} imports {error.name!r}, which is not installed: check the spelling, "
            "or install it in the environment that runs transformer-tutorial"
        ) from None
    except Exception as error:  # noqa: BLE001 - anything the learner's top-level code raises
        frames = [frame for frame in traceback.extract_tb(error.__traceback__) if frame.filename == str(path)]
        where = f" on line {frames[-1].lineno}" if frames else ""
        raise LoadError(f"{path.name} raised {type(error).__name__}{where} while loading: {error}") from None
    return module


def grade(exercise: Exercise, learner: ModuleType, learner_file: str = "", progress=None) -> list[Check]:
    """Run every check of `exercise` on the learner's module; `progress(name)` is called before each."""
    from tutorial_code.exercises.checks import run_check  # imports torch: only the grading process needs it

    results = []
    for name, check in exercise.checks:
        if progress is not None:
            progress(name)
        results.append(run_check(name, check, learner, learner_file))
    return results


def report(exercise: Exercise, results: list[Check]) -> str:
    """The text `transformer-tutorial check` prints: one line per check, with what failed and the hint."""
    lines = []
    for result in results:
        lines.append(f"{'PASS' if result.passed else 'FAIL'}  {result.name}")
        if result.message:
            lines.append(f"      {result.message}")
        if result.hint:
            lines.append(f"      hint: {result.hint}")
    passed = sum(result.passed for result in results)
    verdict = "all checks pass" if passed == len(results) else f"{passed} of {len(results)} checks pass"
    lines.append(f"{exercise.name}: {verdict}.")
    return "\n".join(lines)


def grade_file(name: str, path: Path) -> int:
    """Grade `path` for exercise `name`, print the report, return the exit status (0 when every check passes)."""
    exercise = EXERCISES[name]
    try:
        learner = load(path.resolve())
    except LoadError as error:
        print(f"FAIL  {error}", flush=True)
        return 1
    results = grade(exercise, learner, str(path.resolve()), progress=lambda check: print(f"....  {check}", flush=True))
    print(report(exercise, results), flush=True)
    return 0 if all(result.passed for result in results) else 1


def grade_in_subprocess(name: str, path: Path, time_limit: float = DEFAULT_TIME_LIMIT) -> tuple[int, str]:
    """Grade `path` in a new Python process; return `(exit status, report)`. An overrun is reported, not fatal."""
    command = [sys.executable, "-m", "tutorial_code.exercises.grading", name, str(path)]
    environment = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=time_limit, env=environment)
    except subprocess.TimeoutExpired as expired:
        printed = expired.stdout.decode() if isinstance(expired.stdout, bytes) else (expired.stdout or "")
        running = [line[6:] for line in printed.splitlines() if line.startswith("....  ")]
        during = f" during the check {running[-1]!r}" if running else " while loading the file"
        return 1, (
            f"FAIL  your code did not finish within {time_limit:g} s{during}: look for a loop that never ends "
            "(a `while` whose condition never changes, or a loop over a list that grows as it goes)"
        )
    lines = [line for line in done.stdout.splitlines() if not line.startswith("....  ")]
    if done.returncode not in (0, 1):
        last = done.stderr.strip().splitlines()[-1:] or [f"exit status {done.returncode}"]
        lines.append(f"FAIL  the grading process stopped: {last[0]}")
        return 1, "\n".join(lines)
    return done.returncode, "\n".join(lines)


if __name__ == "__main__":
    sys.exit(grade_file(sys.argv[1], Path(sys.argv[2])))
