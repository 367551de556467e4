"""The public API's contract, tested by generation: misuse across every public function and constructor.

The misuse probe (test_misuse.py) is a list of cases. This file is not: it finds every public callable of
`tutorial_code` by introspection, reads its signature, and generates bad settings for each argument by kind
(hypothesis), so that a new function is held to the same rules without anyone writing its cases:

- **sizes** (`d_model`, `num_heads`, `vocab_size`, ...): positive integers, never a bool, a float or a string;
- **flags** (arguments annotated `bool`): True or False, never the string `'False'`;
- **probabilities** (`dropout`, `attention_dropout`, ...): numbers in [0, 1].

Each bad setting must end in a TypeError or ValueError of the package whose message names the argument. Then
properties the lists cannot cover: a norm keeps its input's dtype and equals PyTorch's module in every floating
dtype and shape; a KV cache refuses what it cannot append, and a list of caches that repeats one; a function that
predicts leaves the model's modes as it found them.
"""

from __future__ import annotations

import importlib
import inspect
import math
import pkgutil
import warnings
from collections import Counter
from collections.abc import Callable

import pytest
import torch
from conftest import REPORT
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from torch import nn

import tutorial_code

pytestmark = pytest.mark.unit

VALID = {  # a valid value for each argument name a public callable may require: tiny sizes
    "d_model": 8,
    "num_heads": 2,
    "num_kv_heads": 1,
    "d_ff": 16,
    "d_k": 4,
    "head_dim": 4,
    "vocab_size": 12,
    "num_layers": 1,
    "num_encoder_layers": 1,
    "num_decoder_layers": 1,
    "max_len": 16,
    "context": 8,
    "seq_len": 6,
    "length": 5,
    "window": 2,
    "batch_size": 2,
    "num_classes": 3,
    "num_outputs": 1,
    "num_buckets": 4,
    "max_distance": 8,
    "count": 3,
    "size": 4,
    "repeats": 2,
    "dilation": 2,
    "block_size": 2,
}
SIZES = set(VALID)  # every argument named here is a size: a positive integer
ZERO_IS_A_SIZE = {"seq_len", "length", "max_len"}  # these may be 0 (an empty sequence) where a function says so
PROBABILITY = ("dropout", "attention_dropout")
SKIPPED_NAMES = ("train", "per_seed", "compare", "bench", "measure", "main", "record", "figure", "diagram")


