"""A Llama-style decoder: the 2017 decoder-only Transformer with today's blocks.

Against chapter 11's `CharTransformer`: RMSNorm instead of LayerNorm, rotary
positions inside the attention instead of a table added to the embeddings,
grouped-query attention, a SwiGLU feed-forward network and no biases. The
layers are pre-norm, as in chapter 11.

Shape letters: B = batch size, T = sequence length, V = vocabulary size,
d_model = width of a token vector.
"""

# --8<-- [start:imports]
import math
import time

import torch
from torch import nn

from tutorial_code.grouped_query import (
    GroupedQueryAttention,
    KVCache,
    layer_caches,
)
from tutorial_code.language_model import (
    CharTransformer,
    CharVocabulary,
    python_reference_text,
    random_windows,
    split,
)
from tutorial_code.modes import in_eval_mode
from tutorial_code.rms_norm import RMSNorm
from tutorial_code.swiglu import SwiGLU
from tutorial_code.validation import (
    check_count,
    check_counts,
    check_flags,
    check_generating_model,
    check_probabilities,
    check_token_ids,
)

# --8<-- [end:imports]
# isort: split
# not shown: only the build acts on the mark
from tutorial_code.shared_runs import recorded


# --8<-- [start:llama_block]
class LlamaBlock(nn.Module):
    """A pre-norm layer: attention with RoPE, then SwiGLU, each after RMSNorm.

    `x + attention(attention_norm(x))`, then
    `x + feed_forward(feed_forward_norm(x))`.

    Args:
        num_kv_heads: Key/value heads; must divide `num_heads`.
        d_ff: Hidden width of the SwiGLU network.
        head_dim: Width of one head; None for `d_model // num_heads`.

    Examples:
        >>> block = LlamaBlock(d_model=32, num_heads=4, num_kv_heads=2, d_ff=64)
        >>> block(torch.randn(2, 5, 32)).shape
        torch.Size([2, 5, 32])
    """

    def __init__(
        self,
        d_model: int,
        num_heads: int,
        num_kv_heads: int,
        d_ff: int,
        head_dim: int | None = None,
        rope_base: float = 10000.0,
        eps: float = 1e-6,
        attention_dropout: float = 0.0,
    ) -> None:
        super().__init__()
        check_counts(
            d_model=d_model,
            num_heads=num_heads,
            num_kv_heads=num_kv_heads,
            d_ff=d_ff,
        )
        check_probabilities(attention_dropout=attention_dropout)
        self.attention_norm = RMSNorm(d_model, eps)
        self.attention = GroupedQueryAttention(
            d_model,
            num_heads,
            num_kv_heads,
            head_dim,
            rope_base,
            dropout=attention_dropout,
        )
        self.feed_forward_norm = RMSNorm(d_model, eps)
        self.feed_forward = SwiGLU(d_model, d_ff)

    def forward(
        self,
        x: torch.Tensor,
        padding_mask: torch.Tensor | None = None,
        cache: KVCache | None = None,
    ) -> torch.Tensor:
        """Update x, (B, n, d_model); padding_mask: (B, t + n), True = real."""
        x = x + self.attention(self.attention_norm(x), padding_mask, cache)
        return x + self.feed_forward(self.feed_forward_norm(x))


# --8<-- [end:llama_block]


