"""A Llama-style decoder: the 2017 decoder-only Transformer with today's blocks.

Against chapter 11's [`CharTransformer`][tutorial_code.language_model.CharTransformer]:
RMSNorm instead of LayerNorm, rotary positions inside the attention instead of a table
added to the embeddings, grouped-query attention, a SwiGLU feed-forward network and no
biases. The layers are pre-norm, as in chapter 11: `x + attention(norm(x))`, then
`x + feed_forward(norm(x))`.

Shape letters: B = batch size, T = sequence length, V = vocabulary size,
d_model = width of a token vector.
"""

# --8<-- [start:imports]
import torch
from torch import nn

from tutorial_code.grouped_query import GroupedQueryAttention, KVCache, layer_caches
from tutorial_code.rms_norm import RMSNorm
from tutorial_code.swiglu import SwiGLU
from tutorial_code.validation import check_count, check_token_ids

# --8<-- [end:imports]


# --8<-- [start:llama_block]
class LlamaBlock(nn.Module):
    """One pre-norm layer: attention with RoPE, then SwiGLU, each after an RMSNorm.

    `x + attention(attention_norm(x))`, then `x + feed_forward(feed_forward_norm(x))`,
    with grouped-query attention and a SwiGLU network.

    Args:
        d_model: Width of the token vectors.
        num_heads: Query heads.
        num_kv_heads: Key/value heads; must divide `num_heads`.
        d_ff: Hidden width of the SwiGLU network.
        head_dim: Width of one head. Defaults to `d_model // num_heads`.
        rope_base: Base of the rotary frequencies. Defaults to 10000.0.
        eps: The RMSNorms' eps. Defaults to 1e-6.
        attention_dropout: Dropout on the attention weights. Defaults to 0.0.

    Shape:
        - x: (B, n, d_model)
        - padding_mask: (B, t + n) boolean, `True` = a real token
        - output: (B, n, d_model)

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
        """Return the updated token vectors, same shape as `x`."""
        x = x + self.attention(self.attention_norm(x), padding_mask, cache)
        return x + self.feed_forward(self.feed_forward_norm(x))


# --8<-- [end:llama_block]


# --8<-- [start:llama_model]
class LlamaModel(nn.Module):
    """Token ids to next-token logits through a stack of Llama blocks.

    Each layer is a [`LlamaBlock`][tutorial_code.llama.LlamaBlock]; a final RMSNorm and
    an output layer follow.

    No position table: positions enter through the rotations in each attention, so the
    model accepts sequences of any length.

    Args:
        vocab_size: Number of tokens V.
        d_model: Width of the token vectors.
        num_layers: Number of blocks.
        num_heads: Query heads per block.
        num_kv_heads: Key/value heads per block; must divide `num_heads`.
        d_ff: Hidden width of each SwiGLU network.
        head_dim: Width of one head. Defaults to `d_model // num_heads`.
        rope_base: Base of the rotary frequencies. Defaults to 10000.0.
        eps: The RMSNorms' eps. Defaults to 1e-6.
        tie_embeddings: Use the embedding table as the output layer's weight (one matrix
            for both). Defaults to False, as in Llama 2.
        attention_dropout: Dropout on the attention weights. Defaults to 0.0.

    Shape:
        - tokens: (B, n) token ids, the n positions after the t in `cache` (t = 0
          without)
        - padding_mask: (B, t + n) boolean, `True` = a real token; pad on the right
        - output: logits (B, n, V)

    Examples:
        >>> model = LlamaModel(50, 32, num_layers=2, num_heads=4, num_kv_heads=2,
        ...                    d_ff=64)
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
        self.embedding = nn.Embedding(vocab_size, d_model)
        block = (d_model, num_heads, num_kv_heads, d_ff, head_dim, rope_base, eps)
        layers = [LlamaBlock(*block, attention_dropout) for _ in range(num_layers)]
        self.layers = nn.ModuleList(layers)
        self.final_norm = RMSNorm(d_model, eps)
        self.output = nn.Linear(d_model, vocab_size, bias=False)
        if tie_embeddings:
            self.output.weight = self.embedding.weight  # one (V, d_model) matrix

    def forward(
        self,
        tokens: torch.Tensor,
        padding_mask: torch.Tensor | None = None,
        cache: list[KVCache] | None = None,
    ) -> torch.Tensor:
        """Return the logits (B, n, V); with `cache`, after the cached positions."""
        check_token_ids(tokens, self.embedding.num_embeddings)
        caches = layer_caches(cache, len(self.layers))  # one per layer, or Nones
        x = self.embedding(tokens)  # (B, n, d_model): no positions added
        for layer, layer_cache in zip(self.layers, caches, strict=True):
            x = layer(x, padding_mask, layer_cache)
        return self.output(self.final_norm(x))  # (B, n, V)

    def new_cache(self) -> list[KVCache]:
        """An empty [`KVCache`][tutorial_code.grouped_query.KVCache] for every layer."""
        return [KVCache() for _ in self.layers]


# --8<-- [end:llama_model]


# --8<-- [start:greedy_generate]
@torch.no_grad()
def greedy_generate(
    model: nn.Module,
    tokens: torch.Tensor,
    new_tokens: int,
    use_cache: bool = True,
) -> torch.Tensor:
    """Extend each sequence by `new_tokens` ids, each time the most likely one.

    Works with any model of this chapter that maps (B, T) ids to (B, T, V) logits and
    has `new_cache()` ([`LlamaModel`][tutorial_code.llama.LlamaModel],
    [`GPT2Model`][tutorial_code.gpt2.GPT2Model]). With `use_cache`, the prompt goes
    through the model once and then only the newest id, against the cached keys and
    values; without, every step runs the whole sequence again. Both give the same ids.

    Args:
        model: The model, in eval mode.
        tokens: The prompts, (B, T) ids of equal length (no padding).
        new_tokens: How many ids to add.
        use_cache: Keep the keys and values of past positions. Defaults to True.

    Returns:
        The prompts followed by the new ids, (B, T + new_tokens).

    Raises:
        ValueError: If `new_tokens` is negative.

    Examples:
        >>> model = LlamaModel(50, 32, num_layers=1, num_heads=4, num_kv_heads=1,
        ...                    d_ff=64)
        >>> prompt = torch.zeros(1, 3, dtype=torch.long)
        >>> greedy_generate(model.eval(), prompt, new_tokens=4).shape
        torch.Size([1, 7])
    """
    check_count(new_tokens, "new_tokens", minimum=0)
    cache = model.new_cache() if use_cache else None
    ids, step_input = tokens, tokens
    for _ in range(new_tokens):
        logits = model(step_input, cache=cache) if use_cache else model(ids)
        next_id = logits[:, -1].argmax(dim=-1, keepdim=True)  # (B, 1)
        ids = torch.cat([ids, next_id], dim=1)
        step_input = next_id  # with a cache, only the new id goes in
    return ids


# --8<-- [end:greedy_generate]
