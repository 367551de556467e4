"""Int8 weights: the integers equal PyTorch's per-channel quantization with the same scales, the error stays
within half a scale, and a model with its linear layers in int8 computes what the float model does, to that error."""

import pytest
import torch
from torch import nn

from tutorial_code.quantization import Int8Linear, quantize_rows, with_int8_linears


@pytest.mark.filterwarnings("ignore:torch.quantize_per_tensor:UserWarning")
@pytest.mark.parametrize("shape", [(1, 1), (5, 7), (64, 16), (3, 256)])
def test_the_integers_equal_pytorch_per_channel_quantization(shape):
    torch.manual_seed(sum(shape))
    weight = torch.randn(shape) * torch.rand(shape[0], 1) * 3  # rows of different sizes
    integers, scales = quantize_rows(weight)
    zeros = torch.zeros(shape[0], dtype=torch.long)
    theirs = torch.quantize_per_channel(weight, scales.squeeze(1).double(), zeros, 0, torch.qint8)
    assert torch.equal(theirs.int_repr(), integers)
    assert integers.abs().max() == 127  # every row uses its whole range
    assert ((integers.float() * scales - weight).abs() <= scales / 2 + 1e-7).all()


def test_a_model_with_int8_linears_computes_what_the_float_model_does():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Sequential(nn.Linear(64, 8, bias=False)))
    small = with_int8_linears(model)
    assert [type(m) for m in small.modules() if isinstance(m, nn.Linear | Int8Linear)] == [Int8Linear, Int8Linear]
    assert all(isinstance(m, nn.Linear) for m in model.modules() if not isinstance(m, nn.Sequential | nn.ReLU))
    x = torch.randn(10, 32)
    torch.testing.assert_close(small(x), model(x), atol=0.05, rtol=0.05)
    assert small[2][0].bias is None
    layer = nn.Linear(32, 8)
    alone = with_int8_linears(layer)  # a model that is one linear layer
    assert isinstance(alone, Int8Linear) and isinstance(layer, nn.Linear)
    torch.testing.assert_close(alone(x), layer(x), atol=0.05, rtol=0.05)


@pytest.mark.parametrize(
    ("weight", "error", "words"),
    [
        (torch.ones(3, dtype=torch.long).view(1, 3), TypeError, "floating-point"),
        (torch.ones(2, 2, 2), ValueError, "(out, in)"),
    ],
)
def test_a_weight_that_is_not_a_float_matrix_is_refused(weight, error, words):
    with pytest.raises(error, match=words.replace("(", r"\(").replace(")", r"\)")):
        quantize_rows(weight)