# --8<-- [start:llama_model]
class LlamaModel(nn.Module):
    """Token ids to next-token logits through a stack of `LlamaBlock`s.

    No position table: positions enter through the rotations in each attention,
    so the model accepts sequences of any length.

    Args:
        num_kv_heads: Key/value heads per block; must divide `num_heads`.
        d_ff: Hidden width of each SwiGLU network.
        head_dim: Width of one head; None for `d_model // num_heads`.
        tie_embeddings: Use the embedding table as the output layer's weight
            (Llama 2 does not).

    Examples:
        >>> model = LlamaModel(50, 32, num_layers=2, num_heads=4,
        ...                    num_kv_heads=2, d_ff=64)
        >>> model(torch.zeros(2, 5, dtype=torch.long)).shape
        torch.Size([2, 5, 50])
    """

    def __init__(
        self,
        vocab_size: int,
        d_model: int,
        num_layers: int,
        num_heads: int,
        num_kv_heads: int,
        d_ff: int,
        head_dim: int | None = None,
        rope_base: float = 10000.0,
        eps: float = 1e-6,
        tie_embeddings: bool = False,
        attention_dropout: float = 0.0,
    ) -> None:
        super().__init__()
        check_counts(
            vocab_size=vocab_size,
            d_model=d_model,
            num_layers=num_layers,
            num_heads=num_heads,
            num_kv_heads=num_kv_heads,
            d_ff=d_ff,
        )
        check_flags(tie_embeddings=tie_embeddings)
        check_probabilities(attention_dropout=attention_dropout)
        self.embedding = nn.Embedding(vocab_size, d_model)
        block = (
            d_model,
            num_heads,
            num_kv_heads,
            d_ff,
            head_dim,
            rope_base,
            eps,
        )
        layers = [
            LlamaBlock(*block, attention_dropout) for _ in range(num_layers)
        ]
        self.layers = nn.ModuleList(layers)
        self.final_norm = RMSNorm(d_model, eps)
        self.output = nn.Linear(d_model, vocab_size, bias=False)
        if tie_embeddings:
            # one (V, d_model) matrix
            self.output.weight = self.embedding.weight

    def forward(
        self,
        tokens: torch.Tensor,
        padding_mask: torch.Tensor | None = None,
        cache: list[KVCache] | None = None,
    ) -> torch.Tensor:
        """Logits (B, n, V) for ids (B, n) after the t positions in `cache`.

        Args:
            padding_mask: (B, t + n), True = a real token; pad on the right.
        """
        check_token_ids(tokens, self.embedding.num_embeddings)
        caches = layer_caches(cache, len(self.layers))  # one per layer or Nones
        x = self.embedding(tokens)  # (B, n, d_model): no positions added
        for layer, layer_cache in zip(self.layers, caches, strict=True):
            x = layer(x, padding_mask, layer_cache)
        return self.output(self.final_norm(x))  # (B, n, V)

    def new_cache(self) -> list[KVCache]:
        """An empty `KVCache` for every layer."""
        return [KVCache() for _ in self.layers]


# --8<-- [end:llama_model]


# --8<-- [start:greedy_generate]
@in_eval_mode  # dropout off; the caller's mode restored
@torch.no_grad()
def greedy_generate(
    model: nn.Module,
    tokens: torch.Tensor,
    new_tokens: int,
    use_cache: bool = True,
) -> torch.Tensor:
    """Extend each sequence by `new_tokens` ids, each time the most likely one.

    For a model that maps (B, T) ids to (B, T, V) logits and has `new_cache()`
    (`LlamaModel`, `GPT2Model`). With `use_cache`, the prompt goes through the
    model once, then only the newest id, against the cached keys and values;
    without, each step runs the whole sequence again. Both give the same ids.

    Args:
        model: In eval mode.
        tokens: The prompts, (B, T) ids of equal length (no padding).

    Returns:
        The prompts followed by the new ids, (B, T + new_tokens).

    Raises:
        TypeError: If `model` has no `new_cache()`.
        ValueError: If `new_tokens` is negative.

    Examples:
        >>> model = LlamaModel(50, 32, num_layers=1, num_heads=4,
        ...                    num_kv_heads=1, d_ff=64)
        >>> prompt = torch.zeros(1, 3, dtype=torch.long)
        >>> greedy_generate(model.eval(), prompt, new_tokens=4).shape
        torch.Size([1, 7])
    """
    check_count(new_tokens, "new_tokens", minimum=0)
    check_generating_model(model)  # a model with new_cache()
    cache = model.new_cache() if use_cache else None
    ids, step_input = tokens, tokens
    for _ in range(new_tokens):
        logits = model(step_input, cache=cache) if use_cache else model(ids)
        next_id = logits[:, -1].argmax(dim=-1, keepdim=True)  # (B, 1)
        ids = torch.cat([ids, next_id], dim=1)
        step_input = next_id  # with a cache, only the new id goes in
    return ids


# --8<-- [end:greedy_generate]


