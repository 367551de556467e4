"""The building blocks of a grader: a check's result, and comparisons that recognise known mistakes.

A check is a function of the learner's module. It returns quietly when the learner's code
behaves like the reference, and raises [`Wrong`][tutorial_tools.exercises.checks.Wrong] when it
does not. `Wrong` carries a hint only when the output matches a known mistake: the hint comes from
what the code *did*, never from how its source text looks. Otherwise the message says where the
output differs and by how much, and lets the learner find the cause.

The comparisons use PyTorch functions bound when this module is imported, before any learner's
file is loaded, and [`ToolGuard`][tutorial_tools.exercises.checks.ToolGuard] puts back what a
learner's file replaces: a `torch.allclose = lambda *a, **k: True` left in a file must not turn a
failure into a pass. This is a guard against accidents and casual monkeypatching, not a sandbox.
"""

from __future__ import annotations

import math
import re
import sys
import traceback
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from types import ModuleType

import torch

# The comparisons' own references, taken before any learner's file can replace the originals.
_allclose, _isclose, _isnan = torch.allclose, torch.isclose, torch.isnan
_RTOL = 1e-5  # torch.allclose's default, so that "close" means the same here and in the graders

Mistake = tuple["torch.Tensor | Callable[[torch.Tensor], bool]", str]
"""A known mistake: the output it produces (or an exact test of the output), and the hint to show."""


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
    got: object,
    expected: torch.Tensor,
    what: str,
    mistakes: Iterable[Mistake] = (),
    atol: float = 1e-5,
    *,
    check_dtype: bool = True,
) -> None:
    """Raise [`Wrong`][tutorial_tools.exercises.checks.Wrong] unless `got` equals `expected` to `atol`.

    When the values differ, every mistake is tried: when `got` equals the output of exactly one of them
    (or only its test returns True for `got`), that one gives the hint. When several do, these inputs
    cannot tell which was made: the hint says so and lists each. When none matches there is no hint;
    the message says where the first difference is and how large the differences are.

    The dtype and device must match too; `check_dtype=False` skips the dtype, but not the
    difference between a boolean mask and numbers. A 0-d tensor stands for a number, which graders
    wrap in a tensor themselves, so for it only the kind (boolean, integer, floating) is compared.
    Tensors on the meta device have no values: for them only shape, dtype and device are compared.
    """
    expect_plain_tensor(got, what)
    if "meta" in (got.device.type, expected.device.type):  # a meta tensor has a shape, dtype and device, no values
        if got.shape != expected.shape:
            raise Wrong(f"{what}: shape {tuple(got.shape)}, expected {tuple(expected.shape)}")
        _expect_same_kind(got, expected, what, check_dtype)
        return
    if got.shape == expected.shape and _close(got, expected, atol):
        _expect_same_kind(got, expected, what, check_dtype)
        return
    named = list(dict.fromkeys(hint for candidate, hint in mistakes if _matches(got, candidate, atol)))
    if len(named) == 1:  # a hint names a mistake only when the output is that mistake's and no other's
        raise Wrong(f"{what}: not what the reference gives", named[0])
    if named:  # these inputs cannot tell the mistakes apart: say so, and name each
        raise Wrong(f"{what}: not what the reference gives", "\n".join([SEVERAL_MISTAKES, *named]))
    if got.shape != expected.shape:
        raise Wrong(f"{what}: shape {tuple(got.shape)}, expected {tuple(expected.shape)}")
    _expect_same_kind(got, expected, what, check_dtype)
    raise Wrong(describe_difference(got, expected, what, atol))


def expect_plain_tensor(got: object, what: str) -> None:
    """Raise `Wrong` unless `got` is a `torch.Tensor` itself (or a parameter): a subclass can answer any
    comparison as it likes, so none is compared."""
    if not isinstance(got, torch.Tensor):
        raise Wrong(f"{what}: should be a torch.Tensor, got {type(got).__name__}")
    if type(got) not in (torch.Tensor, torch.nn.Parameter):
        raise Wrong(
            f"{what}: a {type(got).__name__}, a subclass of torch.Tensor, which the grader does not compare",
            "return a plain torch.Tensor",
        )


