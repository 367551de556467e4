"""Grade a learner's file: load it, run its exercise's checks, report each one.

`transformer-tutorial check` runs `grade_file` in a separate Python process with a time limit
(`grade_in_subprocess`), so an endless loop or a crash in the learner's code is reported instead of
hanging or killing the command.

A pass means the checks ran. The grading process writes each check's result into a record, a JSON
file in a folder the parent created; the parent sends its path on the process's standard input, which
the grading process reads before it loads the learner's file (so the path is in no environment
variable, and not in /proc/self/environ). The parent decides from the record alone: a record that is
missing or stops before the last check (a `sys.exit` or `os._exit` in the learner's file, a crash) is
a failure, whatever the exit status. The checks, the references and PyTorch are imported before the
learner's file, and a `ToolGuard` puts back what the file replaces. Everything the learner's code
prints is shown under its own label, above the verdict.

What this guards against: a file named after a module beside the learner's file (json.py, a folder
`tutorial_tools/`), which the grading process never imports instead of the real one (its imports do not look in
that folder first: PYTHONSAFEPATH, and the folder comes last on the path); a file that ends the process early,
replaces the grader's or PyTorch's
functions (a method of `nn.Linear`, of the grader's classes or of the grading process's `__main__`
included), prints its own verdict, or leaves work behind: the grading process ends with `os._exit`
after its last write, so no `atexit` handler of the file runs, and it runs in a session of its own
whose every process (a fork included) is killed when it ends or runs out of time. A file that takes
the exercise's functions from the package, or names a way to read the grader's frames (`f_back`,
`sys._getframe`, ...), is refused before any check (`own_code`); an output that is a subclass of
`torch.Tensor`, which could answer any comparison, is not compared. What it does not guard against:
code that hides those names, or looks for the record in the grading process's own memory or folders
and writes it while the checks run. It is not a sandbox: the file runs with the learner's rights.
"""

from __future__ import annotations

import importlib.util
import json
import math
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import traceback
from collections.abc import Callable, Iterable
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, NamedTuple

from tutorial_tools.exercises.catalogue import EXERCISES, Exercise
from tutorial_tools.exercises.starter import reference_code

if TYPE_CHECKING:
    from tutorial_tools.exercises.checks import Check, ToolGuard

DEFAULT_TIME_LIMIT = 60.0  # seconds; the reference solutions take about one, most of it importing torch
RECORD_VARIABLE = "TRANSFORMER_TUTORIAL_GRADING_RECORD"  # "stdin": the record's path comes on standard input
PRINTED_LINES = 40  # the last lines of what the learner's code printed that the report shows


class LoadError(Exception):
    """The learner's file could not be run at all; the message says why, in the learner's terms."""


