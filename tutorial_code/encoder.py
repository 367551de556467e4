"""The Transformer encoder: layers of attention and feed-forward, with residuals and LayerNorm.

Shape letters: B = batch size, T = sequence length, d_model = width of a token
vector, h = `num_heads`, d_ff = hidden width of the feed-forward network.

Masks follow the site's convention: boolean, `True` = may attend
(see [`tutorial_code.masks`][tutorial_code.masks]).
"""

# --8<-- [start:imports]
import math

import torch
from torch import nn

from tutorial_code.feed_forward import FeedForward
from tutorial_code.masks import merge_masks
from tutorial_code.multi_head import MultiHeadAttention
from tutorial_code.positional import positional_encoding
from tutorial_code.validation import check_token_ids

# --8<-- [end:imports]


# --8<-- [start:encoder_layer]
class EncoderLayer(nn.Module):
    """One encoder layer: self-attention, then feed-forward, each inside a residual.

    Post-norm (the paper, `norm_first=False`) normalizes after adding the residual:
    `x = norm(x + sublayer(x))`. Pre-norm (`norm_first=True`) normalizes the
    sub-layer's input and leaves the residual path untouched:
    `x = x + sublayer(norm(x))`; deep stacks train more stably that way.

    Args:
        d_model: Width of the token vectors.
        num_heads: Number of attention heads h. Must divide `d_model`.
        d_ff: Hidden width of the feed-forward network.
        dropout: Dropout probability on attention weights, inside the feed-forward
            network and on each sub-layer output. Defaults to 0.1.
        norm_first: Pre-norm if True, post-norm if False. Defaults to False.

    Shape:
        - x: (B, T, d_model)
        - mask: (T, T), or four axes broadcastable to (B, h, T, T)
        - key_padding_mask: (B, T), `True` = a real token
        - output: (B, T, d_model)
        - weights: (B, h, T, T)

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
        mask: torch.Tensor | None = None,
        key_padding_mask: torch.Tensor | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Return `(output, weights)` for token vectors `x`."""
        mask = merge_masks(mask, key_padding_mask, x, x)  # both masks as one
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
    """A full encoder: token embedding, positions, and `num_layers` encoder layers.

    Args:
        vocab_size: Number of distinct token ids.
        d_model: Width of the token vectors. Defaults to 512.
        num_heads: Number of attention heads h. Defaults to 8.
        d_ff: Hidden width of the feed-forward networks. Defaults to 2048.
        num_layers: Number of encoder layers N. Defaults to 6.
        max_len: Longest sequence accepted. Defaults to 512.
        dropout: Dropout probability everywhere. Defaults to 0.1.
        norm_first: Pre-norm layers (and a final LayerNorm) if True. Defaults to False.
        positional: `"sinusoidal"`, `"learned"` or `"none"`. Defaults to `"sinusoidal"`.
        pad_id: Id of the padding token. When set, padded positions are masked
            as keys automatically. Defaults to None.

    Raises:
        ValueError: If `positional` is unknown, or in `forward` if a token id is
            outside the vocabulary or `tokens` is empty.
        TypeError: In `forward`, if `tokens` is not an integer tensor.

    Shape:
        - tokens: (B, T), integer ids
        - mask: (T, T), or four axes broadcastable to (B, h, T, T)
        - key_padding_mask: (B, T), `True` = a real token; combined with `pad_id`
        - output: (B, T, d_model)
        - weights: a list of `num_layers` tensors of shape (B, h, T, T)

    Examples:
        >>> encoder = Encoder(
        ...     vocab_size=10, d_model=16, num_heads=4, d_ff=32, num_layers=2, pad_id=0
        ... )
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
        self.d_model = d_model
        self.vocab_size = vocab_size
        self.pad_id = pad_id
        self.embedding = nn.Embedding(vocab_size, d_model, padding_idx=pad_id)
        self.positions = positional_encoding(positional, d_model, max_len)
        self.dropout = nn.Dropout(dropout)
        args = (d_model, num_heads, d_ff, dropout, norm_first)  # of every layer
        self.layers = nn.ModuleList(EncoderLayer(*args) for _ in range(num_layers))
        # Pre-norm leaves the residual stream unnormalized; normalize once at the end.
        self.final_norm = nn.LayerNorm(d_model) if norm_first else nn.Identity()

    def forward(
        self,
        tokens: torch.Tensor,
        mask: torch.Tensor | None = None,
        key_padding_mask: torch.Tensor | None = None,
    ) -> tuple[torch.Tensor, list[torch.Tensor]]:
        """Return `(output, weights)`: the encoded tokens, each layer's weights."""
        check_token_ids(tokens, self.vocab_size)
        mask = merge_masks(mask, key_padding_mask, tokens, tokens)
        if self.pad_id is not None:  # never attend padding; (B, T), True = a real token
            mask = merge_masks(mask, tokens != self.pad_id, tokens, tokens)
        # As in the paper (section 3.4), embeddings are multiplied by sqrt(d_model).
        x = self.embedding(tokens) * math.sqrt(self.d_model)  # (B, T, d_model)
        x = self.dropout(self.positions(x))
        all_weights = []
        for layer in self.layers:
            x, weights = layer(x, mask=mask)
            all_weights.append(weights)
        return self.final_norm(x), all_weights


# --8<-- [end:encoder]


# --8<-- [start:classifier]
class EncoderClassifier(nn.Module):
    """An [`Encoder`][tutorial_code.encoder.Encoder] with a classification head: one
    label per sequence.

    The head averages the encoded tokens over the real (non-padding) positions and
    maps the average to one logit per class. Averaging is one common choice;
    BERT-style models instead prepend a special token and classify its vector.

    Args:
        encoder: The encoder; its `pad_id`, when set, decides which positions are
            averaged.
        num_classes: Number of labels.

    Raises:
        ValueError: If `num_classes` is smaller than 2.

    Shape:
        - tokens: (B, T), integer ids
        - output: (B, num_classes), logits for `nn.CrossEntropyLoss`

    Examples:
        >>> encoder = Encoder(
        ...     vocab_size=10, d_model=16, num_heads=4, d_ff=32, num_layers=1, pad_id=0
        ... )
        >>> classifier = EncoderClassifier(encoder, num_classes=3)
        >>> classifier(torch.tensor([[3, 4, 0], [5, 0, 0]])).shape
        torch.Size([2, 3])
    """

    def __init__(self, encoder: Encoder, num_classes: int) -> None:
        super().__init__()
        if num_classes < 2:
            raise ValueError(f"num_classes must be at least 2, got {num_classes}")
        self.encoder = encoder
        self.head = nn.Linear(encoder.d_model, num_classes)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        """Return the logits of each sequence."""
        encoded, _ = self.encoder(tokens)  # (B, T, d_model)
        if self.encoder.pad_id is None:
            pooled = encoded.mean(dim=1)
        else:
            real = (tokens != self.encoder.pad_id).unsqueeze(-1).float()  # (B, T, 1)
            # the mean over the real tokens only
            pooled = (encoded * real).sum(dim=1) / real.sum(dim=1).clamp(min=1)
        return self.head(pooled)  # (B, num_classes)


# --8<-- [end:classifier]
