"""Wrong solutions and correct variants of the exercises of chapter "Multi-head attention and W_O": split-and-combine-heads, heads-without-transpose, multi-head-forward.

The format and the categories: tests/unit/test_grader_mistakes.py; the kinds each grader must catch: `applies`
on the exercise, in exercises.py beside this file.
"""

# ruff: noqa: E501 - the tables read best one solution per line

NO_HINT = None  # rejected, and no failing check claims a known mistake

# (category, exercise, text of the page's solution, the learner's text, words of the failure, or NO_HINT)
WRONG = [
    ("sizes", "split-and-combine-heads", "x.view(B, T, num_heads, d_k).transpose(1, 2)", "x.view(2, T, num_heads, -1).transpose(1, 2)", "shape (2, 4, 7, 1)"),
    ("sizes", "heads-without-transpose", "x.view(B, T, num_heads, d_k).transpose(1, 2)", "x.view(2, T, num_heads, -1).transpose(1, 2)", "shape (2, 4, 7, 1)"),
    ("sizes", "split-and-combine-heads", "d_k = d_model // num_heads", "d_k = 4", "your code raised RuntimeError"),
    ("sizes", "split-and-combine-heads", "x.transpose(1, 2).reshape(B, T, h * d_k)", "x.transpose(1, 2).reshape(B, T, 12)", "reshape(B, T, 12)"),
    ("sizes", "multi-head-forward", "Q = split_heads(self.W_Q(query), self.num_heads)", "Q = split_heads(self.W_Q(query), 3)", "split_heads(self.W_Q(query), 3)"),
    ("key and value", "multi-head-forward", "V = split_heads(self.W_V(value), self.num_heads)", "V = split_heads(self.W_V(key), self.num_heads)", "V = W_V(value)"),
    ("key and value", "multi-head-forward", "K = split_heads(self.W_K(key), self.num_heads)", "K = split_heads(self.W_K(value), self.num_heads)", "K = W_K(key)"),
    ("key and value", "multi-head-forward", "value = key if value is None else value", "value = key", "V = W_V(value)"),
    ("key and value", "multi-head-forward", "K = split_heads(self.W_K(key), self.num_heads)  # (B, h, T_k, d_k)\n        V = split_heads(self.W_V(value), self.num_heads)", "K = split_heads(self.W_K(value), self.num_heads)  # (B, h, T_k, d_k)\n        V = split_heads(self.W_V(key), self.num_heads)", "swapped"),
    ("LayerNorm and biases", "multi-head-forward", "return self.W_O(combine_heads(heads)), weights", "return combine_heads(heads) @ self.W_O.weight.T, weights", NO_HINT),
    ("dropout", "multi-head-forward", "heads, weights = self.attend(Q, K, V, mask)", "heads, weights = scaled_dot_product_attention(Q, K, V, mask)", "self.attend"),
    ("dropout", "multi-head-forward", "heads, weights = self.attend(Q, K, V, mask)  # (B, h, T_q, d_k)\n        return self.W_O(combine_heads(heads)), weights", "heads, weights = scaled_dot_product_attention(Q, K, V, mask)  # (B, h, T_q, d_k)\n        return self.dropout(self.W_O(combine_heads(heads))), weights", "not on the output"),
    ("errors", "multi-head-forward", "        self._check_inputs(query, key, value)\n", "", "width 10"),
    ("hints", "split-and-combine-heads", "x.view(B, T, num_heads, d_k).transpose(1, 2)", "x.view(B, T, d_k, num_heads).permute(0, 3, 1, 2)", "the order of the two axes"),
    ("arguments", "multi-head-forward", "heads, weights = self.attend(Q, K, V, mask)", "heads, weights = self.attend(Q, K, V, None)", "the mask is ignored"),
    ("device", "multi-head-forward", "return self.W_O(combine_heads(heads)), weights", "return self.W_O(combine_heads(heads)) * torch.ones(1), weights", "the inputs' device"),
    ("gradients", "multi-head-forward", "self.attend(Q, K, V, mask)", "self.attend(Q, K.detach(), V, mask)", "backward() must reach"),
    ("gradients", "split-and-combine-heads", "x.view(B, T, num_heads, d_k).transpose(1, 2)", "x.data.view(B, T, num_heads, d_k).transpose(1, 2)", "backward() must reach"),
    ("gradients", "split-and-combine-heads", "x.transpose(1, 2).reshape(B, T, h * d_k)", "x.detach().transpose(1, 2).reshape(B, T, h * d_k)", "backward() must reach"),
    ("device", "split-and-combine-heads", "return x.view(B, T, num_heads, d_k).transpose(1, 2)", "heads = torch.empty(B, num_heads, T, d_k)\n    for i in range(num_heads):\n        heads[:, i] = x[..., i * d_k : (i + 1) * d_k]\n    return heads", "off the inputs' device"),
    ("device", "split-and-combine-heads", "return x.transpose(1, 2).reshape(B, T, h * d_k)", "out = torch.zeros(B, T, h * d_k)\n    for i in range(h):\n        out[..., i * d_k : (i + 1) * d_k] = x[:, i]\n    return out", "off the inputs' device"),
    ("device", "split-and-combine-heads", "x.transpose(1, 2).reshape(B, T, h * d_k)", "torch.tensor(x.transpose(1, 2).reshape(B, T, h * d_k).tolist())", "off the inputs' device"),
    ("in place", "split-and-combine-heads", "x.transpose(1, 2).reshape(B, T, h * d_k)", "x.transpose_(1, 2).reshape(B, T, h * d_k)", "in place"),
    ("in place", "split-and-combine-heads", "x.view(B, T, num_heads, d_k).transpose(1, 2)", "x.resize_(B, T, num_heads, d_k).transpose(1, 2)", "in place"),
    ("arguments", "multi-head-forward", "Q = split_heads(self.W_Q(query), self.num_heads)", "Q = split_heads(query @ self.W_Q.weight.T + self.W_Q.bias, self.num_heads)", "'NoneType'"),
    ("arguments", "multi-head-forward", "mask = merge_masks(mask, key_is_real, query, key)", "mask = merge_masks(mask, None, query, key)", "key_is_real is ignored"),
    ("arguments", "multi-head-forward", "        mask = merge_masks(mask, key_is_real, query, key)\n", "", "key_is_real is ignored"),
    ("arguments", "multi-head-forward", "mask = merge_masks(mask, key_is_real, query, key)", "mask = merge_masks(None, key_is_real, query, key) if key_is_real is not None else mask", "the mask is ignored when key_is_real is given"),
    ("in place", "multi-head-forward", "mask = merge_masks(mask, key_is_real, query, key)", "if key_is_real is not None:\n            padding = key_is_real[:, None, None, :]\n            mask = padding if mask is None else mask.logical_and_(padding)", "in place"),
    ("device", "multi-head-forward", "mask = merge_masks(mask, key_is_real, query, key)", "mask = merge_masks(mask, key_is_real, query, key)\n        if mask is None:\n            mask = torch.ones(query.size(1), key.size(1), dtype=torch.bool)", "the inputs' device"),
    ("device", "multi-head-forward", "heads, weights = self.attend(Q, K, V, mask)", "_, weights = scaled_dot_product_attention(Q, K, V, mask)\n        if self.training:\n            weights = weights * (torch.rand(weights.shape) >= self.dropout.p) / (1 - self.dropout.p)\n        heads = weights @ V", "the inputs' device"),
]  # fmt: skip

