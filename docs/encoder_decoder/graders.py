"""Chapter "Cross-attention and the encoder-decoder": shift_right, the decoder layer, a decoder that cannot read
ahead."""

from __future__ import annotations

import copy
from functools import partial
from types import ModuleType

import torch
from torch import nn
from tutorial_code import decoder, reverse_task
from tutorial_code.masks import causal_mask, padding_mask
from tutorial_tools.exercises.checks import Wrong
from tutorial_tools.exercises.common import (
    META,
    PRE_NORM,
    Grader,
    call_on_copies,
    expect_layer_in_eval_mode,
    expect_on_meta,
    expect_same,
    expect_same_in_training,
    first_output,
    generator,
    layers,
    perturbed,
    repeated,
    shape,
    twin,
    with_parts,
)


def _check_shift_right(learner: ModuleType) -> None:
    bos = reverse_task.BOS
    for target in (torch.tensor([[7, 8, 9, 1], [2, 3, 4, 5]]), torch.tensor([[4, 0, 2, 9, 9, 1, 3]]),
                   torch.tensor([[5], [6], [7]])):  # fmt: skip
        start = torch.full_like(target[:, :1], bos)
        mistakes = [
            (target, "the target is not shifted: the decoder would be given the very token it must predict"),
            (torch.cat([target[:, 1:], start], 1), "you shifted left: the start token goes first, then the target "
                                                     "without its last token"),
            (torch.cat([torch.zeros_like(start), target[:, :-1]], 1), f"the first token must be BOS ({bos})"),
        ]  # fmt: skip
        got, expected = (
            call_on_copies(learner.shift_right, target),
            reverse_task.shift_right(target),
        )
        # The dtype too: ids must stay integers (torch.long), as nn.Embedding needs them.
        expect_same(
            got,
            expected,
            f"shift_right of a target of shape {shape(target)}",
            mistakes,
        )
    target = torch.zeros(2, 5, dtype=torch.long, device=META)
    what = "shift_right of a target on another device"
    expect_on_meta(
        lambda: learner.shift_right(target.clone()),
        reverse_task.shift_right(target),
        what,
    )


SHIFT_RIGHT: Grader = [("shift_right", _check_shift_right)]


def _decoder_cases() -> list[
    tuple[tuple, torch.Tensor, torch.Tensor, torch.Tensor]
]:
    """(d_model, h, d_ff), x, memory, memory mask: the usual sizes; one sequence of odd length, other widths."""
    g = generator()
    return [
        ((16, 4, 32), torch.randn(2, 4, 16, generator=g), torch.randn(2, 6, 16, generator=g),
         padding_mask(torch.tensor([6, 2]))),
        ((12, 3, 20), torch.randn(1, 7, 12, generator=g), torch.randn(1, 5, 12, generator=g),
         padding_mask(torch.tensor([4]), max_len=5)),
    ]  # fmt: skip


@torch.no_grad()
def _decoder_mistakes(
    reference: nn.Module, other: nn.Module, x, memory, target_mask, memory_mask
) -> list:
    """What the usual slips give, from the reference's weights: `other` holds them in the other norm order."""
    return [
        (other(x, memory, target_mask, memory_mask)[0], PRE_NORM),
        (reference(x, memory, None, memory_mask)[0],
         "the decoder sees the future: pass target_mask to the self-attention"),
        (reference(x, memory, target_mask, None)[0],
         "the padding of the source gets attention: pass memory_mask to the cross-attention"),
        *[(with_parts(reference, **{second: first})(x, memory, target_mask, memory_mask)[0],
           f"two sub-layers share {first}: each has its own LayerNorm, norm1, norm2 and norm3 in order")
          for first, second in (("norm1", "norm2"), ("norm2", "norm3"), ("norm1", "norm3"))],
    ]  # fmt: skip


def _check_decoder_layer(learner: ModuleType, norm_first: bool) -> None:
    for seed, (sizes, x, memory, memory_mask) in enumerate(_decoder_cases()):
        reference, ours, other = layers(
            learner.DecoderLayer,
            decoder.DecoderLayer,
            sizes,
            norm_first,
            seed=seed,
        )
        masks = (causal_mask(x.size(1)), memory_mask)
        with torch.no_grad():
            expected = reference(x, memory, *masks)
            output, self_weights, cross_weights = call_on_copies(
                ours, x, memory, *masks
            )
        what = f"x {shape(x)}, memory {shape(memory)}, norm_first={norm_first}"
        mistakes = partial(
            _decoder_mistakes, reference, other, x, memory, *masks
        )
        expect_same(output, expected[0], f"the output for {what}", mistakes)
        expect_same(
            self_weights, expected[1], f"the self-attention weights for {what}"
        )
        expect_same(
            cross_weights,
            expected[2],
            f"the cross-attention weights (keys from memory) for {what}",
        )


