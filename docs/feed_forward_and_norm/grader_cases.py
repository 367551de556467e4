"""Wrong solutions and correct variants of the exercises of chapter "Feed-forward, residuals and LayerNorm": feed-forward, encoder-layer, dropout-on-the-residual.

The format and the categories: tests/unit/test_grader_mistakes.py; the kinds each grader must catch: `applies`
on the exercise, in exercises.py beside this file.
"""

# ruff: noqa: E501 - the tables read best one solution per line

NO_HINT = None  # rejected, and no failing check claims a known mistake

# (category, exercise, text of the page's solution, the learner's text, words of the failure, or NO_HINT)
WRONG = [
    ("LayerNorm and biases", "encoder-layer", "x = x + self.dropout2(self.feed_forward(self.norm2(x)))", "x = x + self.dropout2(self.feed_forward(self.norm1(x)))", "its own LayerNorm, norm2"),
    ("LayerNorm and biases", "encoder-layer", "x = self.norm2(x + self.dropout2(self.feed_forward(x)))", "x = self.norm1(x + self.dropout2(self.feed_forward(x)))", "its own LayerNorm, norm2"),
    ("LayerNorm and biases", "encoder-layer", "attended, weights = self.attention(self.norm1(x), mask=mask)", "attended, weights = self.attention(self.norm2(x), mask=mask)", "its own LayerNorm, norm1"),
    ("LayerNorm and biases", "feed-forward", "self.linear2(self.dropout(torch.relu(self.linear1(x))))", "self.dropout(torch.relu(x @ self.linear1.weight.T)) @ self.linear2.weight.T", NO_HINT),
    ("dropout", "feed-forward", "self.linear2(self.dropout(torch.relu(self.linear1(x))))", "self.linear2(torch.relu(self.linear1(x)))", "self.dropout"),
    ("dropout", "feed-forward", "self.linear2(self.dropout(torch.relu(self.linear1(x))))", "self.dropout(self.linear2(torch.relu(self.linear1(x))))", "not on the output"),
    ("dropout", "feed-forward", "self.linear2(self.dropout(torch.relu(self.linear1(x))))", "self.linear2(torch.relu(self.linear1(self.dropout(x))))", "not on the input"),
    ("dropout", "encoder-layer", "x = self.norm1(x + self.dropout1(attended))\n            x = self.norm2(x + self.dropout2(self.feed_forward(x)))", "x = self.norm1(x + attended)\n            x = self.norm2(x + self.feed_forward(x))", "without its own Dropouts"),
    ("dropout", "encoder-layer", "x = x + self.dropout1(attended)\n            x = x + self.dropout2(self.feed_forward(self.norm2(x)))", "x = x + attended\n            x = x + self.feed_forward(self.norm2(x))", "without its own Dropouts"),
    ("dropout", "encoder-layer", "x = self.norm1(x + self.dropout1(attended))", "x = self.norm1(self.dropout1(x + attended))", NO_HINT),
    ("dropout", "dropout-on-the-residual", "x = x + self.dropout2(self.feed_forward(self.norm2(x)))", "x = self.dropout2(x + self.feed_forward(self.norm2(x)))", "residual stream"),
    ("in place", "encoder-layer", "x = x + self.dropout1(attended)\n", "x += self.dropout1(attended)\n", "in place"),
    ("hints", "feed-forward", "self.linear2(self.dropout(torch.relu(self.linear1(x))))", "self.linear2(self.dropout(torch.nn.functional.gelu(self.linear1(x))))", "GELU"),
    ("hints", "feed-forward", "self.linear2(self.dropout(torch.relu(self.linear1(x))))", "torch.relu(self.linear2(self.dropout(self.linear1(x))))", "not after the second"),
    ("dropout", "feed-forward", "return self.linear2(self.dropout(torch.relu(self.linear1(x))))", "y = self.linear2(torch.relu(self.linear1(x)))\n        return y * (torch.rand_like(y) >= self.dropout.p) / (1 - self.dropout.p) if self.training else y", "over 2000 draws"),
    ("dropout", "encoder-layer", "x = x + self.dropout1(attended)\n", "x = x + attended\n            x = x * (torch.rand_like(x) >= self.dropout1.p) / (1 - self.dropout1.p) if self.training else x\n", "over 2000 draws"),
    ("dropout", "feed-forward", "return self.linear2(self.dropout(torch.relu(self.linear1(x))))", "y = self.linear2(self.dropout(torch.relu(self.linear1(x))))\n        return y * float('nan') if self.training else y", "NaN or inf"),
    ("device", "feed-forward", "return self.linear2(self.dropout(torch.relu(self.linear1(x))))", "return self.linear2(self.dropout(torch.relu(self.linear1(x)))) + torch.zeros(x.size(-1))", "the inputs' device"),
    ("device", "encoder-layer", "return x, weights  # (B, T, d_model), (B, h, T, T)", "return x + torch.zeros(x.size(-1)), weights", "the inputs' device"),
    ("modes", "encoder-layer", "x = x + self.dropout1(attended)\n", "x = x + torch.nn.functional.dropout(attended, self.dropout1.p, training=True)\n", "in eval mode"),
    ("gradients", "feed-forward", "torch.relu(self.linear1(x))", "torch.relu(self.linear1(x).detach())", "no gradient reaches"),
    ("modes", "feed-forward", "self.dropout(torch.relu(self.linear1(x)))", "nn.functional.dropout(torch.relu(self.linear1(x)), self.dropout.p, training=True)", "in eval mode"),
    ("sizes", "feed-forward", "return self.linear2(self.dropout(torch.relu(self.linear1(x))))", "return torch.stack([self.linear2(self.dropout(torch.relu(self.linear1(x[:, t])))) for t in range(5)], dim=1)", "shape (1, 5, 6)"),
    ("sizes", "feed-forward", "return self.linear2(self.dropout(torch.relu(self.linear1(x))))", "return self.linear2(self.dropout(torch.relu(self.linear1(x.reshape(2 * 5, 8))))).view(2, 5, 8)", "[10, 8]"),
    ("device", "feed-forward", "return self.linear2(self.dropout(torch.relu(self.linear1(x))))", "h = torch.relu(self.linear1(x))\n        if self.training:\n            h = h * (torch.rand(h.shape) >= self.dropout.p) / (1 - self.dropout.p)\n        return self.linear2(h)", "the inputs' device"),
    ("in place", "feed-forward", "return self.linear2(self.dropout(torch.relu(self.linear1(x))))", "x += self.linear2(self.dropout(torch.relu(self.linear1(x))))\n        return x", "in place"),
    ("in place", "feed-forward", "torch.relu(self.linear1(x))", "self.linear1(x.relu_())", "in place"),
    ("sizes", "encoder-layer", "x = self.norm1(x + self.dropout1(attended))", "x = nn.functional.layer_norm(x + self.dropout1(attended), (16,), self.norm1.weight, self.norm1.bias)", "normalized_shape = [16]"),
    ("sizes", "encoder-layer", "mask = merge_masks(mask, key_is_real, x, x)", "if key_is_real is not None:\n            padding = key_is_real.view(2, 1, 1, -1)\n            mask = padding if mask is None else mask & padding", "[2, 1, 1, -1]"),
    ("arguments", "encoder-layer", "mask = merge_masks(mask, key_is_real, x, x)", "", "key_is_real is ignored"),
    ("arguments", "encoder-layer", "mask = merge_masks(mask, key_is_real, x, x)", "mask = merge_masks(mask, None, x, x)", "key_is_real is ignored"),
    ("arguments", "encoder-layer", "mask = merge_masks(mask, key_is_real, x, x)", "mask = mask if key_is_real is None else merge_masks(None, key_is_real, x, x)", "the mask is ignored when key_is_real is given"),
    ("gradients", "encoder-layer", "x = x + self.dropout1(attended)\n", "x = x + self.dropout1(attended.detach())\n", "backward() must reach"),
    ("gradients", "encoder-layer", "x = self.norm2(x + self.dropout2(self.feed_forward(x)))", "x = self.norm2(x + self.dropout2(self.feed_forward(x.detach())))", "backward() must reach"),
    ("device", "encoder-layer", "x = x + self.dropout1(attended)\n", "x = x + (attended * (torch.rand(attended.shape) >= self.dropout1.p) / (1 - self.dropout1.p) if self.training else attended)\n", "the inputs' device"),
]  # fmt: skip

