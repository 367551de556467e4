"""Chapter "Checking against PyTorch": copying nn.MultiheadAttention's weights, and converting a mask for it."""

from __future__ import annotations

import copy
from types import ModuleType

import torch
from torch import nn
from tutorial_code import masks, multi_head
from tutorial_code.from_torch import copy_multi_head_attention_weights
from tutorial_tools.exercises.checks import Wrong, expect_error
from tutorial_tools.exercises.common import (
    IN_PLACE,
    Grader,
    call_on_copies,
    expect_same,
    expect_same_on_meta,
    generator,
    shape,
)

# (d_model, h, bias): the usual module; other widths, one above the starter's 16, and one without biases.
COPY_SIZES = [(8, 2, True), (12, 3, True), (20, 4, True), (6, 3, False)]


def _source(
    d_model: int, h: int, bias: bool, seed: int
) -> nn.MultiheadAttention:
    """A PyTorch module whose biases are not zero (they start at zero), in eval mode."""
    torch.manual_seed(seed)
    source = nn.MultiheadAttention(
        d_model, h, bias=bias, batch_first=True
    ).eval()
    if bias:
        with torch.no_grad():
            source.in_proj_bias.normal_()
            source.out_proj.bias.normal_()
    return source


def _check_copy(learner: ModuleType) -> None:
    for seed, (d_model, h, bias) in enumerate(COPY_SIZES):
        source = _source(d_model, h, bias, seed)
        expected = multi_head.MultiHeadAttention(d_model, h, bias=bias).eval()
        copy_multi_head_attention_weights(source, expected)
        target = multi_head.MultiHeadAttention(d_model, h, bias=bias).eval()
        before = copy.deepcopy(target)
        learner.copy_multi_head_attention_weights(copy.deepcopy(source), target)
        sizes = (
            f"(d_model = {d_model}, {h} heads{'' if bias else ', no biases'})"
        )
        q, k, v = source.in_proj_weight.detach().chunk(3)
        for name, weight in (("W_Q", q), ("W_K", k), ("W_V", v)):
            mistakes = [
                (weight.T, "nn.Linear stores its weight as (out, in), like in_proj_weight: copy it without .T"),
                *[(other, "in_proj_weight stacks W_Q, W_K and W_V in that order, along dim 0")
                  for other in (q, k, v) if other is not weight],
                (getattr(before, name).weight.detach(), f"{name}.weight is not copied"),
            ]  # fmt: skip
            expect_same(getattr(target, name).weight.detach(), getattr(expected, name).weight.detach(),
                        f"{name}.weight {sizes}", mistakes)  # fmt: skip
        for name in ("W_Q", "W_K", "W_V", "W_O") if bias else ():
            chunks = source.in_proj_bias.detach().chunk(3)
            order = ("W_O's bias is out_proj.bias" if name == "W_O"
                     else "in_proj_bias stacks the biases of W_Q, W_K and W_V in that order")  # fmt: skip
            not_copied = "copy the biases too: in_proj_bias holds three, out_proj.bias one"
            mistakes = [
                (getattr(before, name).bias.detach(), not_copied),
                *[(chunk, order) for chunk in chunks],
            ]
            expect_same(getattr(target, name).bias.detach(), getattr(expected, name).bias.detach(),
                        f"{name}.bias {sizes}", mistakes)  # fmt: skip
        g = generator(seed)
        query, key, value = (
            torch.randn(1 + seed % 2, t, d_model, generator=g)
            for t in (5, 3, 3)
        )  # batch 1 and 2
        with torch.no_grad():
            got, theirs = (
                target(query, key, value)[0],
                source(query, key, value)[0],
            )
        expect_same(
            got,
            theirs,
            f"the copy's output against nn.MultiheadAttention's {sizes}",
        )


WRITTEN_INTO_THE_SOURCE = (
    "x.copy_(y) writes y into x: write into the target's weights, target.W_Q.weight.copy_(W_Q), and leave the "
    "source's as they are"
)
SHARED = (
    "copy the values into the target's own tensors, e.g. target.W_O.weight.copy_(source.out_proj.weight): "
    "the source's tensor, or a view of it, put into the target (nn.Parameter(W_Q), .data = W_Q, "
    "target.W_O.weight = source.out_proj.weight) is the same memory"
)


def _changed(source: nn.Module, before: dict[str, torch.Tensor]) -> list[str]:
    """The names of the source's tensors that differ from `before`."""
    return [
        name
        for name, value in source.state_dict().items()
        if not torch.equal(value, before[name])
    ]


# the target's tensors that each tensor of nn.MultiheadAttention holds, in order along dim 0
TARGET_PARTS = {
    "in_proj_weight": ("W_Q.weight", "W_K.weight", "W_V.weight"),
    "in_proj_bias": ("W_Q.bias", "W_K.bias", "W_V.bias"),
    "out_proj.weight": ("W_O.weight",),
    "out_proj.bias": ("W_O.bias",),
}


