"""Mixed precision: float32 through `train_mixed` is chapter 7's `train` exactly; float16 runs under a gradient
scaler that skips a step whose gradients overflowed; the flushed share is float16's own rounding."""

import pytest
import torch

from tutorial_code.digit_model import DigitModel
from tutorial_code.mixed_precision import flushed_to_zero, half_precision_dtype, train_mixed
from tutorial_code.sum_task import make_batch
from tutorial_code.training_loop import train


@pytest.mark.integration
def test_float32_is_chapter_7_s_loop_exactly():
    torch.manual_seed(0)
    theirs = train(DigitModel(), make_batch, steps=5, seed=3)
    torch.manual_seed(0)
    ours = train_mixed(DigitModel(), make_batch, steps=5, seed=3, dtype=torch.float32)
    assert ours == theirs


@pytest.mark.integration
def test_bfloat16_follows_float32_and_float16_first_finds_its_scale():
    losses = {}
    for dtype in (torch.float32, torch.bfloat16, torch.float16):
        torch.manual_seed(0)
        losses[dtype] = train_mixed(DigitModel(), make_batch, steps=5, dtype=dtype)
    full, bf16, fp16 = losses.values()
    assert bf16 != full  # the forward pass really ran in 16 bits
    assert all(abs(b / f - 1) < 0.05 for b, f in zip(bf16, full, strict=True))
    # 65536 overflows this model's float16 gradients: the scaler skips those steps, halving the scale each time
    assert full[4] < 0.6 * full[0] and fp16[4] > 0.9 * fp16[0]


@pytest.mark.integration
def test_the_scaler_skips_a_step_whose_gradients_overflow():
    class Steep(torch.nn.Module):  # predictions near 70: scaled by 65536, their gradients overflow float16
        def __init__(self):
            super().__init__()
            self.linear = torch.nn.Linear(8, 1)
            torch.nn.init.constant_(self.linear.weight, 2.0)

        def forward(self, x):
            return self.linear(x).squeeze(-1), None

    model = Steep()
    train_mixed(model, make_batch, steps=1, dtype=torch.float16)
    assert (model.linear.weight == 2.0).all()  # the step was skipped, not taken with inf gradients
    train_mixed(model, make_batch, steps=1, dtype=torch.bfloat16)  # no scaler: the same step is taken
    assert (model.linear.weight != 2.0).all()


def test_flushed_to_zero_is_float16_rounding():
    values = torch.tensor([1e-3, -1e-9, 2e-8, 0.0, 1e-7])
    assert flushed_to_zero(values) == pytest.approx(2 / 4)  # 1e-9 and 2e-8 round to 0; the 0 is not counted
    assert flushed_to_zero(values, scale=65536.0) == 0.0
    assert flushed_to_zero(torch.zeros(3)) == 0.0


def test_the_half_precision_type_by_device():
    assert half_precision_dtype("cuda") is torch.float16
    assert half_precision_dtype("cpu") is torch.bfloat16


def test_a_dtype_it_cannot_train_in_is_refused():
    with pytest.raises(ValueError, match="dtype must be torch.float32, torch.bfloat16 or torch.float16"):
        train_mixed(DigitModel(), make_batch, steps=1, dtype=torch.float64)
