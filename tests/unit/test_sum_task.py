"""The digit model trains on the sum task, deterministically, to the accuracy the pages report."""

import pytest
import torch

from tutorial_code.digit_model import DigitModel
from tutorial_code.sum_task import predict_sum, train_sum_model, trained_sum_model


@pytest.mark.integration
def test_trains_below_0_05_within_500_steps_at_the_documented_seed():
    result = trained_sum_model(seed=0, steps=500)
    assert len(result.losses) == 500
    assert result.losses[0] > 5  # an untrained model predicts ~0 for targets ~3.6
    assert result.eval_loss < 0.05
    assert abs(predict_sum(result.model, [3, 1, 4, 1, 5, 9, 2, 6]) - 31) < 3


@pytest.mark.integration
def test_training_is_deterministic():
    assert train_sum_model(steps=20, seed=3).losses == train_sum_model(steps=20, seed=3).losses


@pytest.mark.integration
def test_eval_mode_prediction_is_deterministic_and_train_mode_is_not():
    model = trained_sum_model().model
    numbers = [3, 1, 4, 1, 5, 9, 2, 6]
    assert predict_sum(model, numbers) == predict_sum(model, numbers)
    model.train()
    torch.manual_seed(0)
    noisy = {round(model(torch.tensor([numbers], dtype=torch.float32))[0].item(), 6) for _ in range(5)}
    model.eval()
    assert len(noisy) > 1  # dropout is on in train(): predict in eval()


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: DigitModel()(torch.tensor([[1, 2, 3]])), TypeError, r"use numbers\.float\(\)"),
        (lambda: DigitModel()(torch.tensor([1.0, 2.0])), ValueError, r"numbers must have shape \(B, T\)"),
        (lambda: DigitModel()(torch.zeros(1, 20)), ValueError, "exceeds max_len=16"),
        (lambda: train_sum_model(steps=0), ValueError, "steps must be >= 1, got 0"),
    ],
)
def test_bad_input_is_explained(call, error, message):
    with pytest.raises(error, match=message):
        call()