# --8<-- [start:train_next_character]
@in_eval_mode  # dropout off; the caller's mode restored
@torch.no_grad()
def held_out_bpc(
    model: nn.Module, ids: torch.Tensor, context: int = 64
) -> float:
    """Bits per character of `model` on ids (N,), in windows of `context`.

    Chapter 11's `bits_per_character`, for any model that maps ids (B, T) to
    logits (B, T, V), or to a tuple that starts with them. It switches `model`
    to eval mode and needs at least `context + 1` ids.

    Examples:
        >>> model = LlamaModel(10, 8, num_layers=1, num_heads=2, num_kv_heads=1,
        ...                    d_ff=16)
        >>> 2.0 < held_out_bpc(model, torch.arange(100) % 10, context=8) < 5.0
        True
    """
    check_count(context, "context")
    check_count(len(ids), "len(ids)", minimum=context + 1)
    usable = (len(ids) - 1) // context * context
    inputs = ids[:usable].view(-1, context)  # (windows, context)
    targets = ids[1 : usable + 1].view(-1, context)  # the next characters
    output = model(inputs)
    # logits: (windows, context, V)
    logits = output[0] if isinstance(output, tuple) else output
    loss = nn.functional.cross_entropy(logits.flatten(0, 1), targets.flatten())
    return loss.item() / math.log(2)  # nats to bits


def train_next_character(
    model: nn.Module,
    train_ids: torch.Tensor,
    steps: int,
    seed: int,
    batch_size: int = 32,
    lr: float = 1e-2,
    context: int = 64,
) -> float:
    """Train `model` in place to predict the next character, as in chapter 11.

    AdamW (weight decay 0.01), 50 warm-up steps to `lr`, cosine decay to 0,
    gradients clipped to norm 1, random windows of `context` characters drawn
    from `train_ids` (N,) with `seed`: the same seed draws the same windows for
    every model. For any model mapping ids (B, T) to logits (B, T, V) or to a
    tuple starting with them.

    Returns:
        The training time in seconds.

    Raises:
        ValueError: If `steps` is not positive.
    """
    check_count(steps, "steps")
    data = torch.Generator().manual_seed(seed)
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.01)
    warmup = min(50, steps)

    def factor(step: int) -> float:  # linear warm-up, then cosine decay to 0
        if step < warmup:
            return (step + 1) / warmup
        progress = min(1.0, (step - warmup) / max(1, steps - warmup))
        return 0.5 * (1 + math.cos(math.pi * progress))  # 0 after the end

    schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, factor)
    model.train()
    start = time.perf_counter()
    for _ in range(steps):
        inputs, targets = random_windows(train_ids, batch_size, context, data)
        output = model(inputs)
        logits = output[0] if isinstance(output, tuple) else output  # (B, T, V)
        loss = nn.functional.cross_entropy(
            logits.flatten(0, 1), targets.flatten()
        )
        optimizer.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        schedule.step()
    return time.perf_counter() - start


# --8<-- [end:train_next_character]


# not shown: the build reads these runs from benchmarks/recorded-runs.json
@recorded
# --8<-- [start:compare_with_chapter_11]
def compare_with_chapter_11(
    steps: int, seeds: list[int], d_ff: int, num_kv_heads: int = 4
) -> dict[str, list[float]]:
    """Chapter 11's model against a Llama-style one of its size, once per seed.

    Both read the Python reference (chapter 11's text and split), have 2 layers
    of width 64 with 4 query heads, and train with `train_next_character`.
    `CharTransformer` runs the hand-written attention (`fused_attention=False`),
    as the Llama-style model does, so the times compare the blocks, not the
    attention kernel. Torch's global random state is left as it was.

    Args:
        seeds: One run of each model per seed (its weights and its windows).
        d_ff: Hidden width of the Llama-style model's SwiGLU networks.
        num_kv_heads: Key/value heads of the Llama-style model.

    Returns:
        A dict of `chapter_11_bpc`, `chapter_11_seconds`, `llama_bpc` and
        `llama_seconds`, each a list with one value per seed: held-out bits per
        character and training time in seconds. Empty without seeds.
    """
    text = python_reference_text()
    vocabulary = CharVocabulary.of(text)
    train_ids, held_out_ids = split(vocabulary.encode(text))
    V = len(vocabulary.chars)
    # "chapter_11_bpc": one value per seed, ...
    runs: dict[str, list[float]] = {}
    with torch.random.fork_rng():
        for seed in seeds:
            torch.manual_seed(seed)  # the initial weights
            models = {
                "chapter_11": CharTransformer(V, fused_attention=False),
                "llama": LlamaModel(V, 64, 2, 4, num_kv_heads, d_ff),
            }
            for name, model in models.items():
                seconds = train_next_character(model, train_ids, steps, seed)
                bpc = held_out_bpc(model, held_out_ids)
                runs.setdefault(f"{name}_bpc", []).append(bpc)
                runs.setdefault(f"{name}_seconds", []).append(seconds)
    return runs


# --8<-- [end:compare_with_chapter_11]
