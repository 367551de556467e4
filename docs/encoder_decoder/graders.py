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
    expect_same_on_meta,
    first_output,
    generator,
    layers,
    perturbed,
    repeated,
    seeded,
    shape,
    twin,
    with_parts,
)


def _check_shift_right(learner: ModuleType) -> None:
    bos = reverse_task.BOS
    # the usual; one sequence of odd length; one token each; longer than the task's 8 digits, a batch of 5
    for target in (torch.tensor([[7, 8, 9, 1], [2, 3, 4, 5]]), torch.tensor([[4, 0, 2, 9, 9, 1, 3]]),
                   torch.tensor([[5], [6], [7]]), torch.randint(0, 10, (5, 12), generator=generator())):  # fmt: skip
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
    """(d_model, h, d_ff), x, memory, memory mask: the usual sizes; one sequence of odd length, other widths;
    more of everything than the examples show."""
    g = generator()
    return [
        ((16, 4, 32), torch.randn(2, 4, 16, generator=g), torch.randn(2, 6, 16, generator=g),
         padding_mask(torch.tensor([6, 2]))),
        ((12, 3, 20), torch.randn(1, 7, 12, generator=g), torch.randn(1, 5, 12, generator=g),
         padding_mask(torch.tensor([4]), max_len=5)),
        ((24, 6, 40), torch.randn(3, 9, 24, generator=g), torch.randn(3, 10, 24, generator=g),
         padding_mask(torch.tensor([10, 3, 7]))),
    ]  # fmt: skip