# (category, exercise, text of the page's solution, a correct solution written differently)
RIGHT = [
    ("modes", "feed-forward", "return self.linear2(self.dropout(torch.relu(self.linear1(x))))", "h = torch.relu(self.linear1(x))\n        if self.training:\n            h = h * torch.bernoulli(torch.full_like(h, 1 - self.dropout.p)) / (1 - self.dropout.p)\n        return self.linear2(h)"),
    ("modes", "encoder-layer", "x = x + self.dropout1(attended)\n", "x = x + (attended * (torch.rand_like(attended) >= self.dropout1.p) / (1 - self.dropout1.p) if self.training else attended)\n"),
    ("modes", "feed-forward", "self.linear2(self.dropout(torch.relu(self.linear1(x))))", "self.linear2(torch.relu(self.dropout(self.linear1(x))))"),
    ("written differently", "feed-forward", "self.linear2(self.dropout(torch.relu(self.linear1(x))))", "self.linear2(self.dropout(self.linear1(x).clamp(min=0)))"),
    ("written differently", "encoder-layer", "x = x + self.dropout1(attended)\n            x = x + self.dropout2(self.feed_forward(self.norm2(x)))", "residual = x + self.dropout1(attended)\n            x = residual + self.dropout2(self.feed_forward(self.norm2(residual)))"),
    ("written differently", "encoder-layer", "x = self.norm1(x + self.dropout1(attended))", "x = self.norm1(self.dropout1(attended) + x)"),
    ("sizes", "feed-forward", "return self.linear2(self.dropout(torch.relu(self.linear1(x))))", "return torch.stack([self.linear2(self.dropout(torch.relu(self.linear1(x[:, t])))) for t in range(x.size(1))], dim=1)"),
    ("sizes", "feed-forward", "return self.linear2(self.dropout(torch.relu(self.linear1(x))))", "flat = x.reshape(-1, x.size(-1))\n        return self.linear2(self.dropout(torch.relu(self.linear1(flat)))).view(*x.shape[:-1], -1)"),
    ("gradients", "feed-forward", "return self.linear2(self.dropout(torch.relu(self.linear1(x))))", "h = self.linear1(x)\n        return self.linear2(self.dropout(h * (h > 0)))"),
    ("device", "feed-forward", "return self.linear2(self.dropout(torch.relu(self.linear1(x))))", "h = self.linear1(x)\n        return self.linear2(self.dropout(torch.maximum(h, torch.zeros_like(h))))"),
    ("device", "feed-forward", "return self.linear2(self.dropout(torch.relu(self.linear1(x))))", "h = torch.relu(self.linear1(x))\n        if self.training:\n            h = h * (torch.rand(h.shape, device=h.device) >= self.dropout.p) / (1 - self.dropout.p)\n        return self.linear2(h)"),
    ("in place", "feed-forward", "torch.relu(self.linear1(x))", "self.linear1(x).relu_()"),
    ("sizes", "encoder-layer", "x = self.norm1(x + self.dropout1(attended))", "x = nn.functional.layer_norm(x + self.dropout1(attended), x.shape[-1:], self.norm1.weight, self.norm1.bias, self.norm1.eps)"),
    ("sizes", "encoder-layer", "mask = merge_masks(mask, key_is_real, x, x)", "if key_is_real is not None:\n            padding = key_is_real.view(x.size(0), 1, 1, -1)\n            mask = padding if mask is None else mask & padding"),
    ("arguments", "encoder-layer", "mask = merge_masks(mask, key_is_real, x, x)", "if key_is_real is not None:\n            padding = key_is_real[:, None, None, :]\n            mask = padding if mask is None else mask & padding"),
    ("gradients", "encoder-layer", "attended, weights = self.attention(self.norm1(x), mask=mask)", "normed = nn.functional.layer_norm(x, (x.size(-1),), self.norm1.weight, self.norm1.bias, self.norm1.eps)\n            attended, weights = self.attention(normed, mask=mask)"),
    ("device", "encoder-layer", "x = x + self.dropout1(attended)\n", "x = x + (attended * (torch.rand(attended.shape, device=attended.device) >= self.dropout1.p) / (1 - self.dropout1.p) if self.training else attended)\n"),
    ("in place", "encoder-layer", "x = x + self.dropout1(attended)\n", "x = x.clone()\n            x += self.dropout1(attended)\n"),
]  # fmt: skip
