"""The troubleshooting table's parts and the debugging tools. Whether each row's broken variant shows its symptom
and its fix removes it is checked where the build runs them all (docs/troubleshooting/checks.py), and read back
from that run in tests/site/test_troubleshooting_run.py: running them again here would repeat a minute of work."""

import torch

from tutorial_code.debugging import attention_entropy, gradient_norms, print_shapes
from tutorial_code.digit_model import DigitModel
from tutorial_code.troubleshooting import PROBLEMS, markdown_table, measure


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
