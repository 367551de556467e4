"""Recorded runs: the build reads the results of multi-seed comparisons from a committed file.

A comparison of trainings over several seeds (the learning-rate schedules, the dropout rates, the
embedding scale) trains a dozen models to print one table, and would cost most of a cold build.
The functions that run one are marked `@recorded` where they are defined
(`tutorial_code/shared_runs.py`). A reader who calls one gets it computed, as always. In the build
(`TUTORIAL_CACHE_DIR` set) its value comes from `benchmarks/recorded-runs.json`, an entry per call,
when the entry was recorded with the same code: the source of every `tutorial_code` module the
function depends on (followed through imports) and the same PyTorch version. When it was not:

- on CI (`CI` set), the build stops and says how to record the run again;
- elsewhere, the run is computed, written to the file (to be committed with the change that
  needed it) and used.

The value is JSON (numbers, lists, dicts), so a change to a record shows in review as the numbers
that moved. `tests/unit/test_recorded_runs.py` fails when an entry is stale. Each entry also keeps the
machine it was recorded on (processor, PyTorch threads, PyTorch version, date): the build prints it
under every section that shows a recorded run, because the same code and seeds give other numbers
on another processor.

A recorded value is never what this build computed, so no check of a page reads one
(`tests/unit/test_checks_read_this_build.py`): the sentences about a recorded table describe that
run. The file is the built checkout's (`Checkout.records`); `TUTORIAL_RECORDS_FILE` names another file to read and
write (the robustness script's copy).
"""

from __future__ import annotations

import ast
import datetime
import functools
import hashlib
import inspect
import json
import os
import platform
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import torch

from sitebuild.checkout import Checkout, code_root
from sitebuild.fingerprint import dependencies, module_path
from sitebuild.in_chapter.training_cache import locked

T = TypeVar("T")
CALLED: set[str] = set()
"""The call texts of the recorded runs this process asked for: a chapter's run keeps them, so that the tests can
name entries no chapter reads any more."""


class StaleRecord(RuntimeError):
    """A recorded run is missing, or was recorded with other code, on a build that may not record it."""


def call_text(function: Callable[..., Any], *args: Any, **kwargs: Any) -> str:
    """The call as text, every argument by name, defaults included: the entry's name in the file.

    Examples:
        >>> def f(steps, seeds=(0, 1), **options): ...
        >>> call_text(f, 200, lr=0.01)
        'f(steps=200, seeds=(0, 1), lr=0.01)'
    """
    arguments = inspect.signature(function).bind(*args, **kwargs)
    arguments.apply_defaults()
    parts = []
    for name, value in arguments.arguments.items():
        if isinstance(value, dict):  # **options: each by name, in a fixed order
            parts += [f"{key}={value[key]!r}" for key in sorted(value)]
        else:
            parts.append(f"{name}={value!r}")
    return f"{function.__qualname__}({', '.join(parts)})"


MARKS = "tutorial_code.shared_runs"  # `@recorded` itself: it computes nothing, so it is no part of a code version


def code_of(source: str) -> bytes:
    """What a module computes: its syntax tree without docstrings (comments are not in it) and without the import
    of the marks, so that an edit to the prose of a module does not make its records stale.

    Examples:
        >>> code_of("'One.'; X = 1  # one") == code_of("'Two.'; X = 1")
        True
        >>> code_of("from tutorial_code.shared_runs import recorded\\nX = 1") == code_of("X = 1")
        True
    """
    tree = ast.parse(source)
    tree.body = [node for node in tree.body if not (isinstance(node, ast.ImportFrom) and node.module == MARKS)]
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            if isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
                node.body = body[1:] or [ast.Pass()]
    return ast.dump(tree).encode()


def code_version(module: str, root: Path | None = None) -> str:
    """A hash of the code of `module` and of every `tutorial_code` module it imports, directly or not (their
    syntax trees without docstrings), with PyTorch's version. Not Python's: not the bytecode. The build runs
    chapters with one thread, so a run is recorded with one. `root`: the checkout, by default the one whose
    `tutorial_code` this process imports."""
    root = root or code_root()
    digest = hashlib.sha256()
    for name in sorted(dependencies([module], root) - {MARKS}):
        digest.update(name.encode() + b"\0" + code_of(module_path(name, root).read_text(encoding="utf-8")) + b"\0")
    digest.update(f"torch {torch.__version__}".encode())  # the build records with one thread
    return digest.hexdigest()[:20]


def recorded_functions(root: Path) -> dict[str, str]:
    """Each function marked `@recorded` in tutorial_code, by name, with its module (`tutorial_code.sum_task`)."""
    found = {}
    for path in sorted((root / "tutorial_code").glob("*.py")):
        text = path.read_text(encoding="utf-8")
        for name in re.findall(r"^@recorded\b.*\n(?:#.*\n)*def (\w+)", text, flags=re.MULTILINE):
            found[name] = f"tutorial_code.{path.stem}"
    return found


def processor() -> str:
    """The processor's model name, as /proc/cpuinfo gives it (elsewhere, what `platform` knows)."""
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine() -> dict[str, Any]:
    """What a run is recorded on: the processor, PyTorch's threads and version, and the date."""
    return {
        "cpu": processor(),
        "torch_threads": torch.get_num_threads(),
        "torch": torch.__version__,
        "date": datetime.date.today().isoformat(),
    }


def read_records(path: Path) -> dict[str, dict[str, Any]]:
    """The recorded runs, by call text: `{"code": ..., "value": ...}` each."""
    if not path.exists():
        return {}
    return json.loads(path.read_text(encoding="utf-8"))


def write_record(name: str, code: str, value: Any, path: Path) -> None:
    """Add or replace one entry, with the machine it ran on, keeping the others (chapters record at the same time:
    the file is locked)."""
    with locked(path.with_suffix(".lock")):
        records = read_records(path)
        records[name] = {"code": code, "machine": machine(), "value": value}
        text = json.dumps(dict(sorted(records.items())), indent=1, ensure_ascii=False) + "\n"
        partial = path.with_suffix(f".{os.getpid()}.partial")
        partial.write_text(text, encoding="utf-8")
        partial.replace(path)


def on_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def use_record(run: Callable[..., T], path: Path | None = None) -> Callable[..., T]:
    """Wrap `run`: its recorded value when current, else compute and record it (or stop, on CI). `path`: the file
    of records, by default the built checkout's (`Checkout.records`)."""
    run = inspect.unwrap(run)

    @functools.wraps(run)
    def recorded_or_run(*args: Any, **kwargs: Any) -> T:
        records = path or Checkout.of_process().records
        name = call_text(run, *args, **kwargs)
        CALLED.add(name)
        code = code_version(run.__module__)
        entry = read_records(records).get(name)
        if entry is not None and entry["code"] == code:
            return entry["value"]
        if on_ci():
            state = "missing" if entry is None else "recorded with other code"
            shown = f"benchmarks/{records.name}" if records.parent.name == "benchmarks" else records
            raise StaleRecord(
                f"the recorded run {name} is {state} in {shown}: build the site once on your "
                f"machine (it records the run), and commit the file"
            )
        value = run(*args, **kwargs)
        if json.loads(json.dumps(value)) != value:
            raise TypeError(f"{name} returned {type(value).__name__}: a recorded run returns JSON values only")
        write_record(name, code, value, records)
        return value

    return recorded_or_run
