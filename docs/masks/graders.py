"""Chapter "Masks": the causal mask and the padding mask."""

from __future__ import annotations

from collections.abc import Iterator
from types import ModuleType

import torch
from torch.overrides import TorchFunctionMode
from tutorial_code import masks
from tutorial_tools.exercises.checks import Wrong, expect_error
from tutorial_tools.exercises.common import (
    META,
    NO_VALUES,
    Grader,
    call_on_copies,
    expect_kind,
    expect_on_meta,
    expect_same,
)
from tutorial_tools.exercises.exercise import chapter_module

# 1 and 2 are the edge cases; 9 and 12 are longer than a mask written out by hand for the usual length 8.
CAUSAL_LENGTHS = (
    5,
    1,
    2,
    7,
    9,
    12,
    40,
)  # 40: longer than any table a learner might cut the mask from


def _causal_mistakes(seq_len: int) -> list:
    ones = torch.ones(seq_len, seq_len, dtype=torch.bool)
    return [
        (
            ones.tril(1),
            "token t can see token t + 1: tril() with no offset keeps exactly the diagonal",
        ),
        (
            ones.tril(-1),
            "the diagonal is missing: a token may always attend to itself",
        ),
        (
            ones.triu(1),
            "the mask is flipped: on this site True means 'may attend', so keep the lower triangle",
        ),
        (
            ones.triu(),
            "that is the upper triangle: it lets each token see the future and hides the past",
        ),
    ]


def _check_causal(learner: ModuleType) -> None:
    for seq_len in CAUSAL_LENGTHS:
        expected = masks.causal_mask(seq_len)
        expect_same(
            learner.causal_mask(seq_len),
            expected,
            f"causal_mask({seq_len})",
            _causal_mistakes(seq_len),
        )


def _check_causal_device(learner: ModuleType) -> None:
    for device in (META, torch.device(META)):
        what = f"causal_mask(6, device={device!r})"
        got = learner.causal_mask(6, device=device)
        if isinstance(got, torch.Tensor) and got.device != torch.device(META):
            raise Wrong(
                f"{what}: the mask is on the device {got.device}",
                "create it on the device asked for",
            )
        expect_kind(got, masks.causal_mask(6, device=device), what)


def _check_causal_errors(learner: ModuleType) -> None:
    for seq_len in (0, -3):
        expect_error(
            lambda seq_len=seq_len: learner.causal_mask(seq_len),
            (ValueError,),
            f"causal_mask({seq_len})",
        )


CAUSAL_MASK: Grader = [
    ("causal_mask for several lengths", _check_causal),
    ("the mask on the device asked for", _check_causal_device),
    ("an error for a length below 1", _check_causal_errors),
]

# (lengths, max_len): three sequences padded to one more than the longest; one sequence, no padding; an empty
# sequence; and max_len left out (it defaults to the longest length).
PADDING_CASES = [
    ([3, 1, 5], 6),
    ([4], 4),
    ([0, 2], 3),
    ([1], None),
    ([2, 7, 4], None),
]


def _check_padding(learner: ModuleType) -> None:
    for lengths, max_len in PADDING_CASES:
        lengths = torch.tensor(lengths)
        expected = masks.padding_mask(lengths, max_len=max_len)
        what = f"padding_mask({lengths.tolist()}" + (
            f", max_len={max_len})" if max_len else ") with max_len left out"
        )
        mistakes = [
            (~expected, "the mask is flipped: True marks the real tokens, which may be attended to"),
            (expected[:, 0, 0], "return shape (B, 1, 1, T), so that it broadcasts over heads and queries"),
            (masks.padding_mask(lengths + 1, max_len=expected.size(-1) + 1)[..., :-1],
             "one padding position too many is allowed: use <, not <="),
        ]  # fmt: skip
        if max_len is not None and max_len != int(lengths.max()):
            mistakes.append((
                masks.padding_mask(lengths),
                "max_len is ignored: your mask is as long as the longest sequence; make it max_len long when "
                "max_len is given, and as long as the longest only when it is None",
            ))  # fmt: skip
        if max_len is None:
            longest = expected.size(-1)
            mistakes.append((
                lambda got, longest=longest: got.dim() == 4 and got.size(-1) != longest,
                "with max_len left out, the mask is as long as the longest sequence: max_len = lengths.max()",
            ))  # fmt: skip
        expect_same(
            call_on_copies(learner.padding_mask, lengths, max_len=max_len),
            expected,
            what,
            mistakes,
        )


def _check_padding_errors(learner: ModuleType) -> None:
    for what, lengths, error in [
        ("float lengths", torch.tensor([2.0, 3.0]), TypeError),
        ("boolean lengths", torch.tensor([True, False]), TypeError),
        (
            "lengths of shape (2, 1), not (B,)",
            torch.tensor([[2], [3]]),
            ValueError,
        ),
        ("a negative length", torch.tensor([2, -1]), ValueError),
    ]:
        expect_error(
            lambda lengths=lengths: learner.padding_mask(lengths),
            (error,),
            what,
        )
    expect_error(
        lambda: learner.padding_mask(torch.tensor([2, 7]), max_len=4),
        (ValueError,),
        "a length above max_len",
    )


