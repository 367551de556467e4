"""Wrong solutions and correct variants of the exercises of chapter "From 2017 to today's models": rms-norm, apply-rotary, swiglu, grouped-attention.

The format and the categories: tests/unit/test_grader_mistakes.py; the kinds each grader must catch: `applies`
on the exercise, in exercises.py beside this file.
"""

# ruff: noqa: E501 - the tables read best one solution per line

NO_HINT = None  # rejected, and no failing check claims a known mistake

# (category, exercise, text of the page's solution, the learner's text, words of the failure, or NO_HINT)
WRONG = [
    ("sizes", "rms-norm", "d_model = self.weight.numel()", "d_model = 8", "your code raised ValueError"),
    ("sizes", "apply-rotary", "T, head_dim = x.shape[-2:]", "T, head_dim = x.shape[-2], 8", "your code raised RuntimeError"),
    ("sizes", "grouped-attention", "group = Q.size(1) // K.size(1)", "group = 2", "your code raised RuntimeError"),
    ("hints", "rms-norm", "h * torch.rsqrt(mean_square + self.eps) * self.weight", "(h - h.mean(dim=-1, keepdim=True)) * torch.rsqrt(h.var(dim=-1, keepdim=True, unbiased=False) + self.eps) * self.weight", "that is LayerNorm"),
    ("hints", "apply-rotary", "cos, sin = angles.cos().to(x.dtype), angles.sin().to(x.dtype)", "cos, sin = angles.sin().to(x.dtype), angles.cos().to(x.dtype)", NO_HINT),
    ("hints", "swiglu", "F.silu(self.gate(x)) * self.up(x)", "F.relu(self.gate(x)) * self.up(x)", "not ReLU"),
    ("errors", "rms-norm", 'raise ValueError(f"x must end with d_model={d_model} features, got {got}")', "pass", "expected ValueError"),
    ("errors", "grouped-attention", "if Q.dim() != 4 or K.dim() != 4 or Q.size(1) % K.size(1):", "if Q.dim() != 4 or K.dim() != 4:", "expected ValueError"),
    ("dtype", "apply-rotary", "cos, sin = angles.cos().to(x.dtype), angles.sin().to(x.dtype)", "cos, sin = angles.cos(), angles.sin()", "dtype"),
    ("dtype", "rms-norm", "return scaled.to(x.dtype)", "return scaled", "float16"),
    ("arguments", "apply-rotary", "angles = rotary_angles(T, head_dim, base, offset)", "angles = rotary_angles(T, head_dim, 10000.0, offset)", "pass base on to rotary_angles"),
    ("arguments", "grouped-attention", "mask, dropout_p=dropout_p)", "mask)", "dropout_p is ignored"),
    ("arguments", "rms-norm", "torch.rsqrt(mean_square + self.eps)", "torch.rsqrt(mean_square + 1e-6)", "use self.eps"),
    ("dtype", "apply-rotary", "angles = rotary_angles(T, head_dim, base, offset).to(x.device)", "angles = rotary_angles(T, head_dim, base, offset).to(x.device, x.dtype)", "offset=3000"),
    ("device", "apply-rotary", "angles = rotary_angles(T, head_dim, base, offset).to(x.device)", "angles = rotary_angles(T, head_dim, base, offset)", "the inputs' device"),
    ("device", "rms-norm", "torch.rsqrt(mean_square + self.eps)", "torch.rsqrt(mean_square + torch.full((1,), self.eps))", "the inputs' device"),
    ("device", "swiglu", "return self.down(F.silu(self.gate(x)) * self.up(x))", "return self.down(F.silu(self.gate(x)) * self.up(x)) + torch.zeros(self.down.out_features)", "the inputs' device"),
    ("gradients", "grouped-attention", "K = K.repeat_interleave(group, dim=1)", "K = K.detach().repeat_interleave(group, dim=1)", "backward() must reach"),
    ("gradients", "rms-norm", "h * torch.rsqrt(mean_square + self.eps) * self.weight", "h * torch.rsqrt(mean_square + self.eps).detach() * self.weight", "backward() must reach"),
    ("gradients", "swiglu", "F.silu(self.gate(x)) * self.up(x)", "F.silu(self.gate(x)) * self.up(x).detach()", "backward() must reach"),
    ("gradients", "rms-norm", "scaled = h * torch.rsqrt(mean_square + self.eps)", "scaled = h.mul_(torch.rsqrt(mean_square + self.eps))", "autograd still needs"),
    ("in place", "rms-norm", "scaled = h * torch.rsqrt(mean_square + self.eps) * self.weight", "scaled = h.mul_(torch.rsqrt(mean_square + self.eps)).mul_(self.weight)", "in place"),
    ("sizes", "rms-norm", "mean_square = h.pow(2).mean(dim=-1, keepdim=True)", "mean_square = h.pow(2).sum(dim=-1, keepdim=True) / 8", NO_HINT),
    ("gradients", "apply-rotary", "turned_a = a * cos - b * sin  # (..., T, d/2)", "turned_a = a * cos - b.detach() * sin  # (..., T, d/2)", "backward() must reach"),
    ("gradients", "apply-rotary", "a, b = (x[..., : head_dim // 2], x[..., head_dim // 2 :])", "a, b = (x[..., : head_dim // 2].detach(), x[..., head_dim // 2 :].detach())", "backward() must reach"),
    ("in place", "apply-rotary", "return torch.cat([turned_a, turned_b], dim=-1)  # (..., T, d)", "x[..., : head_dim // 2], x[..., head_dim // 2 :] = turned_a, turned_b\n        return x", "in place"),
    ("in place", "apply-rotary", "return torch.stack([turned_a, turned_b], dim=-1).flatten(-2)", "x[..., 0::2], x[..., 1::2] = turned_a.clone(), turned_b.clone()\n    return x", "in place"),
    ("arguments", "apply-rotary", "T, head_dim = x.shape[-2:]", 'T, head_dim = x.shape[-2:]\n    pairing = "half"  # the pairing of Llama', "the features are paired the other way"),
    ("sizes", "apply-rotary", "a, b = (x[..., : head_dim // 2], x[..., head_dim // 2 :])", "a, b = (x[..., :4], x[..., 4:])", "your code raised RuntimeError"),
    ("device", "apply-rotary", "angles = rotary_angles(T, head_dim, base, offset).to(x.device)", "angles = rotary_angles(T, head_dim, base, offset).cuda() if x.is_cuda else rotary_angles(T, head_dim, base, offset)", "the inputs' device"),
    ("sizes", "swiglu", "return self.down(F.silu(self.gate(x)) * self.up(x))", "flat = x.reshape(-1, 8)\n        return self.down(F.silu(self.gate(flat)) * self.up(flat)).view(x.shape)", "your code raised RuntimeError"),
    ("sizes", "swiglu", "return self.down(F.silu(self.gate(x)) * self.up(x))", "B, T, d_model = x.shape\n        flat = x.reshape(B * T, d_model)\n        return self.down(F.silu(self.gate(flat)) * self.up(flat)).view(B, T, d_model)", "your code raised ValueError"),
    ("in place", "swiglu", "return self.down(F.silu(self.gate(x)) * self.up(x))", "return x.copy_(self.down(F.silu(self.gate(x)) * self.up(x)))  # the output in x's memory", "in place"),
    ("device", "swiglu", "return self.down(F.silu(self.gate(x)) * self.up(x))", "g = self.gate(x)\n        return self.down(g / (torch.ones(g.shape) + torch.exp(-g)) * self.up(x))", "the inputs' device"),
    ("dropout", "grouped-attention", "mask, dropout_p=dropout_p)", "mask, dropout_p=1 - dropout_p)", "draws of dropout"),
    ("dropout", "grouped-attention", "return scaled_dot_product_attention(Q, K, V, mask, dropout_p=dropout_p)", "output, weights = scaled_dot_product_attention(Q, K, V, mask)\n    return torch.nn.functional.dropout(output, dropout_p), weights", "draws of dropout"),
    ("device", "grouped-attention", "return scaled_dot_product_attention(Q, K, V, mask, dropout_p=dropout_p)", "if mask is None:\n        mask = torch.ones(Q.size(-2), K.size(-2), dtype=torch.bool)\n    return scaled_dot_product_attention(Q, K, V, mask, dropout_p=dropout_p)", "the inputs' device"),
    ("in place", "grouped-attention", "K = K.repeat_interleave(group, dim=1)  # (B, h, T_k, d_k): the same tensor\n    V = V.repeat_interleave(group, dim=1)", "K = K.unsqueeze_(2).expand(-1, -1, group, -1, -1).flatten(1, 2)  # (B, h, T_k, d_k): the same tensor\n    V = V.unsqueeze_(2).expand(-1, -1, group, -1, -1).flatten(1, 2)", "in place"),
    ("sizes", "grouped-attention", "return scaled_dot_product_attention(Q, K, V, mask, dropout_p=dropout_p)", "output, weights = scaled_dot_product_attention(Q, K, V, mask, dropout_p=dropout_p)\n    return output.reshape(Q.size(0), Q.size(1), Q.size(2), 8), weights", "your code raised RuntimeError"),
]  # fmt: skip

