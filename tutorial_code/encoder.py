"""The Transformer encoder: attention, feed-forward, residuals and LayerNorm."""

# --8<-- [start:imports]

import torch
from torch import nn

from tutorial_code.feed_forward import FeedForward
from tutorial_code.masks import merge_masks
from tutorial_code.multi_head import MultiHeadAttention
from tutorial_code.positional import positional_encoding
from tutorial_code.validation import (
    check_count,
    check_counts,
    check_flags,
    check_probabilities,
    check_token_ids,
)

# --8<-- [end:imports]


# --8<-- [start:encoder_layer]
class EncoderLayer(nn.Module):
    """One encoder layer: self-attention, then feed-forward, each in a residual.

    Args:
        dropout: On attention weights, inside the feed-forward network and on
            each sub-layer output.
        norm_first: Pre-norm, `x + sublayer(norm(x))`, if True; post-norm,
            `norm(x + sublayer(x))` as in the paper, if False.

    Examples:
        >>> layer = EncoderLayer(d_model=16, num_heads=4, d_ff=32)
        >>> output, weights = layer(torch.randn(2, 5, 16))
        >>> output.shape, weights.shape
        (torch.Size([2, 5, 16]), torch.Size([2, 4, 5, 5]))
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
        self.attention = MultiHeadAttention(d_model, num_heads, dropout=dropout)
        self.feed_forward = FeedForward(d_model, d_ff, dropout=dropout)
        self.norm1 = nn.LayerNorm(d_model)
        self.norm2 = nn.LayerNorm(d_model)
        self.dropout1 = nn.Dropout(dropout)
        self.dropout2 = nn.Dropout(dropout)

    def forward(
        self,
        x: torch.Tensor,
        *,
        mask: torch.Tensor | None = None,
        key_is_real: torch.Tensor | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Return `(output, weights)`: (B, T, d_model) and (B, h, T, T).

        `mask` is (T, T) or four axes broadcastable to (B, h, T, T);
        `key_is_real` (B, T), `True` = a real token.
        """
        mask = merge_masks(mask, key_is_real, x, x)  # both masks as one
        if self.norm_first:
            attended, weights = self.attention(self.norm1(x), mask=mask)
            x = x + self.dropout1(attended)
            x = x + self.dropout2(self.feed_forward(self.norm2(x)))
        else:
            attended, weights = self.attention(x, mask=mask)
            x = self.norm1(x + self.dropout1(attended))
            x = self.norm2(x + self.dropout2(self.feed_forward(x)))
        return x, weights  # (B, T, d_model), (B, h, T, T)


# --8<-- [end:encoder_layer]


# --8<-- [start:encoder]
class Encoder(nn.Module):
    """A full encoder: token embedding, positions, `num_layers` encoder layers.

    Args:
        norm_first: Pre-norm layers (and a final LayerNorm) if True.
        positional: `"sinusoidal"`, `"learned"` or `"none"`.
        pad_id: When set, positions holding it are masked as keys.

    Examples:
        >>> encoder = Encoder(vocab_size=10, d_model=16, num_heads=4, d_ff=32,
        ...                   num_layers=2, pad_id=0)
        >>> output, weights = encoder(torch.tensor([[3, 4, 5, 0]]))
        >>> output.shape, len(weights)
        (torch.Size([1, 4, 16]), 2)
    """

    def __init__(
        self,
        vocab_size: int,
        d_model: int = 512,
        num_heads: int = 8,
        d_ff: int = 2048,
        num_layers: int = 6,
        max_len: int = 512,
        dropout: float = 0.1,
        norm_first: bool = False,
        positional: str = "sinusoidal",
        pad_id: int | None = None,
    ) -> None:
        super().__init__()
        check_counts(
            vocab_size=vocab_size,
            d_model=d_model,
            num_heads=num_heads,
            d_ff=d_ff,
            num_layers=num_layers,
            max_len=max_len,
        )
        check_flags(norm_first=norm_first)
        check_probabilities(dropout=dropout)
        self.d_model = d_model
        self.vocab_size = vocab_size
        self.pad_id = pad_id
        self.embedding = nn.Embedding(vocab_size, d_model, padding_idx=pad_id)
        self.positions = positional_encoding(positional, d_model, max_len)
        self.dropout = nn.Dropout(dropout)
        args = (d_model, num_heads, d_ff, dropout, norm_first)  # of every layer
        self.layers = nn.ModuleList(
            EncoderLayer(*args) for _ in range(num_layers)
        )
        # Pre-norm leaves the residual stream unnormalized; normalize once at
        # the end.
        self.final_norm = nn.LayerNorm(d_model) if norm_first else nn.Identity()

    def forward(
        self,
        tokens: torch.Tensor,
        *,
        mask: torch.Tensor | None = None,
        key_is_real: torch.Tensor | None = None,
    ) -> tuple[torch.Tensor, list[torch.Tensor]]:
        """Return `(output, weights)`: (B, T, d_model), per layer (B, h, T, T).

        `tokens` are ids (B, T); the masks as in `EncoderLayer.forward`.
        """
        check_token_ids(tokens, self.vocab_size)
        mask = merge_masks(mask, key_is_real, tokens, tokens)
        # never attend padding; (B, T), True = a real token
        if self.pad_id is not None:
            mask = merge_masks(mask, tokens != self.pad_id, tokens, tokens)
        # No sqrt(d_model) factor, unlike the paper (section 3.4): nn.Embedding
        # starts at std 1, as large as the position vectors (chapter 10).
        x = self.embedding(tokens)  # (B, T, d_model)
        x = self.dropout(self.positions(x))
        all_weights = []
        for layer in self.layers:
            x, weights = layer(x, mask=mask)
            all_weights.append(weights)
        return self.final_norm(x), all_weights


# --8<-- [end:encoder]


# --8<-- [start:classifier]
class EncoderClassifier(nn.Module):
    """An `Encoder` with a classification head: one label per sequence.

    The head averages the encoded tokens over the real positions (by the
    encoder's `pad_id`, when set) and returns logits (B, num_classes).

    Examples:
        >>> encoder = Encoder(vocab_size=10, d_model=16, num_heads=4, d_ff=32,
        ...                   num_layers=1, pad_id=0)
        >>> classifier = EncoderClassifier(encoder, num_classes=3)
        >>> classifier(torch.tensor([[3, 4, 0], [5, 0, 0]])).shape
        torch.Size([2, 3])
    """

    def __init__(self, encoder: Encoder, num_classes: int) -> None:
        super().__init__()
        check_count(num_classes, "num_classes", minimum=2)  # two or more
        self.encoder = encoder
        self.head = nn.Linear(encoder.d_model, num_classes)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        """Return the logits of each sequence."""
        encoded, _ = self.encoder(tokens)  # (B, T, d_model)
        if self.encoder.pad_id is None:
            pooled = encoded.mean(dim=1)
        else:
            # (B, T, 1)
            real = (tokens != self.encoder.pad_id).unsqueeze(-1).float()
            # the mean over the real tokens only
            pooled = (encoded * real).sum(dim=1) / real.sum(dim=1).clamp(min=1)
        return self.head(pooled)  # (B, num_classes)


# --8<-- [end:classifier]