def public_callables() -> dict[str, Callable]:
    """Every public function and class defined in a `tutorial_code` module (not the diagrams), by dotted name,
    whose required arguments all have a value in VALID. Trainings and multi-seed runs are left out: their
    arguments are checked by the same helpers, and a valid call would train."""
    found = {}
    for info in pkgutil.iter_modules(tutorial_code.__path__):
        if info.ispkg or info.name.startswith("_"):
            continue
        module = importlib.import_module(f"tutorial_code.{info.name}")
        for name, obj in vars(module).items():
            if name.startswith("_") or getattr(obj, "__module__", None) != module.__name__ or not callable(obj):
                continue
            if any(word in name.lower() for word in SKIPPED_NAMES):
                continue
            try:
                signature = inspect.signature(obj)
            except (TypeError, ValueError):
                continue
            parameters = [p for p in signature.parameters.values() if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
            if all(p.name in VALID for p in parameters if p.default is p.empty):
                found[f"{info.name}.{name}"] = obj
    return found


def valid_call(function: Callable) -> dict:
    """Arguments of a call that succeeds: VALID values for every required argument."""
    parameters = inspect.signature(function).parameters.values()
    return {p.name: VALID[p.name] for p in parameters if p.default is p.empty and p.kind is not p.VAR_KEYWORD}


def arguments_by_kind() -> dict[str, list[tuple[str, str]]]:
    """(callable, argument) pairs whose callable accepts its valid call, by the kind of the argument."""
    kinds: dict[str, list[tuple[str, str]]] = {"size": [], "flag": [], "probability": []}
    for key, function in public_callables().items():
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                function(**valid_call(function))
        except Exception:  # needs more than sizes (a tensor, a model): the probe's lists cover it
            continue
        for parameter in inspect.signature(function).parameters.values():
            annotation = str(parameter.annotation)
            if parameter.name in SIZES:
                kinds["size"].append((key, parameter.name))
            elif annotation in ("bool", "<class 'bool'>"):
                kinds["flag"].append((key, parameter.name))
            elif parameter.name.endswith(PROBABILITY):
                kinds["probability"].append((key, parameter.name))
    return kinds


CALLABLES = public_callables()
KINDS = arguments_by_kind()
TRIED: Counter = Counter()  # refused misuses, by kind of argument
TRIED_ATTENTION: Counter = Counter()  # generated attention calls, by kind

BAD_SIZES = st.one_of(
    st.integers(max_value=-1),
    st.floats(allow_nan=True, allow_infinity=True).filter(lambda x: not float(x).is_integer() or x == x),
    st.integers(min_value=1, max_value=64).map(float),  # 4.0: a float that looks like a size
    st.booleans(),
    st.text(max_size=3),
    st.none(),
)
BAD_FLAGS = st.one_of(
    st.sampled_from(["False", "True", "no", ""]), st.floats(allow_nan=False), st.integers(2, 9), st.none()
)
BAD_PROBABILITIES = st.one_of(
    st.floats(max_value=-1e-9, allow_infinity=True),
    st.floats(min_value=1 + 1e-9, allow_infinity=True),
    st.just(math.nan),
    st.text(max_size=3),
    st.booleans(),
)


def refused(key: str, argument: str, value: object, kind: str) -> None:
    """The callable, given `value` for `argument` and valid values for the rest, raises a TypeError or ValueError
    that names `argument`."""
    function = CALLABLES[key]
    if kind == "size" and value == 0 and argument in ZERO_IS_A_SIZE and not isinstance(value, bool):
        return  # an empty sequence may be a valid input
    call = {**valid_call(function), argument: value}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            function(**call)
        except (TypeError, ValueError) as error:
            assert argument in str(error), f"{key}({argument}={value!r}): the message does not name it: {error}"
            TRIED[kind] += 1
            report_misuse()
            return
    if kind == "size" and value is None and inspect.signature(function).parameters[argument].default is None:
        return  # None is this argument's own default: "not given"
    pytest.fail(f"{key}({argument}={value!r}) was accepted")


SETTINGS = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def masks_of(forward: Callable) -> list[inspect.Parameter]:
    return [p for p in inspect.signature(forward).parameters.values() if p.name.endswith(("mask", "_is_real"))]


def test_a_module_that_takes_two_masks_or_more_takes_them_by_name():
    """Where masks of the same shape could be exchanged (target_mask and memory_mask when S == T, a mask and
    key_is_real when B == T_q), passing them by position is refused: each is named where it is passed."""
    modules = {
        name: obj.forward
        for module in {importlib.import_module(c.__module__) for c in CALLABLES.values()}
        for name, obj in vars(module).items()
        if inspect.isclass(obj) and issubclass(obj, nn.Module) and obj.__module__ == module.__name__
    }
    several = {name: masks_of(forward) for name, forward in modules.items() if len(masks_of(forward)) >= 2}
    assert {"MultiHeadAttention", "EncoderLayer", "Encoder", "DecoderLayer", "Transformer"} <= set(several)
    positional = {n: [p.name for p in ps if p.kind != p.KEYWORD_ONLY] for n, ps in several.items()}
    assert not any(positional.values()), positional


def test_the_public_api_is_found_by_introspection():
    assert len(CALLABLES) >= 40
    assert len(KINDS["size"]) >= 60 and len(KINDS["flag"]) >= 10 and len(KINDS["probability"]) >= 8


@SETTINGS
@given(target=st.sampled_from(KINDS["size"]), value=BAD_SIZES)
def test_every_size_is_a_positive_int(target, value):
    refused(*target, value, "size")


@SETTINGS
@given(target=st.sampled_from(KINDS["flag"]), value=BAD_FLAGS)
def test_every_flag_is_true_or_false(target, value):
    refused(*target, value, "flag")


@SETTINGS
@given(target=st.sampled_from(KINDS["probability"]), value=BAD_PROBABILITIES)
def test_every_probability_lies_in_0_1(target, value):
    refused(*target, value, "probability")


def report_misuse() -> None:
    """The counts of refused misuses so far, by kind, in the run's summary (tests/conftest.py)."""
    arguments = {kind: len(pairs) for kind, pairs in KINDS.items()}
    REPORT["generated misuse (tests/unit/test_contract.py), refused with a message naming the argument"] = (
        f"{sum(TRIED.values())} calls over {len(CALLABLES)} public callables: "
        + ", ".join(f"{kind} {TRIED[kind]} ({arguments[kind]} arguments)" for kind in arguments)
    )


# ---- properties: results equal to PyTorch's, and state handed back as found

FLOATS = st.sampled_from([torch.float32, torch.float64, torch.float16, torch.bfloat16])
SHAPES = st.lists(st.integers(1, 5), min_size=0, max_size=3)


@settings(max_examples=60, deadline=None)
@given(dtype=FLOATS, leading=SHAPES, d_model=st.integers(1, 12), seed=st.integers(0, 2**16))
def test_the_norms_keep_the_dtype_and_equal_pytorch_s(dtype, leading, d_model, seed):
    from tutorial_code.layer_norm import LayerNorm
    from tutorial_code.rms_norm import RMSNorm

    x = torch.randn(*leading, d_model, generator=torch.Generator().manual_seed(seed)).to(dtype)
    tolerance = {torch.float16: 1e-2, torch.bfloat16: 5e-2}.get(dtype, 1e-5)
    for ours, theirs in ((LayerNorm(d_model), nn.LayerNorm(d_model)), (RMSNorm(d_model), nn.RMSNorm(d_model, 1e-6))):
        got = ours(x)
        assert got.dtype == dtype
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # PyTorch's mixed-dtype note
            try:
                expected = theirs(x)
            except RuntimeError as error:  # float64 input, float32 weights: PyTorch's LayerNorm refuses
                assert "mixed dtype" in str(error) and dtype == torch.float64
                continue
        assert expected.dtype == dtype
        torch.testing.assert_close(got.float(), expected.float(), atol=tolerance, rtol=tolerance)


@settings(max_examples=80, deadline=None)
@given(
    held=st.tuples(st.integers(1, 3), st.integers(1, 3), st.integers(1, 4), st.integers(1, 4)),
    change=st.sampled_from(["rank", "length", "batch", "heads", "width", "dtype", "ids", "none"]),
)
def test_a_kv_cache_refuses_what_it_cannot_append(held, change):
    from tutorial_code.grouped_query import KVCache

    B, h, t, d = held
    cache = KVCache()
    cache.append(torch.zeros(B, h, t, d), torch.zeros(B, h, t, d))
    K = V = torch.ones(B, h, 1, d)
    if change == "rank":
        K = V = torch.ones(B, h, d)
    elif change == "length":
        V = torch.ones(B, h, 2, d)
    elif change == "batch":
        K = V = torch.ones(B + 1, h, 1, d)
    elif change == "heads":
        K = V = torch.ones(B, h + 1, 1, d)
    elif change == "width":
        K = V = torch.ones(B, h, 1, d + 1)
    elif change == "dtype":
        K = V = torch.ones(B, h, 1, d, dtype=torch.float64)
    elif change == "ids":
        K = V = torch.ones(B, h, 1, d, dtype=torch.long)
    if change == "none":
        keys, values = cache.append(K, V)
        assert cache.length == t + 1 and keys.shape == values.shape == (B, h, t + 1, d)
        return
    with pytest.raises((TypeError, ValueError), match=r"\bK\b|\bV\b|cache holds"):
        cache.append(K, V)
    assert cache.length == t  # nothing appended


@settings(max_examples=30, deadline=None)
@given(layers=st.integers(2, 4), repeated=st.booleans())
def test_each_layer_gets_its_own_cache(layers, repeated):
    from tutorial_code.grouped_query import KVCache, layer_caches
    from tutorial_code.language_model import KVCache as ModelCache

    if repeated:
        with pytest.raises(ValueError, match="the same KVCache for several layers"):
            layer_caches([KVCache()] * layers, layers)
    else:
        assert len(layer_caches([KVCache() for _ in range(layers)], layers)) == layers
    with pytest.raises(TypeError, match="grouped_query.KVCache per layer, got tutorial_code.language_model.KVCache"):
        layer_caches([ModelCache() for _ in range(layers)], layers)


@settings(max_examples=30, deadline=None)
@given(modes=st.lists(st.booleans(), min_size=6, max_size=6), fails=st.booleans())
def test_a_function_that_predicts_gives_the_model_back_in_its_modes(modes, fails):
    from tutorial_code.modes import in_eval_mode

    model = nn.Sequential(nn.Linear(2, 2), nn.Dropout(0.5), nn.Sequential(nn.Dropout(0.1), nn.Linear(2, 2)))
    for module, training in zip(model.modules(), modes, strict=True):
        module.training = training

    @in_eval_mode
    def predict(model):
        assert not any(module.training for module in model.modules())  # dropout off while it runs
        if fails:
            raise RuntimeError("a failure inside")
        return model(torch.ones(1, 2))

    if fails:
        with pytest.raises(RuntimeError):
            predict(model)
    else:
        predict(model)
    assert [module.training for module in model.modules()] == modes


def test_sampling_between_training_steps_leaves_dropout_on():
    """The slip the issue names: generate() in a training loop used to leave the model in eval mode."""
    from tutorial_code.language_model import CharTransformer, generate

    model = CharTransformer(vocab_size=12, d_model=8, num_heads=2, num_layers=1, context=8, dropout=0.1).train()
    generate(model, torch.tensor([1, 2]), new_tokens=3, generator=torch.Generator().manual_seed(0))
    assert model.training and all(module.training for module in model.modules())


@settings(max_examples=25, deadline=None)
@given(B=st.integers(1, 3), S=st.integers(1, 5), T=st.integers(1, 5), same=st.booleans())
def test_a_source_mask_that_masks_per_query_is_refused_even_when_the_shapes_coincide(B, S, T, same):
    """A (S, S) source mask would also mask cross-attention, whose queries are the target's T positions: when
    S == T it even has the right shape. It is refused; a padding mask (B, 1, 1, S) is what both attentions read."""
    from tutorial_code.decoder import Transformer
    from tutorial_code.masks import causal_mask, padding_mask

    T = S if same else T
    model = Transformer(8, 2, 1, 1, 16, dropout=0.0).eval()
    source, target = torch.randn(B, S, 8), torch.randn(B, T, 8)
    if S > 1:
        with pytest.raises(ValueError, match="source_mask must mask keys only"):
            model(source, target, source_mask=causal_mask(S))
    lengths = torch.randint(1, S + 1, (B,))
    assert model(source, target, source_mask=padding_mask(lengths, max_len=S)).shape == (B, T, 8)


def test_a_tagger_needs_an_encoder_that_masks_padding():
    from tutorial_code.encoder import Encoder
    from tutorial_code.padded_tasks import EncoderTagger

    with pytest.raises(ValueError, match=r"the encoder has no pad_id, .* Encoder\(\.\.\., pad_id=PAD\)"):
        EncoderTagger(Encoder(12, 8, 2, 16, 1), num_tags=2)


# ---- attention, generated: any rank, coincident sizes, every floating dtype, views, empty batches, NaN, meta


@st.composite
def attention_inputs(draw, misuse: str):
    """Query, key, value and a mask for scaled dot-product attention, as a learner might pass them: 0 to 2
    leading axes (an empty batch too), sizes that often coincide (B == T_q == T_k == d_k), any floating dtype,
    non-contiguous views, a NaN in the values; then the `misuse` (`MISUSES`: none, widths or lengths that do not
    match, integer ids, a mask of the wrong shape, everything on the meta device)."""
    size = st.integers(1, 4)
    leading = draw(st.lists(st.integers(0, 3), max_size=2))
    t_q, t_k, d_k, d_v = draw(size), draw(size), draw(size), draw(size)
    if draw(st.booleans()):  # sizes that coincide, where a swapped argument keeps its shape
        t_k = d_k = d_v = t_q
        leading = [t_q, *leading[1:]]
    dtype = draw(FLOATS)
    generator = torch.Generator().manual_seed(draw(st.integers(0, 2**16)))

    def tensor(*shape):
        if draw(st.booleans()):  # a non-contiguous view: the last two axes stored the other way round
            return torch.randn(*shape[:-2], shape[-1], shape[-2], generator=generator).transpose(-1, -2).to(dtype)
        return torch.randn(*shape, generator=generator).to(dtype)

    query, key, value = tensor(*leading, t_q, d_k), tensor(*leading, t_k, d_k), tensor(*leading, t_k, d_v)
    if draw(st.booleans()) and value.numel():
        value = value.clone()
        value[(0,) * value.dim()] = float("nan")
    mask = None
    kind = draw(st.sampled_from(["none", "square", "keys"]))
    if kind == "square":  # (T_q, T_k), every query with a key
        mask = torch.rand(t_q, t_k, generator=generator) < 0.7
        mask[:, 0] = True
    elif kind == "keys":  # (..., 1, T_k): padding, every sequence with a key
        mask = torch.rand(*leading, 1, t_k, generator=generator) < 0.7
        mask[..., 0] = True
    if misuse == "widths":
        key = tensor(*leading, t_k, d_k + 1)
    elif misuse == "lengths":
        value = tensor(*leading, t_k + 1, d_v)
    elif misuse == "ids":
        query = torch.zeros(*leading, t_q, d_k, dtype=torch.long)
    elif misuse == "mask shape":
        mask = torch.ones(t_q + 1, t_k + 2, dtype=torch.bool)
    elif misuse == "meta":
        query, key, value = (t.to("meta") for t in (query, key, value))
        mask = None if mask is None else mask.to("meta")
    return query, key, value, mask


MISUSES = ["none", "widths", "lengths", "ids", "mask shape", "meta"]


@pytest.mark.parametrize("misuse", MISUSES)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_attention_equals_pytorch_s_or_refuses_naming_the_argument(misuse, data):
    """Either a TypeError or ValueError of the package that names the argument, or PyTorch's own result:
    `F.scaled_dot_product_attention` with the same mask (True = may attend in both), in the input's dtype and
    on its device (on the meta device, where there are no values, the same shape, dtype and device)."""
    from tutorial_code.attention import scaled_dot_product_attention

    query, key, value, mask = data.draw(attention_inputs(misuse))
    TRIED_ATTENTION[misuse] += 1
    REPORT["generated attention calls (tests/unit/test_contract.py), PyTorch's result or a named refusal"] = ", ".join(
        f"{kind} {count}" for kind, count in sorted(TRIED_ATTENTION.items())
    )
    if misuse in ("widths", "lengths", "ids", "mask shape"):
        named = {"widths": r"\bkey\b", "lengths": r"\bvalue\b", "ids": r"\bquery\b", "mask shape": r"\bmask\b"}
        with pytest.raises((TypeError, ValueError), match=named[misuse]):
            scaled_dot_product_attention(query, key, value, mask)
        return
    output, weights = scaled_dot_product_attention(query, key, value, mask)
    expected = nn.functional.scaled_dot_product_attention(query, key, value, attn_mask=mask)
    assert (output.shape, output.dtype, output.device) == (expected.shape, expected.dtype, expected.device)
    assert weights.shape == (*query.shape[:-1], key.size(-2))
    if misuse != "meta":
        tolerance = {torch.float16: 1e-2, torch.bfloat16: 6e-2}.get(query.dtype, 1e-5)
        torch.testing.assert_close(output.float(), expected.float(), atol=tolerance, rtol=tolerance, equal_nan=True)
