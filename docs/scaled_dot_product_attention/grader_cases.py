"""Wrong solutions and correct variants of the exercises of chapter "Scaled dot-product attention": scaled-dot-product-attention, attention-too-sharp, attention-wrong-axis, self-attention, shared-projection.

The format and the categories: tests/unit/test_grader_mistakes.py; the kinds each grader must catch: `applies`
on the exercise, in exercises.py beside this file.
"""

# ruff: noqa: E501 - the tables read best one solution per line

NO_HINT = None  # rejected, and no failing check claims a known mistake

# (category, exercise, text of the page's solution, the learner's text, words of the failure, or NO_HINT)
WRONG = [
    ('gradients', 'scaled-dot-product-attention', '        if mask.dtype == torch.bool:\n            scores = scores.masked_fill(~mask, float("-inf"))\n        else:\n            scores = scores + mask\n        # A row with every key blocked is all -inf, and softmax would make it\n        # NaN (0 / 0). Define it as "attend to nothing": zero weights, zero\n        # output.\n        # (..., T_q, 1)\n        no_key = torch.isneginf(scores).all(dim=-1, keepdim=True)\n        scores = scores.masked_fill(no_key, 0.0)\n    weights = torch.softmax(scores, dim=-1)  # (..., T_q, T_k)\n    if mask is not None:\n        weights = weights.masked_fill(no_key, 0.0)', '        if mask.dtype == torch.bool:\n            mask = torch.zeros(mask.shape, dtype=scores.dtype, device=scores.device).masked_fill(~mask, float("-inf"))\n        scores = scores + mask\n    weights = torch.softmax(scores, dim=-1).nan_to_num(0.0)  # a row of -inf gives NaN: make it 0', 'change the scores of a row with no key before the softmax'),
    ("sizes", "scaled-dot-product-attention", "/ math.sqrt(d_k)", "/ 4.0", "compute the scale from the inputs"),
    ("sizes", "scaled-dot-product-attention", "/ math.sqrt(d_k)", "/ math.sqrt(16)", "compute the scale from the inputs"),
    ("sizes", "scaled-dot-product-attention", "d_k = query.size(-1)", "d_k = 16", "compute the scale from the inputs"),
    ("sizes", "attention-too-sharp", "/ math.sqrt(d_k)", "/ 4", "compute the scale from the inputs"),
    ("key and value", "scaled-dot-product-attention", "output = weights @ value", "output = weights @ key", "shape"),
    ("key and value", "self-attention", "self.W_K(x), self.W_V(x), mask)", "self.W_K(x), self.W_K(x), mask)", "W_V"),
    ("dropout", "scaled-dot-product-attention", "weights = torch.nn.functional.dropout(weights, p=dropout_p)", "weights = torch.nn.functional.dropout(weights, p=dropout_p, training=False)", "dropout_p is ignored"),
    ("dropout", "scaled-dot-product-attention", "    if dropout_p > 0:\n        weights = torch.nn.functional.dropout(weights, p=dropout_p)\n    output = weights @ value", "    output = weights @ value\n    if dropout_p > 0:\n        output = torch.nn.functional.dropout(output, p=dropout_p)", "not on the output"),
    ("dropout", "scaled-dot-product-attention", "(weights, p=dropout_p)", "(weights, p=1 - dropout_p)", "not of keeping it"),
    ("dtype", "scaled-dot-product-attention", "output = weights @ value", "output = weights.double() @ value.double()", "float64"),
    ("errors", "scaled-dot-product-attention", "    check_attention_inputs(query, key, value)\n", "", "expected ValueError"),
    ("errors", "scaled-dot-product-attention", "        check_attention_mask(mask, scores.shape)\n", "", "an integer mask"),
    ("in place", "scaled-dot-product-attention", "scores = query @ key.transpose(-2, -1) / math.sqrt(d_k)", "scores = query.div_(math.sqrt(d_k)) @ key.transpose(-2, -1)", "in place"),
    ("hints", "scaled-dot-product-attention", 'masked_fill(~mask, float("-inf"))', "masked_fill(mask, -1e9)", "'may attend'"),
    ("hints", "scaled-dot-product-attention", "scores = scores + mask", "scores = scores * mask", "not multiplied"),
    ("hints", "scaled-dot-product-attention", "scores = scores + mask", "scores = scores", "no mask at all"),
    ("hints", "scaled-dot-product-attention", "scores = scores + mask", "scores = (scores * math.sqrt(d_k) + mask) / math.sqrt(d_k)", "after the scaling"),
    ("hints", "scaled-dot-product-attention", 'if mask.dtype == torch.bool:\n            scores = scores.masked_fill(~mask, float("-inf"))', 'if True:\n            scores = scores.masked_fill(~mask.bool(), float("-inf"))', "reads the float mask as a boolean one"),  # once the grader's float mask had no zero, and this read as "no mask at all"
    ("hints", "scaled-dot-product-attention", "no_key = torch.isneginf(scores).all(dim=-1, keepdim=True)", "no_key = (~mask).all(dim=-1, keepdim=True) if mask.dtype == torch.bool else torch.zeros_like(scores[..., :1], dtype=torch.bool)", "NaN"),
    ("hints", "scaled-dot-product-attention", "scores = query @ key.transpose(-2, -1) / math.sqrt(d_k)", "scores = query @ key.transpose(-2, -1) / math.sqrt(d_k) / 2", "divided by 8"),
    ("dropout", "scaled-dot-product-attention", "weights = torch.nn.functional.dropout(weights, p=dropout_p)", "weights = weights * (torch.rand_like(weights) >= dropout_p)", "over 2000 draws"),
    ("dropout", "scaled-dot-product-attention", "weights = torch.nn.functional.dropout(weights, p=dropout_p)", "weights = weights * (torch.rand_like(weights) < dropout_p) / dropout_p", "over 2000 draws"),
    ("device", "scaled-dot-product-attention", "scores = query @ key.transpose(-2, -1) / math.sqrt(d_k)", "scores = query @ key.transpose(-2, -1) / torch.tensor([d_k]).sqrt()", "the inputs' device"),
    ("gradients", "scaled-dot-product-attention", "output = weights @ value", "output = weights.detach() @ value", "backward() must reach"),
    ("gradients", "scaled-dot-product-attention", "weights = weights.masked_fill(no_key, 0.0)", "weights.masked_fill_(no_key, 0.0)", "backward() must reach"),
    ("sizes", "self-attention", "return scaled_dot_product_attention(self.W_Q(x), self.W_K(x), self.W_V(x), mask)", "query, key, value = self.W_Q(x), self.W_K(x), self.W_V(x)\n        scores = query @ key.transpose(-2, -1) / 2\n        if mask is not None:\n            scores = scores.masked_fill(~mask, float(\"-inf\"))\n        weights = torch.softmax(scores, dim=-1)\n        return weights @ value, weights", "compute the scale from the inputs"),
    ("sizes", "self-attention", "return scaled_dot_product_attention(self.W_Q(x), self.W_K(x), self.W_V(x), mask)", "query, key, value = self.W_Q(x), self.W_K(x), self.W_V(x)\n        scores = query @ key.transpose(-2, -1) / math.sqrt(self.d_model)\n        if mask is not None:\n            scores = scores.masked_fill(~mask, float(\"-inf\"))\n        weights = torch.softmax(scores, dim=-1)\n        return weights @ value, weights", "divided by sqrt(d_model)"),
    ("arguments", "self-attention", "self.W_V(x), mask)", "self.W_V(x))", "the mask is ignored"),
    ("gradients", "self-attention", "return scaled_dot_product_attention(self.W_Q(x), self.W_K(x), self.W_V(x), mask)", "return scaled_dot_product_attention(self.W_Q(x), self.W_K(x).detach(), self.W_V(x), mask)", "backward() must reach"),
    ("gradients", "self-attention", "return scaled_dot_product_attention(self.W_Q(x), self.W_K(x), self.W_V(x), mask)", "with torch.no_grad():\n            query = self.W_Q(x)\n        return scaled_dot_product_attention(query, self.W_K(x), self.W_V(x), mask)", "backward() must reach"),
    ("device", "self-attention", "return scaled_dot_product_attention(self.W_Q(x), self.W_K(x), self.W_V(x), mask)", "if mask is None:\n            mask = torch.ones(x.size(1), x.size(1), dtype=torch.bool)\n        return scaled_dot_product_attention(self.W_Q(x), self.W_K(x), self.W_V(x), mask)", "the inputs' device"),
    ("in place", "self-attention", "return scaled_dot_product_attention(self.W_Q(x), self.W_K(x), self.W_V(x), mask)", "if mask is not None and mask.dim() == 2:\n            mask.unsqueeze_(0)  # a batch axis\n        return scaled_dot_product_attention(self.W_Q(x), self.W_K(x), self.W_V(x), mask)", "in place"),
    ("gradients", "scaled-dot-product-attention", "no_key = torch.isneginf(scores).all(dim=-1, keepdim=True)\n        scores = scores.masked_fill(no_key, 0.0)", "no_key = torch.isneginf(scores).all(dim=-1, keepdim=True)\n        scores = torch.where(no_key, 0.0, scores.detach())", "backward() must reach"),
]  # fmt: skip

