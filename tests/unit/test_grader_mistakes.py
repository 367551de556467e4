"""Wrong solutions the graders must reject, and solutions written differently that they must accept.

Each entry is the page's solution with one change, in the style a learner writes: a size typed for the usual
input, a path the usual input never takes (key and value the same tensor, two LayerNorms alike, dropout off),
a boundary, a padding id other than 0, a dtype or device, a documented error, an edit of an input in place.
A wrong solution must fail a check, and the failing check must say what is wrong: the words listed are in its
hint or its message. A hint names a mistake only when the output is what that mistake gives, so a change that
is no known mistake gets no hint at all (NO_HINT).

Grading runs in this process (`grading.grade`), as `test_exercises.py` does, on one thread; a grade takes a few
hundredths of a second.
"""

# ruff: noqa: E501 - the tables read best one solution per line

import pytest
import torch

from tutorial_tools.exercises import EXERCISES
from tutorial_tools.exercises.grading import grade, load
from tutorial_tools.exercises.starter import plant, reference_code

NO_HINT = None  # the solution is rejected, and no failing check claims a known mistake

# (category, exercise, text of the page's solution, the learner's text, words of the failure, or NO_HINT)
WRONG = [
    # Tuned to the usual sizes: batch 2, d_k 16, T 8, d_model 16 ...
    ("sizes", "recurrent-by-hand", "h = x.new_zeros(x.size(0), rnn.hidden_size)", "h = torch.zeros(2, 6)", "your code raised RuntimeError"),
    ("sizes", "recurrent-by-hand", "h = x.new_zeros(x.size(0), rnn.hidden_size)", "h = torch.zeros(x.size(0), 6)", "your code raised RuntimeError"),
    ("sizes", "recurrent-by-hand", "for t in range(x.size(1)):", "for t in range(7):", "your code raised IndexError"),
    ("sizes", "scaled-dot-product-attention", "/ math.sqrt(d_k)", "/ 4.0", "compute the scale from the inputs"),
    ("sizes", "scaled-dot-product-attention", "/ math.sqrt(d_k)", "/ math.sqrt(16)", "compute the scale from the inputs"),
    ("sizes", "scaled-dot-product-attention", "d_k = query.size(-1)", "d_k = 16", "compute the scale from the inputs"),
    ("sizes", "attention-too-sharp", "/ math.sqrt(d_k)", "/ 4", "compute the scale from the inputs"),
    ("sizes", "split-and-combine-heads", "x.view(B, T, num_heads, d_k).transpose(1, 2)", "x.view(2, T, num_heads, -1).transpose(1, 2)", "shape (2, 4, 7, 1)"),
    ("sizes", "heads-without-transpose", "x.view(B, T, num_heads, d_k).transpose(1, 2)", "x.view(2, T, num_heads, -1).transpose(1, 2)", "shape (2, 4, 7, 1)"),
    ("sizes", "split-and-combine-heads", "d_k = d_model // num_heads", "d_k = 4", "your code raised RuntimeError"),
    ("sizes", "split-and-combine-heads", "x.transpose(1, 2).reshape(B, T, h * d_k)", "x.transpose(1, 2).reshape(B, T, 12)", "reshape(B, T, 12)"),
    ("sizes", "causal-mask", "return torch.ones(seq_len, seq_len, dtype=torch.bool, device=device).tril()", "return torch.ones(8, 8, dtype=torch.bool, device=device).tril()[:seq_len, :seq_len]", "causal_mask(9)"),
    ("sizes", "padding-mask", "max_len = int(lengths.max()) if lengths.numel() else 0", "max_len = 6", "as long as the longest sequence"),
    ("sizes", "multi-head-forward", "Q = split_heads(self.W_Q(query), self.num_heads)", "Q = split_heads(self.W_Q(query), 3)", "split_heads(self.W_Q(query), 3)"),
    ("sizes", "sinusoidal-table", "exponent = torch.arange(0, d_model, 2) / d_model", "exponent = torch.arange(0, d_model, 2) / 16", "sinusoidal_table(7, 6)"),
    ("sizes", "shift-rotation", "exponent = torch.arange(0, d_model, 2) / d_model", "exponent = torch.arange(0, d_model, 2) / 8", "shift_rotation(5, 6)"),
    ("sizes", "copy-attention-weights", "W_Q, W_K, W_V = source.in_proj_weight.chunk(3, dim=0)", "W_Q, W_K, W_V = source.in_proj_weight[:8], source.in_proj_weight[8:16], source.in_proj_weight[16:]", "your code raised RuntimeError"),
    ("sizes", "shift-right", "start = torch.full_like(target[:, :1], BOS)", "start = torch.full((2, 1), BOS)", "your code raised RuntimeError"),
    ("sizes", "decoder-sees-the-future", "causal_mask(T, device=target_input.device) if causal", "causal_mask(6, device=target_input.device) if causal", "(6, 6)"),
    ("sizes", "beam-search", "candidates.topk(min(beam_width, beams * V), dim=-1)", "candidates.topk(beam_width, dim=-1)", "min(beam_width, beams * V)"),
    ("sizes", "beam-search", "B = source.size(0)", "B = 6", "same batch size, got 6 and 1"),
    ("sizes", "unigram-bpc", "minlength=vocab_size).double() + 1", "minlength=6).double() + 1", "vocabulary of 3"),
    ("sizes", "bigram-bpc", "pairs = train_ids[:-1] * vocab_size + train_ids[1:]", "pairs = train_ids[:-1] * 6 + train_ids[1:]", "vocabulary of 3"),
    # Key and value always the same tensor
    ("key and value", "multi-head-forward", "V = split_heads(self.W_V(value), self.num_heads)", "V = split_heads(self.W_V(key), self.num_heads)", "V = W_V(value)"),
    ("key and value", "multi-head-forward", "K = split_heads(self.W_K(key), self.num_heads)", "K = split_heads(self.W_K(value), self.num_heads)", "K = W_K(key)"),
    ("key and value", "multi-head-forward", "value = key if value is None else value", "value = key", "V = W_V(value)"),
    ("key and value", "multi-head-forward", "K = split_heads(self.W_K(key), self.num_heads)  # (B, h, T_k, d_k)\n        V = split_heads(self.W_V(value), self.num_heads)", "K = split_heads(self.W_K(value), self.num_heads)  # (B, h, T_k, d_k)\n        V = split_heads(self.W_V(key), self.num_heads)", "swapped"),
    ("key and value", "scaled-dot-product-attention", "output = weights @ value", "output = weights @ key", "shape"),
    ("key and value", "self-attention", "self.W_K(x), self.W_V(x), mask)", "self.W_K(x), self.W_K(x), mask)", "W_V"),
    ("key and value", "decoder-layer", "self.cross_attention(x, memory, memory,", "self.cross_attention(x, x, x,", "mask"),
    ("key and value", "copy-attention-weights", "target.W_K.weight.copy_(W_K)\n        target.W_V.weight.copy_(W_V)", "target.W_K.weight.copy_(W_V)\n        target.W_V.weight.copy_(W_K)", "in that order"),
    # LayerNorms that differ from each other, biases that are not zero
    ("LayerNorm and biases", "encoder-layer", "x = x + self.dropout2(self.feed_forward(self.norm2(x)))", "x = x + self.dropout2(self.feed_forward(self.norm1(x)))", "its own LayerNorm, norm2"),
    ("LayerNorm and biases", "encoder-layer", "x = self.norm2(x + self.dropout2(self.feed_forward(x)))", "x = self.norm1(x + self.dropout2(self.feed_forward(x)))", "its own LayerNorm, norm2"),
    ("LayerNorm and biases", "encoder-layer", "attended, weights = self.attention(self.norm1(x), mask=mask)", "attended, weights = self.attention(self.norm2(x), mask=mask)", "its own LayerNorm, norm1"),
    ("LayerNorm and biases", "decoder-layer", "h = self.norm2(x)", "h = self.norm1(x)", "share norm1"),
    ("LayerNorm and biases", "decoder-layer", "x = self.norm3(x + self.dropout3(self.feed_forward(x)))", "x = self.norm2(x + self.dropout3(self.feed_forward(x)))", "share norm2"),
    ("LayerNorm and biases", "decoder-layer", "x = x + self.dropout3(self.feed_forward(self.norm3(x)))", "x = x + self.dropout3(self.feed_forward(self.norm1(x)))", "share norm1"),
    ("LayerNorm and biases", "recurrent-by-hand", " + rnn.bias_hh_l0", "", "bias_hh_l0 is missing"),
    ("LayerNorm and biases", "recurrent-by-hand", " + rnn.bias_ih_l0", "", "bias_ih_l0 is missing"),
    ("LayerNorm and biases", "copy-attention-weights", "            target.W_O.bias.copy_(source.out_proj.bias)", "            pass", "copy the biases too"),
    ("LayerNorm and biases", "copy-attention-weights", "b_Q, b_K, b_V = source.in_proj_bias.chunk(3)", "b_Q, b_V, b_K = source.in_proj_bias.chunk(3)", "in that order"),
    ("LayerNorm and biases", "copy-attention-weights", "if source.in_proj_bias is not None:", "if True:", "NoneType"),
    ("LayerNorm and biases", "feed-forward", "self.linear2(self.dropout(torch.relu(self.linear1(x))))", "self.dropout(torch.relu(x @ self.linear1.weight.T)) @ self.linear2.weight.T", NO_HINT),
    ("LayerNorm and biases", "multi-head-forward", "return self.W_O(combine_heads(heads)), weights", "return combine_heads(heads) @ self.W_O.weight.T, weights", NO_HINT),
    # Dropout in training, compared under the same seed
    ("dropout", "scaled-dot-product-attention", "weights = torch.nn.functional.dropout(weights, p=dropout_p)", "weights = torch.nn.functional.dropout(weights, p=dropout_p, training=False)", "dropout_p is ignored"),
    ("dropout", "scaled-dot-product-attention", "    if dropout_p > 0:\n        weights = torch.nn.functional.dropout(weights, p=dropout_p)\n    output = weights @ value", "    output = weights @ value\n    if dropout_p > 0:\n        output = torch.nn.functional.dropout(output, p=dropout_p)", "not on the output"),
    ("dropout", "scaled-dot-product-attention", "(weights, p=dropout_p)", "(weights, p=1 - dropout_p)", "not of keeping it"),
    ("dropout", "multi-head-forward", "heads, weights = self.attend(Q, K, V, mask)", "heads, weights = scaled_dot_product_attention(Q, K, V, mask)", "self.attend"),
    ("dropout", "multi-head-forward", "heads, weights = self.attend(Q, K, V, mask)  # (B, h, T_q, d_k)\n        return self.W_O(combine_heads(heads)), weights", "heads, weights = scaled_dot_product_attention(Q, K, V, mask)  # (B, h, T_q, d_k)\n        return self.dropout(self.W_O(combine_heads(heads))), weights", "not on the output"),
    ("dropout", "feed-forward", "self.linear2(self.dropout(torch.relu(self.linear1(x))))", "self.linear2(torch.relu(self.linear1(x)))", "self.dropout"),
    ("dropout", "feed-forward", "self.linear2(self.dropout(torch.relu(self.linear1(x))))", "self.dropout(self.linear2(torch.relu(self.linear1(x))))", "not on the output"),
    ("dropout", "feed-forward", "self.linear2(self.dropout(torch.relu(self.linear1(x))))", "self.linear2(torch.relu(self.linear1(self.dropout(x))))", "not on the input"),
    ("dropout", "encoder-layer", "x = self.norm1(x + self.dropout1(attended))\n            x = self.norm2(x + self.dropout2(self.feed_forward(x)))", "x = self.norm1(x + attended)\n            x = self.norm2(x + self.feed_forward(x))", "without its own Dropouts"),
    ("dropout", "encoder-layer", "x = x + self.dropout1(attended)\n            x = x + self.dropout2(self.feed_forward(self.norm2(x)))", "x = x + attended\n            x = x + self.feed_forward(self.norm2(x))", "without its own Dropouts"),
    ("dropout", "encoder-layer", "x = self.norm1(x + self.dropout1(attended))", "x = self.norm1(self.dropout1(x + attended))", NO_HINT),
    ("dropout", "dropout-on-the-residual", "x = x + self.dropout2(self.feed_forward(self.norm2(x)))", "x = self.dropout2(x + self.feed_forward(self.norm2(x)))", "residual stream"),
    ("dropout", "decoder-layer", "x = x + self.dropout3(self.feed_forward(self.norm3(x)))", "x = x + self.feed_forward(self.norm3(x))", NO_HINT),
    ("dropout", "decoder-layer", "x = self.norm1(x + self.dropout1(out))\n            out, cross = self.cross_attention(x, memory, memory, mask=memory_mask)\n            x = self.norm2(x + self.dropout2(out))\n            x = self.norm3(x + self.dropout3(self.feed_forward(x)))", "x = self.norm1(x + out)\n            out, cross = self.cross_attention(x, memory, memory, mask=memory_mask)\n            x = self.norm2(x + out)\n            x = self.norm3(x + self.feed_forward(x))", "without its own Dropouts"),
    # Boundaries: the warm-up's last step, no warm-up, exactly a full context, a length of 0 or 1
    ("boundaries", "learning-rate-schedule", "if step < warmup_steps:", "if step <= warmup_steps:", "step < warmup_steps"),
    ("boundaries", "learning-rate-schedule", "math.sqrt(max(1, warmup_steps) / (step + 1))", "math.sqrt(warmup_steps / (step + 1))", "0 warm-up steps"),
    ("boundaries", "learning-rate-schedule", "/ max(1, steps - 1 - warmup_steps)", "/ (steps - 1 - warmup_steps)", "ZeroDivisionError"),
    ("boundaries", "learning-rate-schedule", "/ max(1, steps - 1 - warmup_steps)", "/ max(1, steps - warmup_steps)", "steps - 1"),
    ("boundaries", "learning-rate-schedule", "progress = (step - warmup_steps) / max(1, steps - 1 - warmup_steps)", "progress = step / max(1, steps - 1)", "starts where the warm-up ends"),
    ("boundaries", "learning-rate-schedule", "return math.sqrt(max(1, warmup_steps) / (step + 1))", "return 1 / math.sqrt(step + 1)", "go on from 1"),
    ("boundaries", "kv-cache", "    n = tokens.size(1)\n", "    n = tokens.size(1)\n    if cache.length + n >= model.context:\n        raise ValueError('the tokens do not fit the context')\n", "exactly model.context tokens fit"),
    ("boundaries", "cache-offset", "    n = tokens.size(1)\n", "    n = tokens.size(1)\n    if cache.length + n >= model.context:\n        raise ValueError('the tokens do not fit the context')\n", "exactly model.context tokens fit"),
    ("boundaries", "causal-mask", "if seq_len < 1:", "if seq_len <= 1:", "seq_len"),
    ("boundaries", "padding-mask", "if (lengths > max_len).any():", "if (lengths >= max_len).any():", "ValueError"),
    ("boundaries", "padding-mask", "if (lengths < 0).any():", "if (lengths < 1).any():", "ValueError"),
    ("boundaries", "recurrent-by-hand", "for t in range(x.size(1)):", "for t in range(1, x.size(1)):", "shape"),
    ("boundaries", "band-mask", "return (distance >= 0) & (distance < window)", "return (distance > 0) & (distance <= window)", "distance 0"),
    ("boundaries", "band-mask", "if causal:", "if True:", "centred"),
    ("boundaries", "sliding-window-cache", "self.length += key.size(-2)", "self.length += 1", "cache.length"),
    # A padding id other than 0
    ("pad_id", "classifier-pooling", "real = (tokens != self.encoder.pad_id)", "real = (tokens != 0)", "the tokens with id 0"),
    ("pad_id", "classifier-pooling", "real = (tokens != self.encoder.pad_id)", "real = (tokens > 0)", "the tokens with id 0"),
    ("pad_id", "classifier-pooling", "if self.encoder.pad_id is None:", "if True:", "counts the padding"),
    ("pad_id", "classifier-pooling", "/ real.sum(dim=1).clamp(min=1)", "/ tokens.size(1)", "padded length T"),
    ("pad_id", "classifier-pooling", "pooled = (encoded * real).sum(dim=1) / real.sum(dim=1).clamp(min=1)", "pooled = (encoded * real).sum(dim=1)", "number of real tokens"),
    # The dtype and device of what comes back
    ("dtype and device", "sinusoidal-table", "table = torch.zeros(max_len, d_model)", "table = torch.zeros(max_len, d_model, dtype=torch.float64)", "float64"),
    ("dtype and device", "sinusoidal-table", "    return table\n", "    return table.double()\n", "float64"),
    ("dtype and device", "shift-rotation", "rotation = torch.zeros(d_model, d_model)", "rotation = torch.zeros(d_model, d_model, dtype=torch.float64)", "float64"),
    ("dtype and device", "shift-right", "start = torch.full_like(target[:, :1], BOS)", "start = torch.full((target.size(0), 1), float(BOS))", "torch.float32"),
    ("dtype and device", "shift-right", "start = torch.full_like(target[:, :1], BOS)", "start = torch.ones(target.size(0), 1) * BOS", "torch.float32"),
    ("dtype and device", "shift-right", "start = torch.full_like(target[:, :1], BOS)", "start = torch.full((target.size(0), 1), BOS)", "device"),
    ("dtype and device", "causal-mask", "dtype=torch.bool, device=device).tril()", "dtype=torch.bool).tril()", "device"),
    ("dtype and device", "causal-mask", "dtype=torch.bool, device=device).tril()", "device=device).tril()", "boolean"),
    ("dtype and device", "decoder-sees-the-future", "causal_mask(T, device=target_input.device)", "causal_mask(T)", "device"),
    ("dtype and device", "kv-cache", "causal_mask(t + n, device=tokens.device)", "causal_mask(t + n)", "device"),
    ("dtype and device", "recurrent-by-hand", "return torch.stack(states, dim=1)", "return torch.stack(states, dim=1).double()", "float64"),
    ("dtype and device", "scaled-dot-product-attention", "output = weights @ value", "output = weights.double() @ value.double()", "float64"),
    ("dtype and device", "padding-mask", "keep = positions[None, :] < lengths[:, None]", "keep = (positions[None, :] < lengths[:, None]).long()", "boolean"),
    ("dtype and device", "mask-for-pytorch", "return ~mask", "return (~mask).float()", "boolean"),
    ("dtype and device", "band-mask", "position = torch.arange(length, device=device)", "position = torch.arange(length)", "device"),
    ("dtype and device", "band-mask", "return (distance >= 0) & (distance < window)", "return ((distance >= 0) & (distance < window)).int()", "boolean"),
    # The documented errors
    ("errors", "recurrent-by-hand", "one_plain_layer = rnn.num_layers == 1 and not rnn.bidirectional and rnn.bias", "one_plain_layer = rnn.num_layers == 1", "bidirectional"),
    ("errors", "recurrent-by-hand", "or not rnn.batch_first ", "", "batch_first=False"),
    ("errors", "scaled-dot-product-attention", "    check_attention_inputs(query, key, value)\n", "", "expected ValueError"),
    ("errors", "scaled-dot-product-attention", "        check_attention_mask(mask, scores.shape)\n", "", "an integer mask"),
    ("errors", "causal-mask", "if seq_len < 1:", "if seq_len == 0:", "causal_mask(-3)"),
    ("errors", "padding-mask", "if (lengths < 0).any():", "if False:", "a negative length"),
    ("errors", "padding-mask", "if lengths.dim() != 1:", "if False:", "(2, 1)"),
    ("errors", "padding-mask", " or lengths.dtype == torch.bool", "", "boolean lengths"),
    ("errors", "sinusoidal-table", "    check_counts(max_len=max_len, d_model=d_model)\n", "", "d_model = 0"),
    ("errors", "shift-rotation", "    check_counts(d_model=d_model)\n", "", "d_model = 0"),
    ("errors", "mask-for-pytorch", "if mask.dtype != torch.bool:", "if mask.dtype.is_floating_point:", "torch.long"),
    ("errors", "learning-rate-schedule", "if schedule not in SCHEDULES:", "if schedule not in SCHEDULES and False:", "an unknown schedule"),
    ("errors", "multi-head-forward", "        self._check_inputs(query, key, value)\n", "", "width 10"),
    ("errors", "band-mask", "    check_counts(length=length, window=window)\n", "", "a window of 0"),
    # Inputs edited in place: the graders' expected values come from other copies, and the edit is named
    ("in place", "scaled-dot-product-attention", "scores = query @ key.transpose(-2, -1) / math.sqrt(d_k)", "scores = query.div_(math.sqrt(d_k)) @ key.transpose(-2, -1)", "in place"),
    ("in place", "mask-for-pytorch", "return ~mask", "return mask.logical_not_()", "in place"),
    ("in place", "shift-right", "return torch.cat([start, target[:, :-1]], dim=1)", "target[:, 1:] = target[:, :-1].clone()\n    target[:, 0] = BOS\n    return target", "in place"),
    ("in place", "encoder-layer", "x = x + self.dropout1(attended)\n", "x += self.dropout1(attended)\n", "in place"),
    ("in place", "decoder-layer", "x = x + self.dropout1(out)\n", "x += self.dropout1(out)\n", "in place"),
    # Hints that name exactly what the output shows
    ("hints", "scaled-dot-product-attention", 'masked_fill(~mask, float("-inf"))', "masked_fill(mask, -1e9)", "'may attend'"),
    ("hints", "scaled-dot-product-attention", "scores = scores + mask", "scores = scores * mask", "not multiplied"),
    ("hints", "scaled-dot-product-attention", "scores = scores + mask", "scores = scores", "no mask at all"),
    ("hints", "scaled-dot-product-attention", "scores = scores + mask", "scores = (scores * math.sqrt(d_k) + mask) / math.sqrt(d_k)", "after the scaling"),
    ("hints", "scaled-dot-product-attention", 'if mask.dtype == torch.bool:\n            scores = scores.masked_fill(~mask, float("-inf"))', 'if True:\n            scores = scores.masked_fill(~mask.bool(), float("-inf"))', "reads the float mask as a boolean one"),  # once the grader's float mask had no zero, and this read as "no mask at all"
    ("hints", "scaled-dot-product-attention", "no_key = torch.isneginf(scores).all(dim=-1, keepdim=True)", "no_key = (~mask).all(dim=-1, keepdim=True) if mask.dtype == torch.bool else torch.zeros_like(scores[..., :1], dtype=torch.bool)", "NaN"),
    ("hints", "scaled-dot-product-attention", "scores = query @ key.transpose(-2, -1) / math.sqrt(d_k)", "scores = query @ key.transpose(-2, -1) / math.sqrt(d_k) / 2", "divided by 8"),
    ("hints", "split-and-combine-heads", "x.view(B, T, num_heads, d_k).transpose(1, 2)", "x.view(B, T, d_k, num_heads).permute(0, 3, 1, 2)", "(h, d_k)"),
    ("hints", "feed-forward", "self.linear2(self.dropout(torch.relu(self.linear1(x))))", "self.linear2(self.dropout(torch.nn.functional.gelu(self.linear1(x))))", "GELU"),
    ("hints", "feed-forward", "self.linear2(self.dropout(torch.relu(self.linear1(x))))", "torch.relu(self.linear2(self.dropout(self.linear1(x))))", "not after the second"),
    ("hints", "recurrent-by-hand", "h @ rnn.weight_hh_l0.T", "h @ rnn.weight_hh_l0", "its transpose"),
    ("hints", "unigram-bpc", "log_p = torch.log2(counts / counts.sum())", "log_p = torch.log2(counts / len(train_ids))", "the new total"),
    ("hints", "top-p-filter", "logits.softmax(dim=-1).sort(dim=-1, descending=True)", "logits.softmax(dim=-1).sort(dim=-1)", "descending"),
    ("hints", "top-p-filter", "logits.softmax(dim=-1).sort(dim=-1, descending=True)", "logits.softmax(dim=-1), torch.arange(logits.size(-1)).expand_as(logits)", "sort the probabilities first"),
    ("hints", "band-mask", "return (distance >= 0) & (distance < window)", "return (distance < window)", "causal=True"),
    ("hints", "sliding-window-cache", "        return key, value\n", "        return self.keys, self.values\n", "dropping the oldest"),
    ("hints", "sliding-window-cache", "        self.values = value[..., -self.window :, :]\n", "        self.values = value\n", "cache.values"),
    ("hints", "kv-cache", "positions = model.positions.table[offset : offset + n]", "positions = model.positions.table[offset : offset + n] * 0.5", NO_HINT),
    ("sizes", "rms-norm", "d_model = self.weight.numel()", "d_model = 8", "your code raised ValueError"),
    ("sizes", "apply-rotary", "T, head_dim = x.shape[-2:]", "T, head_dim = x.shape[-2], 8", "your code raised RuntimeError"),
    ("sizes", "grouped-attention", "group = Q.size(1) // K.size(1)", "group = 2", "your code raised RuntimeError"),
    ("hints", "rms-norm", "h * torch.rsqrt(mean_square + self.eps) * self.weight", "(h - h.mean(dim=-1, keepdim=True)) * torch.rsqrt(h.var(dim=-1, keepdim=True, unbiased=False) + self.eps) * self.weight", "that is LayerNorm"),
    ("hints", "apply-rotary", "cos, sin = angles.cos().to(x.dtype), angles.sin().to(x.dtype)", "cos, sin = angles.sin().to(x.dtype), angles.cos().to(x.dtype)", NO_HINT),
    ("hints", "swiglu", "F.silu(self.gate(x)) * self.up(x)", "F.relu(self.gate(x)) * self.up(x)", "not ReLU"),
    ("errors", "rms-norm", 'raise ValueError(f"x must end with d_model={d_model} features, got {got}")', "pass", "expected ValueError"),
    ("errors", "grouped-attention", "if Q.dim() != 4 or K.dim() != 4 or Q.size(1) % K.size(1):", "if Q.dim() != 4 or K.dim() != 4:", "expected ValueError"),
    ("dtype and device", "apply-rotary", "cos, sin = angles.cos().to(x.dtype), angles.sin().to(x.dtype)", "cos, sin = angles.cos(), angles.sin()", "dtype"),
    ("dtype and device", "rms-norm", "return scaled.to(x.dtype)", "return scaled", "float16"),
    # Dropout drawn by hand, not under the reference's seed: judged on the law of many draws, not on one draw
    ("dropout", "scaled-dot-product-attention", "weights = torch.nn.functional.dropout(weights, p=dropout_p)", "weights = weights * (torch.rand_like(weights) >= dropout_p)", "over 2000 draws"),
    ("dropout", "scaled-dot-product-attention", "weights = torch.nn.functional.dropout(weights, p=dropout_p)", "weights = weights * (torch.rand_like(weights) < dropout_p) / dropout_p", "over 2000 draws"),
    ("dropout", "feed-forward", "return self.linear2(self.dropout(torch.relu(self.linear1(x))))", "y = self.linear2(torch.relu(self.linear1(x)))\n        return y * (torch.rand_like(y) >= self.dropout.p) / (1 - self.dropout.p) if self.training else y", "over 2000 draws"),
    ("dropout", "encoder-layer", "x = x + self.dropout1(attended)\n", "x = x + attended\n            x = x * (torch.rand_like(x) >= self.dropout1.p) / (1 - self.dropout1.p) if self.training else x\n", "over 2000 draws"),
    ("dropout", "feed-forward", "return self.linear2(self.dropout(torch.relu(self.linear1(x))))", "y = self.linear2(self.dropout(torch.relu(self.linear1(x))))\n        return y * float('nan') if self.training else y", "NaN or inf"),
    # Every argument, sizes above the starter's, the inputs' device (the meta device stands in for a GPU)
    ("sizes", "classifier-pooling", "pooled = (encoded * real).sum(dim=1) / real.sum(dim=1).clamp(min=1)", "pooled = torch.stack([e[t != self.encoder.pad_id].mean(dim=0) for e, t in zip(encoded, tokens)])", "nan"),
    ("arguments", "apply-rotary", "angles = rotary_angles(T, head_dim, base, offset)", "angles = rotary_angles(T, head_dim, 10000.0, offset)", "pass base on to rotary_angles"),
    ("arguments", "grouped-attention", "mask, dropout_p=dropout_p)", "mask)", "dropout_p is ignored"),
    ("arguments", "rms-norm", "torch.rsqrt(mean_square + self.eps)", "torch.rsqrt(mean_square + 1e-6)", "use self.eps"),
    ("arguments", "multi-head-forward", "heads, weights = self.attend(Q, K, V, mask)", "heads, weights = self.attend(Q, K, V, None)", "the mask is ignored"),
    ("sizes", "causal-mask", "return torch.ones(seq_len, seq_len, dtype=torch.bool, device=device).tril()", "return torch.ones(16, 16, dtype=torch.bool, device=device).tril()[:seq_len, :seq_len]", "causal_mask(40)"),
    ("dtype and device", "apply-rotary", "angles = rotary_angles(T, head_dim, base, offset).to(x.device)", "angles = rotary_angles(T, head_dim, base, offset).to(x.device, x.dtype)", "offset=3000"),
    ("dtype and device", "apply-rotary", "angles = rotary_angles(T, head_dim, base, offset).to(x.device)", "angles = rotary_angles(T, head_dim, base, offset)", "the inputs' device"),
    ("dtype and device", "scaled-dot-product-attention", "scores = query @ key.transpose(-2, -1) / math.sqrt(d_k)", "scores = query @ key.transpose(-2, -1) / torch.tensor([d_k]).sqrt()", "the inputs' device"),
    ("dtype and device", "multi-head-forward", "return self.W_O(combine_heads(heads)), weights", "return self.W_O(combine_heads(heads)) * torch.ones(1), weights", "the inputs' device"),
    ("dtype and device", "feed-forward", "return self.linear2(self.dropout(torch.relu(self.linear1(x))))", "return self.linear2(self.dropout(torch.relu(self.linear1(x)))) + torch.zeros(x.size(-1))", "the inputs' device"),
    ("dtype and device", "encoder-layer", "return x, weights  # (B, T, d_model), (B, h, T, T)", "return x + torch.zeros(x.size(-1)), weights", "the inputs' device"),
    ("dtype and device", "rms-norm", "torch.rsqrt(mean_square + self.eps)", "torch.rsqrt(mean_square + torch.full((1,), self.eps))", "the inputs' device"),
    ("dtype and device", "swiglu", "return self.down(F.silu(self.gate(x)) * self.up(x))", "return self.down(F.silu(self.gate(x)) * self.up(x)) + torch.zeros(self.down.out_features)", "the inputs' device"),
    ("dtype and device", "top-p-filter", "outside = outside.scatter(-1, order, outside)", "outside = torch.zeros(logits.shape, dtype=torch.bool).scatter(-1, order, outside)", "the inputs' device"),
    ("gradients and modes", "grouped-attention", "K = K.repeat_interleave(group, dim=1)", "K = K.detach().repeat_interleave(group, dim=1)", "backward() must reach"),
    # Gradients and modes: the forward pass in training is right; backward() or eval mode is not
    ("gradients and modes", "encoder-layer", "x = x + self.dropout1(attended)\n", "x = x + torch.nn.functional.dropout(attended, self.dropout1.p, training=True)\n", "in eval mode"),
    ("gradients and modes", "decoder-layer", "x = x + self.dropout3(self.feed_forward(self.norm3(x)))", "x = x + self.dropout3(self.feed_forward(self.norm3(x.detach())))", "backward() must reach"),
    ("gradients and modes", "classifier-pooling", "pooled = (encoded * real).sum(dim=1) / real.sum(dim=1).clamp(min=1)", "pooled = (encoded.detach() * real).sum(dim=1) / real.sum(dim=1).clamp(min=1)", "backward() must reach"),
    ("gradients and modes", "rms-norm", "h * torch.rsqrt(mean_square + self.eps) * self.weight", "h * torch.rsqrt(mean_square + self.eps).detach() * self.weight", "backward() must reach"),
    ("gradients and modes", "feed-forward", "torch.relu(self.linear1(x))", "torch.relu(self.linear1(x).detach())", "no gradient reaches"),
    ("gradients and modes", "swiglu", "F.silu(self.gate(x)) * self.up(x)", "F.silu(self.gate(x)) * self.up(x).detach()", "backward() must reach"),
    ("gradients and modes", "rms-norm", "scaled = h * torch.rsqrt(mean_square + self.eps)", "scaled = h.mul_(torch.rsqrt(mean_square + self.eps))", "autograd still needs"),
    ("gradients and modes", "scaled-dot-product-attention", "output = weights @ value", "output = weights.detach() @ value", "backward() must reach"),
    ("gradients and modes", "multi-head-forward", "self.attend(Q, K, V, mask)", "self.attend(Q, K.detach(), V, mask)", "backward() must reach"),
    ("gradients and modes", "feed-forward", "self.dropout(torch.relu(self.linear1(x)))", "nn.functional.dropout(torch.relu(self.linear1(x)), self.dropout.p, training=True)", "in eval mode"),
]  # fmt: skip