def _on_cpu(tensor: torch.Tensor) -> torch.Tensor:
    """A float64 CPU copy, so that outputs of any dtype and device compare without errors or rounding."""
    return tensor.detach().to(device="cpu", dtype=torch.float64)


def _close(got: torch.Tensor, expected: torch.Tensor, atol: float) -> bool:
    return bool(_allclose(_on_cpu(got), _on_cpu(expected), rtol=_RTOL, atol=atol, equal_nan=True))


def _matches(got: torch.Tensor, candidate: torch.Tensor | Callable[[torch.Tensor], bool], atol: float) -> bool:
    """Whether `got` is the output of a known mistake: equal to its tensor, or a test that returns exactly True.

    A test that fails with an error, or returns anything but True, does not match: a hint must
    never be attached on a guess.
    """
    if callable(candidate) and not isinstance(candidate, torch.Tensor):
        try:
            verdict = candidate(got.detach().cpu())
            if isinstance(verdict, torch.Tensor):
                verdict = verdict.numel() == 1 and bool(verdict)
        except Exception:  # noqa: BLE001 - a test that cannot judge this output does not match it
            return False
        return verdict is True
    return candidate.shape == got.shape and _close(got, candidate, atol)


def _expect_same_kind(got: torch.Tensor, expected: torch.Tensor, what: str, check_dtype: bool) -> None:
    """Raise `Wrong` when the dtype or device of `got` is not the reference's, with the fix in the hint."""
    if expected.dtype == torch.bool and got.dtype != torch.bool:
        raise Wrong(f"{what}: dtype {got.dtype}, expected a boolean tensor", "build it with dtype=torch.bool")
    kinds = (_kind(got.dtype), _kind(expected.dtype))
    exact = check_dtype and expected.dim() > 0
    if kinds[0] != kinds[1] or (exact and got.dtype != expected.dtype):
        raise Wrong(f"{what}: dtype {got.dtype}, expected {expected.dtype}", dtype_hint(got.dtype, expected.dtype))
    if got.device != expected.device:
        raise Wrong(
            f"{what}: on the device {got.device}, expected {expected.device}",
            "create new tensors on the inputs' device (device=x.device), not on a fixed one",
        )


def _kind(dtype: torch.dtype) -> str:
    if dtype == torch.bool:
        return "boolean"
    if dtype.is_complex:
        return "complex"
    return "floating" if dtype.is_floating_point else "integer"


def dtype_hint(got: torch.dtype, expected: torch.dtype) -> str:
    """What to change when a result has the wrong dtype: one hint per mistake, whichever check finds it."""
    if _kind(expected) == "integer" and _kind(got) == "floating":
        return f"ids and counts are whole numbers: keep them {expected}, as the input ids are (dtype={expected})"
    if _kind(expected) == "floating" and _kind(got) == "floating":
        return (
            f"the reference returns {expected} (the inputs' dtype, or PyTorch's default): create your tensors in it "
            f"(dtype=x.dtype, or no dtype at all), or convert the result with .to({expected})"
        )
    return f"build it with dtype={expected}"


def describe_difference(got: torch.Tensor, expected: torch.Tensor, what: str, atol: float = 1e-5) -> str:
    """Where two tensors of the same shape differ and by how much, in lines a learner can act on.

    Names the count of differing values, the first one (index, got, expected), the largest
    difference, and shows the row that holds the first difference next to the reference's row.
    """
    g, e = _on_cpu(got), _on_cpu(expected)
    wrong = ~_isclose(g, e, rtol=_RTOL, atol=atol, equal_nan=True)
    count = int(wrong.sum())
    if count == 0:
        return f"{what}: equal to the reference"
    gaps = (g - e).abs().nan_to_num(nan=math.inf).masked_fill(~wrong, 0)
    first = _index(int(wrong.flatten().nonzero()[0]), got.shape)
    largest = _index(int(gaps.flatten().argmax()), got.shape)
    numbers = expected.dtype.is_floating_point or got.dtype.is_floating_point
    new_nan = _isnan(g) & ~_isnan(e)
    if bool(new_nan.any()):
        headline = f"{what}: contains NaN ({int(new_nan.sum())} of {g.numel()} values) where the reference has numbers"
    else:
        by = f", by up to {_number(float(gaps.max()), numbers)}" if numbers else ""
        headline = f"{what}: {count} of {g.numel()} values differ from the reference{by}"
    lines = [headline, f"first differs at {_at(first)}: got {_value(got, first)}, expected {_value(expected, first)}"]
    if largest != first and numbers:
        got_there, expected_there = _value(got, largest), _value(expected, largest)
        lines.append(f"largest difference at {_at(largest)}: got {got_there}, expected {expected_there}")
    if got.dim() >= 2:
        lines += _rows(got, expected, first)
    return "\n".join(lines)


