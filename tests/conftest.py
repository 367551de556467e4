"""Shared test helpers. The largest difference seen against each PyTorch module is
printed at the end of the run, so a reader of the CI log sees how close "equal" is."""

import pytest
import torch

collect_ignore_glob = []

_LARGEST_DIFFERENCE: dict[str, float] = {}


@pytest.fixture
def assert_matches_torch():
    """Assert `ours` equals `theirs` within atol 1e-5 and record the difference under `reference`."""

    def check(reference: str, ours: torch.Tensor, theirs: torch.Tensor, atol: float = 1e-5) -> None:
        difference = (ours - theirs).abs().max().item() if ours.numel() else 0.0
        _LARGEST_DIFFERENCE[reference] = max(difference, _LARGEST_DIFFERENCE.get(reference, 0.0))
        torch.testing.assert_close(ours, theirs, atol=atol, rtol=0)

    return check


def pytest_terminal_summary(terminalreporter):
    if _LARGEST_DIFFERENCE:
        terminalreporter.section("largest difference against PyTorch (fp32)")
        for reference, difference in sorted(_LARGEST_DIFFERENCE.items()):
            terminalreporter.write_line(f"{reference}: {difference:.2e}")