@torch.no_grad()
def _decoder_mistakes(
    reference: nn.Module, other: nn.Module, x, memory, target_mask, memory_mask
) -> list:
    """What the usual slips give, from the reference's weights: `other` holds them in the other norm order."""
    masks = {"target_mask": target_mask, "memory_mask": memory_mask}
    return [
        (other(x, memory, **masks)[0], PRE_NORM),
        (reference(x, memory, memory_mask=memory_mask)[0],
         "the decoder sees the future: pass target_mask to the self-attention"),
        (reference(x, memory, target_mask=target_mask)[0],
         "the padding of the source gets attention: pass memory_mask to the cross-attention"),
        *[(with_parts(reference, **{second: first})(x, memory, **masks)[0],
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
        masks = {
            "target_mask": causal_mask(x.size(1)),
            "memory_mask": memory_mask,
        }
        with torch.no_grad():
            expected = reference(x, memory, **masks)
            output, self_weights, cross_weights = call_on_copies(
                ours, x, memory, **masks
            )
        what = f"x {shape(x)}, memory {shape(memory)}, norm_first={norm_first}"
        mistakes = partial(
            _decoder_mistakes, reference, other, x, memory, **masks
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
            # a dropout mask drawn by hand must be drawn on the inputs' device too
            if seed == 0:
                expect_same_on_meta(reference, ours, (x, memory),
                                    f"DecoderLayer in training, norm_first={norm_first}, its inputs on another "
                                    "device", {"target_mask": causal_mask(x.size(1)), "memory_mask": memory_mask})  # fmt: skip


def _is_real(lengths: torch.Tensor, length: int) -> torch.Tensor:
    """(B, length): True for the first `lengths[b]` tokens of sequence b."""
    return torch.arange(length) < lengths[:, None]


@torch.no_grad()
def _is_real_mistakes(
    reference: nn.Module,
    inputs: tuple,
    masks: dict,
    target_is_real,
    memory_is_real,
) -> list:
    """What the layer gives when target_is_real or memory_is_real is ignored (or its merged mask not passed on),
    or replaces its mask."""
    target_mask, memory_mask = masks["target_mask"], masks["memory_mask"]
    given = {"target_is_real": target_is_real, "memory_is_real": memory_is_real}
    mistakes = [
        (reference(*inputs, **masks)[0], "neither target_is_real nor memory_is_real reaches the attention: merge each into "
         "its mask, merge_masks(target_mask, target_is_real, x, x) and merge_masks(memory_mask, memory_is_real, x, "
         "memory), and pass the masks on"),
        (reference(*inputs, **masks, memory_is_real=memory_is_real)[0],
         "target_is_real does not reach the self-attention: merge it into target_mask, merge_masks(target_mask, "
         "target_is_real, x, x), and pass that to the self-attention"),
        (reference(*inputs, **masks, target_is_real=target_is_real)[0],
         "memory_is_real does not reach the cross-attention: merge it into memory_mask, merge_masks(memory_mask, "
         "memory_is_real, x, memory), and pass that to the cross-attention"),
        (reference(*inputs, memory_mask=memory_mask, **given)[0],
         "target_is_real replaced the causal target_mask: keep both (merge_masks combines them)"),
    ]  # fmt: skip
    if memory_mask is not None:
        mistakes.append((reference(*inputs, target_mask=target_mask, **given)[0],
                         "memory_is_real replaced memory_mask: keep both (merge_masks combines them)"))  # fmt: skip
    return mistakes


def _check_decoder_is_real(learner: ModuleType) -> None:
    for seed, (sizes, x, memory, memory_mask) in enumerate(_decoder_cases()):
        (B, T), S = x.shape[:2], memory.size(1)
        batch = torch.arange(B)
        # every sequence has padding at its end: the target's, the memory's, as the flags say
        target_is_real = _is_real(T - 1 - batch % (T - 1), T)
        memory_is_real = _is_real(
            S - 2 - (2 * batch) % (S - 2), S
        )  # the first sequence: not the memory_mask's length
        flags = {
            "target_is_real": target_is_real,
            "memory_is_real": memory_is_real,
        }
        for norm_first in (False, True):
            reference, ours, _ = layers(
                learner.DecoderLayer,
                decoder.DecoderLayer,
                sizes,
                norm_first,
                seed=seed,
            )
            for masks in (
                {"target_mask": causal_mask(T), "memory_mask": None},
                {"target_mask": causal_mask(T), "memory_mask": memory_mask},
            ):
                inputs = (x, memory)
                with torch.no_grad():
                    expected = reference(*inputs, **masks, **flags)
                    output, self_weights, cross_weights = call_on_copies(
                        ours, *inputs, **masks, **flags
                    )
                given_mask = masks["memory_mask"]
                what = (f"x {shape(x)}, memory {shape(memory)}, norm_first={norm_first}, target_is_real and "
                        f"memory_is_real given, memory_mask {None if given_mask is None else shape(given_mask)}")  # fmt: skip
                mistakes = partial(
                    _is_real_mistakes,
                    reference,
                    inputs,
                    masks,
                    target_is_real,
                    memory_is_real,
                )
                expect_same(
                    output, expected[0], f"the output for {what}", mistakes
                )
                expect_same(
                    self_weights,
                    expected[1],
                    f"the self-attention weights for {what}",
                )
                expect_same(
                    cross_weights,
                    expected[2],
                    f"the cross-attention weights for {what}",
                )
            # no mask beside the flags: a mask made from them must be made on their device (the masks are
            # merged before the norm orders part)
            if seed == 0 and norm_first:
                expect_same_on_meta(reference, ours, (x, memory),
                                    f"DecoderLayer with target_is_real and memory_is_real only, norm_first="
                                    f"{norm_first}, its inputs on another device", flags)  # fmt: skip


def _check_decoder_eval_and_gradients(learner: ModuleType) -> None:
    sizes, x, memory, memory_mask = _decoder_cases()[0]
    masks = {"target_mask": causal_mask(x.size(1)), "memory_mask": memory_mask}
    expect_layer_in_eval_mode(
        learner.DecoderLayer,
        decoder.DecoderLayer,
        sizes,
        (x, memory),
        "DecoderLayer",
        masks,
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
    ("target_is_real and memory_is_real", _check_decoder_is_real),
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
    # (B, S, T): the usual batch; one pair of sequences of odd lengths; both longer than the task's 8 digits
    for seed, (batch, source_length, target_length) in enumerate(
        [(2, 8, 6), (1, 5, 7), (3, 11, 12)]
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
    # (batch, source length, length, beam width): the usual; one short source and a wide beam; sources and drafts
    # longer than the task's 8 digits; more drafts than tokens at the first step
    for batch, source_length, length, beam_width in [
        (6, 8, 8, 3),
        (1, 5, 6, 5),
        (3, 11, 10, 2),
        (2, 8, 3, 12),
    ]:
        source = torch.randint(0, 10, (batch, source_length), generator=g)
        expected = reverse_task.beam_search(model, source, length, beam_width)
        what = f"beam_search of {batch} sources of {source_length} tokens, beam_width={beam_width}, writing {length} tokens"
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


DROPOUT_ON = (
    "the model decoded in training mode, with dropout on: each call would write something else. Decode in eval "
    "mode: keep @in_eval_mode, or call model.eval() and give the caller back the mode it had"
)
MODE_NOT_RESTORED = (
    "give the caller back the mode its model had: keep @in_eval_mode, or note was = model.training before "
    "model.eval() and call model.train(was) at the end (in a finally: block)"
)


def _check_beam_search_modes(learner: ModuleType) -> None:
    torch.manual_seed(1)
    model = perturbed(reverse_task.Seq2SeqModel(dropout=0.3), 1)
    with torch.no_grad():
        model.output.weight.mul_(3)
    source = torch.randint(0, 10, (3, 8), generator=generator(1))
    # dropout off
    expected = reverse_task.beam_search(model.eval(), source, 5, 3)
    what = "beam_search of 3 sources, 5 tokens, beam_width=3, with a model in training mode (dropout = 0.3)"
    model.train()
    got = seeded(
        lambda: call_on_copies(learner.beam_search, model, source, 5, 3)
    )
    if not all(module.training for module in model.modules()):
        raise Wrong(
            f"{what}: your beam_search gave the model back in eval mode",
            MODE_NOT_RESTORED,
        )

    def with_dropout() -> list:
        # the reference's steps in training mode, under the same seed
        steps = reverse_task.beam_search.__wrapped__
        return [(seeded(lambda: steps(model, source, 5, 3)), DROPOUT_ON)]

    expect_same(got, expected, what, with_dropout)
    model.eval()
    call_on_copies(learner.beam_search, model, source, 5, 3)
    if any(module.training for module in model.modules()):
        raise Wrong("beam_search of a model in eval mode: your beam_search gave the model back in training mode",
                    MODE_NOT_RESTORED)  # fmt: skip


BEAM_SEARCH: Grader = [
    ("beam search", _check_beam_search),
    ("eval mode, the caller's mode given back", _check_beam_search_modes),
]
