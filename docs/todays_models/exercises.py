"""The exercises that end the chapter "From 2017 to today's models": what the learner writes or repairs (graded by
`graders.py` beside this file), and mistakes planted in each reference, with the words of the hint the
grader must give (tests/unit/test_exercises.py)."""

# ruff: noqa: E501 - the planted mistakes read best one per line

from tutorial_tools.exercises.exercise import KINDS, Exercise

EXERCISES = [
    Exercise(
        "rms-norm",
        "todays_models",
        "Implement RMSNorm",
        "Write RMSNorm.forward: divide each token vector by its root mean square (plus eps, under the root) "
        "and multiply by the learned scale; refuse an input of the wrong width.",
        "tutorial_code.rms_norm",
        ("rms_norm",),
        "RMS_NORM",
        write=("RMSNorm.forward",),
        applies=("sizes", "arguments", "gradients", "device", "in place"),
    ),
    Exercise(
        "apply-rotary",
        "todays_models",
        "Implement the rotary position embedding",
        "Write apply_rotary: turn feature pair i of the row at position offset + t by its angle from "
        "rotary_angles, with either pairing. "
        "Raise a ValueError for an unknown pairing and for x of one axis (it has no positions).",
        "tutorial_code.rotary",
        ("rotary_angles", "apply_rotary"),
        "APPLY_ROTARY",
        write=("apply_rotary",),
        applies=("sizes", "arguments", "gradients", "device", "in place"),
    ),
    Exercise(
        "swiglu",
        "todays_models",
        "Implement SwiGLU",
        "Write SwiGLU.forward: the down projection of SiLU(gate(x)) times up(x), feature by feature.",
        "tutorial_code.swiglu",
        ("swiglu",),
        "SWIGLU",
        write=("SwiGLU.forward",),
        applies=("sizes", "gradients", "device", "in place"),
    ),
    Exercise(
        "grouped-attention",
        "todays_models",
        "Implement grouped-query attention",
        "Write grouped_attention: repeat each key/value head for the query heads of its group, then attend "
        "with chapter 2's scaled_dot_product_attention. "
        "Raise a ValueError when the key/value heads do not divide the query heads.",
        "tutorial_code.grouped_query",
        ("grouped_attention",),
        "GROUPED_ATTENTION",
        write=("grouped_attention",),
        imports="import torch\n\nfrom tutorial_code.attention import scaled_dot_product_attention\n",
        applies=KINDS,
    ),
]

PLANTED = [  # (exercise, text of the reference solution, planted mistake, words of the hint it must get)
    ("rms-norm", "h.pow(2).mean(dim=-1, keepdim=True)", "h.pow(2).mean()", "last axis only"),
    ("rms-norm", "h * torch.rsqrt(mean_square + self.eps) * self.weight", "h * torch.rsqrt(mean_square + self.eps)", "self.weight"),
    ("rms-norm", "h * torch.rsqrt(mean_square + self.eps)", "h / (mean_square + self.eps)", "root of the mean square"),
    ("apply-rotary", "turned_a = a * cos - b * sin  # (..., T, d/2)\n    turned_b = b * cos + a * sin", "turned_a = a * cos + b * sin  # (..., T, d/2)\n    turned_b = b * cos - a * sin", "wrong way"),
    ("apply-rotary", "rotary_angles(T, head_dim, base, offset)", "rotary_angles(T, head_dim, base)", "offset"),
    ("swiglu", "F.silu(self.gate(x)) * self.up(x)", "self.gate(x) * F.silu(self.up(x))", "on the gate"),
    ("swiglu", "F.silu(self.gate(x)) * self.up(x)", "torch.sigmoid(self.gate(x)) * self.up(x)", "GLU's"),
    ("grouped-attention", "K = K.repeat_interleave(group, dim=1)  # (B, h, T_k, d_k): the same tensor\n    V = V.repeat_interleave(group, dim=1)", "K = K.repeat(1, group, 1, 1)  # (B, h, T_k, d_k): the same tensor\n    V = V.repeat(1, group, 1, 1)", "repeat_interleave"),
    ("grouped-attention", "scaled_dot_product_attention(Q, K, V, mask, dropout_p=dropout_p)", "scaled_dot_product_attention(Q, K, V, None, dropout_p=dropout_p)", "mask is ignored"),
]  # fmt: skip