def _check_decoder_dropout(learner: ModuleType) -> None:
    for seed, (sizes, x, memory, memory_mask) in enumerate(_decoder_cases()):
        for norm_first in (False, True):
            reference, ours, _ = layers(
                learner.DecoderLayer,
                decoder.DecoderLayer,
                sizes,
                norm_first,
                0.25,
                seed,
            )
            what = f"the output for x of shape {shape(x)} in training, dropout = 0.25, norm_first={norm_first}"

            def run(
                layer, r, x=x, memory=memory, memory_mask=memory_mask
            ):  # the inputs repeated r times
                return first_output(
                    layer,
                    x=repeated(x, r),
                    memory=repeated(memory, r),
                    target_mask=causal_mask(x.size(1)),
                    memory_mask=repeated(memory_mask, r),
                )

            expect_same_in_training(
                reference, ours, run, what, ("dropout1", "dropout2", "dropout3")
            )


def _check_decoder_eval_and_gradients(learner: ModuleType) -> None:
    sizes, x, memory, memory_mask = _decoder_cases()[0]
    inputs = (x, memory, causal_mask(x.size(1)), memory_mask)
    expect_layer_in_eval_mode(
        learner.DecoderLayer,
        decoder.DecoderLayer,
        sizes,
        inputs,
        "DecoderLayer",
    )


DECODER_LAYER: Grader = [
    (
        "post-norm (norm_first=False)",
        lambda learner: _check_decoder_layer(learner, False),
    ),
    (
        "pre-norm (norm_first=True)",
        lambda learner: _check_decoder_layer(learner, True),
    ),
    ("dropout in training, in both orders", _check_decoder_dropout),
    (
        "no dropout in eval mode; gradients and device as the reference's",
        _check_decoder_eval_and_gradients,
    ),
]

SEES_THE_FUTURE = (
    "the decoder sees the future: pass a causal mask as target_mask"
)


def _check_seq2seq(learner: ModuleType) -> None:
    # (B, S, T): the usual batch; one pair of sequences of odd lengths
    for seed, (batch, source_length, target_length) in enumerate(
        [(2, 8, 6), (1, 5, 7)]
    ):
        torch.manual_seed(seed)
        reference = perturbed(reverse_task.Seq2SeqModel(), seed).eval()
        ours = twin(learner.Seq2SeqModel, reference)
        g = generator(seed)
        source = torch.randint(0, 10, (batch, source_length), generator=g)
        target = torch.randint(0, 10, (batch, target_length), generator=g)
        changed, half = target.clone(), target_length // 2
        changed[:, half:] = (
            changed[:, half:] + 1
        ) % 10  # only the second half changes
        with torch.no_grad():
            before, after = (
                call_on_copies(ours, source, target)[0],
                call_on_copies(ours, source, changed)[0],
            )
            expected = reference(source, target)[0]
        if not torch.allclose(after[:, :half], before[:, :half], atol=1e-5):
            raise Wrong(f"the logits of positions 0-{half - 1} changed when only the tokens from position {half} on "
                        "changed", SEES_THE_FUTURE)  # fmt: skip
        expect_same(
            before,
            expected,
            f"the logits for a source {shape(source)} and a target {shape(target)}",
        )
    model = copy.deepcopy(ours).to(META)
    tokens = torch.zeros(2, 5, dtype=torch.long, device=META)
    what = "the logits of a model and tokens on another device"
    expect_on_meta(
        lambda: model(tokens, tokens)[0],
        reference.to(META)(tokens, tokens)[0],
        what,
    )


SEQ2SEQ: Grader = [("the past does not depend on the future", _check_seq2seq)]


