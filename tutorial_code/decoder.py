"""The decoder side: cross-attention, the decoder layer, and the full encoder-decoder Transformer.

A decoder layer has three sub-layers. Masked self-attention lets each target position look at
the positions before it (a causal mask). Cross-attention takes its queries from the decoder and
its keys and values from the encoder's output, the *memory*, so the target length T and the
source length S may differ. A feed-forward network follows, as in the encoder.

Shape letters: B = batch size, S = source length, T = target length, d_model = width of a token
vector, h = `num_heads`. Masks follow the site's convention: boolean, `True` = may attend.
"""

# --8<-- [start:imports]
import torch
from torch import nn

from tutorial_code.encoder import EncoderLayer
from tutorial_code.feed_forward import FeedForward
from tutorial_code.masks import merge_masks
from tutorial_code.multi_head import MultiHeadAttention

# --8<-- [end:imports]


# --8<-- [start:decoder_layer]
class DecoderLayer(nn.Module):
    """One decoder layer: masked self-attention, cross-attention to the memory, FFN.

    Each sub-layer sits inside a residual connection, normalized after the add
    (post-norm, the paper) or before the sub-layer (pre-norm, `norm_first=True`), as in
    [`EncoderLayer`][tutorial_code.encoder.EncoderLayer].

    Args:
        d_model: Width of the token vectors.
        num_heads: Number of attention heads h. Must divide `d_model`.
        d_ff: Hidden width of the feed-forward network.
        dropout: Dropout probability on attention weights, inside the feed-forward
            network and on each sub-layer output. Defaults to 0.1.
        norm_first: Pre-norm if True, post-norm if False. Defaults to False.

    Shape:
        - x: (B, T, d_model), the target side
        - memory: (B, S, d_model), the encoder's output
        - target_mask: (T, T) or four axes broadcastable to (B, h, T, T), usually
          a causal mask
        - memory_mask: (T, S) or four axes broadcastable to (B, h, T, S)
        - target_key_padding_mask (B, T), memory_key_padding_mask (B, S): `True` = a
          real token
        - output: (B, T, d_model); self-attention weights (B, h, T, T);
          cross-attention weights (B, h, T, S)

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
        self.norm_first = norm_first
        self.self_attention = MultiHeadAttention(d_model, num_heads, dropout=dropout)
        self.cross_attention = MultiHeadAttention(d_model, num_heads, dropout=dropout)
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
        target_mask: torch.Tensor | None = None,
        memory_mask: torch.Tensor | None = None,
        target_key_padding_mask: torch.Tensor | None = None,
        memory_key_padding_mask: torch.Tensor | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Return `(output, self_weights, cross_weights)`."""
        target_mask = merge_masks(target_mask, target_key_padding_mask, x, x)
        memory_mask = merge_masks(memory_mask, memory_key_padding_mask, x, memory)
        if self.norm_first:
            h = self.norm1(x)
            out, self_weights = self.self_attention(h, mask=target_mask)
            x = x + self.dropout1(out)
            # Queries from the decoder, keys and values from the encoder's output.
            h = self.norm2(x)
            out, cross = self.cross_attention(h, memory, memory, mask=memory_mask)
            x = x + self.dropout2(out)
            x = x + self.dropout3(self.feed_forward(self.norm3(x)))
        else:
            out, self_weights = self.self_attention(x, mask=target_mask)
            x = self.norm1(x + self.dropout1(out))
            out, cross = self.cross_attention(x, memory, memory, mask=memory_mask)
            x = self.norm2(x + self.dropout2(out))
            x = self.norm3(x + self.dropout3(self.feed_forward(x)))
        return x, self_weights, cross


# --8<-- [end:decoder_layer]


# --8<-- [start:transformer]
class Transformer(nn.Module):
    """The encoder-decoder of "Attention Is All You Need", on token vectors, like `nn.Transformer`.

    The encoder turns the source into the memory; every decoder layer attends to it. As in
    `nn.Transformer`, each stack ends with a LayerNorm, whether the layers are post-norm or pre-norm.
    Embeddings, positions and the output layer are left to the model that uses it
    ([`Seq2SeqModel`][tutorial_code.reverse_task.Seq2SeqModel], for example).

    Args:
        d_model: Width of the token vectors. Defaults to 512.
        num_heads: Number of attention heads h. Defaults to 8.
        num_encoder_layers: Encoder layers. Defaults to 6.
        num_decoder_layers: Decoder layers. Defaults to 6.
        d_ff: Hidden width of the feed-forward networks. Defaults to 2048.
        dropout: Dropout probability everywhere. Defaults to 0.1.
        norm_first: Pre-norm layers if True. Defaults to False.

    Shape:
        - source: (B, S, d_model); target: (B, T, d_model)
        - source_mask: broadcastable to (B, h, S, S) and to (B, h, T, S): the source padding mask (B, 1, 1, S)
        - target_mask: broadcastable to (B, h, T, T): the causal mask, and target padding if any
        - source_key_padding_mask: (B, S), `True` = a real token
        - target_key_padding_mask: (B, T), `True` = a real token
        - output: (B, T, d_model)

    Examples:
        >>> model = Transformer(d_model=16, num_heads=4, num_encoder_layers=1, num_decoder_layers=1, d_ff=32)
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
        self.encoder_layers = nn.ModuleList(
            EncoderLayer(d_model, num_heads, d_ff, dropout, norm_first) for _ in range(num_encoder_layers)
        )
        self.encoder_norm = nn.LayerNorm(d_model)
        self.decoder_layers = nn.ModuleList(
            DecoderLayer(d_model, num_heads, d_ff, dropout, norm_first) for _ in range(num_decoder_layers)
        )
        self.decoder_norm = nn.LayerNorm(d_model)

    def encode(self, source: torch.Tensor, source_mask: torch.Tensor | None = None) -> torch.Tensor:
        """The memory: the source after every encoder layer and the final LayerNorm, (B, S, d_model)."""
        x = source
        for layer in self.encoder_layers:
            x, _ = layer(x, mask=source_mask)
        return self.encoder_norm(x)

    def decode(
        self,
        target: torch.Tensor,
        memory: torch.Tensor,
        target_mask: torch.Tensor | None = None,
        memory_mask: torch.Tensor | None = None,
    ) -> tuple[torch.Tensor, list[torch.Tensor]]:
        """The decoded target, (B, T, d_model), and each decoder layer's cross-attention weights (B, h, T, S)."""
        x, cross_weights = target, []
        for layer in self.decoder_layers:
            x, _, weights = layer(x, memory, target_mask=target_mask, memory_mask=memory_mask)
            cross_weights.append(weights)
        return self.decoder_norm(x), cross_weights

    def forward(
        self,
        source: torch.Tensor,
        target: torch.Tensor,
        source_mask: torch.Tensor | None = None,
        target_mask: torch.Tensor | None = None,
        source_key_padding_mask: torch.Tensor | None = None,
        target_key_padding_mask: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """Encode `source`, then decode `target` against it; the source mask also masks cross-attention."""
        source_mask = merge_masks(source_mask, source_key_padding_mask, source, source)
        target_mask = merge_masks(target_mask, target_key_padding_mask, target, target)
        memory = self.encode(source, source_mask)
        return self.decode(target, memory, target_mask=target_mask, memory_mask=source_mask)[0]


# --8<-- [end:transformer]