# (category, exercise, text of the page's solution, a correct solution written differently)
RIGHT = [
    ("modes", "scaled-dot-product-attention", "weights = torch.nn.functional.dropout(weights, p=dropout_p)", "weights = weights * (torch.rand_like(weights) >= dropout_p) / (1 - dropout_p)"),
    ("modes", "scaled-dot-product-attention", "weights = torch.nn.functional.dropout(weights, p=dropout_p)", "weights = torch.nn.functional.dropout(weights.double(), p=dropout_p).to(weights.dtype)"),
    ("written differently", "scaled-dot-product-attention", "scores = query @ key.transpose(-2, -1) / math.sqrt(d_k)", 'scores = torch.einsum("...qd,...kd->...qk", query, key) / math.sqrt(d_k)'),
    ("written differently", "scaled-dot-product-attention", "scores = query @ key.transpose(-2, -1) / math.sqrt(d_k)", "scores = (query / d_k**0.5) @ key.transpose(-2, -1)"),
    ("written differently", "scaled-dot-product-attention", 'scores = scores.masked_fill(~mask, float("-inf"))', 'scores = torch.where(mask, scores, torch.full_like(scores, float("-inf")))'),
    ("written differently", "scaled-dot-product-attention", "weights = torch.softmax(scores, dim=-1)", "weights = torch.softmax(scores.double(), dim=-1).to(scores.dtype)"),
    ("sizes", "scaled-dot-product-attention", "weights = torch.softmax(scores, dim=-1)", "weights = torch.stack([torch.softmax(scores[..., i, :], dim=-1) for i in range(scores.size(-2))], dim=-2)"),
    ("written differently", "scaled-dot-product-attention", "weights = torch.softmax(scores, dim=-1)", "weights = torch.exp(scores - scores.amax(dim=-1, keepdim=True))\n    weights = weights / weights.sum(dim=-1, keepdim=True)"),
    ("sizes", "attention-too-sharp", "/ math.sqrt(d_k)", "/ math.sqrt(query.shape[-1])"),
    ("arguments", "scaled-dot-product-attention", 'if mask.dtype == torch.bool:\n            scores = scores.masked_fill(~mask, float("-inf"))\n        else:\n            scores = scores + mask', 'if mask.dtype.is_floating_point:\n            scores = scores + mask\n        else:\n            scores = scores.masked_fill(mask.logical_not(), -math.inf)'),
    ("arguments", "scaled-dot-product-attention", "if dropout_p > 0:\n        weights = torch.nn.functional.dropout(weights, p=dropout_p)", "weights = torch.nn.functional.dropout(weights, dropout_p, training=dropout_p > 0)"),
    ("gradients", "scaled-dot-product-attention", "weights = torch.softmax(scores, dim=-1)", "weights = scores.log_softmax(dim=-1).exp()"),
    ("gradients", "scaled-dot-product-attention", "weights = weights.masked_fill(no_key, 0.0)", "weights = weights * ~no_key"),
    ("gradients", "scaled-dot-product-attention", "output = weights @ value", 'output = torch.einsum("...qk,...kd->...qd", weights, value)'),
    ("device", "scaled-dot-product-attention", "scores = query @ key.transpose(-2, -1) / math.sqrt(d_k)", "scores = query @ key.transpose(-2, -1) / query.new_tensor(d_k).sqrt()"),
    ("device", "scaled-dot-product-attention", "weights = weights.masked_fill(no_key, 0.0)", "weights = torch.where(no_key, torch.zeros((), device=weights.device), weights)"),
    ("in place", "scaled-dot-product-attention", "scores = query @ key.transpose(-2, -1) / math.sqrt(d_k)", "scores = query @ key.transpose(-2, -1)\n    scores /= math.sqrt(d_k)"),
    ("in place", "scaled-dot-product-attention", "scores = scores.masked_fill(no_key, 0.0)", "scores.masked_fill_(no_key, 0.0)"),
    ("sizes", "self-attention", "return scaled_dot_product_attention(self.W_Q(x), self.W_K(x), self.W_V(x), mask)", "query, key, value = self.W_Q(x), self.W_K(x), self.W_V(x)\n        scores = query @ key.transpose(-2, -1) / math.sqrt(key.size(-1))\n        if mask is not None:\n            scores = scores.masked_fill(~mask, float(\"-inf\"))\n        weights = torch.softmax(scores, dim=-1)\n        return weights @ value, weights"),
    ("arguments", "self-attention", "return scaled_dot_product_attention(self.W_Q(x), self.W_K(x), self.W_V(x), mask)", "query, key, value = self.W_Q(x), self.W_K(x), self.W_V(x)\n        if mask is None:\n            return scaled_dot_product_attention(query, key, value)\n        return scaled_dot_product_attention(query, key, value, mask=mask)"),
    ("gradients", "self-attention", "return scaled_dot_product_attention(self.W_Q(x), self.W_K(x), self.W_V(x), mask)", "return scaled_dot_product_attention(x @ self.W_Q.weight.T, x @ self.W_K.weight.T, torch.nn.functional.linear(x, self.W_V.weight), mask)"),
    ("device", "self-attention", "return scaled_dot_product_attention(self.W_Q(x), self.W_K(x), self.W_V(x), mask)", "if mask is None:\n            mask = torch.ones(x.size(1), x.size(1), dtype=torch.bool, device=x.device)\n        return scaled_dot_product_attention(self.W_Q(x), self.W_K(x), self.W_V(x), mask)"),
    ("in place", "self-attention", "return scaled_dot_product_attention(self.W_Q(x), self.W_K(x), self.W_V(x), mask)", "projected = x.new_empty(3, *x.shape[:-1], self.W_Q.out_features)\n        projected[0], projected[1], projected[2] = self.W_Q(x), self.W_K(x), self.W_V(x)\n        return scaled_dot_product_attention(*projected, mask)"),
    ("written differently", "self-attention", "return scaled_dot_product_attention(self.W_Q(x), self.W_K(x), self.W_V(x), mask)", "query, key, value = self.W_Q(x), self.W_K(x), self.W_V(x)\n        return scaled_dot_product_attention(query, key, value, mask)"),
]  # fmt: skip