class _ValuesBeside(TorchFunctionMode):
    """Meta tensors that keep their values beside them, on the CPU.

    padding_mask reads the values of its lengths (to check them, and for the longest), which a meta tensor does
    not have. Under this mode every operation runs on the meta tensors, and again on their values: code that
    reads a value (`bool(...)`, `int(lengths.max())`, `lengths.tolist()`) gets it, as on a GPU, while a tensor
    the code makes on the CPU meets the meta tensors and raises, as it would meet a GPU's.
    """

    def __init__(self) -> None:
        super().__init__()
        # id of a meta tensor -> (the tensor, its values); holding the tensor keeps its id from being reused
        self._values: dict[int, tuple[torch.Tensor, torch.Tensor]] = {}

    def on_meta(self, x: torch.Tensor) -> torch.Tensor:
        """`x` moved to the meta device, its values kept beside it."""
        moved = x.to(META)
        self._values[id(moved)] = (moved, x)
        return moved

    def _beside(self, obj: object) -> object:
        """`obj` with each meta tensor replaced by its values, and the meta device by the CPU."""
        if isinstance(obj, torch.Tensor):
            if not obj.is_meta:
                return obj
            kept = self._values.get(id(obj))
            if kept is None or kept[0] is not obj:
                raise LookupError  # no values to compute from
            return kept[1]
        if (isinstance(obj, torch.device) and obj.type == META) or (
            isinstance(obj, str) and obj == META
        ):
            return torch.device("cpu")
        if isinstance(obj, list | tuple):
            return type(obj)(self._beside(item) for item in obj)
        if isinstance(obj, dict):
            return {name: self._beside(item) for name, item in obj.items()}
        return obj

    def _keep(self, result: object, values: object) -> None:
        if (
            isinstance(result, torch.Tensor)
            and result.is_meta
            and isinstance(values, torch.Tensor)
        ):
            self._values[id(result)] = (result, values)
        elif isinstance(result, list | tuple) and isinstance(
            values, list | tuple
        ):
            for one, its_values in zip(result, values, strict=False):
                self._keep(one, its_values)

    def _to_meta(self, values: object) -> object:
        if isinstance(values, torch.Tensor):
            return self.on_meta(values)
        if isinstance(values, list | tuple):
            return type(values)(self._to_meta(item) for item in values)
        return values

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        try:
            result = func(*args, **kwargs)
        except (RuntimeError, NotImplementedError, TypeError) as error:
            if not any(text in str(error) for text in NO_VALUES):
                raise
            try:  # the code reads values: compute them from the values beside
                values = func(*self._beside(args), **self._beside(kwargs))
            except LookupError:
                raise error from None
            # the result lies where a GPU would put it: on the CPU after a copy to the host (.cpu(), .to("cpu"),
            # .numpy(); .tolist() and .item() give no tensor) or from a factory function given no device; on the
            # meta device otherwise (a size that depends on values, a size or an end given as a 0-d tensor)
            return (
                values
                if _on_host(func, args, kwargs)
                else self._to_meta(values)
            )
        try:
            values = func(*self._beside(args), **self._beside(kwargs))
        except LookupError:  # a meta tensor made without values
            return result
        if isinstance(result, Iterator):  # iterating over a tensor
            result, values = list(result), list(values)
            self._keep(result, values)
            return iter(result)
        self._keep(result, values)
        return result


def _on_host(func, args: tuple, kwargs: dict) -> bool:
    """Whether `func(*args, **kwargs)`, its inputs on a GPU, gives its result on the CPU."""
    if func in (torch.Tensor.cpu, torch.Tensor.numpy):
        return True
    if func is torch.Tensor.to:
        device = kwargs.get(
            "device",
            next(
                (a for a in args[1:] if isinstance(a, str | torch.device)), None
            ),
        )
        return device is not None and torch.device(device).type == "cpu"
    if kwargs.get("device") is not None:
        return torch.device(kwargs["device"]).type != META
    first = args[0] if args else None
    return not (
        isinstance(first, torch.Tensor) and first.is_meta
    )  # a factory function given no device


def _check_padding_device(learner: ModuleType) -> None:
    for lengths, max_len in [([3, 1, 5], 6), ([2, 7, 4], None)]:
        lengths = torch.tensor(lengths)
        expected = masks.padding_mask(lengths, max_len=max_len).to(META)
        what = (
            f"padding_mask of lengths {lengths.tolist()} on another device"
            + (f", max_len={max_len}" if max_len else "")
        )
        with _ValuesBeside() as beside:
            on_meta = beside.on_meta(lengths)
            expect_on_meta(
                lambda on_meta=on_meta, max_len=max_len: call_on_copies(
                    learner.padding_mask, on_meta, max_len=max_len
                ),
                expected,
                what,
            )


PADDING_MASK: Grader = [
    ("padding_mask", _check_padding),
    ("on the lengths' device", _check_padding_device),
    ("clear errors for bad lengths", _check_padding_errors),
]

# "A mask read backwards" repairs chapter 2's attention, so chapter 2's checks grade it.
ATTENTION: Grader = chapter_module(
    "scaled_dot_product_attention", "graders"
).ATTENTION
