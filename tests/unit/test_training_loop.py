"""The hand-written training loop of chapter 7 lowers the loss of the sum task, reproducibly under a seed."""

import pytest
import torch

from tutorial_code.digit_model import DigitModel
from tutorial_code.sum_task import make_batch
from tutorial_code.training_loop import train


def small_model(seed: int = 0) -> DigitModel:
    torch.manual_seed(seed)
    return DigitModel(d_model=16, num_heads=2, d_ff=32, num_layers=1)


@pytest.mark.integration
def test_lowers_the_loss_of_the_sum_task_in_a_few_dozen_steps():
    losses = train(small_model(), make_batch, steps=60, lr=3e-3, seed=0)
    assert len(losses) == 60
    assert losses[0] > 5  # an untrained model predicts about 0 for targets around 3.6
    assert sum(losses[-10:]) / 10 < 0.2 * losses[0]


@pytest.mark.integration
def test_the_same_seed_gives_the_same_losses_and_another_seed_other_ones():
    first = train(small_model(), make_batch, steps=20, seed=1)
    assert train(small_model(), make_batch, steps=20, seed=1) == first
    assert train(small_model(), make_batch, steps=20, seed=2) != first


@pytest.mark.integration
def test_leaves_the_model_trained_in_place():
    model = small_model()
    before = [p.detach().clone() for p in model.parameters()]
    train(model, make_batch, steps=3)
    assert model.training  # dropout was on while it trained
    assert any(not torch.equal(b, p) for b, p in zip(before, model.parameters(), strict=True))