# (category, exercise, text of the page's solution, a correct solution written differently)
RIGHT = [
    ("written differently", "apply-rotary", "turned_a = a * cos - b * sin  # (..., T, d/2)\n    turned_b = b * cos + a * sin", "turned_a = torch.addcmul(a * cos, b, sin, value=-1)  # (..., T, d/2)\n    turned_b = torch.addcmul(b * cos, a, sin)"),
    ("written differently", "apply-rotary", "cos, sin = angles.cos().to(x.dtype), angles.sin().to(x.dtype)", "cos, sin = torch.cos(angles.double()).to(x.dtype), torch.sin(angles.double()).to(x.dtype)"),
    ("arguments", "grouped-attention", "return scaled_dot_product_attention(Q, K, V, mask, dropout_p=dropout_p)", "return scaled_dot_product_attention(Q, K, V, mask=mask, dropout_p=float(dropout_p))"),
    ("written differently", "rms-norm", "h * torch.rsqrt(mean_square + self.eps) * self.weight", "self.weight * h / torch.sqrt(mean_square + self.eps)"),
    ("written differently", "swiglu", "F.silu(self.gate(x)) * self.up(x)", "self.gate(x) * torch.sigmoid(self.gate(x)) * self.up(x)"),
    ("sizes", "grouped-attention", "K = K.repeat_interleave(group, dim=1)  # (B, h, T_k, d_k): the same tensor\n    V = V.repeat_interleave(group, dim=1)", "K = K[:, :, None].expand(-1, -1, group, -1, -1).flatten(1, 2)  # (B, h, T_k, d_k): the same tensor\n    V = V[:, :, None].expand(-1, -1, group, -1, -1).flatten(1, 2)"),
    ("sizes", "rms-norm", "mean_square = h.pow(2).mean(dim=-1, keepdim=True)", "mean_square = h.pow(2).sum(dim=-1, keepdim=True) / h.shape[-1]"),
    ("sizes", "rms-norm", "d_model = self.weight.numel()", "d_model = len(self.weight)"),
    ("arguments", "rms-norm", "scaled = h * torch.rsqrt(mean_square + self.eps) * self.weight", "scaled = torch.nn.functional.rms_norm(h, (d_model,), weight=self.weight.to(h.dtype), eps=self.eps)"),
    ("gradients", "rms-norm", "mean_square = h.pow(2).mean(dim=-1, keepdim=True)", "mean_square = torch.linalg.vector_norm(h, dim=-1, keepdim=True).pow(2) / d_model"),
    ("device", "rms-norm", "torch.rsqrt(mean_square + self.eps)", "torch.rsqrt(mean_square + mean_square.new_full((1,), self.eps))"),
    ("in place", "rms-norm", "scaled = h * torch.rsqrt(mean_square + self.eps) * self.weight", "scaled = h * torch.rsqrt(mean_square + self.eps)\n        scaled *= self.weight  # a new tensor: editing it leaves x alone"),
    ("sizes", "apply-rotary", "T, head_dim = x.shape[-2:]", "*_, T, head_dim = x.shape"),
    ("sizes", "apply-rotary", "a, b = (x[..., : head_dim // 2], x[..., head_dim // 2 :])", "a, b = x.chunk(2, dim=-1)"),
    ("arguments", "apply-rotary", "angles = rotary_angles(T, head_dim, base, offset)", "angles = rotary_angles(T, head_dim, offset=offset, base=base)"),
    ("arguments", "apply-rotary", "if pairing == \"half\":\n        return torch.cat", "if pairing != \"interleaved\":\n        return torch.cat"),
    ("gradients", "apply-rotary", "turned_a = a * cos - b * sin  # (..., T, d/2)\n    turned_b = b * cos + a * sin", "# as Hugging Face's rotate_half: x * cos + rotate_half(x) * sin\n    both_cos, both_sin = torch.cat([cos, cos], dim=-1), torch.cat([sin, sin], dim=-1)\n    turned = torch.cat([a, b], dim=-1) * both_cos + torch.cat([-b, a], dim=-1) * both_sin\n    turned_a, turned_b = turned.chunk(2, dim=-1)"),
    ("device", "apply-rotary", "angles = rotary_angles(T, head_dim, base, offset).to(x.device)  # (T, d/2)\n    cos, sin = angles.cos().to(x.dtype), angles.sin().to(x.dtype)", "angles = rotary_angles(T, head_dim, base, offset)  # (T, d/2)\n    cos, sin = angles.cos().to(x), angles.sin().to(x)  # x's dtype and device"),
    ("device", "apply-rotary", "angles = rotary_angles(T, head_dim, base, offset).to(x.device)  # (T, d/2)", "theta = base ** -(torch.arange(0, head_dim, 2, device=x.device, dtype=torch.float) / head_dim)\n    angles = torch.arange(offset, offset + T, device=x.device, dtype=torch.float)[:, None] * theta"),
    ("in place", "apply-rotary", "return torch.stack([turned_a, turned_b], dim=-1).flatten(-2)", "turned = torch.empty_like(x)\n    turned[..., 0::2], turned[..., 1::2] = turned_a, turned_b  # edits a new tensor\n    return turned"),
    ("in place", "apply-rotary", "return torch.cat([turned_a, turned_b], dim=-1)  # (..., T, d)", "turned = x.clone()\n        turned[..., : head_dim // 2] = turned_a\n        turned[..., head_dim // 2 :] = turned_b\n        return turned"),
    ("sizes", "swiglu", "return self.down(F.silu(self.gate(x)) * self.up(x))", "flat = x.reshape(-1, x.size(-1))  # every position, whatever the leading axes\n        return self.down(F.silu(self.gate(flat)) * self.up(flat)).view(*x.shape[:-1], -1)"),
    ("gradients", "swiglu", "return self.down(F.silu(self.gate(x)) * self.up(x))", "hidden = F.silu(x @ self.gate.weight.T) * (x @ self.up.weight.T)\n        return F.linear(hidden, self.down.weight)"),
    ("device", "swiglu", "return self.down(F.silu(self.gate(x)) * self.up(x))", "g = self.gate(x)\n        return self.down(g / (torch.ones_like(g) + torch.exp(-g)) * self.up(x))"),
    ("in place", "swiglu", "return self.down(F.silu(self.gate(x)) * self.up(x))", "hidden = F.silu(self.gate(x), inplace=True)  # edits gate(x), a new tensor\n        hidden.mul_(self.up(x))\n        return self.down(hidden)"),
    ("dropout", "grouped-attention", "return scaled_dot_product_attention(Q, K, V, mask, dropout_p=dropout_p)", "scores = Q @ K.transpose(-2, -1) / Q.size(-1) ** 0.5\n    if mask is not None:\n        scores = scores.masked_fill(~mask, float(\"-inf\"))\n    weights = scores.softmax(dim=-1)\n    if dropout_p > 0:  # dropout drawn by hand\n        weights = weights * (torch.rand_like(weights) >= dropout_p) / (1 - dropout_p)\n    return weights @ V, weights"),
    ("gradients", "grouped-attention", "K = K.repeat_interleave(group, dim=1)  # (B, h, T_k, d_k): the same tensor\n    V = V.repeat_interleave(group, dim=1)", "K = K.unsqueeze(2).repeat(1, 1, group, 1, 1).flatten(1, 2)  # (B, h, T_k, d_k): the same tensor\n    V = V.unsqueeze(2).repeat(1, 1, group, 1, 1).flatten(1, 2)"),
    ("device", "grouped-attention", "K = K.repeat_interleave(group, dim=1)  # (B, h, T_k, d_k): the same tensor\n    V = V.repeat_interleave(group, dim=1)", "heads = torch.arange(Q.size(1), device=K.device) // group  # the key/value head of each query head\n    K, V = K.index_select(1, heads), V.index_select(1, heads)"),
    ("in place", "grouped-attention", "K = K.repeat_interleave(group, dim=1)  # (B, h, T_k, d_k): the same tensor\n    V = V.repeat_interleave(group, dim=1)", "K, V = (t.new_empty(t.size(0), t.size(1), group, *t.shape[2:]).copy_(t.unsqueeze(2)).flatten(1, 2) for t in (K, V))"),
]  # fmt: skip