def _written_from_target(
    name: str, value: torch.Tensor, target_before: dict[str, torch.Tensor]
) -> bool:
    """Whether a part of the source's tensor `name` now holds the target's weights from before the copy: what
    x.copy_(y) written the wrong way round gives."""
    parts = TARGET_PARTS.get(name, ())
    return any(
        torch.equal(chunk, target_before[part])
        for chunk, part in zip(
            value.chunk(len(parts) or 1), parts, strict=False
        )
    )


def _check_source_kept(learner: ModuleType) -> None:
    for seed, (d_model, h, bias) in enumerate(COPY_SIZES):
        source = _source(d_model, h, bias, seed)
        before = copy.deepcopy(source.state_dict())
        target = multi_head.MultiHeadAttention(d_model, h, bias=bias).eval()
        target_before = copy.deepcopy(target.state_dict())
        learner.copy_multi_head_attention_weights(source, target)
        sizes = (
            f"(d_model = {d_model}, {h} heads{'' if bias else ', no biases'})"
        )
        changed = _changed(source, before)
        if changed:
            reversed_copy = _written_from_target(
                changed[0], source.state_dict()[changed[0]], target_before
            )
            raise Wrong(f"your copy_multi_head_attention_weights changed nn.MultiheadAttention's {changed[0]} in "
                        f"place {sizes}", WRITTEN_INTO_THE_SOURCE if reversed_copy else IN_PLACE)  # fmt: skip
        with torch.no_grad():  # what an optimizer step does to the copy
            for parameter in target.parameters():
                parameter.add_(1.0)
        changed = _changed(source, before)
        if changed:
            raise Wrong(f"a change of the copy's weights in place (as an optimizer step makes) changed "
                        f"nn.MultiheadAttention's {changed[0]} too {sizes}: the copy shares its memory", SHARED)  # fmt: skip


COPY_WEIGHTS: Grader = [
    ("the weights copied from nn.MultiheadAttention", _check_copy),
    (
        "nn.MultiheadAttention left unchanged, and sharing no memory with the copy",
        _check_source_kept,
    ),
]

BLOCKED = "nn.MultiheadAttention reads True as 'blocked', the opposite of this site: flip the mask"


def _check_to_torch(learner: ModuleType) -> None:
    # square and not, one of a single position, a batch of one sequence, one larger than the chapter's, and a
    # mask per sequence and head, (B * h, T, S)
    for mask in (
        masks.causal_mask(4),
        masks.causal_mask(7),
        masks.padding_mask(torch.tensor([5, 2]))[:, 0, 0],
        masks.causal_mask(1),
        masks.padding_mask(torch.tensor([4]), max_len=6)[:, 0, 0],
        masks.causal_mask(40),
        masks.padding_mask(torch.tensor([3, 1, 4, 2]))[:, 0]
        & masks.causal_mask(4),
    ):
        expected = masks.to_torch_multihead_mask(mask)
        got = call_on_copies(learner.to_torch_multihead_mask, mask)
        expect_same(
            got,
            expected,
            f"the converted mask of shape {shape(mask)}",
            [(mask, BLOCKED)],
        )
    mask = masks.causal_mask(4)
    attention = nn.MultiheadAttention(8, 2, batch_first=True).eval()
    x = torch.randn(1, 4, 8, generator=generator())
    with torch.no_grad():
        _, weights = attention(
            x, x, x, attn_mask=learner.to_torch_multihead_mask(mask.clone())
        )
        _, unflipped = attention(x, x, x, attn_mask=mask)
    what = "nn.MultiheadAttention's weights with your causal mask"
    expect_same(weights, weights * mask, what, [(unflipped, BLOCKED)])


def _check_to_torch_errors(learner: ModuleType) -> None:
    expect_error(
        lambda: learner.to_torch_multihead_mask(torch.ones(2, 2)),
        (TypeError,),
        "a float mask",
    )
    expect_error(lambda: learner.to_torch_multihead_mask(torch.ones(2, 2, dtype=torch.long)), (TypeError,),
                 "a mask of 0s and 1s in torch.long")  # fmt: skip


def _check_to_torch_device(learner: ModuleType) -> None:
    expect_same_on_meta(masks.to_torch_multihead_mask, learner.to_torch_multihead_mask, (masks.causal_mask(5),),
                        "the converted mask of a mask on another device")  # fmt: skip


TO_TORCH_MASK: Grader = [
    ("the converted mask", _check_to_torch),
    ("on the inputs' device", _check_to_torch_device),
    ("errors for masks that are not boolean", _check_to_torch_errors),
]