# (exercise, text of the page's solution, a correct solution written differently)
RIGHT = [
    ("apply-rotary", "turned_a = a * cos - b * sin  # (..., T, d/2)\n    turned_b = b * cos + a * sin", "turned_a = torch.addcmul(a * cos, b, sin, value=-1)  # (..., T, d/2)\n    turned_b = torch.addcmul(b * cos, a, sin)"),
    ("apply-rotary", "cos, sin = angles.cos().to(x.dtype), angles.sin().to(x.dtype)", "cos, sin = torch.cos(angles.double()).to(x.dtype), torch.sin(angles.double()).to(x.dtype)"),
    ("grouped-attention", "return scaled_dot_product_attention(Q, K, V, mask, dropout_p=dropout_p)", "return scaled_dot_product_attention(Q, K, V, mask=mask, dropout_p=float(dropout_p))"),
    ("tags-on-padding", "above = tokens * real.sum(dim=1, keepdim=True) > total", "above = tokens.double() > total.double() / real.sum(dim=1, keepdim=True).clamp(min=1)"),
    ("padding-mask", "keep = positions[None, :] < lengths[:, None]", "keep = positions.expand(len(lengths), -1) < lengths.unsqueeze(1)"),
    # dropout drawn another way than the reference's: the same law, other draws
    ("scaled-dot-product-attention", "weights = torch.nn.functional.dropout(weights, p=dropout_p)", "weights = weights * (torch.rand_like(weights) >= dropout_p) / (1 - dropout_p)"),
    ("scaled-dot-product-attention", "weights = torch.nn.functional.dropout(weights, p=dropout_p)", "weights = torch.nn.functional.dropout(weights.double(), p=dropout_p).to(weights.dtype)"),
    ("feed-forward", "return self.linear2(self.dropout(torch.relu(self.linear1(x))))", "h = torch.relu(self.linear1(x))\n        if self.training:\n            h = h * torch.bernoulli(torch.full_like(h, 1 - self.dropout.p)) / (1 - self.dropout.p)\n        return self.linear2(h)"),
    ("multi-head-forward", "heads, weights = self.attend(Q, K, V, mask)", "_, weights = scaled_dot_product_attention(Q, K, V, mask)\n        if self.training:\n            weights = weights * (torch.rand_like(weights) >= self.dropout.p) / (1 - self.dropout.p)\n        heads = weights @ V"),
    ("encoder-layer", "x = x + self.dropout1(attended)\n", "x = x + (attended * (torch.rand_like(attended) >= self.dropout1.p) / (1 - self.dropout1.p) if self.training else attended)\n"),
    ("decoder-layer", "x = x + self.dropout3(self.feed_forward(self.norm3(x)))", "x = x + self.dropout3(self.feed_forward(self.norm3(x)).double()).float()"),
    ("rms-norm", "h * torch.rsqrt(mean_square + self.eps) * self.weight", "self.weight * h / torch.sqrt(mean_square + self.eps)"),
    ("swiglu", "F.silu(self.gate(x)) * self.up(x)", "self.gate(x) * torch.sigmoid(self.gate(x)) * self.up(x)"),
    ("grouped-attention", "K = K.repeat_interleave(group, dim=1)  # (B, h, T_k, d_k): the same tensor\n    V = V.repeat_interleave(group, dim=1)", "K = K[:, :, None].expand(-1, -1, group, -1, -1).flatten(1, 2)  # (B, h, T_k, d_k): the same tensor\n    V = V[:, :, None].expand(-1, -1, group, -1, -1).flatten(1, 2)"),
    ("scaled-dot-product-attention", "scores = query @ key.transpose(-2, -1) / math.sqrt(d_k)", 'scores = torch.einsum("...qd,...kd->...qk", query, key) / math.sqrt(d_k)'),
    ("scaled-dot-product-attention", "scores = query @ key.transpose(-2, -1) / math.sqrt(d_k)", "scores = (query / d_k**0.5) @ key.transpose(-2, -1)"),
    ("scaled-dot-product-attention", 'scores = scores.masked_fill(~mask, float("-inf"))', 'scores = torch.where(mask, scores, torch.full_like(scores, float("-inf")))'),
    ("scaled-dot-product-attention", "weights = torch.softmax(scores, dim=-1)", "weights = torch.softmax(scores.double(), dim=-1).to(scores.dtype)"),
    ("scaled-dot-product-attention", "weights = torch.softmax(scores, dim=-1)", "weights = torch.stack([torch.softmax(scores[..., i, :], dim=-1) for i in range(scores.size(-2))], dim=-2)"),
    ("scaled-dot-product-attention", "weights = torch.softmax(scores, dim=-1)", "weights = torch.exp(scores - scores.amax(dim=-1, keepdim=True))\n    weights = weights / weights.sum(dim=-1, keepdim=True)"),
    ("attention-too-sharp", "/ math.sqrt(d_k)", "/ math.sqrt(query.shape[-1])"),
    ("recurrent-by-hand", "x[:, t] @ rnn.weight_ih_l0.T", 'torch.einsum("bi,hi->bh", x[:, t], rnn.weight_ih_l0)'),
    ("recurrent-by-hand", "h @ rnn.weight_hh_l0.T + rnn.bias_hh_l0", "torch.nn.functional.linear(h, rnn.weight_hh_l0, rnn.bias_hh_l0)"),
    ("recurrent-by-hand", "return torch.stack(states, dim=1)", "return torch.cat([state.unsqueeze(1) for state in states], dim=1)"),
    ("causal-mask", "return torch.ones(seq_len, seq_len, dtype=torch.bool, device=device).tril()", "positions = torch.arange(seq_len, device=device)\n    return positions[:, None] >= positions[None, :]"),
    ("causal-mask", "return torch.ones(seq_len, seq_len, dtype=torch.bool, device=device).tril()", "return torch.tril(torch.ones(seq_len, seq_len, device=device)).bool()"),
    ("padding-mask", "keep = positions[None, :] < lengths[:, None]", "keep = torch.stack([positions < length for length in lengths])"),
    ("split-and-combine-heads", "x.view(B, T, num_heads, d_k).transpose(1, 2)", "x.reshape(B, T, num_heads, d_k).permute(0, 2, 1, 3)"),
    ("split-and-combine-heads", "x.transpose(1, 2).reshape(B, T, h * d_k)", "torch.cat([x[:, i] for i in range(h)], dim=-1)"),
    ("multi-head-forward", "heads, weights = self.attend(Q, K, V, mask)", "heads, weights = scaled_dot_product_attention(Q, K, V, mask, dropout_p=self.dropout.p if self.training else 0.0)"),
    ("multi-head-forward", "Q = split_heads(self.W_Q(query), self.num_heads)", "Q = split_heads(query @ self.W_Q.weight.T + self.W_Q.bias, self.num_heads)"),
    ("self-attention", "return scaled_dot_product_attention(self.W_Q(x), self.W_K(x), self.W_V(x), mask)", "query, key, value = self.W_Q(x), self.W_K(x), self.W_V(x)\n        return scaled_dot_product_attention(query, key, value, mask)"),
    ("sinusoidal-table", "frequency = torch.exp(-math.log(10000.0) * exponent)", "frequency = 1.0 / 10000.0**exponent"),
    ("sinusoidal-table", "table[:, 0::2] = torch.sin(position * frequency)", "table[:, 0::2] = torch.sin(position.double() * frequency.double()).float()"),
    ("shift-rotation", "rotation[0::2, 0::2] = torch.diag(cos)\n    rotation[0::2, 1::2] = torch.diag(sin)\n    rotation[1::2, 0::2] = torch.diag(-sin)\n    rotation[1::2, 1::2] = torch.diag(cos)", "for i in range(d_model // 2):\n        rotation[2 * i : 2 * i + 2, 2 * i : 2 * i + 2] = torch.stack([torch.stack([cos[i], sin[i]]), torch.stack([-sin[i], cos[i]])])"),
    ("feed-forward", "self.linear2(self.dropout(torch.relu(self.linear1(x))))", "self.linear2(torch.relu(self.dropout(self.linear1(x))))"),
    ("feed-forward", "self.linear2(self.dropout(torch.relu(self.linear1(x))))", "self.linear2(self.dropout(self.linear1(x).clamp(min=0)))"),
    ("encoder-layer", "x = x + self.dropout1(attended)\n            x = x + self.dropout2(self.feed_forward(self.norm2(x)))", "residual = x + self.dropout1(attended)\n            x = residual + self.dropout2(self.feed_forward(self.norm2(residual)))"),
    ("encoder-layer", "x = self.norm1(x + self.dropout1(attended))", "x = self.norm1(self.dropout1(attended) + x)"),
    ("decoder-layer", "x = self.norm1(x + self.dropout1(out))", "x = self.norm1(self.dropout1(out) + x)"),
    ("learning-rate-schedule", "if step < warmup_steps:", "if step + 1 <= warmup_steps:"),
    ("learning-rate-schedule", "return 0.5 * (1 + math.cos(math.pi * min(progress, 1.0)))", "return (1 + math.cos(math.pi * min(progress, 1.0))) / 2"),
    ("classifier-pooling", "pooled = (encoded * real).sum(dim=1) / real.sum(dim=1).clamp(min=1)", "pooled = torch.stack([e[t != self.encoder.pad_id].sum(dim=0) / max(int((t != self.encoder.pad_id).sum()), 1) for e, t in zip(encoded, tokens)])"),
    ("copy-attention-weights", "    with torch.no_grad():\n        W_Q, W_K, W_V = source.in_proj_weight.chunk(3, dim=0)", '    names = ("W_Q.weight", "W_K.weight", "W_V.weight")\n    weights = dict(zip(names, source.in_proj_weight.detach().chunk(3)))\n    weights["W_O.weight"] = source.out_proj.weight.detach()\n    if source.in_proj_bias is not None:\n        weights.update(zip(("W_Q.bias", "W_K.bias", "W_V.bias"), source.in_proj_bias.detach().chunk(3)))\n        weights["W_O.bias"] = source.out_proj.bias.detach()\n    target.load_state_dict(weights)\n    return\n    with torch.no_grad():\n        W_Q, W_K, W_V = source.in_proj_weight.chunk(3, dim=0)'),
    ("copy-attention-weights", "target.W_Q.weight.copy_(W_Q)", "target.W_Q.weight = nn.Parameter(W_Q.clone())"),
    ("mask-for-pytorch", "return ~mask", "return torch.logical_not(mask)"),
    ("mask-for-pytorch", "return ~mask", "return mask == 0"),
    ("shift-right", "start = torch.full_like(target[:, :1], BOS)", "start = torch.ones_like(target[:, :1]) * BOS"),
    ("shift-right", "return torch.cat([start, target[:, :-1]], dim=1)", "shifted = target.roll(1, dims=1)\n    shifted[:, 0] = BOS\n    return shifted"),
    ("decoder-sees-the-future", "causal_mask(T, device=target_input.device) if causal", "torch.ones(T, T, dtype=torch.bool, device=target_input.device).tril() if causal"),
    ("kv-cache", "    n = tokens.size(1)\n", "    n = tokens.size(1)\n    if int(tokens.max()) >= model.output.out_features:  # reads a value: fine on a GPU, not on the meta device\n        raise ValueError('a token id is outside the vocabulary')\n"),
    ("kv-cache", "allowed = None if n == 1 else causal_mask(t + n, device=tokens.device)[t:]", "allowed = torch.ones(n, t + n, dtype=torch.bool, device=tokens.device).tril(diagonal=t)"),
    ("unigram-bpc", "log_p = torch.log2(counts / counts.sum())", "log_p = torch.log(counts / counts.sum()) / torch.log(torch.tensor(2.0, dtype=torch.float64))"),
    ("beam-search", "parent, token = best // V, best % V", "parent, token = torch.div(best, V, rounding_mode='floor'), best.remainder(V)"),
    ("top-p-filter", "outside = ahead >= top_p  # sorted order: the nucleus reached top_p before it\n    outside = outside.scatter(-1, order, outside)", "outside = torch.zeros_like(ahead, dtype=torch.bool).scatter(-1, order, ahead >= top_p)"),
    ("band-mask", "return (distance >= 0) & (distance < window)", "ones = torch.ones(length, length, dtype=torch.bool, device=device)\n        return ones.tril() & ~ones.tril(-window)"),
    ("sliding-window-cache", "self.keys = key[..., -self.window :, :]", "self.keys = key[..., max(0, key.size(-2) - self.window) :, :]"),
    ("bigram-bpc", "counts = torch.bincount(pairs, minlength=vocab_size * vocab_size).double()\n    counts = counts.view(vocab_size, vocab_size) + 1", "counts = torch.ones(vocab_size, vocab_size, dtype=torch.float64)\n    for previous, following in zip(train_ids[:-1].tolist(), train_ids[1:].tolist()):\n        counts[previous, following] += 1"),
]  # fmt: skip


