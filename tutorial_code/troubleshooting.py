"""Common Transformer bugs, reproduced: a broken version, its symptom, the fix.

Every `Problem` runs a small broken variant and its fixed twin and reports what
a reader would see. The troubleshooting page is generated from `PROBLEMS`, and
the tests check that each broken variant still shows its symptom and each fix
removes it, so a PyTorch upgrade that changes an error message fails the tests.

Shape letters: B = batch size, h = heads, T = sequence length, d_model,
d_k = d_model / h.
"""

# --8<-- [start:imports]
import math
from collections.abc import Callable
from dataclasses import dataclass

import torch
from torch import nn

from tutorial_code.attention import scaled_dot_product_attention
from tutorial_code.decoder import Transformer
from tutorial_code.digit_model import DigitModel
from tutorial_code.encoder import Encoder, EncoderClassifier
from tutorial_code.from_torch import multi_head_attention_from_torch
from tutorial_code.grouped_query import GroupedQueryAttention
from tutorial_code.language_model import (
    CharTransformer,
    KVCache,
    forward_with_cache,
)
from tutorial_code.masks import causal_mask, padding_mask
from tutorial_code.multi_head import combine_heads, split_heads
from tutorial_code.padded_tasks import (
    PAD,
    VOCAB_SIZE,
    add_padding,
    padded_batch,
)
from tutorial_code.reverse_task import Seq2SeqResult, trained_reversal
from tutorial_code.rotary import interleaved_to_half
from tutorial_code.sum_task import train_sum_model

# --8<-- [end:imports]


# --8<-- [start:outcome]
@dataclass
class Outcome:
    """What running one variant showed.

    Attributes:
        symptom: What the reader sees: the exact error text, or a measurement.
        bad: Whether the symptom of the problem is present.
    """

    symptom: str
    bad: bool


# --8<-- [end:outcome]


@dataclass
class Problem:
    """One row of the troubleshooting table.

    Attributes:
        name: A short identifier, used by the tests.
        title: The problem in the reader's words.
        cause: Why it happens.
        fix: What to change.
        broken: Runs the minimal broken variant.
        fixed: Runs the same code with the fix.
    """

    name: str
    title: str
    cause: str
    fix: str
    broken: Callable[[], Outcome]
    fixed: Callable[[], Outcome]


def _error(run: Callable[[], object]) -> Outcome:
    """Run `run`; an exception is the symptom, its message the text shown."""
    try:
        run()
    except (RuntimeError, ValueError, TypeError) as error:
        return Outcome(f"{type(error).__name__}: {error}", bad=True)
    return Outcome("runs", bad=False)


# --8<-- [start:shape_errors]
def linear_width_mismatch(fixed: bool) -> Outcome:
    """Token vectors of width 32 fed to projections built for d_model = 64."""
    d_model = 64
    W_Q = nn.Linear(d_model, d_model)
    # (B, T, 32): an embedding of the wrong width
    tokens = torch.randn(2, 5, 32)
    embed = nn.Linear(32, d_model)  # the fix: bring tokens to d_model first
    return _error(lambda: W_Q(embed(tokens) if fixed else tokens))


def position_table_mismatch(fixed: bool) -> Outcome:
    """A whole position table of 16 rows added to a sequence of 10 tokens."""
    x = torch.randn(2, 10, 16)  # (B, T=10, d_model)
    table = torch.randn(16, 16)  # (max_len=16, d_model)
    return _error(lambda: x + (table[: x.size(1)] if fixed else table))


# --8<-- [end:shape_errors]


