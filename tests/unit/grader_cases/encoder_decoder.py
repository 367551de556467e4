"""Wrong solutions and correct variants of the exercises of chapter "Cross-attention and the encoder-decoder": shift-right, decoder-layer, decoder-sees-the-future, beam-search.

The format and the categories: tests/unit/test_grader_mistakes.py.
"""

# ruff: noqa: E501 - the tables read best one solution per line

NO_HINT = None  # rejected, and no failing check claims a known mistake

# (category, exercise, text of the page's solution, the learner's text, words of the failure, or NO_HINT)
WRONG = [
    ("sizes", "shift-right", "start = torch.full_like(target[:, :1], BOS)", "start = torch.full((2, 1), BOS)", "your code raised RuntimeError"),
    ("sizes", "decoder-sees-the-future", "causal_mask(T, device=target_input.device) if causal", "causal_mask(6, device=target_input.device) if causal", "(6, 6)"),
    ("sizes", "beam-search", "candidates.topk(min(beam_width, beams * V), dim=-1)", "candidates.topk(beam_width, dim=-1)", "min(beam_width, beams * V)"),
    ("sizes", "beam-search", "B = source.size(0)", "B = 6", "same batch size, got 6 and 1"),
    ("key and value", "decoder-layer", "self.cross_attention(x, memory, memory,", "self.cross_attention(x, x, x,", "mask"),
    ("LayerNorm and biases", "decoder-layer", "h = self.norm2(x)", "h = self.norm1(x)", "share norm1"),
    ("LayerNorm and biases", "decoder-layer", "x = self.norm3(x + self.dropout3(self.feed_forward(x)))", "x = self.norm2(x + self.dropout3(self.feed_forward(x)))", "share norm2"),
    ("LayerNorm and biases", "decoder-layer", "x = x + self.dropout3(self.feed_forward(self.norm3(x)))", "x = x + self.dropout3(self.feed_forward(self.norm1(x)))", "share norm1"),
    ("dropout", "decoder-layer", "x = x + self.dropout3(self.feed_forward(self.norm3(x)))", "x = x + self.feed_forward(self.norm3(x))", NO_HINT),
    ("dropout", "decoder-layer", "x = self.norm1(x + self.dropout1(out))\n            out, cross = self.cross_attention(x, memory, memory, mask=memory_mask)\n            x = self.norm2(x + self.dropout2(out))\n            x = self.norm3(x + self.dropout3(self.feed_forward(x)))", "x = self.norm1(x + out)\n            out, cross = self.cross_attention(x, memory, memory, mask=memory_mask)\n            x = self.norm2(x + out)\n            x = self.norm3(x + self.feed_forward(x))", "without its own Dropouts"),
    ("dtype", "shift-right", "start = torch.full_like(target[:, :1], BOS)", "start = torch.full((target.size(0), 1), float(BOS))", "torch.float32"),
    ("dtype", "shift-right", "start = torch.full_like(target[:, :1], BOS)", "start = torch.ones(target.size(0), 1) * BOS", "torch.float32"),
    ("device", "shift-right", "start = torch.full_like(target[:, :1], BOS)", "start = torch.full((target.size(0), 1), BOS)", "device"),
    ("device", "decoder-sees-the-future", "causal_mask(T, device=target_input.device)", "causal_mask(T)", "device"),
    ("in place", "shift-right", "return torch.cat([start, target[:, :-1]], dim=1)", "target[:, 1:] = target[:, :-1].clone()\n    target[:, 0] = BOS\n    return target", "in place"),
    ("in place", "decoder-layer", "x = x + self.dropout1(out)\n", "x += self.dropout1(out)\n", "in place"),
    ("gradients", "decoder-layer", "x = x + self.dropout3(self.feed_forward(self.norm3(x)))", "x = x + self.dropout3(self.feed_forward(self.norm3(x.detach())))", "backward() must reach"),
]  # fmt: skip

# (category, exercise, text of the page's solution, a correct solution written differently)
RIGHT = [
    ("modes", "decoder-layer", "x = x + self.dropout3(self.feed_forward(self.norm3(x)))", "x = x + self.dropout3(self.feed_forward(self.norm3(x)).double()).float()"),
    ("written differently", "decoder-layer", "x = self.norm1(x + self.dropout1(out))", "x = self.norm1(self.dropout1(out) + x)"),
    ("device", "shift-right", "start = torch.full_like(target[:, :1], BOS)", "start = torch.ones_like(target[:, :1]) * BOS"),
    ("in place", "shift-right", "return torch.cat([start, target[:, :-1]], dim=1)", "shifted = target.roll(1, dims=1)\n    shifted[:, 0] = BOS\n    return shifted"),
    ("device", "decoder-sees-the-future", "causal_mask(T, device=target_input.device) if causal", "torch.ones(T, T, dtype=torch.bool, device=target_input.device).tril() if causal"),
    ("written differently", "beam-search", "parent, token = best // V, best % V", "parent, token = torch.div(best, V, rounding_mode='floor'), best.remainder(V)"),
]  # fmt: skip
