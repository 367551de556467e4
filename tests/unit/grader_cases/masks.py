"""Wrong solutions and correct variants of the exercises of chapter "Masks": causal-mask, padding-mask, flipped-mask.

The format and the categories: tests/unit/test_grader_mistakes.py.
"""

# ruff: noqa: E501 - the tables read best one solution per line

NO_HINT = None  # rejected, and no failing check claims a known mistake

# (category, exercise, text of the page's solution, the learner's text, words of the failure, or NO_HINT)
WRONG = [
    ("sizes", "causal-mask", "return torch.ones(seq_len, seq_len, dtype=torch.bool, device=device).tril()", "return torch.ones(8, 8, dtype=torch.bool, device=device).tril()[:seq_len, :seq_len]", "causal_mask(9)"),
    ("sizes", "padding-mask", "max_len = int(lengths.max()) if lengths.numel() else 0", "max_len = 6", "as long as the longest sequence"),
    ("boundaries", "causal-mask", "if seq_len < 1:", "if seq_len <= 1:", "seq_len"),
    ("boundaries", "padding-mask", "if (lengths > max_len).any():", "if (lengths >= max_len).any():", "ValueError"),
    ("boundaries", "padding-mask", "if (lengths < 0).any():", "if (lengths < 1).any():", "ValueError"),
    ("device", "causal-mask", "dtype=torch.bool, device=device).tril()", "dtype=torch.bool).tril()", "device"),
    ("dtype", "causal-mask", "dtype=torch.bool, device=device).tril()", "device=device).tril()", "boolean"),
    ("dtype", "padding-mask", "keep = positions[None, :] < lengths[:, None]", "keep = (positions[None, :] < lengths[:, None]).long()", "boolean"),
    ("errors", "causal-mask", "if seq_len < 1:", "if seq_len == 0:", "causal_mask(-3)"),
    ("errors", "padding-mask", "if (lengths < 0).any():", "if False:", "a negative length"),
    ("errors", "padding-mask", "if lengths.dim() != 1:", "if False:", "(2, 1)"),
    ("errors", "padding-mask", " or lengths.dtype == torch.bool", "", "boolean lengths"),
    ("sizes", "causal-mask", "return torch.ones(seq_len, seq_len, dtype=torch.bool, device=device).tril()", "return torch.ones(16, 16, dtype=torch.bool, device=device).tril()[:seq_len, :seq_len]", "causal_mask(40)"),
]  # fmt: skip

# (category, exercise, text of the page's solution, a correct solution written differently)
RIGHT = [
    ("sizes", "padding-mask", "keep = positions[None, :] < lengths[:, None]", "keep = positions.expand(len(lengths), -1) < lengths.unsqueeze(1)"),
    ("device", "causal-mask", "return torch.ones(seq_len, seq_len, dtype=torch.bool, device=device).tril()", "positions = torch.arange(seq_len, device=device)\n    return positions[:, None] >= positions[None, :]"),
    ("written differently", "causal-mask", "return torch.ones(seq_len, seq_len, dtype=torch.bool, device=device).tril()", "return torch.tril(torch.ones(seq_len, seq_len, device=device)).bool()"),
    ("written differently", "padding-mask", "keep = positions[None, :] < lengths[:, None]", "keep = torch.stack([positions < length for length in lengths])"),
]  # fmt: skip