@pytest.fixture(autouse=True, scope="module")
def one_thread():
    """The graders' tensors are tiny: one thread computes them fastest, and on a busy machine by far."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def graded(name: str, correct: str, changed: str, tmp_path):
    """Grade the page's solution of `name` with `correct` replaced by `changed` (which must occur exactly once)."""
    code = reference_code(EXERCISES[name])
    path = tmp_path / EXERCISES[name].file_name
    path.write_text(plant(code, correct, changed, what=f"the solution of {name}"), encoding="utf-8")
    return grade(EXERCISES[name], load(path), str(path))


@pytest.mark.parametrize(
    ("category", "name", "correct", "wrong", "words"), WRONG, ids=[f"{w[0]}:{w[1]}:{w[3][:40]}" for w in WRONG]
)
def test_a_wrong_solution_is_rejected_with_what_is_wrong(category, name, correct, wrong, words, tmp_path):
    failed = [result for result in graded(name, correct, wrong, tmp_path) if not result.passed]
    assert failed, f"{category}: the wrong solution passes every check"
    said = [f"{result.message}\n{result.hint}" for result in failed]
    if words is NO_HINT:
        assert not any(result.hint for result in failed), [result.hint for result in failed]
    else:
        assert any(words in text for text in said), said


@pytest.mark.parametrize(("name", "correct", "right"), RIGHT, ids=[f"{r[0]}:{r[2][:40]}" for r in RIGHT])
def test_a_correct_solution_written_differently_passes(name, correct, right, tmp_path):
    results = graded(name, correct, right, tmp_path)
    assert all(result.passed for result in results), [result for result in results if not result.passed]


def test_every_category_has_several_wrong_solutions():
    categories = [category for category, *_ in WRONG]
    counts = {category: categories.count(category) for category in categories}
    assert len(counts) == 12 and min(counts.values()) >= 4, counts
