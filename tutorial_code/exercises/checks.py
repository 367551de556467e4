"""The building blocks of a grader: a check's result, and comparisons that recognise known mistakes.

A check is a function of the learner's module. It returns quietly when the learner's code
behaves like the reference, and raises [`Wrong`][tutorial_code.exercises.checks.Wrong] when it
does not. `Wrong` carries a hint when the output matches a known mistake: the hint comes from
what the code *did*, never from how its source text looks.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from types import ModuleType

import torch

Mistake = tuple["torch.Tensor | Callable[[torch.Tensor], bool]", str]
"""A known mistake: the output it produces (or a test of the output), and the hint to show."""


@dataclass
class Check:
    """The result of one graded check.

    Attributes:
        name: What was checked, in a few words.
        passed: Whether the learner's code passed.
        message: What went wrong; empty when passed.
        hint: What to look at, when the output matches a known mistake.
    """

    name: str
    passed: bool
    message: str = ""
    hint: str = ""


class Wrong(Exception):
    """Raised by a check when the learner's output differs from the reference's."""

    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.message, self.hint = message, hint


def expect_close(
    got: object, expected: torch.Tensor, what: str, mistakes: Iterable[Mistake] = (), atol: float = 1e-5
) -> None:
    """Raise [`Wrong`][tutorial_code.exercises.checks.Wrong] unless `got` equals `expected` to `atol`.

    When it does not, each mistake is tried in turn: the first whose output `got` equals (or whose
    test `got` passes) gives the hint.
    """
    if not isinstance(got, torch.Tensor):
        raise Wrong(f"{what}: should be a torch.Tensor, got {type(got).__name__}")
    if _matches(got, expected, atol) and (expected.dtype != torch.bool or got.dtype == torch.bool):
        return
    for candidate, hint in mistakes:
        if _matches(got, candidate, atol):
            raise Wrong(f"{what}: not what the reference gives", hint)
    if got.shape != expected.shape:
        raise Wrong(f"{what}: shape {tuple(got.shape)}, expected {tuple(expected.shape)}")
    if expected.dtype == torch.bool and got.dtype != torch.bool:
        raise Wrong(f"{what}: dtype {got.dtype}, expected a boolean tensor", "build it with dtype=torch.bool")
    if torch.isnan(got.float()).any() and not torch.isnan(expected.float()).any():
        raise Wrong(f"{what}: contains NaN")
    difference = (got.double() - expected.double()).abs().nan_to_num(float("inf")).max().item()
    if difference > atol:
        raise Wrong(f"{what}: differs from the reference by up to {difference:.3g}")


def _matches(got: torch.Tensor, candidate: torch.Tensor | Callable[[torch.Tensor], bool], atol: float) -> bool:
    if callable(candidate) and not isinstance(candidate, torch.Tensor):
        try:
            return bool(candidate(got))
        except (RuntimeError, ValueError, IndexError):
            return False
    if candidate.shape != got.shape:
        return False
    return bool(torch.allclose(got.double(), candidate.double(), atol=atol, equal_nan=True))


def expect_error(run: Callable[[], object], errors: tuple[type[Exception], ...], what: str) -> None:
    """Raise [`Wrong`][tutorial_code.exercises.checks.Wrong] unless `run()` raises one of `errors` with a message."""
    try:
        run()
    except errors as error:
        if not str(error).strip():
            message = f"{what}: the {type(error).__name__} has no message"
            raise Wrong(message, "say what was wrong and how to fix it") from None
        return
    except NotImplementedError:
        raise
    except Exception as error:  # noqa: BLE001 - any other error is the learner's, reported as such
        raise Wrong(f"{what}: raised {type(error).__name__} ({error}), expected {_names(errors)}") from None
    raise Wrong(f"{what}: no error raised, expected {_names(errors)} with a message that says what to fix")


def _names(errors: tuple[type[Exception], ...]) -> str:
    return " or ".join(error.__name__ for error in errors)


NOT_IMPLEMENTED = "not implemented yet: replace `raise NotImplementedError` with your code"


def run_check(name: str, check: Callable[[ModuleType], None], learner: ModuleType, learner_file: str) -> Check:
    """Run one check on the learner's module and report what happened as a `Check`."""
    try:
        check(learner)
    except Wrong as wrong:
        return Check(name, False, wrong.message, wrong.hint)
    except NotImplementedError:
        return Check(name, False, NOT_IMPLEMENTED)
    except Exception as error:  # noqa: BLE001 - the learner's code may raise anything
        return Check(name, False, f"your code raised {type(error).__name__}: {error}{_where(error, learner_file)}")
    return Check(name, True)


def _where(error: Exception, learner_file: str) -> str:
    """' (line N of your file: <code>)' for the deepest frame of the traceback in the learner's file."""
    frames = [frame for frame in traceback.extract_tb(error.__traceback__) if frame.filename == learner_file]
    if not frames:
        return ""
    return f" (line {frames[-1].lineno} of your file: {(frames[-1].line or '').strip()})"
