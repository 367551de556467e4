"""Wrong solutions and correct variants of the exercises of chapter "Why attention": recurrent-by-hand, recurrent-time-axis.

The format and the categories: tests/unit/test_grader_mistakes.py; the kinds each grader must catch: `applies`
on the exercise, in exercises.py beside this file.
"""

# ruff: noqa: E501 - the tables read best one solution per line

NO_HINT = None  # rejected, and no failing check claims a known mistake

# (category, exercise, text of the page's solution, the learner's text, words of the failure, or NO_HINT)
WRONG = [
    ("sizes", "recurrent-by-hand", "h = x.new_zeros(x.size(0), rnn.hidden_size)", "h = torch.zeros(2, 6)", "your code raised RuntimeError"),
    ("sizes", "recurrent-by-hand", "h = x.new_zeros(x.size(0), rnn.hidden_size)", "h = torch.zeros(x.size(0), 6)", "your code raised RuntimeError"),
    ("sizes", "recurrent-by-hand", "for t in range(x.size(1)):", "for t in range(7):", "your code raised IndexError"),
    ("LayerNorm and biases", "recurrent-by-hand", " + rnn.bias_hh_l0", "", "bias_hh_l0 is missing"),
    ("LayerNorm and biases", "recurrent-by-hand", " + rnn.bias_ih_l0", "", "bias_ih_l0 is missing"),
    ("boundaries", "recurrent-by-hand", "for t in range(x.size(1)):", "for t in range(1, x.size(1)):", "shape"),
    ("dtype", "recurrent-by-hand", "return torch.stack(states, dim=1)", "return torch.stack(states, dim=1).double()", "float64"),
    ("errors", "recurrent-by-hand", "one_plain_layer = rnn.num_layers == 1 and not rnn.bidirectional and rnn.bias", "one_plain_layer = rnn.num_layers == 1", "bidirectional"),
    ("errors", "recurrent-by-hand", "or not rnn.batch_first ", "", "batch_first=False"),
    ("hints", "recurrent-by-hand", "h @ rnn.weight_hh_l0.T", "h @ rnn.weight_hh_l0", "its transpose"),
    ("gradients", "recurrent-by-hand", "from_state = h @ rnn.weight_hh_l0.T", "from_state = h.detach() @ rnn.weight_hh_l0.T", "backward() must reach"),
    ("gradients", "recurrent-by-hand", "states.append(h)", "states.append(h.detach())", "backward() must reach"),
    ("gradients", "recurrent-by-hand", "h = torch.tanh(", "with torch.no_grad():\n            h = torch.tanh(", "backward() must reach"),
    ("device", "recurrent-by-hand", "h = x.new_zeros(x.size(0), rnn.hidden_size)", "h = torch.zeros(x.size(0), rnn.hidden_size)", "the inputs' device"),
    ("in place", "recurrent-by-hand", "for t in range(x.size(1)):\n        from_state = h @ rnn.weight_hh_l0.T + rnn.bias_hh_l0\n        h = torch.tanh(\n            x[:, t] @", "x.transpose_(0, 1)  # time first\n    for t in range(x.size(0)):\n        from_state = h @ rnn.weight_hh_l0.T + rnn.bias_hh_l0\n        h = torch.tanh(\n            x[t] @", "in place"),
    ("in place", "recurrent-by-hand", "x[:, t] @ rnn.weight_ih_l0.T", "x[:, t].clamp_(-2, 2) @ rnn.weight_ih_l0.T", "in place"),
]  # fmt: skip

# (category, exercise, text of the page's solution, a correct solution written differently)
RIGHT = [
    ("written differently", "recurrent-by-hand", "x[:, t] @ rnn.weight_ih_l0.T", 'torch.einsum("bi,hi->bh", x[:, t], rnn.weight_ih_l0)'),
    ("written differently", "recurrent-by-hand", "h @ rnn.weight_hh_l0.T + rnn.bias_hh_l0", "torch.nn.functional.linear(h, rnn.weight_hh_l0, rnn.bias_hh_l0)"),
    ("written differently", "recurrent-by-hand", "return torch.stack(states, dim=1)", "return torch.cat([state.unsqueeze(1) for state in states], dim=1)"),
    ("sizes", "recurrent-by-hand", "h = x.new_zeros(x.size(0), rnn.hidden_size)", "h = x.new_zeros(len(x), rnn.weight_hh_l0.shape[-1])"),
    ("sizes", "recurrent-by-hand", "for t in range(x.size(1)):", "for t in range(x.shape[-2]):"),
    ("gradients", "recurrent-by-hand", "x[:, t] @ rnn.weight_ih_l0.T + rnn.bias_ih_l0", "torch.nn.functional.linear(x[:, t], rnn.weight_ih_l0, rnn.bias_ih_l0)"),
    ("gradients", "recurrent-by-hand", "from_state = h @ rnn.weight_hh_l0.T + rnn.bias_hh_l0", "from_state = torch.addmm(rnn.bias_hh_l0, h, rnn.weight_hh_l0.t())"),
    ("device", "recurrent-by-hand", "h = x.new_zeros(x.size(0), rnn.hidden_size)", "h = torch.zeros(x.size(0), rnn.hidden_size, dtype=x.dtype, device=x.device)"),
    ("device", "recurrent-by-hand", "h = x.new_zeros(x.size(0), rnn.hidden_size)", "h = torch.zeros_like(rnn.bias_hh_l0).expand(x.size(0), -1)"),
    ("in place", "recurrent-by-hand", "h = torch.tanh(\n            x[:, t] @ rnn.weight_ih_l0.T + rnn.bias_ih_l0 + from_state\n        )", "h = x[:, t] @ rnn.weight_ih_l0.T\n        h += rnn.bias_ih_l0 + from_state\n        h = h.tanh_()"),
]  # fmt: skip
