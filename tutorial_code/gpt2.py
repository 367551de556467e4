"""GPT-2: chapter 11's decoder-only model with the choices OpenAI made in 2019.

The plan of `CharTransformer`: token embeddings plus learned positions, pre-norm
layers with causal self-attention, a final LayerNorm and an output layer.
GPT-2's choices: a GELU feed-forward network (the tanh approximation), biases
everywhere, dropout at the embeddings, the attention weights and both residual
branches, and an output layer that reuses the embedding table.

Shape letters: B = batch size, T = sequence length, V = vocabulary size,
d_model = width of a token vector, d_ff = width of the hidden layer.
"""

# --8<-- [start:imports]
import torch
import torch.nn.functional as F
from torch import nn

from tutorial_code.grouped_query import (
    GroupedQueryAttention,
    KVCache,
    layer_caches,
)
from tutorial_code.layer_norm import LayerNorm
from tutorial_code.positional import LearnedPositionalEncoding
from tutorial_code.validation import (
    check_counts,
    check_flags,
    check_probabilities,
    check_token_ids,
    check_width,
)

# --8<-- [end:imports]


# --8<-- [start:gelu_feed_forward]
class GELUFeedForward(nn.Module):
    """Chapter 6's feed-forward network with GELU: `linear2(gelu(linear1(x)))`.

    GPT-2 uses GELU's tanh approximation (`gelu_new` in transformers). It maps
    (..., d_model) to the same shape.

    Examples:
        >>> GELUFeedForward(d_model=8, d_ff=32)(torch.randn(2, 5, 8)).shape
        torch.Size([2, 5, 8])
    """

    def __init__(self, d_model: int, d_ff: int) -> None:
        super().__init__()
        check_counts(d_model=d_model, d_ff=d_ff)
        self.linear1 = nn.Linear(d_model, d_ff)
        self.linear2 = nn.Linear(d_ff, d_model)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Return the transformed token vectors, same shape as `x`."""
        check_width(x, self.linear1.in_features, dims=None)
        hidden = F.gelu(self.linear1(x), approximate="tanh")  # (..., d_ff)
        return self.linear2(hidden)  # (..., d_model)


# --8<-- [end:gelu_feed_forward]


# --8<-- [start:gpt2_block]
class GPT2Block(nn.Module):
    """A GPT-2 layer: x + attention(norm1(x)), then x + feed_forward(norm2(x)).

    The attention is `GroupedQueryAttention` with biases, no rotation, and as
    many key/value heads as query heads: ordinary multi-head attention.

    Args:
        dropout: On the attention weights and on both residual branches.

    Examples:
        >>> block = GPT2Block(d_model=32, num_heads=4, d_ff=128)
        >>> block(torch.randn(2, 5, 32)).shape
        torch.Size([2, 5, 32])
    """

    def __init__(
        self,
        d_model: int,
        num_heads: int,
        d_ff: int,
        eps: float = 1e-5,
        dropout: float = 0.0,
    ) -> None:
        super().__init__()
        check_counts(d_model=d_model, num_heads=num_heads, d_ff=d_ff)
        check_probabilities(dropout=dropout)
        self.norm1 = LayerNorm(d_model, eps)
        self.attention = GroupedQueryAttention(
            d_model,
            num_heads,
            # no rotation: the positions were added to the embeddings
            rope_base=None,
            bias=True,
            dropout=dropout,
        )
        self.norm2 = LayerNorm(d_model, eps)
        self.feed_forward = GELUFeedForward(d_model, d_ff)
        self.dropout = nn.Dropout(dropout)

    def forward(
        self,
        x: torch.Tensor,
        padding_mask: torch.Tensor | None = None,
        cache: KVCache | None = None,
    ) -> torch.Tensor:
        """Update x, (B, n, d_model); padding_mask: (B, t + n), True = real."""
        x = x + self.dropout(self.attention(self.norm1(x), padding_mask, cache))
        return x + self.dropout(self.feed_forward(self.norm2(x)))


# --8<-- [end:gpt2_block]


# --8<-- [start:gpt2_model]
class GPT2Model(nn.Module):
    """Token ids to next-token logits, as GPT-2 computes them.

    Args:
        vocab_size: V (50257 for OpenAI's GPT-2).
        d_model: Token width (768 in the smallest GPT-2: 12 layers, 12 heads).
        d_ff: Hidden width of the feed-forward networks; None for `4 * d_model`.
        max_len: Longest sequence, the rows of the position table.
        dropout: After the embeddings, on the attention weights and on the
            residual branches (GPT-2 trained with 0.1).
        tie_embeddings: Use the embedding table as the output layer's weight.

    Examples:
        >>> model = GPT2Model(50, 32, num_layers=2, num_heads=4, max_len=16)
        >>> model(torch.zeros(2, 5, dtype=torch.long)).shape
        torch.Size([2, 5, 50])
        >>> model.output.weight is model.embedding.weight  # tied
        True
    """

    def __init__(
        self,
        vocab_size: int,
        d_model: int,
        num_layers: int,
        num_heads: int,
        d_ff: int | None = None,
        max_len: int = 1024,
        eps: float = 1e-5,
        dropout: float = 0.0,
        tie_embeddings: bool = True,
    ) -> None:
        super().__init__()
        check_counts(
            vocab_size=vocab_size,
            d_model=d_model,
            num_layers=num_layers,
            num_heads=num_heads,
            max_len=max_len,
        )
        check_flags(tie_embeddings=tie_embeddings)
        check_probabilities(dropout=dropout)
        self.embedding = nn.Embedding(vocab_size, d_model)
        self.positions = LearnedPositionalEncoding(d_model, max_len)
        self.dropout = nn.Dropout(dropout)
        d_ff = 4 * d_model if d_ff is None else d_ff
        block = (d_model, num_heads, d_ff, eps, dropout)
        layers = [GPT2Block(*block) for _ in range(num_layers)]
        self.layers = nn.ModuleList(layers)
        self.final_norm = LayerNorm(d_model, eps)
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

        Raises:
            ValueError: If the cached and new positions exceed `max_len`.
        """
        check_token_ids(tokens, self.embedding.num_embeddings)
        caches = layer_caches(cache, len(self.layers))  # one per layer or Nones
        t, n = (0 if cache is None else cache[0].length), tokens.size(1)
        max_len = self.positions.table.size(0)
        if t + n > max_len:
            raise ValueError(
                f"{t} cached and {n} new positions exceed {max_len=}"
            )
        # x: (B, n, d_model)
        x = self.embedding(tokens) + self.positions.table[t : t + n]
        x = self.dropout(x)
        for layer, layer_cache in zip(self.layers, caches, strict=True):
            x = layer(x, padding_mask, layer_cache)
        return self.output(self.final_norm(x))  # (B, n, V)

    def new_cache(self) -> list[KVCache]:
        """An empty `KVCache` for every layer."""
        return [KVCache() for _ in self.layers]


# --8<-- [end:gpt2_model]