def _index(flat: int, shape: torch.Size) -> tuple[int, ...]:
    """The multi-dimensional index of element `flat` in row-major order."""
    index = []
    for size in reversed(shape):
        flat, position = divmod(flat, size)
        index.append(position)
    return tuple(reversed(index))


def _at(index: tuple[int, ...]) -> str:
    return "[" + ", ".join(str(i) for i in index) + "]"


def _number(value: float, floating: bool) -> str:
    return f"{value:.4g}" if floating else str(int(value))


def _value(tensor: torch.Tensor, index: tuple[int, ...]) -> str:
    item = tensor.detach()[index].item()
    if isinstance(item, (bool, complex)):
        return str(item)
    return _number(float(item), tensor.dtype.is_floating_point)


def _rows(got: torch.Tensor, expected: torch.Tensor, first: tuple[int, ...], width: int = 8) -> list[str]:
    """The row holding the first difference, yours above the reference's, at most `width` values around it."""
    column = first[-1]
    start = max(0, min(column - width // 2, got.shape[-1] - width))
    stop = min(got.shape[-1], start + width)

    def shown(tensor: torch.Tensor) -> str:
        values = [_value(tensor, (*first[:-1], j)) for j in range(start, stop)]
        return "[" + ("..., " if start > 0 else "") + ", ".join(values) + (", ...]" if stop < got.shape[-1] else "]")

    row = _at(first[:-1])[:-1] + ", :]"
    return [f"row {row}: got      {shown(got)}", f"row {row}: expected {shown(expected)}"]


def expect_error(run: Callable[[], object], errors: tuple[type[Exception], ...], what: str) -> None:
    """Raise [`Wrong`][tutorial_tools.exercises.checks.Wrong] unless `run()` raises one of `errors` with a message.

    The starter's own placeholder (`raise NotImplementedError` with no message, or "write NAME")
    is passed on, so that the check reports "not implemented yet"; a `NotImplementedError` with
    the learner's own message is their error, reported like any other.
    """
    try:
        run()
    except errors as error:
        if not str(error).strip():
            message = f"{what}: the {type(error).__name__} has no message"
            raise Wrong(message, "say what was wrong and how to fix it") from None
        return
    except NotImplementedError as error:
        if is_placeholder(error):
            raise
        raise Wrong(_raised_instead(what, error, errors)) from None
    except Exception as error:  # noqa: BLE001 - any other error is the learner's, reported as such
        raise Wrong(_raised_instead(what, error, errors)) from None
    raise Wrong(f"{what}: no error raised, expected {_names(errors)} with a message that says what to fix")


def _raised_instead(what: str, error: Exception, errors: tuple[type[Exception], ...]) -> str:
    return f"{what}: raised {type(error).__name__} ({error}), expected {_names(errors)}"


def _names(errors: tuple[type[Exception], ...]) -> str:
    return " or ".join(error.__name__ for error in errors)


SEVERAL_MISTAKES = "this output is what each of these mistakes gives; these inputs cannot tell which one you made:"
NOT_IMPLEMENTED = "not implemented yet: replace `raise NotImplementedError` with your code"
_PLACEHOLDER = re.compile(r"(write [\w.]+)?")  # the starter raises NotImplementedError("write causal_mask")


def is_placeholder(error: BaseException) -> bool:
    """Whether `error` is the starter's `raise NotImplementedError` (bare, or "write NAME"), not the learner's own."""
    return isinstance(error, NotImplementedError) and _PLACEHOLDER.fullmatch(str(error).strip()) is not None


def run_check(name: str, check: Callable[[ModuleType], None], learner: ModuleType, learner_file: str) -> Check:
    """Run one check on the learner's module and report what happened as a `Check`.

    Every error the learner's code raises is reported as theirs, with the line of their file:
    only the starter's placeholder says "not implemented yet", and `sys.exit` inside their code is
    a failure of the check, never an end of grading.
    """
    try:
        check(learner)
    except Wrong as wrong:
        return Check(name, False, wrong.message, wrong.hint)
    except SystemExit as exit_:
        return Check(
            name,
            False,
            f"your code called sys.exit({exit_.code!r}){_where(exit_, learner_file)}: "
            "a function the grader calls must return its result, not end the program",
        )
    except Exception as error:  # noqa: BLE001 - the learner's code may raise anything
        if is_placeholder(error):
            return Check(name, False, NOT_IMPLEMENTED)
        return Check(name, False, f"your code raised {type(error).__name__}: {error}{_where(error, learner_file)}")
    return Check(name, True)


def _where(error: BaseException, learner_file: str) -> str:
    """' (line N of your file: <code>)' for the deepest frame of the traceback in the learner's file."""
    frames = [frame for frame in traceback.extract_tb(error.__traceback__) if frame.filename == learner_file]
    if not frames:
        return ""
    return f" (line {frames[-1].lineno} of your file: {(frames[-1].line or '').strip()})"


class ToolGuard:
    """Remembers the functions grading relies on, and puts back any that a learner's code replaces.

    Made before the learner's file is loaded, it records every function and class of `torch`,
    `torch.nn.functional`, `math` and each `tutorial_code` and `tutorial_tools` module then imported (the checks, the
    graders and the references), the functions of the grading process's `__main__`, and the attributes of
    `torch.Tensor`, `torch.nn.Module`, every layer class of `torch.nn` (`nn.Linear.forward`) and every class of
    those modules (`Check.__init__`).
    [`restore`][tutorial_tools.exercises.checks.ToolGuard.restore] puts them back and names what
    had changed, so that grading runs with the originals and can say what the learner's code did.
    """

    def __init__(self) -> None:
        modules = [torch, torch.nn.functional, math]
        modules += [
            module
            for name, module in sorted(sys.modules.items())
            if name.split(".")[0] in ("tutorial_code", "tutorial_tools") and isinstance(module, ModuleType)
        ]
        self._saved: dict[str, tuple[object, str, object]] = {}
        for module in modules:
            self._save(module.__name__, module, vars(module))
        self._classes = {"torch.Tensor": torch.Tensor, "torch.nn.Module": torch.nn.Module}
        main = sys.modules.get("__main__")
        if isinstance(main, ModuleType) and main not in modules:  # the grading process's own functions
            self._save("__main__", main, vars(main))
        for module in [*modules, torch.nn]:  # the classes of the graders and references, and torch.nn's layers
            for key, cls in vars(module).items():
                if isinstance(cls, type) and cls.__module__.split(".")[0] in (
                    "torch",
                    "tutorial_code",
                    "tutorial_tools",
                ):
                    self._classes.setdefault(f"{module.__name__}.{key}", cls)
        self._class_keys = {label: set(vars(cls)) for label, cls in self._classes.items()}
        for label, cls in self._classes.items():
            self._save(label, cls, vars(cls))
        self._default_dtype, self._grad_enabled = torch.get_default_dtype(), torch.is_grad_enabled()

    def _save(self, label: str, owner: object, namespace: dict) -> None:
        for key, value in list(namespace.items()):
            if callable(value) or isinstance(value, (classmethod, staticmethod, property)):
                self._saved[f"{label}.{key}"] = (owner, key, value)

    def restore(self) -> list[str]:
        """Put back every replaced or deleted tool and remove what was added to a watched class; name them.

        The default dtype and whether gradients are on are reset too, quietly: they are settings a
        learner may change while experimenting, not tools.
        """
        changed = []
        for name, (owner, key, value) in self._saved.items():
            if vars(owner).get(key, _MISSING) is not value:
                setattr(owner, key, value)
                changed.append(name)
        for label, cls in self._classes.items():
            for key in set(vars(cls)) - self._class_keys[label]:
                delattr(cls, key)
                changed.append(f"{label}.{key}")
        torch.set_default_dtype(self._default_dtype)
        torch.set_grad_enabled(self._grad_enabled)
        return changed


_MISSING = object()
