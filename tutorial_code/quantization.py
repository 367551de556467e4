"""Int8 weights, as weight-only quantization does it: each row of a linear
layer's weight rounded to 8-bit integers with a scale of its own."""

# --8<-- [start:imports]
import copy

import torch
from torch import nn

from tutorial_code.validation import check_float_tensors

# --8<-- [end:imports]


# --8<-- [start:quantize_rows]
def quantize_rows(weight: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Round each row of `weight` (out, in) to int8, with scale max|row| / 127.

    Returns `(integers, scales)`: int8 (out, in) and float (out, 1), so that
    `integers * scales` is the weight to within half a scale per entry.

    Examples:
        >>> integers, scales = quantize_rows(torch.tensor([[0.5, -1.0, 0.25]]))
        >>> integers, scales
        (tensor([[  64, -127,   32]], dtype=torch.int8), tensor([[0.0079]]))
    """
    check_float_tensors(weight=weight)
    if weight.dim() != 2:
        raise ValueError(
            f"weight must be (out, in), got shape {tuple(weight.shape)}"
        )
    scales = weight.abs().amax(dim=1, keepdim=True).clamp(min=1e-12) / 127
    return torch.round(weight / scales).to(torch.int8), scales


# --8<-- [end:quantize_rows]


# --8<-- [start:int8_linear]
class Int8Linear(nn.Module):
    """An `nn.Linear` whose weight is kept as int8 rows and one scale per row.

    The forward pass turns the integers back into floats and multiplies as
    `nn.Linear` does; the bias stays in float.
    """

    def __init__(self, linear: nn.Linear) -> None:
        super().__init__()
        self.in_features = linear.in_features
        self.out_features = linear.out_features
        integers, scales = quantize_rows(linear.weight.detach())
        self.register_buffer("integers", integers)  # (out, in), int8
        self.register_buffer("scales", scales)  # (out, 1)
        bias = None if linear.bias is None else linear.bias.detach().clone()
        self.bias = None if bias is None else nn.Parameter(bias)

    @property
    def weight(self) -> torch.Tensor:
        """The weight back in floats, (out, in): what the forward pass uses."""
        return self.integers.float() * self.scales

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return nn.functional.linear(x, self.weight, self.bias)


# --8<-- [end:int8_linear]


# --8<-- [start:with_int8_linears]
def with_int8_linears(model: nn.Module) -> nn.Module:
    """A copy of `model` with every `nn.Linear` replaced by an `Int8Linear`."""
    if isinstance(model, nn.Linear):  # the model is one layer
        return Int8Linear(model)
    model = copy.deepcopy(model)
    for module in model.modules():
        for name, child in module.named_children():
            if isinstance(child, nn.Linear):
                setattr(module, name, Int8Linear(child))
    return model


# --8<-- [end:with_int8_linears]