def load(path: Path) -> ModuleType:
    """Run the learner's file as a module; the usual failures become a `LoadError` that says what to fix."""
    if not path.is_file():
        raise LoadError(f"there is no file {path}; write the starter with `transformer-tutorial exercise NAME`")
    if path.suffix != ".py":
        raise LoadError(f"{path.name} is not a Python file: give the .py file you wrote the exercise in")
    spec = importlib.util.spec_from_file_location(f"learner_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    # A helper module beside the file can be imported, as with `python your_file.py`; but the folder comes last on
    # the path, so a file named after a module (json.py, a folder tutorial_tools/) neither breaks nor fakes a grade.
    if str(path.resolve().parent) not in sys.path:
        sys.path.append(str(path.resolve().parent))
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
    except SystemExit as exit_:
        raise LoadError(
            f"{path.name} called sys.exit({exit_.code!r}){_line(exit_, path)} while loading: the grader imports "
            'your file to call its functions, so remove the call or put it under `if __name__ == "__main__":`'
        ) from None
    except Exception as error:  # noqa: BLE001 - anything the learner's top-level code raises
        raise LoadError(
            f"{path.name} raised {type(error).__name__}{_line(error, path)} while loading: {error}"
        ) from None
    return module


# what a file would use to read the grader's variables (the expected values) from its frames
FRAME_READING = re.compile(
    r"\b(_getframe|currentframe|f_back|f_locals|f_globals|get_referrers|getouterframes|stack\(\))"
)


def own_code(exercise: Exercise, learner: ModuleType, path: Path) -> None:
    """Raise `LoadError` when the file does not hold the exercise's code itself: it takes a function of the
    exercise from the package (`from tutorial_code.masks import causal_mask`), or reads the grader's frames.
    Not a sandbox (see the module's docstring): these are the shortcuts a learner may take without meaning harm."""
    import ast

    source = path.read_text(encoding="utf-8")
    found = FRAME_READING.search(source)
    if found:
        raise LoadError(
            f"{path.name} uses {found.group(1)}, which reads the grader's own variables: "
            "the checks run only on code that computes its results itself"
        )
    defined = [
        node.name
        for node in ast.parse(reference_code(exercise)).body
        if isinstance(node, (ast.FunctionDef, ast.ClassDef))
    ]
    borrowed = [
        name
        for name in defined
        if str(getattr(getattr(learner, name, None), "__module__", learner.__name__)).startswith(
            ("tutorial_code", "tutorial_tools")
        )
    ]
    if borrowed:
        raise LoadError(
            f"{path.name} takes {_listing(borrowed)} from the tutorial's package instead of defining it: "
            "the exercise is to write it in your file"
        )


def _line(error: BaseException, path: Path) -> str:
    """' on line N' for the deepest frame of the traceback in the learner's file, or ''."""
    frames = [frame for frame in traceback.extract_tb(error.__traceback__) if frame.filename == str(path)]
    return f" on line {frames[-1].lineno}" if frames else ""


def grade(
    exercise: Exercise, learner: ModuleType, learner_file: str = "", progress=None, *, guard: ToolGuard | None = None
) -> list[Check]:
    """Run every check of `exercise` on the learner's module; `progress(name)` is called before each.

    With a `guard` made before the learner's file was loaded, each check runs with the grader's
    tools put back, and a check during which the learner's code replaced one fails.
    """
    results = []
    for name, check in exercise.checks:
        if progress is not None:
            progress(name)
        results.append(run_guarded(name, check, learner, learner_file, guard))
    return results


def run_guarded(
    name: str, check: Callable, learner: ModuleType, learner_file: str, guard: ToolGuard | None = None
) -> Check:
    """Run one check with the grader's tools as they were before the learner's file; fail it if they changed."""
    if guard is not None:
        guard.restore()
    from tutorial_tools.exercises.checks import Check, run_check  # imports torch: only the grading process needs it

    result = run_check(name, check, learner, learner_file)
    replaced = guard.restore() if guard is not None else []
    if replaced:
        return Check(
            name,
            False,
            f"your code replaced {_listing(replaced)} while this check ran: the grader put the originals back, "
            "but cannot trust this check's result. Remove the code that replaces them",
        )
    return result


def _listing(names: list[str], most: int = 4) -> str:
    shown = ", ".join(names[:most])
    return shown + (f" and {len(names) - most} more" if len(names) > most else "")


def report(exercise: Exercise, results: Iterable[Check], total: int | None = None) -> str:
    """The verdict `transformer-tutorial check` prints: one line per check, with what failed and the hint.

    `total` is the number of checks the exercise has, when fewer results came back.
    """
    results = list(results)
    return "\n".join([*result_lines(results), verdict_line(exercise, results, total)])


def result_lines(results: Iterable[Check]) -> list[str]:
    """'PASS  name' or 'FAIL  name', then the message and hint indented below it, line by line."""
    lines = []
    for result in results:
        lines.append(f"{'PASS' if result.passed else 'FAIL'}  {result.name}")
        lines += [f"      {visible(line)}" for line in result.message.splitlines()]
        for number, line in enumerate(result.hint.splitlines()):
            lines.append(f"      {'hint: ' if number == 0 else '      '}{visible(line)}")
    return lines


def verdict_line(exercise: Exercise, results: list[Check], total: int | None = None) -> str:
    """The last line: every check passed, or how many of them did."""
    total = len(results) if total is None else total
    passed = sum(result.passed for result in results)
    if passed == total:
        return f"{exercise.name}: all checks pass."
    return f"{exercise.name}: {passed} of {total} checks pass."


def visible_lines(text: str) -> str:
    """`text` with control characters spelled out in each of its lines, the newlines kept."""
    return "\n".join(visible(line) for line in text.split("\n"))


def visible(text: str) -> str:
    """`text` with control characters spelled out, so that nothing printed can move the cursor or hide a line."""
    return "".join(
        f"\\x{ord(char):02x}" if (ord(char) < 32 and char != "\t") or 127 <= ord(char) < 160 else char for char in text
    )


# ---------------------------------------------------------------- the grading process


def grade_file(name: str, path: Path, record_path: str | None = None) -> int:
    """Grade `path` for exercise `name`; return 0 when every check passes.

    Writes the record to `record_path` after each step when given (the parent reads it), and
    prints the report otherwise. The checks, the references and torch are imported, and the
    `ToolGuard` made, before the learner's file is loaded.
    """
    exercise = EXERCISES[name]
    checks = list(exercise.checks)  # imports the graders, the references and torch, before the learner's file
    from tutorial_tools.exercises.checks import Check, ToolGuard

    guard = ToolGuard()
    record = GradingRecord(name, len(checks), record_path)
    try:
        learner = load(path.resolve())
        own_code(exercise, learner, path.resolve())
    except LoadError as error:
        record.finish(load_error=str(error))
        if record_path is None:
            print(f"FAIL  {error}", flush=True)
        return 1
    record.set(replaced=guard.restore())
    for check_name, check in checks:
        record.set(state="checking", running=check_name)
        record.add(run_guarded(check_name, check, learner, str(path.resolve()), guard))
    record.finish()
    results = [Check(**result) for result in record.data["results"]]
    if record_path is None:
        print(report(exercise, [*_replaced_at_load(record.data["replaced"]), *results]), flush=True)
    return 0 if all(result.passed for result in results) and not record.data["replaced"] else 1


class GradingRecord:
    """What the grading process reports to its parent: each check's result, and how far grading got.

    Every change is written at once (to a temporary file, then renamed), so the parent always
    reads a whole record, and an abrupt end leaves the record of the step that was running.
    """

    def __init__(self, exercise: str, total: int, path: str | None) -> None:
        self.data = {
            "exercise": exercise,
            "total": total,
            "state": "loading",  # then "checking", then "done"
            "running": None,
            "load_error": None,
            "replaced": [],
            "results": [],
        }
        self._write = _writer(path)
        self._write(self.data)

    def set(self, **values: object) -> None:
        self.data.update(values)
        self._write(self.data)

    def add(self, result: Check) -> None:
        self.data["results"].append(
            {"name": result.name, "passed": result.passed is True, "message": result.message, "hint": result.hint}
        )
        self._write(self.data)

    def finish(self, load_error: str | None = None) -> None:
        self.set(state="done", running=None, load_error=load_error)


def _writer(path: str | None) -> Callable[[dict], None]:
    """A function that writes the record to `path`, holding its own references to what it needs."""
    if path is None:
        return lambda data: None
    dumps, replace, opener, partial = json.dumps, os.replace, open, f"{path}.part"

    def write(data: dict) -> None:
        with opener(partial, "w", encoding="utf-8") as file:
            file.write(dumps(data))
        replace(partial, path)

    return write


# ---------------------------------------------------------------- the parent


class Recorded(NamedTuple):
    """One check's result as the record gives it, read without importing torch."""

    name: str
    passed: bool
    message: str = ""
    hint: str = ""


def grade_in_subprocess(name: str, path: Path, time_limit: float = DEFAULT_TIME_LIMIT) -> tuple[int, str]:
    """Grade `path` in a new Python process; return `(exit status, report)`. An overrun is reported, not fatal.

    The status is 0 only when the record says that every check ran and passed.
    """
    if not (time_limit > 0 and math.isfinite(time_limit)):
        raise ValueError(f"time_limit must be a positive number of seconds, got {time_limit}")
    command = [sys.executable, "-m", "tutorial_tools.exercises.grading", name, str(path)]
    with tempfile.TemporaryDirectory(prefix="transformer-tutorial-grading-") as folder:
        record_path = Path(folder) / "record.json"
        environment = {
            **os.environ,
            "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHONUNBUFFERED": "1",  # so that what was printed before an abrupt end still shows
            "PYTHONSAFEPATH": "1",  # the grader's imports do not look in the learner's folder first (-P)
            RECORD_VARIABLE: "stdin",
        }
        grading = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            env=environment,
            start_new_session=True,  # its own process group: a fork of the learner's code ends with it
        )
        grading.stdin.write(f"{record_path}\n".encode())
        grading.stdin.close()
        output: list[bytes] = []  # read beside the wait: a fork that keeps the pipe open must not hold it up
        reader = threading.Thread(target=lambda: output.append(grading.stdout.read()), daemon=True)
        reader.start()
        try:
            ended = grading.wait(timeout=time_limit)
        except subprocess.TimeoutExpired:
            ended = None
        finally:
            _end_group(grading)  # the grading process has ended, or runs over: every process it started goes too
            grading.wait()
        reader.join(timeout=10)
        printed = output[0] if output else b""
        record = read_record(record_path, name)
    passed, lines = judge(EXERCISES[name], record, ended, time_limit)
    text = (printed or b"").decode("utf-8", errors="replace")
    return (0 if passed else 1), "\n\n".join(part for part in (printed_block(text), "\n".join(lines)) if part)


