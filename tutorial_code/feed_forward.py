"""The position-wise feed-forward network of a Transformer layer."""

# --8<-- [start:imports]
import torch
from torch import nn

from tutorial_code.validation import (
    check_counts,
    check_probabilities,
    check_width,
)

# --8<-- [end:imports]


# --8<-- [start:feed_forward]
class FeedForward(nn.Module):
    """Two linear layers with a ReLU between, applied to each position alone.

    Maps (B, T, d_model) to (B, T, d_model) through a hidden width `d_ff`
    (4 * d_model in the paper); `dropout` is applied after the ReLU.

    Examples:
        >>> FeedForward(d_model=8, d_ff=32)(torch.randn(2, 5, 8)).shape
        torch.Size([2, 5, 8])
    """

    def __init__(self, d_model: int, d_ff: int, dropout: float = 0.0) -> None:
        super().__init__()
        check_counts(d_model=d_model, d_ff=d_ff)
        check_probabilities(dropout=dropout)
        self.linear1 = nn.Linear(d_model, d_ff)
        self.linear2 = nn.Linear(d_ff, d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Return the transformed token vectors, same shape as `x`."""
        check_width(x, self.linear1.in_features, dims=None)  # any leading axes
        # (B, T, d_model) -> (B, T, d_ff) -> (B, T, d_model)
        return self.linear2(self.dropout(torch.relu(self.linear1(x))))


# --8<-- [end:feed_forward]
