"""Every row of the troubleshooting table: the broken variant shows its symptom, the fix removes it."""

import pytest
import torch

from tutorial_code.debugging import attention_entropy, gradient_norms, print_shapes
from tutorial_code.digit_model import DigitModel
from tutorial_code.troubleshooting import PROBLEMS, markdown_table, measure

# The exact text PyTorch prints, so that an upgrade that changes a message fails here, not on the page.
EXPECTED_MESSAGES = {
    "linear_width": "RuntimeError: mat1 and mat2 shapes cannot be multiplied (10x32 and 64x64)",
    "position_table": "RuntimeError: The size of tensor a (10) must match the size of tensor b (16) at non-singleton "
    "dimension 1",
    "mask_shape": "RuntimeError: The size of tensor a (2) must match the size of tensor b (5) at non-singleton "
    "dimension 2",
}


@pytest.mark.integration
@pytest.mark.parametrize("problem", PROBLEMS, ids=lambda p: p.name)
def test_broken_variant_shows_the_symptom_and_the_fix_removes_it(problem):
    broken, fixed = problem.broken(), problem.fixed()
    assert broken.bad, broken.symptom
    assert not fixed.bad, fixed.symptom
    if problem.name in EXPECTED_MESSAGES:
        assert broken.symptom == EXPECTED_MESSAGES[problem.name]


def test_every_problem_has_a_unique_name_and_all_fields():
    names = [p.name for p in PROBLEMS]
    assert len(names) == len(set(names))
    assert all(p.title and p.cause and p.fix for p in PROBLEMS)


def test_markdown_table_has_one_row_per_problem():
    rows = [line for line in markdown_table(measure(PROBLEMS[:3])).splitlines() if line.startswith("| ")]
    assert len(rows) == 1 + 3  # header and three problems


def test_print_shapes_reports_every_submodule_and_removes_its_hooks():
    model = DigitModel(num_layers=1)
    with print_shapes(model) as lines:
        model(torch.zeros(2, 8))
    assert any(line.startswith("head ") and line.endswith("(2, 1)") for line in lines)
    count = len(lines)
    model(torch.zeros(2, 8))
    assert len(lines) == count


def test_attention_entropy_bounds():
    uniform = torch.full((3, 5), 0.2)
    one_hot = torch.eye(5)
    assert torch.allclose(attention_entropy(uniform), torch.ones(3))
    assert torch.allclose(attention_entropy(one_hot), torch.zeros(5), atol=1e-6)


def test_gradient_norms_flag_parameters_without_gradient():
    model = DigitModel()
    model(torch.zeros(2, 8))[0].sum().backward()
    norms = gradient_norms(model)
    assert all(norm == norm for norm in norms.values())  # no NaN: everything is connected
    fresh = gradient_norms(DigitModel())
    assert all(norm != norm for norm in fresh.values())  # no backward yet: all NaN