def _end_group(process: subprocess.Popen) -> None:
    """Kill every process of the grading process's group (it leads its own session), if any is left."""
    if hasattr(os, "killpg"):
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    elif process.poll() is None:
        process.kill()


def read_record(path: Path, name: str) -> dict | None:
    """The record the grading process wrote for exercise `name`, or None when there is none to trust."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("exercise") != name or not isinstance(data.get("results"), list):
        return None
    return data


def judge(exercise: Exercise, record: dict | None, ended: int | None, time_limit: float) -> tuple[bool, list[str]]:
    """Pass or fail, and the verdict lines, from the record alone; `ended` is the exit status, None after a timeout.

    Passes only when the record is complete: grading reached its end, and every check has a result.
    """
    if record is None:
        if ended is None:
            return False, [_overrun(time_limit, "while loading the file", started=False), _none_ran(exercise)]
        stopped = f"the grading process stopped before it could load your file ({_ending(ended)}); its output is above"
        return False, [f"FAIL  {stopped}", _none_ran(exercise)]
    if record.get("load_error"):
        return False, [f"FAIL  {visible_lines(str(record['load_error']))}", _none_ran(exercise)]
    results = _replaced_at_load(record.get("replaced") or []) + [_recorded(item) for item in record["results"]]
    total = int(record.get("total", 0)) + (1 if record.get("replaced") else 0)
    finished = record.get("state") == "done" and len(results) == total
    lines = result_lines(results)
    if not finished:
        lines.append(_unfinished(record, ended, time_limit))
    lines.append(verdict_line(exercise, results, total))
    return finished and all(result.passed for result in results), lines


def _unfinished(record: dict, ended: int | None, time_limit: float) -> str:
    """The failure line for grading that stopped before its end: a timeout, or the process ended by the file."""
    running = record.get("running") if record.get("state") == "checking" else None
    if ended is None:
        return _overrun(time_limit, f"during the check {running!r}" if running else "while loading the file", True)
    during = f"during the check {running!r}" if running else "while it was being loaded"
    return (
        f"FAIL  your file ended the grading process {during} ({_ending(ended)}), before every check had run: "
        "look for sys.exit, exit() or os._exit in it; the grader needs your functions to return"
    )


def _recorded(item: object) -> Recorded:
    if not isinstance(item, dict):
        return Recorded("a check", False, "its result could not be read")
    text = {key: str(item.get(key) or "") for key in ("name", "message", "hint")}
    return Recorded(text["name"], item.get("passed") is True, text["message"], text["hint"])


def _replaced_at_load(replaced: list[str]) -> list[Recorded]:
    """A failed result when the learner's file replaced the grader's tools while loading, else nothing."""
    if not replaced:
        return []
    message = (
        f"your file replaced {_listing([str(name) for name in replaced])} while loading: the checks below ran with "
        "the originals put back, but a file that replaces them cannot pass. Remove those lines"
    )
    return [Recorded("PyTorch and the grader's own functions left as they are", False, message)]


def _overrun(time_limit: float, during: str, started: bool) -> str:
    text = (
        f"FAIL  your code did not finish within {time_limit:g} s {during}: look for a loop that never ends "
        "(a `while` whose condition never changes, or a loop over a list that grows as it goes)"
    )
    if not started:
        text += "; if there is none, give a longer --time-limit: importing PyTorch alone takes a few seconds"
    return text


def _ending(status: int) -> str:
    return f"killed by signal {-status}" if status < 0 else f"exit status {status}"


def _none_ran(exercise: Exercise) -> str:
    return f"{exercise.name}: no check could run."


def printed_block(text: str, most: int = PRINTED_LINES) -> str:
    """What the learner's code printed, under its own label and indented, so that it never reads as the verdict."""
    # Split at newlines only: a carriage return stays in its line, spelled out, so it cannot overwrite the line.
    if not text.strip():
        return ""
    lines = text.replace("\r\n", "\n").rstrip().split("\n")
    block = ["your file printed:"]
    if len(lines) > most:
        block.append(f"  | ... ({len(lines) - most} earlier lines left out)")
    return "\n".join(block + [f"  | {visible(line)}".rstrip() for line in lines[-most:]])


if __name__ == "__main__":
    # The record's path comes on standard input, read before the learner's file is loaded.
    path = sys.stdin.readline().strip() if os.environ.pop(RECORD_VARIABLE, None) == "stdin" else None
    status = grade_file(sys.argv[1], Path(sys.argv[2]), path or None)
    sys.stdout.flush()
    os._exit(status)  # no atexit handler of the learner's file runs after the last write of the record