@torch.no_grad()
def _beam_with(
    model: nn.Module,
    source: torch.Tensor,
    length: int,
    beam_width: int,
    slip: str,
) -> torch.Tensor:
    """The reference's beam search with one usual slip, to recognise the learner's output."""
    B, V = source.size(0), reverse_task.VOCAB_SIZE
    drafts = source.new_full((B, 1, 1), reverse_task.BOS)
    scores = torch.zeros(B, 1)
    for _ in range(length):
        beams = drafts.size(1)
        sources = (
            source.repeat(beams, 1)
            if slip == "repeat"
            else source.repeat_interleave(beams, dim=0)
        )
        logits = model(sources, drafts.flatten(0, 1))[0][:, -1]
        step = (
            logits.softmax(dim=-1)
            if slip == "probabilities"
            else logits.log_softmax(dim=-1)
        )
        step = step.view(B, beams, V)
        candidates = (
            step if slip == "last step" else scores.unsqueeze(-1) + step
        ).flatten(1)
        scores, best = candidates.topk(
            min(1 if slip == "one draft" else beam_width, beams * V), dim=-1
        )
        kept = drafts.gather(
            1, (best // V).unsqueeze(-1).expand(-1, -1, drafts.size(2))
        )
        drafts = torch.cat([kept, (best % V).unsqueeze(-1)], dim=2)
    return drafts[:, -1 if slip == "last draft" else 0, 1:]


FEWER_CANDIDATES = (
    "at the first step there is one draft, so there may be fewer candidates than beam_width: keep "
    "min(beam_width, beams * V) of them"
)
BEAM_SLIPS = {
    "last step": "add each draft's total so far to the log-probabilities of its next tokens, "
    "scores.unsqueeze(-1) + log_p: a draft is ranked by the whole sequence, not by its last token",
    "probabilities": "add log-probabilities (log_softmax), not probabilities: a sequence's probability is the "
    "product of its tokens', so its log is their sum",
    "repeat": "repeat each source once per draft, in the drafts' order: source.repeat_interleave(beams, dim=0) "
    "(source.repeat pairs the drafts with other sources)",
    "last draft": "topk sorts from the highest score: the best draft is drafts[:, 0]",
    "one draft": "keep beam_width drafts at every step: with one, this is greedy decoding",
}


def _check_beam_search(learner: ModuleType) -> None:
    torch.manual_seed(0)
    model = perturbed(reverse_task.Seq2SeqModel(), 0).eval()
    with torch.no_grad():
        model.output.weight.mul_(
            3
        )  # sharper predictions, as a trained model makes: the slips then differ
    g = generator()
    # (batch, length, beam width): the usual; one source and a wide beam; more drafts than tokens at the first step
    for batch, length, beam_width in [
        (6, 8, 3),
        (1, 6, 5),
        (3, 4, 2),
        (2, 3, 12),
    ]:
        source = torch.randint(0, 10, (batch, 8), generator=g)
        expected = reverse_task.beam_search(model, source, length, beam_width)
        what = f"beam_search of {batch} sources, {length} tokens, beam_width={beam_width}"
        try:
            got = call_on_copies(
                learner.beam_search, model, source, length, beam_width
            )
        except RuntimeError as error:
            if "out of range" not in str(error):
                raise
            raise Wrong(
                f"{what}: your code raised RuntimeError: {error}",
                FEWER_CANDIDATES,
            ) from None
        mistakes = [
            (_beam_with(model, source, length, beam_width, slip), hint)
            for slip, hint in BEAM_SLIPS.items()
        ]
        expect_same(got, expected, what, mistakes)
    source = torch.randint(0, 10, (4, 8), generator=g)
    greedy = reverse_task.greedy_decode(model, source, 6)
    expect_same(call_on_copies(learner.beam_search, model, source, 6, 1), greedy, "beam_search with beam_width=1, "
                "which is greedy decoding")  # fmt: skip
    empty = reverse_task.beam_search(model, source, 0, 3)
    expect_same(
        call_on_copies(learner.beam_search, model, source, 0, 3),
        empty,
        "beam_search of 0 tokens",
    )
    on_meta, tokens = (
        copy.deepcopy(model).to(META),
        torch.zeros(2, 8, dtype=torch.long, device=META),
    )
    what = "beam_search of a model and sources on another device"
    expect_on_meta(lambda: learner.beam_search(on_meta, tokens, 3, 2), reverse_task.beam_search(on_meta, tokens, 3, 2),
                   what)  # fmt: skip


BEAM_SEARCH: Grader = [("beam search", _check_beam_search)]
