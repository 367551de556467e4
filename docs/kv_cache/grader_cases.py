"""Wrong solutions and correct variants of the exercises of chapter "Generating fast, with a KV cache": kv-cache, cache-offset.

The format and the categories: tests/unit/test_grader_mistakes.py; the kinds each grader must catch: `applies`
on the exercise, in exercises.py beside this file.
"""

# ruff: noqa: E501 - the tables read best one solution per line

NO_HINT = None  # rejected, and no failing check claims a known mistake

# (category, exercise, text of the page's solution, the learner's text, words of the failure, or NO_HINT)
WRONG = [
    ("boundaries", "kv-cache", "    n = tokens.size(1)\n", "    n = tokens.size(1)\n    if cache.length + n >= model.context:\n        raise ValueError('the tokens do not fit the context')\n", "exactly model.context tokens fit"),
    ("boundaries", "cache-offset", "    n = tokens.size(1)\n", "    n = tokens.size(1)\n    if cache.length + n >= model.context:\n        raise ValueError('the tokens do not fit the context')\n", "exactly model.context tokens fit"),
    ("device", "kv-cache", "causal_mask(t + n, device=tokens.device)", "causal_mask(t + n)", "device"),
    ("hints", "kv-cache", "positions = model.positions.table[offset : offset + n]", "positions = model.positions.table[offset : offset + n] * 0.5", NO_HINT),
    ("arguments", "kv-cache", "offset = cache.length if position_offset is None else position_offset", "offset = cache.length", "position_offset was not used"),
    ("arguments", "kv-cache", "offset = cache.length if position_offset is None else position_offset", "offset = position_offset or cache.length", "position_offset is None"),
    ("modes", "kv-cache", "@in_eval_mode  # dropout off; the caller's mode restored\n@torch.no_grad()", "@torch.no_grad()", "dropout acted"),
    ("modes", "kv-cache", "@in_eval_mode  # dropout off; the caller's mode restored\n@torch.no_grad()\ndef forward_with_cache(\n    model: CharTransformer,\n    tokens: torch.Tensor,\n    cache: KVCache,\n    position_offset: int | None = None,\n) -> torch.Tensor:\n", "@torch.no_grad()\ndef forward_with_cache(\n    model: CharTransformer,\n    tokens: torch.Tensor,\n    cache: KVCache,\n    position_offset: int | None = None,\n) -> torch.Tensor:\n    model.eval()  # dropout off\n", "left it in eval mode"),
    ("modes", "kv-cache", "@in_eval_mode  # dropout off; the caller's mode restored\n@torch.no_grad()\ndef forward_with_cache(\n    model: CharTransformer,\n    tokens: torch.Tensor,\n    cache: KVCache,\n    position_offset: int | None = None,\n) -> torch.Tensor:\n", "@torch.no_grad()\ndef forward_with_cache(\n    model: CharTransformer,\n    tokens: torch.Tensor,\n    cache: KVCache,\n    position_offset: int | None = None,\n) -> torch.Tensor:\n    model.eval()  # dropout off\n    try:\n        return _forward(model, tokens, cache, position_offset)\n    finally:\n        model.train()\n\n\ndef _forward(model, tokens, cache, position_offset):\n", "model.train(was_training)"),
    ("in place", "kv-cache", "positions = model.positions.table[offset : offset + n]\n    x = model.embedding(tokens) + positions", "model.positions.table.data = model.positions.table.roll(-offset, dims=0)  # row 0: the offset's\n    x = model.positions(model.embedding(tokens))", "in place"),
    ("sizes", "kv-cache", "Q = split_heads(attention.W_Q(h), attention.num_heads)\n        K = split_heads(attention.W_K(h), attention.num_heads)\n        V = split_heads(attention.W_V(h), attention.num_heads)", "Q, K, V = (w(h).view(2, n, attention.num_heads, -1).transpose(1, 2) for w in (attention.W_Q, attention.W_K, attention.W_V))", "RuntimeError"),
]  # fmt: skip

# (category, exercise, text of the page's solution, a correct solution written differently)
RIGHT = [
    ("written differently", "kv-cache", "    n = tokens.size(1)\n", "    n = tokens.size(1)\n    if int(tokens.max()) >= model.output.out_features:  # reads a value: fine on a GPU, not on the meta device\n        raise ValueError('a token id is outside the vocabulary')\n"),
    ("device", "kv-cache", "allowed = None if n == 1 else causal_mask(t + n, device=tokens.device)[t:]", "allowed = torch.ones(n, t + n, dtype=torch.bool, device=tokens.device).tril(diagonal=t)"),
    ("arguments", "kv-cache", "offset = cache.length if position_offset is None else position_offset", "if position_offset is not None:\n        offset = position_offset\n    else:\n        offset = cache.length"),
    ("modes", "kv-cache", "@in_eval_mode  # dropout off; the caller's mode restored\n@torch.no_grad()", "def _evaluating(function):\n    def run(model, *args, **kwargs):\n        was_training = model.training\n        model.eval()  # dropout off\n        try:\n            return function(model, *args, **kwargs)\n        finally:\n            model.train(was_training)  # the caller's mode back\n\n    return run\n\n\n@_evaluating\n@torch.no_grad()"),
    ("in place", "kv-cache", "x = model.embedding(tokens) + positions", "x = model.embedding(tokens)\n    x += positions  # edits the new embeddings, not the model's table"),
    ("sizes", "kv-cache", "Q = split_heads(attention.W_Q(h), attention.num_heads)\n        K = split_heads(attention.W_K(h), attention.num_heads)\n        V = split_heads(attention.W_V(h), attention.num_heads)", "Q, K, V = (w(h).view(*h.shape[:-1], attention.num_heads, -1).transpose(1, 2) for w in (attention.W_Q, attention.W_K, attention.W_V))"),
    ("sizes", "kv-cache", "n = tokens.size(1)", "n = tokens.shape[-1]"),
]  # fmt: skip
