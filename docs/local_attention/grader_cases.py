"""Wrong solutions and correct variants of the exercises of chapter "Local attention": band-mask, sliding-window-cache.

The format and the categories: tests/unit/test_grader_mistakes.py; the kinds each grader must catch: `applies`
on the exercise, in exercises.py beside this file.
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
    ("arguments", "band-mask", "causal: bool = True,", "causal: bool = False,", "causal defaults to True"),
    ("arguments", "band-mask", "if causal:", "if True:  # the causal band", "centred"),
    ("arguments", "band-mask", "position = torch.arange(length, device=device)", "position = torch.arange(length, device='cpu')", "device"),
    ("sizes", "band-mask", "position = torch.arange(length, device=device)", "position = torch.arange(8, device=device)[:length]", "band_mask(10, 1"),
    ("device", "sliding-window-cache", "        if self.keys is not None:\n            key = torch.cat([self.keys, key], dim=-2)  # (B, h, m + n, d_k)\n            value = torch.cat([self.values, value], dim=-2)\n", "        if self.keys is None:  # no positions yet\n            self.keys = torch.zeros(*key.shape[:-2], 0, key.size(-1))\n            self.values = torch.zeros(*value.shape[:-2], 0, value.size(-1))\n        key = torch.cat([self.keys, key], dim=-2)  # (B, h, m + n, d_k)\n        value = torch.cat([self.values, value], dim=-2)\n", "the inputs' device"),
    ("in place", "sliding-window-cache", "        if self.keys is not None:\n            key = torch.cat([self.keys, key], dim=-2)  # (B, h, m + n, d_k)\n            value = torch.cat([self.values, value], dim=-2)\n", "        n = key.size(-2)\n        if self.keys is not None and self.keys.size(-2) == self.window and n < self.window:  # full: slide in place\n            joined = torch.cat([self.keys, key], dim=-2), torch.cat([self.values, value], dim=-2)\n            self.keys[..., :-n, :] = self.keys[..., n:, :].clone()\n            self.keys[..., -n:, :] = key\n            self.values[..., :-n, :] = self.values[..., n:, :].clone()\n            self.values[..., -n:, :] = value\n            return joined\n        if self.keys is not None:\n            key = torch.cat([self.keys, key], dim=-2)  # (B, h, m + n, d_k)\n            value = torch.cat([self.values, value], dim=-2)\n", "a later append edited it in place"),
    ("in place", "sliding-window-cache", "self.length += key.size(-2)  # n new positions", "self.length += key.size(-2)  # n new positions\n        key, value = key.squeeze_(0), value.squeeze_(0)  # (h, n, d) for one sequence", "in place"),
]  # fmt: skip

# (category, exercise, text of the page's solution, a correct solution written differently)
RIGHT = [
    ("written differently", "band-mask", "return (distance >= 0) & (distance < window)", "ones = torch.ones(length, length, dtype=torch.bool, device=device)\n        return ones.tril() & ~ones.tril(-window)"),
    ("sizes", "sliding-window-cache", "self.keys = key[..., -self.window :, :]", "self.keys = key[..., max(0, key.size(-2) - self.window) :, :]"),
    ("arguments", "band-mask", "    if causal:\n        return (distance >= 0) & (distance < window)\n    return distance.abs() < window", "    band = distance.abs() < window\n    return band & (distance >= 0) if causal else band"),
    ("arguments", "band-mask", "position = torch.arange(length, device=device)", "position = torch.arange(length, device=torch.device(device) if device is not None else None)"),
    ("sizes", "band-mask", "distance = position[:, None] - position[None, :]", "distance = position.view(-1, 1) - position.view(1, -1)"),
    ("device", "band-mask", "position = torch.arange(length, device=device)", "position = torch.arange(length).to(device)"),
    ("device", "sliding-window-cache", "        if self.keys is not None:\n            key = torch.cat([self.keys, key], dim=-2)  # (B, h, m + n, d_k)\n            value = torch.cat([self.values, value], dim=-2)\n", "        if self.keys is None:  # no positions yet\n            self.keys = key.new_zeros(*key.shape[:-2], 0, key.size(-1))\n            self.values = value[..., :0, :]\n        key = torch.cat([self.keys, key], dim=-2)  # (B, h, m + n, d_k)\n        value = torch.cat([self.values, value], dim=-2)\n"),
    ("in place", "sliding-window-cache", "        if self.keys is not None:\n            key = torch.cat([self.keys, key], dim=-2)  # (B, h, m + n, d_k)\n            value = torch.cat([self.values, value], dim=-2)\n", "        n = key.size(-2)\n        if self.keys is not None and self.keys.size(-2) == self.window:\n            self.keys, self.values = self.keys.clone(), self.values.clone()  # the cache's own memory\n        if self.keys is not None and self.keys.size(-2) == self.window and n < self.window:  # full: slide in place\n            joined = torch.cat([self.keys, key], dim=-2), torch.cat([self.values, value], dim=-2)\n            self.keys[..., :-n, :] = self.keys[..., n:, :].clone()\n            self.keys[..., -n:, :] = key\n            self.values[..., :-n, :] = self.values[..., n:, :].clone()\n            self.values[..., -n:, :] = value\n            return joined\n        if self.keys is not None:\n            key = torch.cat([self.keys, key], dim=-2)  # (B, h, m + n, d_k)\n            value = torch.cat([self.values, value], dim=-2)\n"),
]  # fmt: skip
