"""Chapter "Generating fast, with a KV cache": forward_with_cache against the full model."""

from __future__ import annotations

import copy
from types import ModuleType

import torch
from tutorial_code import language_model
from tutorial_code.masks import causal_mask
from tutorial_tools.exercises.checks import Wrong, expect_error
from tutorial_tools.exercises.common import (
    IN_PLACE,
    META,
    Grader,
    call_on_copies,
    expect_on_meta,
    expect_same,
    perturbed,
    seeded,
)

WRONG_POSITION = "the new tokens got positions from 0: the first new token's position is cache.length, the number " \
                 "of tokens before it"  # fmt: skip
SEE_EACH_OTHER = (
    "new tokens given together see each other's future: mask them with rows cache.length.. of a causal mask of "
    "cache.length + n positions"
)
FITS = "exactly model.context tokens fit: raise only when cache.length + n > model.context"
OFFSET_IGNORED = (
    "position_offset was not used: the first new token's position is position_offset when it is given (0 "
    "included: test `position_offset is None`, not `position_offset or ...`), and cache.length only when it is None"
)
DROPOUT_ON = (
    "dropout acted: run the model in eval mode while it predicts (keep the @in_eval_mode decorator, or call "
    "model.eval() first)"
)
LEFT_IN_EVAL = (
    "give the caller back its mode: keep the @in_eval_mode decorator, or note model.training before "
    "model.eval() and call model.train(that) before returning"
)
LEFT_IN_TRAINING = (
    "give the caller back its mode: a model that came in eval mode stays in eval mode; call "
    "model.train(was_training), not model.train()"
)

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
                got = call_on_copies(
                    learner.forward_with_cache, theirs, new, cache
                )
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
            _expect_model_unchanged(theirs, model, what)
            start += n
            if start == 1 and cache.length != 1:
                raise Wrong(f"after one token the cache holds {cache.length} positions",
                            "append each layer's new keys and values to cache.keys and cache.values")  # fmt: skip


def _expect_model_unchanged(theirs, model, what: str) -> None:
    """Raise `Wrong` if the learner's code edited a weight or a buffer of its copy of `model` in place."""
    mine = model.state_dict()
    for name, tensor in theirs.state_dict().items():
        if not torch.equal(tensor, mine[name]):
            raise Wrong(
                f"{what}: your forward_with_cache changed the model's {name} in place",
                IN_PLACE,
            )


def _filled(cache, model, tokens: torch.Tensor):
    """`cache` after the reference's forward_with_cache of `tokens`."""
    language_model.forward_with_cache(model, tokens, cache)
    return cache


def _check_cache_offset(learner: ModuleType) -> None:
    model = _model(12, 16, 2, 2, 16, 3)
    tokens = torch.randint(
        0, 12, (2, 5), generator=torch.Generator().manual_seed(3)
    )
    for offset in (0, 7):
        what = f"the logits of tokens 3-4 after a cache of 3, with position_offset={offset}"
        cache = _filled(learner.KVCache(), model, tokens[:, :3])
        expected = language_model.forward_with_cache(
            model,
            tokens[:, 3:],
            _filled(language_model.KVCache(), model, tokens[:, :3]),
            position_offset=offset,
        )
        ignored = language_model.forward_with_cache(
            model,
            tokens[:, 3:],
            _filled(language_model.KVCache(), model, tokens[:, :3]),
        )
        theirs = copy.deepcopy(model)
        got = call_on_copies(
            learner.forward_with_cache,
            theirs,
            tokens[:, 3:],
            cache,
            position_offset=offset,
        )
        expect_same(got, expected, what, [(ignored, OFFSET_IGNORED)])
        _expect_model_unchanged(theirs, model, what)


def _modes(model) -> list[bool]:
    return [module.training for module in model.modules()]


def _expect_modes(model, before: list[bool], what: str) -> None:
    if _modes(model) == before:
        return
    if before[0] and not model.training:
        raise Wrong(f"{what}: the model came in training mode and your forward_with_cache left it in eval mode",
                    LEFT_IN_EVAL)  # fmt: skip
    if not before[0] and model.training:
        raise Wrong(f"{what}: the model came in eval mode and your forward_with_cache left it in training mode",
                    LEFT_IN_TRAINING)  # fmt: skip
    raise Wrong(f"{what}: your forward_with_cache changed the mode of some of the model's modules",
                LEFT_IN_EVAL if before[0] else LEFT_IN_TRAINING)  # fmt: skip


def _check_cache_modes(learner: ModuleType) -> None:
    torch.manual_seed(4)
    model = perturbed(language_model.CharTransformer(vocab_size=12, d_model=16, num_heads=2, num_layers=2,
                                                     context=16, dropout=0.5), 4)  # fmt: skip
    tokens = torch.randint(
        0, 12, (2, 5), generator=torch.Generator().manual_seed(4)
    )
    with torch.no_grad():
        full, _ = copy.deepcopy(model).eval()(tokens)
    training, reference_cache = (
        copy.deepcopy(model).train(),
        language_model.KVCache(),
    )
    dropped = seeded(
        lambda: language_model.forward_with_cache.__wrapped__(
            training, tokens[:, :4], reference_cache
        )
    )
    for caller_training in (True, False):
        theirs, cache = (
            copy.deepcopy(model).train(caller_training),
            learner.KVCache(),
        )
        for start, n in ((0, 4), (4, 1)):
            new = tokens[:, start : start + n]
            what = (
                f"the logits of tokens {start}-{start + n - 1} from a model with dropout 0.5 in training mode"
                if caller_training
                else f"the logits of tokens {start}-{start + n - 1} from a model with dropout 0.5 in eval mode"
            )
            before = _modes(theirs)
            got = seeded(lambda theirs=theirs, new=new, cache=cache: call_on_copies(learner.forward_with_cache,
                                                                                    theirs, new, cache))  # fmt: skip
            _expect_modes(theirs, before, what)
            mistakes = (
                [(dropped, DROPOUT_ON)]
                if caller_training and start == 0
                else []
            )
            expect_same(got, full[:, start : start + n], what, mistakes)


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
    (
        "the first new position is position_offset when it is given",
        _check_cache_offset,
    ),
    ("in eval mode, and the caller's mode given back", _check_cache_modes),
    ("the logits on the device of the model", _check_cache_device),
    ("errors past the context", _check_cache_errors),
]
