"""Wrong solutions and correct variants of the exercises of chapter "Cross-attention and the encoder-decoder": shift-right, decoder-layer, decoder-sees-the-future, beam-search.

The format and the categories: tests/unit/test_grader_mistakes.py; the kinds each grader must catch: `applies`
on the exercise, in exercises.py beside this file.
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
    ("sizes", "decoder-layer", "x = x + self.dropout1(out)\n", "x = x + self.dropout1(out).view(2, -1, 16)\n", "is invalid for input of size"),
    ("sizes", "decoder-layer", "x = self.norm3(x + self.dropout3(self.feed_forward(x)))", "h = x + self.dropout3(self.feed_forward(x))\n            x = torch.nn.functional.layer_norm(h, (16,), self.norm3.weight, self.norm3.bias, self.norm3.eps)", "normalized_shape = [16]"),
    ("sizes", "decoder-sees-the-future", "causal_mask(T, device=target_input.device) if causal", "causal_mask(8, device=target_input.device)[:T, :T] if causal", "got shape (8, 8)"),
    ("sizes", "beam-search", "sources = source.repeat_interleave(beams, dim=0)", "sources = source.repeat_interleave(beams, dim=0).view(B * beams, 8)", "is invalid for input of size"),
    ("arguments", "decoder-layer", "target_mask = merge_masks(target_mask, target_is_real, x, x)\n        memory_mask = merge_masks(memory_mask, memory_is_real, x, memory)\n        if", "if", "neither target_is_real nor memory_is_real reaches"),
    ("arguments", "decoder-layer", "memory_mask = merge_masks(memory_mask, memory_is_real, x, memory)\n        if", "if", "memory_is_real does not reach the cross-attention"),
    ("arguments", "decoder-layer", "target_mask = merge_masks(target_mask, target_is_real, x, x)\n        memory_mask", "memory_mask", "target_is_real does not reach the self-attention"),
    ("arguments", "decoder-layer", "target_mask = merge_masks(target_mask, target_is_real, x, x)", "if target_is_real is not None:\n            target_mask = target_is_real[:, None, None, :]", "target_is_real replaced the causal target_mask"),
    ("arguments", "decoder-layer", "memory_mask = merge_masks(memory_mask, memory_is_real, x, memory)", "if memory_is_real is not None:\n            memory_mask = memory_is_real[:, None, None, :]", "memory_is_real replaced memory_mask"),
    ("device", "decoder-layer", "x = x + self.dropout3(self.feed_forward(self.norm3(x)))", "out = self.feed_forward(self.norm3(x))\n            if self.training:\n                p = self.dropout3.p\n                out = out * (torch.rand(out.shape) >= p) / (1 - p)\n            x = x + out", "the inputs' device"),
    ("device", "decoder-layer", "target_mask = merge_masks(target_mask, target_is_real, x, x)", "if target_is_real is not None:\n            target_mask = merge_masks(target_mask if target_mask is not None else torch.ones(x.size(1), x.size(1), dtype=torch.bool), target_is_real, x, x)", "the inputs' device"),
    ("modes", "beam-search", "@in_eval_mode\n@torch.no_grad()", "@torch.no_grad()", "dropout on"),
    ("modes", "beam-search", "@in_eval_mode\n@torch.no_grad()\ndef beam_search(", "def beam_search(model, source, length, beam_width):\n    model.eval()\n    return _beam_search(model, source, length, beam_width)\n\n\n@torch.no_grad()\ndef _beam_search(", "gave the model back in eval mode"),
    ("modes", "beam-search", "@in_eval_mode\n@torch.no_grad()\ndef beam_search(", "def beam_search(model, source, length, beam_width):\n    model.eval()\n    tokens = _beam_search(model, source, length, beam_width)\n    model.train()\n    return tokens\n\n\n@torch.no_grad()\ndef _beam_search(", "gave the model back in training mode"),
    ("device", "beam-search", "scores = torch.zeros(B, 1, device=source.device)", "scores = torch.zeros(B, 1)", "the inputs' device"),
    ("device", "beam-search", "drafts = source.new_full((B, 1, 1), BOS)", "drafts = torch.full((B, 1, 1), BOS)", "the inputs' device"),
    ("in place", "beam-search", "drafts = source.new_full((B, 1, 1), BOS)", "drafts = source[:, :1].fill_(BOS).unsqueeze(1)", "in place"),
]  # fmt: skip

# (category, exercise, text of the page's solution, a correct solution written differently)
RIGHT = [
    ("modes", "decoder-layer", "x = x + self.dropout3(self.feed_forward(self.norm3(x)))", "x = x + self.dropout3(self.feed_forward(self.norm3(x)).double()).float()"),
    ("written differently", "decoder-layer", "x = self.norm1(x + self.dropout1(out))", "x = self.norm1(self.dropout1(out) + x)"),
    ("device", "shift-right", "start = torch.full_like(target[:, :1], BOS)", "start = torch.ones_like(target[:, :1]) * BOS"),
    ("in place", "shift-right", "return torch.cat([start, target[:, :-1]], dim=1)", "shifted = target.roll(1, dims=1)\n    shifted[:, 0] = BOS\n    return shifted"),
    ("device", "decoder-sees-the-future", "causal_mask(T, device=target_input.device) if causal", "torch.ones(T, T, dtype=torch.bool, device=target_input.device).tril() if causal"),
    ("written differently", "beam-search", "parent, token = best // V, best % V", "parent, token = torch.div(best, V, rounding_mode='floor'), best.remainder(V)"),
    ("sizes", "shift-right", "start = torch.full_like(target[:, :1], BOS)", "start = target.new_full((len(target), 1), BOS)"),
    ("sizes", "shift-right", "return torch.cat([start, target[:, :-1]], dim=1)", "return torch.cat([start, target[:, : target.size(1) - 1]], dim=1)"),
    ("sizes", "decoder-layer", "x = self.norm3(x + self.dropout3(self.feed_forward(x)))", "h = x + self.dropout3(self.feed_forward(x))\n            x = torch.nn.functional.layer_norm(h, h.shape[-1:], self.norm3.weight, self.norm3.bias, self.norm3.eps)"),
    ("sizes", "decoder-sees-the-future", "T = target_input.size(1)", "T = target_input.shape[-1]"),
    ("sizes", "beam-search", "B = source.size(0)", "B = len(source)"),
    ("sizes", "beam-search", "log_p = logits[:, -1].log_softmax(dim=-1).view(B, beams, -1)", "log_p = logits[:, -1].log_softmax(dim=-1).unflatten(0, (B, beams))"),
    ("arguments", "decoder-layer", "target_mask = merge_masks(target_mask, target_is_real, x, x)\n        memory_mask = merge_masks(memory_mask, memory_is_real, x, memory)\n        if self.norm_first:\n            h = self.norm1(x)\n            out, self_weights = self.self_attention(h, mask=target_mask)\n            x = x + self.dropout1(out)\n            h = self.norm2(x)\n            out, cross = self.cross_attention(h, memory, memory, mask=memory_mask)\n            x = x + self.dropout2(out)\n            x = x + self.dropout3(self.feed_forward(self.norm3(x)))\n        else:\n            out, self_weights = self.self_attention(x, mask=target_mask)\n            x = self.norm1(x + self.dropout1(out))\n            out, cross = self.cross_attention(x, memory, memory, mask=memory_mask)\n            x = self.norm2(x + self.dropout2(out))\n            x = self.norm3(x + self.dropout3(self.feed_forward(x)))\n", "if self.norm_first:\n            h = self.norm1(x)\n            out, self_weights = self.self_attention(h, mask=target_mask, key_is_real=target_is_real)\n            x = x + self.dropout1(out)\n            h = self.norm2(x)\n            out, cross = self.cross_attention(h, memory, memory, mask=memory_mask, key_is_real=memory_is_real)\n            x = x + self.dropout2(out)\n            x = x + self.dropout3(self.feed_forward(self.norm3(x)))\n        else:\n            out, self_weights = self.self_attention(x, mask=target_mask, key_is_real=target_is_real)\n            x = self.norm1(x + self.dropout1(out))\n            out, cross = self.cross_attention(x, memory, memory, mask=memory_mask, key_is_real=memory_is_real)\n            x = self.norm2(x + self.dropout2(out))\n            x = self.norm3(x + self.dropout3(self.feed_forward(x)))\n"),
    ("arguments", "decoder-layer", "target_mask = merge_masks(target_mask, target_is_real, x, x)\n        memory_mask = merge_masks(memory_mask, memory_is_real, x, memory)\n        if", "if target_is_real is not None:\n            target_mask = merge_masks(mask=target_mask, key_is_real=target_is_real, query=x, key=x)\n        if memory_is_real is not None:\n            memory_mask = merge_masks(mask=memory_mask, key_is_real=memory_is_real, query=x, key=memory)\n        if"),
    ("gradients", "decoder-layer", "x = self.norm3(x + self.dropout3(self.feed_forward(x)))", "h = x + self.dropout3(self.feed_forward(x))\n            mean, var = h.mean(-1, keepdim=True), h.var(-1, keepdim=True, unbiased=False)\n            x = (h - mean) * torch.rsqrt(var + self.norm3.eps) * self.norm3.weight + self.norm3.bias"),
    ("modes", "decoder-layer", "x = x + self.dropout3(self.feed_forward(self.norm3(x)))", "out = self.feed_forward(self.norm3(x))\n            if self.training:\n                p = self.dropout3.p\n                out = out * (torch.rand_like(out) >= p) / (1 - p)\n            x = x + out"),
    ("device", "decoder-layer", "x = x + self.dropout3(self.feed_forward(self.norm3(x)))", "out = self.feed_forward(self.norm3(x))\n            if self.training:\n                p = self.dropout3.p\n                out = out * (torch.rand(out.shape, device=out.device) >= p) / (1 - p)\n            x = x + out"),
    ("in place", "decoder-layer", "x = x + self.dropout1(out)\n", "x = x.clone()\n            x += self.dropout1(out)\n"),
    ("modes", "beam-search", "@in_eval_mode\n@torch.no_grad()\ndef beam_search(", "def beam_search(model, source, length, beam_width):\n    was = model.training\n    model.eval()\n    try:\n        return _beam_search(model, source, length, beam_width)\n    finally:\n        model.train(was)\n\n\n@torch.no_grad()\ndef _beam_search("),
    ("device", "beam-search", "scores = torch.zeros(B, 1, device=source.device)", "scores = source.new_zeros(B, 1, dtype=torch.float)"),
    ("device", "beam-search", "drafts = source.new_full((B, 1, 1), BOS)", "drafts = torch.full((B, 1, 1), BOS, device=source.device)"),
    ("in place", "beam-search", "drafts = source.new_full((B, 1, 1), BOS)", "drafts = source[:, :1].clone().fill_(BOS).unsqueeze(1)"),
]  # fmt: skip
