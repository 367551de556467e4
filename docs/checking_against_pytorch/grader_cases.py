"""Wrong solutions and correct variants of the exercises of chapter "Checking against PyTorch": copy-attention-weights, mask-for-pytorch.

The format and the categories: tests/unit/test_grader_mistakes.py; the kinds each grader must catch: `applies`
on the exercise, in exercises.py beside this file.
"""

# ruff: noqa: E501 - the tables read best one solution per line

NO_HINT = None  # rejected, and no failing check claims a known mistake

# (category, exercise, text of the page's solution, the learner's text, words of the failure, or NO_HINT)
WRONG = [
    ("in place", "copy-attention-weights", "            target.W_O.bias.copy_(source.out_proj.bias)", "            target.W_O.bias.copy_(source.out_proj.bias)\n            source.out_proj.bias.zero_()  # tidying up the source", "compute a new tensor instead of editing an input"),
    ("sizes", "copy-attention-weights", "W_Q, W_K, W_V = source.in_proj_weight.chunk(3, dim=0)", "W_Q, W_K, W_V = source.in_proj_weight[:8], source.in_proj_weight[8:16], source.in_proj_weight[16:]", "your code raised RuntimeError"),
    ("key and value", "copy-attention-weights", "target.W_K.weight.copy_(W_K)\n        target.W_V.weight.copy_(W_V)", "target.W_K.weight.copy_(W_V)\n        target.W_V.weight.copy_(W_K)", "in that order"),
    ("LayerNorm and biases", "copy-attention-weights", "            target.W_O.bias.copy_(source.out_proj.bias)", "            pass", "copy the biases too"),
    ("LayerNorm and biases", "copy-attention-weights", "b_Q, b_K, b_V = source.in_proj_bias.chunk(3)", "b_Q, b_V, b_K = source.in_proj_bias.chunk(3)", "in that order"),
    ("LayerNorm and biases", "copy-attention-weights", "if source.in_proj_bias is not None:", "if True:", "NoneType"),
    ("dtype", "mask-for-pytorch", "return ~mask", "return (~mask).float()", "boolean"),
    ("errors", "mask-for-pytorch", "if mask.dtype != torch.bool:", "if mask.dtype.is_floating_point:", "torch.long"),
    ("in place", "mask-for-pytorch", "return ~mask", "return mask.logical_not_()", "in place"),
    ("in place", "copy-attention-weights", "target.W_O.weight.copy_(source.out_proj.weight)", "source.out_proj.weight.copy_(target.W_O.weight)", "changed nn.MultiheadAttention's out_proj.weight in place"),
    ("in place", "copy-attention-weights", "target.W_K.weight.copy_(W_K)", "W_K.copy_(target.W_K.weight)", "in place"),
    ("in place", "copy-attention-weights", "target.W_O.weight.copy_(source.out_proj.weight)", "target.W_O.weight = source.out_proj.weight", "shares its memory"),
    ("in place", "copy-attention-weights", "target.W_Q.weight.copy_(W_Q)", "target.W_Q.weight = nn.Parameter(W_Q)", "shares its memory"),
    ("in place", "copy-attention-weights", "target.W_V.weight.copy_(W_V)", "target.W_V.weight.data = W_V", "shares its memory"),
    ("in place", "copy-attention-weights", "target.W_O.bias.copy_(source.out_proj.bias)", "target.W_O.bias = source.out_proj.bias", "shares its memory"),
    ("sizes", "mask-for-pytorch", "return ~mask", "return (~mask).squeeze()", "shape"),
    ("sizes", "mask-for-pytorch", "return ~mask", "return (~mask).view(mask.size(0), mask.size(0))", "shape"),
    ("device", "mask-for-pytorch", "return ~mask", "return torch.where(mask, torch.zeros(mask.shape, dtype=torch.bool), torch.ones(mask.shape, dtype=torch.bool))", "the inputs' device"),
    ("device", "mask-for-pytorch", "return ~mask", "return torch.logical_xor(mask, torch.ones(mask.shape, dtype=torch.bool))", "the inputs' device"),
]  # fmt: skip

# (category, exercise, text of the page's solution, a correct solution written differently)
RIGHT = [
    ("sizes", "copy-attention-weights", "W_Q, W_K, W_V = source.in_proj_weight.chunk(3, dim=0)", "d = source.embed_dim\n        W_Q, W_K, W_V = source.in_proj_weight[:d], source.in_proj_weight[d : 2 * d], source.in_proj_weight[2 * d :]"),
    ("sizes", "copy-attention-weights", "W_Q, W_K, W_V = source.in_proj_weight.chunk(3, dim=0)", "W_Q, W_K, W_V = source.in_proj_weight.split(target.W_Q.weight.size(0))"),
    ("in place", "copy-attention-weights", "target.W_Q.weight.copy_(W_Q)", "target.W_Q.weight.zero_().add_(W_Q)"),
    ("in place", "copy-attention-weights", "target.W_V.weight.copy_(W_V)", "target.W_V.weight.data = W_V.clone()"),
    ("in place", "copy-attention-weights", "target.W_O.weight.copy_(source.out_proj.weight)", "target.W_O.weight = nn.Parameter(source.out_proj.weight.detach().clone())"),
    ("in place", "copy-attention-weights", "W_Q, W_K, W_V = source.in_proj_weight.chunk(3, dim=0)", "weights = source.in_proj_weight.clone()\n        weights.mul_(1.0)\n        W_Q, W_K, W_V = weights.chunk(3, dim=0)"),
    ("sizes", "mask-for-pytorch", "return ~mask", "return (~mask.reshape(-1)).reshape(mask.shape)"),
    ("sizes", "mask-for-pytorch", "return ~mask", "return (~mask.flatten()).view_as(mask)"),
    ("device", "mask-for-pytorch", "return ~mask", "return torch.where(mask, False, True)"),
    ("device", "mask-for-pytorch", "return ~mask", "return torch.logical_xor(mask, torch.ones_like(mask))"),
    ("device", "mask-for-pytorch", "return ~mask", "return torch.ones(mask.shape, dtype=torch.bool, device=mask.device) & ~mask"),
    ("in place", "mask-for-pytorch", "return ~mask", "flipped = mask.clone()\n    flipped.logical_not_()\n    return flipped"),
    ("in place", "mask-for-pytorch", "return ~mask", "flipped = torch.zeros_like(mask)\n    flipped[~mask] = True\n    return flipped"),
    ("written differently", "copy-attention-weights", "    with torch.no_grad():\n        W_Q, W_K, W_V = source.in_proj_weight.chunk(3, dim=0)", '    names = ("W_Q.weight", "W_K.weight", "W_V.weight")\n    weights = dict(zip(names, source.in_proj_weight.detach().chunk(3)))\n    weights["W_O.weight"] = source.out_proj.weight.detach()\n    if source.in_proj_bias is not None:\n        weights.update(zip(("W_Q.bias", "W_K.bias", "W_V.bias"), source.in_proj_bias.detach().chunk(3)))\n        weights["W_O.bias"] = source.out_proj.bias.detach()\n    target.load_state_dict(weights)\n    return\n    with torch.no_grad():\n        W_Q, W_K, W_V = source.in_proj_weight.chunk(3, dim=0)'),
    ("gradients", "copy-attention-weights", "target.W_Q.weight.copy_(W_Q)", "target.W_Q.weight = nn.Parameter(W_Q.clone())"),
    ("written differently", "mask-for-pytorch", "return ~mask", "return torch.logical_not(mask)"),
    ("written differently", "mask-for-pytorch", "return ~mask", "return mask == 0"),
]  # fmt: skip