# (category, exercise, text of the page's solution, a correct solution written differently)
RIGHT = [
    ("modes", "multi-head-forward", "heads, weights = self.attend(Q, K, V, mask)", "_, weights = scaled_dot_product_attention(Q, K, V, mask)\n        if self.training:\n            weights = weights * (torch.rand_like(weights) >= self.dropout.p) / (1 - self.dropout.p)\n        heads = weights @ V"),
    ("sizes", "split-and-combine-heads", "x.view(B, T, num_heads, d_k).transpose(1, 2)", "x.reshape(B, T, num_heads, d_k).permute(0, 2, 1, 3)"),
    ("sizes", "split-and-combine-heads", "x.transpose(1, 2).reshape(B, T, h * d_k)", "torch.cat([x[:, i] for i in range(h)], dim=-1)"),
    ("modes", "multi-head-forward", "heads, weights = self.attend(Q, K, V, mask)", "heads, weights = scaled_dot_product_attention(Q, K, V, mask, dropout_p=self.dropout.p if self.training else 0.0)"),
    ("written differently", "multi-head-forward", "Q = split_heads(self.W_Q(query), self.num_heads)", "Q = split_heads(nn.functional.linear(query, self.W_Q.weight, self.W_Q.bias), self.num_heads)"),
    ("gradients", "split-and-combine-heads", "x.view(B, T, num_heads, d_k).transpose(1, 2)", "torch.stack(x.split(d_k, dim=-1), dim=1)"),
    ("gradients", "split-and-combine-heads", "x.transpose(1, 2).reshape(B, T, h * d_k)", "x.permute(0, 2, 1, 3).flatten(2)"),
    ("device", "split-and-combine-heads", "return x.view(B, T, num_heads, d_k).transpose(1, 2)", "heads = x.new_empty(B, num_heads, T, d_k)\n    for i in range(num_heads):\n        heads[:, i] = x[..., i * d_k : (i + 1) * d_k]\n    return heads"),
    ("device", "split-and-combine-heads", "return x.transpose(1, 2).reshape(B, T, h * d_k)", "out = torch.zeros(B, T, h * d_k, dtype=x.dtype, device=x.device)\n    for i in range(h):\n        out[..., i * d_k : (i + 1) * d_k] = x[:, i]\n    return out"),
    ("in place", "split-and-combine-heads", "return x.view(B, T, num_heads, d_k).transpose(1, 2)", "heads = x.new_empty(B, num_heads, T, d_k)\n    heads.copy_(x.view(B, T, num_heads, d_k).transpose(1, 2))\n    return heads"),
    ("in place", "split-and-combine-heads", "return x.transpose(1, 2).reshape(B, T, h * d_k)", "out = x.new_empty(B, T, h, d_k)\n    out.copy_(x.transpose(1, 2))\n    return out.view(B, T, h * d_k)"),
    ("sizes", "multi-head-forward", "Q = split_heads(self.W_Q(query), self.num_heads)", "Q = self.W_Q(query).view(query.size(0), -1, self.num_heads, self.d_k).transpose(1, 2)"),
    ("sizes", "multi-head-forward", "return self.W_O(combine_heads(heads)), weights", "return self.W_O(heads.transpose(1, 2).flatten(2)), weights"),
    ("arguments", "multi-head-forward", "mask = merge_masks(mask, key_is_real, query, key)", "if key_is_real is not None:\n            padding = key_is_real[:, None, None, :]\n            mask = padding if mask is None else mask & padding"),
    ("arguments", "multi-head-forward", "return self.W_O(combine_heads(heads)), weights", "return nn.functional.linear(combine_heads(heads), self.W_O.weight, self.W_O.bias), weights"),
    ("gradients", "multi-head-forward", "return self.W_O(combine_heads(heads)), weights", "output = combine_heads(heads) @ self.W_O.weight.T\n        return (output if self.W_O.bias is None else output + self.W_O.bias), weights"),
    ("device", "multi-head-forward", "mask = merge_masks(mask, key_is_real, query, key)", "mask = merge_masks(mask, key_is_real, query, key)\n        if mask is None:\n            mask = torch.ones(query.size(1), key.size(1), dtype=torch.bool, device=query.device)"),
    ("device", "multi-head-forward", "heads, weights = self.attend(Q, K, V, mask)", "_, weights = scaled_dot_product_attention(Q, K, V, mask)\n        if self.training:\n            keep = torch.rand(weights.shape, device=weights.device) >= self.dropout.p\n            weights = weights * keep / (1 - self.dropout.p)\n        heads = weights @ V"),
    ("in place", "multi-head-forward", "return self.W_O(combine_heads(heads)), weights", "output = combine_heads(heads) @ self.W_O.weight.T\n        if self.W_O.bias is not None:\n            output += self.W_O.bias\n        return output, weights"),
]  # fmt: skip
