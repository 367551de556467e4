"""Wrong solutions and correct variants of the exercises of chapter "Local attention": band-mask, sliding-window-cache.

The format and the categories: tests/unit/test_grader_mistakes.py.
"""

# ruff: noqa: E501 - the tables read best one solution per line

NO_HINT = None  # rejected, and no failing check claims a known mistake

# (category, exercise, text of the page's solution, the learner's text, words of the failure, or NO_HINT)
WRONG = [
    ("boundaries", "band-mask", "return (distance >= 0) & (distance < window)", "return (distance > 0) & (distance <= window)", "distance 0"),
    ("boundaries", "band-mask", "if causal:", "if True:", "centred"),
    ("boundaries", "sliding-window-cache", "self.length += key.size(-2)", "self.length += 1", "cache.length"),
    ("device", "band-mask", "position = torch.arange(length, device=device)", "position = torch.arange(length)", "device"),
    ("dtype", "band-mask", "return (distance >= 0) & (distance < window)", "return ((distance >= 0) & (distance < window)).int()", "boolean"),
    ("errors", "band-mask", "    check_counts(length=length, window=window)\n", "", "a window of 0"),
    ("hints", "band-mask", "return (distance >= 0) & (distance < window)", "return (distance < window)", "causal=True"),
    ("hints", "sliding-window-cache", "        return key, value\n", "        return self.keys, self.values\n", "dropping the oldest"),
    ("hints", "sliding-window-cache", "        self.values = value[..., -self.window :, :]\n", "        self.values = value\n", "cache.values"),
]  # fmt: skip

# (category, exercise, text of the page's solution, a correct solution written differently)
RIGHT = [
    ("written differently", "band-mask", "return (distance >= 0) & (distance < window)", "ones = torch.ones(length, length, dtype=torch.bool, device=device)\n        return ones.tril() & ~ones.tril(-window)"),
    ("sizes", "sliding-window-cache", "self.keys = key[..., -self.window :, :]", "self.keys = key[..., max(0, key.size(-2) - self.window) :, :]"),
]  # fmt: skip
