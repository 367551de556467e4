"""The decoder layer and the full encoder-decoder Transformer.

Shape letters: B = batch size, S = source length, T = target length,
h = `num_heads`. Masks are boolean, `True` = may attend.
"""

# --8<-- [start:imports]
import torch
from torch import nn

from tutorial_code.encoder import EncoderLayer
from tutorial_code.feed_forward import FeedForward
from tutorial_code.masks import merge_masks
from tutorial_code.multi_head import MultiHeadAttention
from tutorial_code.validation import (
    check_counts,
    check_flags,
    check_probabilities,
)

# --8<-- [end:imports]


# --8<-- [start:decoder_layer]
class DecoderLayer(nn.Module):
    """A decoder layer: masked self-attention, cross-attention, feed-forward.

    Args:
        num_heads: Number of attention heads h; must divide `d_model`.
        norm_first: Pre-norm if True, post-norm (the paper's) if False.

    Shape:
        - x: (B, T, d_model); memory: (B, S, d_model), the encoder's output
        - target_mask: (T, T) or broadcastable to (B, h, T, T), usually causal
        - memory_mask: (T, S) or broadcastable to (B, h, T, S)
        - target_is_real (B, T), memory_is_real (B, S):
          `True` = a real token
        - output: (B, T, d_model); weights (B, h, T, T) and (B, h, T, S)

    Examples:
        >>> layer = DecoderLayer(d_model=16, num_heads=4, d_ff=32)
        >>> x, memory = torch.randn(2, 3, 16), torch.randn(2, 7, 16)
        >>> output, _, cross = layer(x, memory=memory)
        >>> output.shape, cross.shape
        (torch.Size([2, 3, 16]), torch.Size([2, 4, 3, 7]))
    """

    def __init__(
        self,
        d_model: int,
        num_heads: int,
        d_ff: int,
        dropout: float = 0.1,
        norm_first: bool = False,
    ) -> None:
        super().__init__()
        check_counts(d_model=d_model, num_heads=num_heads, d_ff=d_ff)
        check_flags(norm_first=norm_first)
        check_probabilities(dropout=dropout)
        self.norm_first = norm_first
        self.self_attention = MultiHeadAttention(
            d_model, num_heads, dropout=dropout
        )
        self.cross_attention = MultiHeadAttention(
            d_model, num_heads, dropout=dropout
        )
        self.feed_forward = FeedForward(d_model, d_ff, dropout=dropout)
        self.norm1 = nn.LayerNorm(d_model)
        self.norm2 = nn.LayerNorm(d_model)
        self.norm3 = nn.LayerNorm(d_model)
        self.dropout1 = nn.Dropout(dropout)
        self.dropout2 = nn.Dropout(dropout)
        self.dropout3 = nn.Dropout(dropout)

    def forward(
        self,
        x: torch.Tensor,
        memory: torch.Tensor,
        *,
        target_mask: torch.Tensor | None = None,
        memory_mask: torch.Tensor | None = None,
        target_is_real: torch.Tensor | None = None,
        memory_is_real: torch.Tensor | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Return `(output, self_weights, cross_weights)`."""
        target_mask = merge_masks(target_mask, target_is_real, x, x)
        memory_mask = merge_masks(memory_mask, memory_is_real, x, memory)
        if self.norm_first:
            h = self.norm1(x)
            out, self_weights = self.self_attention(h, mask=target_mask)
            x = x + self.dropout1(out)
            # Queries from the decoder; keys and values from the encoder output.
            h = self.norm2(x)
            out, cross = self.cross_attention(
                h, memory, memory, mask=memory_mask
            )
            x = x + self.dropout2(out)
            x = x + self.dropout3(self.feed_forward(self.norm3(x)))
        else:
            out, self_weights = self.self_attention(x, mask=target_mask)
            x = self.norm1(x + self.dropout1(out))
            out, cross = self.cross_attention(
                x, memory, memory, mask=memory_mask
            )
            x = self.norm2(x + self.dropout2(out))
            x = self.norm3(x + self.dropout3(self.feed_forward(x)))
        return x, self_weights, cross


# --8<-- [end:decoder_layer]


# --8<-- [start:transformer]
class Transformer(nn.Module):
    """The encoder-decoder of "Attention Is All You Need", as `nn.Transformer`.

    On token vectors: embeddings and the output layer are the caller's. Each
    stack ends with a LayerNorm, post-norm or pre-norm.

    Shape:
        - source: (B, S, d_model); target: (B, T, d_model)
        - source_mask: broadcastable to (B, h, S, S) and (B, h, T, S), such
          as the source padding mask (B, 1, 1, S)
        - target_mask: broadcastable to (B, h, T, T): causal, and padding
        - source_is_real (B, S), target_is_real (B, T):
          `True` = a real token
        - output: (B, T, d_model)

    Examples:
        >>> model = Transformer(d_model=16, num_heads=4, num_encoder_layers=1,
        ...                     num_decoder_layers=1, d_ff=32)
        >>> model(torch.randn(2, 7, 16), torch.randn(2, 3, 16)).shape
        torch.Size([2, 3, 16])
    """

    def __init__(
        self,
        d_model: int = 512,
        num_heads: int = 8,
        num_encoder_layers: int = 6,
        num_decoder_layers: int = 6,
        d_ff: int = 2048,
        dropout: float = 0.1,
        norm_first: bool = False,
    ) -> None:
        super().__init__()
        check_counts(
            d_model=d_model,
            num_heads=num_heads,
            num_encoder_layers=num_encoder_layers,
            num_decoder_layers=num_decoder_layers,
            d_ff=d_ff,
        )
        check_flags(norm_first=norm_first)
        check_probabilities(dropout=dropout)
        self.encoder_layers = nn.ModuleList(
            EncoderLayer(d_model, num_heads, d_ff, dropout, norm_first)
            for _ in range(num_encoder_layers)
        )
        self.encoder_norm = nn.LayerNorm(d_model)
        self.decoder_layers = nn.ModuleList(
            DecoderLayer(d_model, num_heads, d_ff, dropout, norm_first)
            for _ in range(num_decoder_layers)
        )
        self.decoder_norm = nn.LayerNorm(d_model)

    def encode(
        self, source: torch.Tensor, *, source_mask: torch.Tensor | None = None
    ) -> torch.Tensor:
        """The memory: the source after the encoder stack, (B, S, d_model)."""
        x = source
        for layer in self.encoder_layers:
            x, _ = layer(x, mask=source_mask)
        return self.encoder_norm(x)

    def decode(
        self,
        target: torch.Tensor,
        memory: torch.Tensor,
        *,
        target_mask: torch.Tensor | None = None,
        memory_mask: torch.Tensor | None = None,
    ) -> tuple[torch.Tensor, list[torch.Tensor]]:
        """The decoded target and each layer's cross-attention weights."""
        x, cross_weights = target, []
        for layer in self.decoder_layers:
            x, _, weights = layer(
                x, memory, target_mask=target_mask, memory_mask=memory_mask
            )
            cross_weights.append(weights)
        return self.decoder_norm(x), cross_weights

    def forward(
        self,
        source: torch.Tensor,
        target: torch.Tensor,
        *,
        source_mask: torch.Tensor | None = None,
        target_mask: torch.Tensor | None = None,
        source_is_real: torch.Tensor | None = None,
        target_is_real: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """Encode, then decode; `source_mask` also masks cross-attention.

        Raises:
            ValueError: If `source_mask` masks per query, (S, S): cross-
                attention's queries are the target's, so it must mask keys
                only, (B, 1, 1, S), as padding does.
        """
        if source_mask is not None and source_mask.dim() >= 2:
            if source_mask.size(-2) != 1:  # a query axis: not for T queries
                raise ValueError(
                    "source_mask must mask keys only, (B, 1, 1, S), since "
                    "cross-attention reads it too; got shape "
                    f"{tuple(source_mask.shape)}. Mask the encoder alone "
                    "with model.encode(source, source_mask=...)"
                )
        source_mask = merge_masks(source_mask, source_is_real, source, source)
        target_mask = merge_masks(target_mask, target_is_real, target, target)
        memory = self.encode(source, source_mask=source_mask)
        return self.decode(
            target, memory, target_mask=target_mask, memory_mask=source_mask
        )[0]


# --8<-- [end:transformer]