# --8<-- [start:heads_without_transpose]
def heads_without_transpose(fixed: bool) -> Outcome:
    """Splitting heads with view(B, h, T, d_k) straight from (B, T, d_model)."""
    torch.manual_seed(0)
    theirs = nn.MultiheadAttention(16, 4, batch_first=True).eval()
    ours = multi_head_attention_from_torch(theirs)
    x = torch.randn(2, 6, 16)
    B, T, d_model, h = 2, 6, 16, 4
    if fixed:
        Q, K, V = (split_heads(W(x), h) for W in (ours.W_Q, ours.W_K, ours.W_V))
    else:  # runs without error, but each "head" now mixes features of
        # different tokens
        Q, K, V = (
            W(x).view(B, h, T, d_model // h)
            for W in (ours.W_Q, ours.W_K, ours.W_V)
        )
    heads, _ = scaled_dot_product_attention(Q, K, V)
    output = ours.W_O(combine_heads(heads))
    difference = (output - theirs(x, x, x)[0]).abs().max().item()
    return Outcome(
        "no error; output differs from "
        f"nn.MultiheadAttention by {difference:.2f}",
        bad=difference > 1e-4,
    )


# --8<-- [end:heads_without_transpose]


# --8<-- [start:view_without_transpose]
def heads_view_without_transpose(fixed: bool) -> Outcome:
    """Heads split with view(B, T, h, d_k), no transpose to (B, h, T, d_k)."""
    torch.manual_seed(0)
    theirs = nn.MultiheadAttention(16, 4, batch_first=True).eval()
    ours = multi_head_attention_from_torch(theirs)
    x = torch.randn(2, 6, 16)
    B, T, d_model, h = 2, 6, 16, 4
    Q, K, V = (
        W(x).view(B, T, h, d_model // h) for W in (ours.W_Q, ours.W_K, ours.W_V)
    )
    if fixed:
        Q, K, V = (z.transpose(1, 2) for z in (Q, K, V))  # (B, h, T, d_k)
    # broken: scores (B, T, h, h), each token attends over its own heads
    heads, weights = scaled_dot_product_attention(Q, K, V)
    # the usual combine
    output = ours.W_O(heads.transpose(1, 2).reshape(B, T, d_model))
    difference = (output - theirs(x, x, x)[0]).abs().max().item()
    return Outcome(
        f"no error; weights of shape {tuple(weights.shape)}; output differs "
        f"from nn.MultiheadAttention by {difference:.2f}",
        bad=difference > 1e-4,
    )


# --8<-- [end:view_without_transpose]


# --8<-- [start:mask_shape]
def mask_does_not_broadcast(fixed: bool) -> Outcome:
    """A (B, T) padding mask applied to (B, h, T, T) scores."""
    scores = torch.randn(2, 4, 5, 5)  # (B, h, T, T)
    # (B, T)
    keep = torch.tensor([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1]], dtype=torch.bool)
    mask = keep[:, None, None, :] if fixed else keep  # the fix: (B, 1, 1, T)
    return _error(lambda: scores.masked_fill(~mask, float("-inf")))


def mask_unsqueezed_always(fixed: bool) -> Outcome:
    """`mask.unsqueeze(1)` on a (T, T) causal mask, with h = T heads."""
    torch.manual_seed(0)
    x = torch.randn(1, 4, 4, 8)  # (B, h, T, d_k): h = T = 4
    causal = causal_mask(4)  # (T, T): broadcasts to (B, h, T, T) as it is
    mask = causal if fixed else causal.unsqueeze(1)  # the bug: (T, 1, T)
    _, weights = scaled_dot_product_attention(x, x, x, mask=mask)
    ahead = weights[0, 1, 0, 1].item()  # head 1, query 0, on key 1
    return Outcome(
        f"no error; query 0 of head 1 puts {ahead:.2f} on key 1, after it",
        bad=ahead > 0,
    )


def torch_layer_mask_keyword(fixed: bool) -> Outcome:
    """A mask passed to nn.TransformerEncoderLayer as `attention_mask=`."""
    torch.manual_seed(0)
    layer = nn.TransformerEncoderLayer(16, 4, 32, batch_first=True).eval()
    x = torch.randn(2, 5, 16)  # (B, T, d_model)
    blocked = ~causal_mask(5)  # PyTorch's convention: True = blocked
    if fixed:
        return _error(lambda: layer(x, src_mask=blocked))
    return _error(lambda: layer(x, attention_mask=blocked))


def mask_convention_flipped(fixed: bool) -> Outcome:
    """A True = blocked mask (PyTorch's) given to True = may attend code."""
    torch.manual_seed(0)
    x = torch.randn(1, 1, 5, 8)  # (B, h, T, d_k)
    keep = padding_mask(torch.tensor([3]), max_len=5)  # True = may attend
    mask = keep if fixed else ~keep  # the bug: the other library's convention
    _, weights = scaled_dot_product_attention(x, x, x, mask=mask)
    on_real = weights[0, 0, :, :3].sum(dim=-1).min().item()
    return Outcome(
        f"smallest share of a query's weight on the real tokens: {on_real:.2f}",
        bad=on_real < 0.99,
    )


def softmax_over_wrong_axis(fixed: bool) -> Outcome:
    """softmax(dim=-2) normalizes over queries, not keys."""
    torch.manual_seed(0)
    scores = torch.randn(1, 5, 5)
    weights = torch.softmax(scores, dim=-1 if fixed else -2)
    row_sums = weights.sum(dim=-1)
    spread = (row_sums - 1).abs().max().item()
    return Outcome(
        "rows of the weights sum to "
        f"{row_sums.min():.2f}..{row_sums.max():.2f}",
        bad=spread > 1e-5,
    )


# --8<-- [end:mask_shape]


# --8<-- [start:nan]
def fully_masked_row(fixed: bool) -> Outcome:
    """masked_fill(-inf) on a query whose keys are all padding."""
    torch.manual_seed(0)
    x = torch.randn(2, 1, 4, 8)  # (B, h, T, d_k); sequence 1 is all padding
    keep = padding_mask(torch.tensor([4, 0]), max_len=4)
    if fixed:
        # defines such rows as zeros
        output, _ = scaled_dot_product_attention(x, x, x, mask=keep)
    else:
        scores = (x @ x.transpose(-2, -1) / math.sqrt(8)).masked_fill(
            ~keep, float("-inf")
        )
        output = torch.softmax(scores, dim=-1) @ x
    loss = output.pow(2).mean()
    return Outcome(f"loss = {loss.item():.4f}", bad=bool(torch.isnan(loss)))


def unscaled_scores_in_float16(fixed: bool) -> Outcome:
    """float16 activations: q.k overflows 65,504 before the softmax."""
    torch.manual_seed(0)
    q = (torch.randn(1, 8, 64) * 64).half()
    k = (torch.randn(1, 8, 64) * 64).half()
    # The fix scales q by 1/sqrt(d_k) *before* the product, so the scores never
    # overflow.
    scores = (
        (q / math.sqrt(64)) @ k.transpose(-2, -1)
        if fixed
        else (q @ k.transpose(-2, -1)) / math.sqrt(64)
    )
    weights = torch.softmax(scores.float(), dim=-1)
    overflowed = int(torch.isinf(scores).sum())
    negative = int((scores == float("-inf")).sum())
    nan_rows = int(torch.isnan(weights).any(dim=-1).sum())
    return Outcome(
        f"{overflowed} of {scores.numel()} scores are inf ({negative} of them "
        f"-inf); {nan_rows} of {scores.size(-2)} weight rows are NaN",
        bad=overflowed > 0,
    )


def naive_softmax(fixed: bool) -> Outcome:
    """exp(s) / sum(exp(s)) written by hand, on scores of a few hundred."""
    scores = torch.tensor([[120.0, 95.0, 100.0]])
    if fixed:
        # subtracts the row maximum first
        weights = torch.softmax(scores, dim=-1)
    else:
        weights = torch.exp(scores) / torch.exp(scores).sum(
            dim=-1, keepdim=True
        )
    return Outcome(
        f"weights {[round(w, 3) for w in weights[0].tolist()]}",
        bad=bool(torch.isnan(weights).any()),
    )


# --8<-- [end:nan]


# --8<-- [start:training]
def loss_does_not_fall(fixed: bool) -> Outcome:
    """Adam with a learning rate of 0.1 on the sum task."""
    result = train_sum_model(steps=200, seed=0, lr=1e-3 if fixed else 1e-1)
    return Outcome(
        f"held-out MSE after 200 steps: {result.eval_loss:.3f}",
        bad=result.eval_loss > 0.5,
    )


def deep_post_norm(fixed: bool) -> Outcome:
    """Six post-norm layers at lr 1e-2, without warm-up; the fix is pre-norm."""
    torch.manual_seed(0)
    model = DigitModel(num_layers=6, norm_first=fixed)
    result = train_sum_model(steps=60, seed=0, lr=1e-2, model=model)
    return Outcome(
        f"held-out MSE after 60 steps: {result.eval_loss:.3f}",
        bad=result.eval_loss > 0.1,
    )


def dropout_on_the_residual_stream(fixed: bool) -> Outcome:
    """Dropout on x, the residual stream, instead of the sub-layer's output."""
    torch.manual_seed(0)
    dropout = nn.Dropout(0.1).train()
    sublayer = nn.Linear(16, 16)
    nn.init.zeros_(sublayer.weight)
    # a sub-layer that has learned nothing yet: it outputs zeros
    nn.init.zeros_(sublayer.bias)
    x = torch.randn(4, 8, 16)
    output = x + dropout(sublayer(x)) if fixed else dropout(x) + sublayer(x)
    change = (output - x).abs().max().item()
    return Outcome(
        f"a sub-layer that outputs zeros still moves x by up to {change:.2f}",
        bad=change > 0,
    )


def dropout_at_inference(fixed: bool) -> Outcome:
    """Predicting with the model still in train() mode."""
    torch.manual_seed(0)
    model = DigitModel(dropout=0.1)
    numbers = torch.tensor([[3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0]])
    model.eval() if fixed else model.train()
    with torch.no_grad():
        predictions = torch.stack([model(numbers)[0] for _ in range(5)])
    spread = (predictions.max() - predictions.min()).item()
    return Outcome(
        f"five calls on one input spread over {spread:.4f}", bad=spread > 0
    )


def batch_first_forgotten(fixed: bool) -> Outcome:
    """batch_first=False: nn.MultiheadAttention reads (B, T, d) as (T, B, d)."""
    torch.manual_seed(0)
    reference = nn.MultiheadAttention(16, 4, batch_first=True).eval()
    ours = multi_head_attention_from_torch(reference)
    theirs = nn.MultiheadAttention(16, 4, batch_first=fixed).eval()
    theirs.load_state_dict(reference.state_dict())
    x = torch.randn(3, 5, 16)  # (B, T, d_model)
    difference = (ours(x)[0] - theirs(x, x, x)[0]).abs().max().item()
    return Outcome(
        f"no error; outputs differ by {difference:.2f}", bad=difference > 1e-4
    )


# --8<-- [end:training]


# --8<-- [start:mask_bugs]
def causal_mask_off_by_one(fixed: bool) -> Outcome:
    """tril(diagonal=1) as the allowed mask: token t also sees token t + 1."""
    torch.manual_seed(0)
    x = torch.randn(1, 6, 8)
    allowed = (
        causal_mask(6)
        if fixed
        else torch.ones(6, 6, dtype=torch.bool).tril(diagonal=1)
    )
    changed = x.clone()
    changed[0, 3] += 1.0  # change token 3 only
    before, _ = scaled_dot_product_attention(x, x, x, mask=allowed)
    after, _ = scaled_dot_product_attention(
        changed, changed, changed, mask=allowed
    )
    # token 2 must not see token 3
    leak = (after[0, 2] - before[0, 2]).abs().max().item()
    return Outcome(
        f"output at t = 2 moves by {leak:.3f} when token 3 changes",
        bad=leak > 0,
    )


def large_negative_bias_leaks(fixed: bool) -> Outcome:
    """A -1e4 bias, left padding: a query allowed only padding sees all keys."""
    torch.manual_seed(0)
    x = torch.randn(1, 5, 8)  # tokens 0 and 1 are left padding
    # (5, 5)
    allowed = (
        causal_mask(5)
        & padding_mask(torch.tensor([3]), max_len=5).flip(-1)[0, 0]
    )
    if fixed:
        _, weights = scaled_dot_product_attention(x, x, x, mask=allowed)
    else:
        bias = torch.zeros(5, 5).masked_fill(~allowed, -1e4)
        weights = torch.softmax(
            x @ x.transpose(-2, -1) / math.sqrt(8) + bias, dim=-1
        )
    future = weights[0, 0, 1:].sum().item()  # query 0 looking at keys after it
    return Outcome(
        f"query 0 puts {future:.2f} of its weight on later tokens",
        bad=future > 1e-6,
    )


def padding_left_unmasked(fixed: bool) -> Outcome:
    """No padding mask: real tokens' outputs depend on the padding's content."""
    torch.manual_seed(0)
    x = torch.randn(1, 5, 8)  # 3 real tokens, 2 padding slots
    other = x.clone()
    other[0, 3:] = torch.randn(2, 8)  # different padding content
    # (1, 1, 5)
    mask = padding_mask(torch.tensor([3]), max_len=5)[0] if fixed else None
    out_a, _ = scaled_dot_product_attention(x, x, x, mask=mask)
    out_b, _ = scaled_dot_product_attention(other, other, other, mask=mask)
    change = (out_a[0, :3] - out_b[0, :3]).abs().max().item()
    return Outcome(
        f"real tokens' outputs move by {change:.3f} with the padding",
        bad=change > 1e-6,
    )


# --8<-- [end:mask_bugs]


# --8<-- [start:classifier_padding]
def padding_in_the_mean(fixed: bool) -> Outcome:
    """An EncoderClassifier without pad_id: padding attended to and averaged."""
    torch.manual_seed(0)
    # the bug: None, padding is just another token
    pad_id = PAD if fixed else None
    sizes = {
        "d_model": 32,
        "num_heads": 4,
        "d_ff": 64,
        "num_layers": 1,
        "dropout": 0.0,
    }
    classifier = EncoderClassifier(
        Encoder(VOCAB_SIZE, **sizes, pad_id=pad_id), 2
    ).eval()
    # (B, T)
    tokens = padded_batch(64, generator=torch.Generator().manual_seed(0))
    with torch.no_grad():
        logits, more = classifier(tokens), classifier(add_padding(tokens, 8))
    change = (more - logits).abs().max().item()
    return Outcome(
        "no error; logits move by up to "
        f"{change:.3f} with 8 more padding tokens",
        bad=change > 1e-5,
    )


# --8<-- [end:classifier_padding]


# --8<-- [start:decoder_bugs]
def _reversal_outcome(result: Seq2SeqResult) -> Outcome:
    final_loss = sum(result.losses[-20:]) / 20
    return Outcome(
        f"training loss {final_loss:.3f}; greedy decoding reverses "
        f"{result.accuracy:.0%} of held-out sequences",
        bad=result.accuracy < 0.5,
    )


def target_not_shifted(fixed: bool) -> Outcome:
    """Teacher forcing with the target itself as input, not shifted right."""
    return _reversal_outcome(
        trained_reversal() if fixed else trained_reversal(shift=False)
    )


def decoder_without_causal_mask(fixed: bool) -> Outcome:
    """The decoder's self-attention without its causal mask."""
    return _reversal_outcome(
        trained_reversal() if fixed else trained_reversal(causal=False)
    )


def cross_attention_without_padding_mask(fixed: bool) -> Outcome:
    """The source padding mask given to the encoder, not to cross-attention."""
    torch.manual_seed(0)
    model = Transformer(16, 4, 1, 1, 32, dropout=0.0).eval()
    source, target = torch.randn(1, 6, 16), torch.randn(1, 3, 16)
    other = source.clone()
    # 4 real tokens; different padding content
    other[0, 4:] = torch.randn(2, 16)
    keys = padding_mask(torch.tensor([4]), max_len=6)
    outputs = []
    for src in (source, other):
        memory = model.encode(src, source_mask=keys)
        outputs.append(
            model.decode(target, memory, memory_mask=keys if fixed else None)[0]
        )
    change = (outputs[0] - outputs[1]).abs().max().item()
    return Outcome(
        f"the decoder's output moves by {change:.3f} with the source padding",
        bad=change > 1e-6,
    )


def cache_with_wrong_offset(fixed: bool) -> Outcome:
    """A KV cache giving every new token position 0, not its real position."""
    torch.manual_seed(0)
    model = CharTransformer(
        vocab_size=20, d_model=32, num_layers=2, context=16
    ).eval()
    tokens = torch.randint(0, 20, (1, 10))
    cache = KVCache()
    # the prompt, at positions 0-5
    forward_with_cache(model, tokens[:, :6], cache)
    steps = [
        forward_with_cache(
            model,
            tokens[:, t : t + 1],
            cache,
            position_offset=None if fixed else 0,
        )
        for t in range(6, 10)
    ]
    with torch.no_grad():
        # what the model computes for positions 6-9 without a cache
        full = model(tokens)[0][:, 6:]
    difference = (torch.cat(steps, dim=1) - full).abs().max().item()
    return Outcome(
        f"cached logits differ from a full forward by up to {difference:.3f}",
        bad=difference > 1e-4,
    )


# --8<-- [end:decoder_bugs]


# --8<-- [start:rope_bugs]
def rope_pairing_mixed(fixed: bool) -> Outcome:
    """Weights trained with interleaved RoPE pairs, loaded for `rotate_half`."""
    torch.manual_seed(0)
    source = GroupedQueryAttention(32, 4, 2, rope_pairing="interleaved").eval()
    weights = source.state_dict()
    if fixed:  # reorder each head's query and key features:
        # pairs (2i, 2i+1) -> (i, i + d/2)
        for name in ("W_Q.weight", "W_K.weight"):
            weights[name] = interleaved_to_half(weights[name], head_dim=8)
    target = GroupedQueryAttention(32, 4, 2, rope_pairing="half").eval()
    target.load_state_dict(weights)  # loads either way: the shapes are the same
    x = torch.randn(2, 10, 32)
    with torch.no_grad():
        difference = (target(x) - source(x)).abs().max().item()
    return Outcome(
        f"outputs differ from the original model's by up to {difference:.3f}",
        bad=difference > 1e-4,
    )


# --8<-- [end:rope_bugs]


def _pair(
    function: Callable[[bool], Outcome],
) -> dict[str, Callable[[], Outcome]]:
    return {"broken": lambda: function(False), "fixed": lambda: function(True)}


PROBLEMS: list[Problem] = [
    Problem(
        "linear_width",
        "Shape error in a projection",
        "The last axis of the input is not the width the `nn.Linear` was built "
        "for (here 32 against d_model = 64).",
        "Embed or project tokens to d_model first; "
        "print `x.shape` before each projection.",
        **_pair(linear_width_mismatch),
    ),
    Problem(
        "position_table",
        "Shape error when adding positions",
        "The whole position table (max_len "
        "rows) is added to a shorter sequence.",
        "Slice the table to the sequence: `table[:x.size(1)]`.",
        **_pair(position_table_mismatch),
    ),
    Problem(
        "no_transpose",
        "Heads split without the transpose",
        "`view(B, h, T, d_k)` on (B, T, d_model) reinterprets memory: a head "
        "gets pieces of several tokens.",
        "`view(B, T, h, d_k).transpose(1, 2)`, as in `split_heads`.",
        **_pair(heads_without_transpose),
    ),
    Problem(
        "view_no_transpose",
        "Heads viewed as (B, T, h, d_k) and never transposed",
        "Without `.transpose(1, 2)` the heads axis stands where "
        "the tokens should be: the scores are (B, T, h, h), so each "
        "token attends over its own h heads instead of over the "
        "other tokens. Nothing fails: the matrix products and the "
        "combine's reshape fit these shapes too. A tutorial that warns "
        "about this mistake may predict a shape error; none comes.",
        "Transpose to (B, h, T, d_k) before the attention, as `split_heads` "
        "does, and compare the layer with `nn.MultiheadAttention` (chapter 9).",
        **_pair(heads_view_without_transpose),
    ),
    Problem(
        "mask_shape",
        "A mask that does not broadcast to (B, h, T, T)",
        "A (B, T) padding mask is lined up with the last two axes of the "
        "scores, not with the batch.",
        "Give it singleton axes: `mask[:, None, None, :]`, shape (B, 1, 1, T).",
        **_pair(mask_does_not_broadcast),
    ),
    Problem(
        "mask_unsqueezed",
        "`mask.unsqueeze(1)` on every mask",
        "`unsqueeze(1)` suits a (B, T_q, T_k) mask, giving (B, 1, T_q, T_k). "
        "A (T, T) causal mask becomes (T, 1, T): its first axis lines up with "
        "the heads. When T equals the number of heads nothing fails, and head "
        "i reads row i of the mask for every query.",
        "Add the axes a mask lacks for its own shape: a (T, T) mask broadcasts "
        "as it is, a (B, T) padding mask takes `[:, None, None, :]`; only a "
        "(B, T_q, T_k) mask takes `unsqueeze(1)`.",
        **_pair(mask_unsqueezed_always),
    ),
    Problem(
        "torch_mask_keyword",
        "A mask keyword that PyTorch's encoder layer does not know",
        "PyTorch's encoder layer names its mask `src_mask` and its padding "
        "mask `src_key_padding_mask`; `attention_mask` is the name Hugging "
        "Face models use.",
        "Pass `src_mask=`, in PyTorch's convention (True = blocked; "
        "`to_torch_multihead_mask` converts a True = may attend mask).",
        **_pair(torch_layer_mask_keyword),
    ),
    Problem(
        "mask_flipped",
        "Weights land on the padding",
        "A True = blocked mask (nn.MultiheadAttention's "
        "convention) used where True = may attend.",
        "Use one convention everywhere and convert at the boundary "
        "(`to_torch_multihead_mask`).",
        **_pair(mask_convention_flipped),
    ),
    Problem(
        "softmax_axis",
        "Weights that do not sum to 1 per query",
        "Softmax over the query axis (dim=-2) instead of the key axis.",
        "`softmax(scores, dim=-1)`: each query "
        "distributes its attention over the keys.",
        **_pair(softmax_over_wrong_axis),
    ),
    Problem(
        "fully_masked_nan",
        "NaN loss from a fully masked row",
        "Every key of a query is -inf: softmax computes 0 / 0.",
        "Define such rows as zeros, as this site's "
        "`scaled_dot_product_attention` and PyTorch's kernel do.",
        **_pair(fully_masked_row),
    ),
    Problem(
        "fp16_overflow",
        "Scores overflow to inf in float16",
        "q.k of large activations exceeds float16's range (+-65,504) before "
        "the division by sqrt(d_k). A -inf silently zeroes one weight; a +inf "
        "would turn its whole row NaN.",
        "Scale q (or q and k) by 1/sqrt(d_k) before "
        "the product; keep the softmax in float32.",
        **_pair(unscaled_scores_in_float16),
    ),
    Problem(
        "naive_softmax",
        "NaN from huge inputs to a hand-written softmax",
        "exp(120) overflows float32 to inf, and inf / inf is NaN.",
        "Use `torch.softmax`, which subtracts each row's maximum first.",
        **_pair(naive_softmax),
    ),
    Problem(
        "learning_rate",
        "Loss does not fall",
        "The learning rate is far too high for Adam on this model.",
        "Start near 1e-3 (with warm-up for larger "
        "models) and lower it if the loss jumps.",
        **_pair(loss_does_not_fall),
    ),
    Problem(
        "deep_post_norm",
        "A deep post-norm stack does not train",
        "With many post-norm layers and a high learning rate, "
        "training fails early: reproduced here with 6 layers "
        "at 1e-2, where the post-norm stack ends far above the "
        "pre-norm one. Pre-norm keeps an untouched residual path.",
        "Pre-norm (`norm_first=True`, plus a final LayerNorm). In chapter 7's "
        "recorded run of a 12-layer stack, warm-up trained post-norm on one of "
        "two seeds, and there still ended above pre-norm; a lower learning "
        "rate was not measured.",
        **_pair(deep_post_norm),
    ),
    Problem(
        "dropout_on_x",
        "Dropout on the residual stream",
        "`dropout(x) + sublayer(x)` drops features of x itself, in every "
        "layer: the residual path no longer carries x unchanged.",
        "Drop the sub-layer's output, before the add: `x + "
        "dropout(sublayer(x))`.",
        **_pair(dropout_on_the_residual_stream),
    ),
    Problem(
        "dropout_on",
        "Different predictions for the same input",
        "The model is still in train() mode, so dropout is active.",
        "Call `model.eval()` (and use `torch.no_grad()`) before predicting.",
        **_pair(dropout_at_inference),
    ),
    Problem(
        "batch_first",
        "Results differ from nn.MultiheadAttention",
        "`nn.MultiheadAttention` expects (T, B, d) unless `batch_first=True`.",
        "Build it with `batch_first=True`, copy "
        "weights, and compare with a tolerance.",
        **_pair(batch_first_forgotten),
    ),
    Problem(
        "causal_off_by_one",
        "Causal mask off by one diagonal",
        "`tril(diagonal=1)` lets token t see token t + 1.",
        "`torch.ones(T, T, dtype=torch.bool).tril()` "
        "(diagonal 0), as in `causal_mask`.",
        **_pair(causal_mask_off_by_one),
    ),
    Problem(
        "bias_leak",
        "A large negative bias makes fully masked rows attend everywhere",
        "With -1e4 instead of a hard mask, a query whose allowed keys are all "
        "padding has every key biased alike: the bias cancels in the softmax "
        "and the query attends to all keys, the future included. Harmless only "
        "if the outputs of padded positions are always ignored.",
        "Boolean masks and a defined result for fully masked rows.",
        **_pair(large_negative_bias_leaks),
    ),
    Problem(
        "padding_unmasked",
        "Padded positions left unmasked",
        "Without a padding mask the real tokens attend to the padding.",
        "Pass a padding mask (B, 1, 1, T) to every attention layer.",
        **_pair(padding_left_unmasked),
    ),
    Problem(
        "classifier_padding",
        "A classifier's answers change with the amount of padding",
        "The encoder was built without `pad_id`: every layer "
        "attends to the padding, and the classifier's mean "
        "over positions counts it too. Nothing raises an error; "
        "only inputs with more padding than usual show it.",
        "Give the encoder the padding id (`Encoder(..., pad_id=PAD)`): padding "
        "is then masked as keys and left out of the mean. Test with extra "
        "padding appended: the logits must not move.",
        **_pair(padding_in_the_mean),
    ),
    Problem(
        "target_not_shifted",
        "Perfect training loss, useless generation (target not shifted)",
        "The decoder reads the target itself, so position t "
        "sees the token it must predict and learns to copy "
        "it. At generation time there is nothing to copy.",
        "Feed the start token plus the target without its last token: "
        "`shift_right(target)`.",
        **_pair(target_not_shifted),
    ),
    Problem(
        "decoder_not_causal",
        "Perfect training loss, useless generation (no causal mask)",
        "Without the causal mask, position t attends to position t + 1 of the "
        "shifted target, which is the answer: the future leaks in training and "
        "is missing in generation.",
        "Pass `causal_mask(T)` to the decoder's self-attention.",
        **_pair(decoder_without_causal_mask),
    ),
    Problem(
        "memory_padding_unmasked",
        "The decoder reads the source padding",
        "The source padding mask reached the encoder but "
        "not cross-attention, whose keys are the encoder's "
        "outputs at every source position, padding included.",
        "Pass the source padding mask (B, 1, 1, S) "
        "to cross-attention as well (`memory_mask`).",
        **_pair(cross_attention_without_padding_mask),
    ),
    Problem(
        "cache_offset",
        "Generation with a KV cache drifts from generation without one",
        "Each new token was given position 0 (or any position but its own): "
        "its position vector is wrong, while the cached keys keep theirs.",
        "Add the position vector of `cache.length`, "
        "the number of positions already cached.",
        **_pair(cache_with_wrong_offset),
    ),
    Problem(
        "rope_pairing",
        "A model ported between RoPE implementations "
        "loads, runs and predicts worse",
        "RoPE turns pairs of features, and implementations pair them "
        "differently: neighbours (2i, 2i+1) in the RoFormer paper and Meta's "
        "original Llama code, i and i + d_k/2 (`rotate_half`) in Hugging "
        "Face `transformers`. Weights copied as they are from one to the other "
        "rotate the wrong features together.",
        "Reorder the rows of W_Q and W_K within each head "
        "(`interleaved_to_half`, or its inverse `half_to_interleaved`); W_V "
        "and W_O stay as they are.",
        **_pair(rope_pairing_mixed),
    ),
]
"""Every reproduced problem, in the order of the page's table."""


# --8<-- [start:table]
@dataclass
class Row:
    """One problem, run: what its broken variant showed, what the fix gives,
    and whether the symptom was there before the fix and gone after it."""

    name: str
    title: str
    symptom: str
    after: str
    broken_shows_it: bool
    fix_removes_it: bool


def measure(problems: list[Problem] = PROBLEMS) -> list[Row]:
    """Run the broken and the fixed variant of each problem, one `Row` each."""
    rows = []
    for problem in problems:
        broken, fixed = problem.broken(), problem.fixed()
        rows.append(
            Row(problem.name, problem.title, broken.symptom, fixed.symptom,
                broken_shows_it=broken.bad, fix_removes_it=not fixed.bad)
        )  # fmt: skip
    return rows


def markdown_table(rows: list[Row]) -> str:
    """The troubleshooting table, with each symptom as this PyTorch shows it.

    Args:
        rows: Problems already run, from `measure`.

    Returns:
        A Markdown table: problem, symptom of the broken variant, cause, fix and
        what the fix gives.
    """
    problems = {problem.name: problem for problem in PROBLEMS}
    lines = [
        f"Measured with torch {torch.__version__}.",
        "",
        "| Problem | What you see | Cause | Fix | After the fix |",
        "|---|---|---|---|---|",
    ]
    for row in rows:
        problem, symptom = problems[row.name], row.symptom.replace("|", "\\|")
        lines.append(
            f"| {row.title} | `{symptom}` | {problem.cause} "
            f"| {problem.fix} | {row.after} |"
        )
    return "\n".join(lines)


# --8<-- [end:table]
