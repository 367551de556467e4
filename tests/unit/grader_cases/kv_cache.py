"""Wrong solutions and correct variants of the exercises of chapter "Generating fast, with a KV cache": kv-cache, cache-offset.

The format and the categories: tests/unit/test_grader_mistakes.py.
"""

# ruff: noqa: E501 - the tables read best one solution per line

NO_HINT = None  # rejected, and no failing check claims a known mistake

# (category, exercise, text of the page's solution, the learner's text, words of the failure, or NO_HINT)
WRONG = [
    ("boundaries", "kv-cache", "    n = tokens.size(1)\n", "    n = tokens.size(1)\n    if cache.length + n >= model.context:\n        raise ValueError('the tokens do not fit the context')\n", "exactly model.context tokens fit"),
    ("boundaries", "cache-offset", "    n = tokens.size(1)\n", "    n = tokens.size(1)\n    if cache.length + n >= model.context:\n        raise ValueError('the tokens do not fit the context')\n", "exactly model.context tokens fit"),
    ("device", "kv-cache", "causal_mask(t + n, device=tokens.device)", "causal_mask(t + n)", "device"),
    ("hints", "kv-cache", "positions = model.positions.table[offset : offset + n]", "positions = model.positions.table[offset : offset + n] * 0.5", NO_HINT),
]  # fmt: skip

# (category, exercise, text of the page's solution, a correct solution written differently)
RIGHT = [
    ("written differently", "kv-cache", "    n = tokens.size(1)\n", "    n = tokens.size(1)\n    if int(tokens.max()) >= model.output.out_features:  # reads a value: fine on a GPU, not on the meta device\n        raise ValueError('a token id is outside the vocabulary')\n"),
    ("device", "kv-cache", "allowed = None if n == 1 else causal_mask(t + n, device=tokens.device)[t:]", "allowed = torch.ones(n, t + n, dtype=torch.bool, device=tokens.device).tril(diagonal=t)"),
]  # fmt: skip
