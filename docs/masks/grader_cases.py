"""Wrong solutions and correct variants of the exercises of chapter "Masks": causal-mask, padding-mask, flipped-mask.

The format and the categories: tests/unit/test_grader_mistakes.py; the kinds each grader must catch: `applies`
on the exercise, in exercises.py beside this file.
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
    ("arguments", "causal-mask", "dtype=torch.bool, device=device).tril()", "dtype=torch.bool, device=None).tril()", "the device asked for"),
    ("arguments", "causal-mask", "dtype=torch.bool, device=device).tril()", 'dtype=torch.bool, device="cpu").tril()', "the device asked for"),
    ("arguments", "padding-mask", "    if max_len is None:\n        max_len = int(lengths.max()) if lengths.numel() else 0", "    max_len = int(lengths.max()) if lengths.numel() else 0", "max_len is ignored"),
    ("device", "padding-mask", "positions = torch.arange(max_len, device=lengths.device)", "positions = torch.arange(max_len)", "the inputs' device"),
    ("device", "padding-mask", "keep = positions[None, :] < lengths[:, None]", "keep = torch.tensor([[p < n for p in range(max_len)] for n in lengths.tolist()], dtype=torch.bool)", "the inputs' device"),
    ("in place", "padding-mask", "keep = positions[None, :] < lengths[:, None]", "keep = positions < lengths.unsqueeze_(1)", "in place"),
    ("in place", "padding-mask", "keep = positions[None, :] < lengths[:, None]", "keep = positions[None, :] <= lengths.sub_(1)[:, None]", "in place"),
]  # fmt: skip

# (category, exercise, text of the page's solution, a correct solution written differently)
RIGHT = [
    ("sizes", "padding-mask", "keep = positions[None, :] < lengths[:, None]", "keep = positions.expand(len(lengths), -1) < lengths.unsqueeze(1)"),
    ("device", "causal-mask", "return torch.ones(seq_len, seq_len, dtype=torch.bool, device=device).tril()", "positions = torch.arange(seq_len, device=device)\n    return positions[:, None] >= positions[None, :]"),
    ("written differently", "causal-mask", "return torch.ones(seq_len, seq_len, dtype=torch.bool, device=device).tril()", "return torch.tril(torch.ones(seq_len, seq_len, device=device)).bool()"),
    ("sizes", "causal-mask", "return torch.ones(seq_len, seq_len, dtype=torch.bool, device=device).tril()", "return torch.stack([torch.arange(seq_len, device=device) <= t for t in range(seq_len)])"),
    ("arguments", "causal-mask", "return torch.ones(seq_len, seq_len, dtype=torch.bool, device=device).tril()", "mask = torch.ones(seq_len, seq_len, dtype=torch.bool).tril()\n    return mask if device is None else mask.to(device)"),
    ("arguments", "padding-mask", "    if max_len is None:\n        max_len = int(lengths.max()) if lengths.numel() else 0", "    max_len = max(lengths.tolist(), default=0) if max_len is None else max_len"),
    ("device", "padding-mask", "positions = torch.arange(max_len, device=lengths.device)", "positions = torch.ones(max_len, dtype=torch.long, device=lengths.device).cumsum(0) - 1"),
    ("device", "padding-mask", "positions = torch.arange(max_len, device=lengths.device)", "positions = torch.arange(lengths.max() if max_len == int(lengths.max()) else max_len, device=lengths.device)  # an end that is a 0-d tensor on the lengths' device"),
    ("device", "padding-mask", "keep = positions[None, :] < lengths[:, None]", "keep = torch.stack([positions < length for length in lengths])"),
    ("in place", "padding-mask", "keep = positions[None, :] < lengths[:, None]", "keep = torch.zeros(len(lengths), max_len, dtype=torch.bool, device=lengths.device)\n    for i, n in enumerate(lengths.tolist()):\n        keep[i, :n] = True"),
    ("written differently", "padding-mask", "keep = positions[None, :] < lengths[:, None]", "keep = torch.stack([positions < length for length in lengths])"),
]  # fmt: skip
