"""Wrong solutions and correct variants of the exercises of chapter "From 2017 to today's models": rms-norm, apply-rotary, swiglu, grouped-attention.

The format and the categories: tests/unit/test_grader_mistakes.py.
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
]  # fmt: skip

# (category, exercise, text of the page's solution, a correct solution written differently)
RIGHT = [
    ("written differently", "apply-rotary", "turned_a = a * cos - b * sin  # (..., T, d/2)\n    turned_b = b * cos + a * sin", "turned_a = torch.addcmul(a * cos, b, sin, value=-1)  # (..., T, d/2)\n    turned_b = torch.addcmul(b * cos, a, sin)"),
    ("written differently", "apply-rotary", "cos, sin = angles.cos().to(x.dtype), angles.sin().to(x.dtype)", "cos, sin = torch.cos(angles.double()).to(x.dtype), torch.sin(angles.double()).to(x.dtype)"),
    ("arguments", "grouped-attention", "return scaled_dot_product_attention(Q, K, V, mask, dropout_p=dropout_p)", "return scaled_dot_product_attention(Q, K, V, mask=mask, dropout_p=float(dropout_p))"),
    ("written differently", "rms-norm", "h * torch.rsqrt(mean_square + self.eps) * self.weight", "self.weight * h / torch.sqrt(mean_square + self.eps)"),
    ("written differently", "swiglu", "F.silu(self.gate(x)) * self.up(x)", "self.gate(x) * torch.sigmoid(self.gate(x)) * self.up(x)"),
    ("sizes", "grouped-attention", "K = K.repeat_interleave(group, dim=1)  # (B, h, T_k, d_k): the same tensor\n    V = V.repeat_interleave(group, dim=1)", "K = K[:, :, None].expand(-1, -1, group, -1, -1).flatten(1, 2)  # (B, h, T_k, d_k): the same tensor\n    V = V[:, :, None].expand(-1, -1, group, -1, -1).flatten(1, 2)"),
]  # fmt: skip
