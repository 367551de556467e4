"""Chapter "Generating fast, with a KV cache": forward_with_cache against the full model."""

from __future__ import annotations

import copy
from types import ModuleType

import torch
from tutorial_code import language_model
from tutorial_code.masks import causal_mask
from tutorial_tools.exercises.checks import Wrong, expect_error
from tutorial_tools.exercises.common import (
    META,
    Grader,
    expect_on_meta,
    expect_same,
    perturbed,
)

WRONG_POSITION = "the new tokens got positions from 0: the first new token's position is cache.length, the number " \
                 "of tokens before it"  # fmt: skip
SEE_EACH_OTHER = (
    "new tokens given together see each other's future: mask them with rows cache.length.. of a causal mask of "
    "cache.length + n positions"
)
FITS = "exactly model.context tokens fit: raise only when cache.length + n > model.context"

# (vocab_size, d_model, h, layers, context, B): the usual model, and a one-layer model of other widths whose
# context the tokens fill exactly, one sequence.
MODELS = [(12, 16, 2, 2, 16, 2), (7, 12, 3, 1, 10, 1)]
STEPS = (
    1,
    1,
    4,
    1,
    1,
    1,
    1,
)  # how many tokens each call gives: the first, the second, four at once, one by one


def _model(
    vocab_size: int, d_model: int, h: int, layers: int, context: int, seed: int
):
    torch.manual_seed(seed)
    model = language_model.CharTransformer(vocab_size=vocab_size, d_model=d_model, num_heads=h, num_layers=layers,
                                           context=context)  # fmt: skip
    return perturbed(model, seed).eval()


def _with_offset_zero(
    model, tokens: torch.Tensor, cache
) -> torch.Tensor | None:
    """The reference's logits for `tokens` after a copy of the learner's `cache`, with the positions counted from 0."""
    try:
        copied = language_model.KVCache(
            [k.clone() for k in cache.keys], [v.clone() for v in cache.values]
        )
    except (AttributeError, TypeError):
        return None
    return language_model.forward_with_cache(
        model, tokens, copied, position_offset=0
    )


def _seeing_each_other(
    model, tokens: torch.Tensor, start: int, n: int
) -> torch.Tensor:
    """The logits of the `n` tokens from `start` when they see each other's future: the full model under a causal
    mask whose block of those rows and columns is all True."""
    mask = causal_mask(start + n)
    mask[start:, start:] = True
    with torch.no_grad():
        x = model.positions(model.embedding(tokens[:, : start + n]))
        for layer in model.layers:
            x, _ = layer(x, mask=mask)
        return model.output(model.final_norm(x))[:, start:]


def _check_cache(learner: ModuleType) -> None:
    for seed, (vocab_size, d_model, h, layers, context, batch) in enumerate(
        MODELS
    ):
        model = _model(vocab_size, d_model, h, layers, context, seed)
        length = sum(STEPS)  # at most the context
        tokens = torch.randint(
            0,
            vocab_size,
            (batch, length),
            generator=torch.Generator().manual_seed(seed),
        )
        with torch.no_grad():
            full, _ = model(tokens)
        theirs, cache, start = copy.deepcopy(model), learner.KVCache(), 0
        for n in STEPS:
            new = tokens[:, start : start + n]
            wrong_position = (
                _with_offset_zero(model, new, cache) if start else None
            )
            which = (
                f"tokens {start}-{start + n - 1}, given together"
                if n > 1
                else f"token {start}"
            )
            what = f"the logits of {which} (model of context {context}, tokens {tuple(tokens.shape)}), from the cache"
            try:
                got = learner.forward_with_cache(theirs, new.clone(), cache)
            except ValueError as error:
                if start + n == context:
                    raise Wrong(
                        f"{what}: your code raised ValueError ({error})", FITS
                    ) from None
                raise
            mistakes = (
                []
                if wrong_position is None
                else [(wrong_position, WRONG_POSITION)]
            )
            if n > 1:
                mistakes.append(
                    (
                        _seeing_each_other(model, tokens, start, n),
                        SEE_EACH_OTHER,
                    )
                )
            expect_same(got, full[:, start : start + n], what, mistakes)
            start += n
            if start == 1 and cache.length != 1:
                raise Wrong(f"after one token the cache holds {cache.length} positions",
                            "append each layer's new keys and values to cache.keys and cache.values")  # fmt: skip


def _check_cache_device(learner: ModuleType) -> None:
    model = _model(12, 16, 2, 2, 16, 0).to(META)
    tokens = torch.zeros(2, 5, dtype=torch.long, device=META)
    theirs, cache, reference_cache = (
        copy.deepcopy(model),
        learner.KVCache(),
        language_model.KVCache(),
    )
    for what, new in (
        ("the first token", tokens[:, :1]),
        ("four tokens given together", tokens[:, 1:]),
    ):
        what = (
            f"the logits of {what}, with the model and tokens on another device"
        )
        expected = language_model.forward_with_cache(
            model, new, reference_cache
        )
        expect_on_meta(
            lambda new=new: learner.forward_with_cache(theirs, new, cache),
            expected,
            what,
        )


def _check_cache_errors(learner: ModuleType) -> None:
    model = _model(12, 16, 2, 1, 4, 0)
    tokens = torch.zeros(2, 5, dtype=torch.long)
    expect_error(lambda: learner.forward_with_cache(model, tokens, learner.KVCache()), (ValueError,),
                 "five tokens for a context of four")  # fmt: skip
    expect_error(lambda: learner.forward_with_cache(model, torch.full((2, 1), 12), learner.KVCache()), (ValueError,),
                 "the token id 12 for a vocabulary of 12")  # fmt: skip
    cache = learner.KVCache()
    learner.forward_with_cache(model, tokens[:, :3], cache)
    expect_error(lambda: learner.forward_with_cache(model, tokens[:, :2], cache), (ValueError,),
                 "two more tokens after three, for a context of four")  # fmt: skip
    expect_error(lambda: learner.forward_with_cache(model, tokens[:1, :1], cache), (ValueError,),
                 "one sequence after a cache of two")  # fmt: skip


KV_CACHE: Grader = [
    ("cached logits equal the full model's", _check_cache),
    ("the logits on the device of the model", _check_cache_device),
    ("errors past the context", _check_cache_errors),
]
