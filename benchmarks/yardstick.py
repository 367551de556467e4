"""This machine's speed, as one number: seconds for 500 Adam steps of a small nn.TransformerEncoder on one thread.

Build and test times are compared as ratios to it, measured in the same run, because machines differ by 2x and a
busy machine by more. It uses PyTorch's own modules only, so it does not change when the project's code changes.
It is the team's shared yardstick, kept here so the repository needs nothing beside it; tests/site/test_repository.py
checks that its function stays the shared one's where that file is present.

    python benchmarks/yardstick.py          # prints the seconds, e.g. 2.15
"""

import time

import torch
from torch import nn


def yardstick(steps: int = 500) -> float:
    torch.set_num_threads(1)
    torch.manual_seed(0)
    layer = nn.TransformerEncoderLayer(32, 4, 64, 0.1, batch_first=True)
    model = nn.Sequential(nn.Linear(1, 32), nn.TransformerEncoder(layer, 2, enable_nested_tensor=False))
    head = nn.Linear(32, 1)
    opt = torch.optim.Adam(list(model.parameters()) + list(head.parameters()), 1e-3)
    start = time.perf_counter()
    for _ in range(steps):
        x = torch.randint(0, 10, (64, 8)).float()
        y = head(model(x.unsqueeze(-1)).mean(1)).squeeze(-1)
        loss = ((y - x.sum(1) / 10) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    return time.perf_counter() - start


if __name__ == "__main__":
    print(f"{yardstick():.2f}")
