"""Wrong solutions and correct variants of the exercises of chapter "Multi-head attention and W_O": split-and-combine-heads, heads-without-transpose, multi-head-forward.

The format and the categories: tests/unit/test_grader_mistakes.py.
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
    ("hints", "split-and-combine-heads", "x.view(B, T, num_heads, d_k).transpose(1, 2)", "x.view(B, T, d_k, num_heads).permute(0, 3, 1, 2)", "(h, d_k)"),
    ("arguments", "multi-head-forward", "heads, weights = self.attend(Q, K, V, mask)", "heads, weights = self.attend(Q, K, V, None)", "the mask is ignored"),
    ("device", "multi-head-forward", "return self.W_O(combine_heads(heads)), weights", "return self.W_O(combine_heads(heads)) * torch.ones(1), weights", "the inputs' device"),
    ("gradients", "multi-head-forward", "self.attend(Q, K, V, mask)", "self.attend(Q, K.detach(), V, mask)", "backward() must reach"),
]  # fmt: skip

# (category, exercise, text of the page's solution, a correct solution written differently)
RIGHT = [
    ("modes", "multi-head-forward", "heads, weights = self.attend(Q, K, V, mask)", "_, weights = scaled_dot_product_attention(Q, K, V, mask)\n        if self.training:\n            weights = weights * (torch.rand_like(weights) >= self.dropout.p) / (1 - self.dropout.p)\n        heads = weights @ V"),
    ("sizes", "split-and-combine-heads", "x.view(B, T, num_heads, d_k).transpose(1, 2)", "x.reshape(B, T, num_heads, d_k).permute(0, 2, 1, 3)"),
    ("sizes", "split-and-combine-heads", "x.transpose(1, 2).reshape(B, T, h * d_k)", "torch.cat([x[:, i] for i in range(h)], dim=-1)"),
    ("modes", "multi-head-forward", "heads, weights = self.attend(Q, K, V, mask)", "heads, weights = scaled_dot_product_attention(Q, K, V, mask, dropout_p=self.dropout.p if self.training else 0.0)"),
    ("written differently", "multi-head-forward", "Q = split_heads(self.W_Q(query), self.num_heads)", "Q = split_heads(query @ self.W_Q.weight.T + self.W_Q.bias, self.num_heads)"),
]  # fmt: skip
