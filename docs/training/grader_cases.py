"""Wrong solutions and correct variants of the exercises of chapter "The complete model, trained": learning-rate-schedule, classifier-pooling.

The format and the categories: tests/unit/test_grader_mistakes.py; the kinds each grader must catch: `applies`
on the exercise, in exercises.py beside this file.
"""

# ruff: noqa: E501 - the tables read best one solution per line

NO_HINT = None  # rejected, and no failing check claims a known mistake

# (category, exercise, text of the page's solution, the learner's text, words of the failure, or NO_HINT)
WRONG = [
    ("boundaries", "learning-rate-schedule", "if step < warmup_steps:", "if step <= warmup_steps:", "step < warmup_steps"),
    ("boundaries", "learning-rate-schedule", "math.sqrt(max(1, warmup_steps) / (step + 1))", "math.sqrt(warmup_steps / (step + 1))", "0 warm-up steps"),
    ("boundaries", "learning-rate-schedule", "/ max(1, steps - 1 - warmup_steps)", "/ (steps - 1 - warmup_steps)", "ZeroDivisionError"),
    ("boundaries", "learning-rate-schedule", "/ max(1, steps - 1 - warmup_steps)", "/ max(1, steps - warmup_steps)", "steps - 1"),
    ("boundaries", "learning-rate-schedule", "progress = (step - warmup_steps) / max(1, steps - 1 - warmup_steps)", "progress = step / max(1, steps - 1)", "starts where the warm-up ends"),
    ("boundaries", "learning-rate-schedule", "return math.sqrt(max(1, warmup_steps) / (step + 1))", "return 1 / math.sqrt(step + 1)", "go on from 1"),
    ("pad_id", "classifier-pooling", "real = (tokens != self.encoder.pad_id)", "real = (tokens != 0)", "the tokens with id 0"),
    ("pad_id", "classifier-pooling", "real = (tokens != self.encoder.pad_id)", "real = (tokens > 0)", "the tokens with id 0"),
    ("pad_id", "classifier-pooling", "if self.encoder.pad_id is None:", "if True:", "counts the padding"),
    ("pad_id", "classifier-pooling", "/ real.sum(dim=1).clamp(min=1)", "/ tokens.size(1)", "padded length T"),
    ("pad_id", "classifier-pooling", "pooled = (encoded * real).sum(dim=1) / real.sum(dim=1).clamp(min=1)", "pooled = (encoded * real).sum(dim=1)", "number of real tokens"),
    ("errors", "learning-rate-schedule", "if schedule not in SCHEDULES:", "if schedule not in SCHEDULES and False:", "an unknown schedule"),
    ("sizes", "classifier-pooling", "pooled = (encoded * real).sum(dim=1) / real.sum(dim=1).clamp(min=1)", "pooled = torch.stack([e[t != self.encoder.pad_id].mean(dim=0) for e, t in zip(encoded, tokens)])", "nan"),
    ("gradients", "classifier-pooling", "pooled = (encoded * real).sum(dim=1) / real.sum(dim=1).clamp(min=1)", "pooled = (encoded.detach() * real).sum(dim=1) / real.sum(dim=1).clamp(min=1)", "backward() must reach"),
    ("arguments", "learning-rate-schedule", "return math.sqrt(max(1, warmup_steps) / (step + 1))", "return math.sqrt(100 / (step + 1))", "warm-up steps of"),
    ("arguments", "learning-rate-schedule", "/ max(1, steps - 1 - warmup_steps)", "/ max(1, 399 - warmup_steps)", "warm-up steps of"),
    ("arguments", "learning-rate-schedule", "if schedule == \"cosine\":", "if schedule == \"cosine\" and steps == 400:", "warm-up steps of"),
    ("device", "classifier-pooling", "real = (tokens != self.encoder.pad_id).unsqueeze(-1).float()", "real = torch.where(tokens != self.encoder.pad_id, torch.ones(tokens.shape), torch.zeros(tokens.shape)).unsqueeze(-1)", "the inputs' device"),
    ("device", "classifier-pooling", "pooled = encoded.mean(dim=1)", "pooled = encoded.sum(dim=1) / torch.full((tokens.size(0), 1), tokens.size(1))", "the inputs' device"),
    ("in place", "classifier-pooling", "real = (tokens != self.encoder.pad_id).unsqueeze(-1).float()", "real = tokens.ne_(self.encoder.pad_id).unsqueeze(-1).float()", "in place"),
    ("in place", "classifier-pooling", "real = (tokens != self.encoder.pad_id).unsqueeze(-1).float()", "tokens[tokens == self.encoder.pad_id] = -1\n            real = (tokens >= 0).unsqueeze(-1).float()", "in place"),
]  # fmt: skip

# (category, exercise, text of the page's solution, a correct solution written differently)
RIGHT = [
    ("sizes", "learning-rate-schedule", "if step < warmup_steps:", "if step + 1 <= warmup_steps:"),
    ("written differently", "learning-rate-schedule", "return 0.5 * (1 + math.cos(math.pi * min(progress, 1.0)))", "return (1 + math.cos(math.pi * min(progress, 1.0))) / 2"),
    ("sizes", "classifier-pooling", "pooled = (encoded * real).sum(dim=1) / real.sum(dim=1).clamp(min=1)", "pooled = torch.stack([e[t != self.encoder.pad_id].sum(dim=0) / max(int((t != self.encoder.pad_id).sum()), 1) for e, t in zip(encoded, tokens)])"),
    ("arguments", "learning-rate-schedule", "return math.sqrt(max(1, warmup_steps) / (step + 1))", "return math.sqrt((warmup_steps or 1) / (step + 1))"),
    ("arguments", "learning-rate-schedule", "progress = (step - warmup_steps) / max(1, steps - 1 - warmup_steps)", "last = max(steps - 1, warmup_steps + 1)\n        progress = (step - warmup_steps) / (last - warmup_steps)"),
    ("arguments", "classifier-pooling", "        if self.encoder.pad_id is None:\n            pooled = encoded.mean(dim=1)\n        else:", "        pad_id = self.encoder.pad_id\n        if pad_id is not None:\n            real = tokens.ne(pad_id).unsqueeze(-1).to(encoded.dtype)\n            return self.head((encoded * real).sum(dim=1) / real.sum(dim=1).clamp(min=1))\n        pooled = encoded.mean(dim=1)\n        if False:"),
    ("gradients", "classifier-pooling", "pooled = (encoded * real).sum(dim=1) / real.sum(dim=1).clamp(min=1)", "weights = real / real.sum(dim=1, keepdim=True).clamp(min=1)\n            pooled = torch.einsum(\"btd,bt->bd\", encoded, weights.squeeze(-1))"),
    ("gradients", "classifier-pooling", "pooled = (encoded * real).sum(dim=1) / real.sum(dim=1).clamp(min=1)", "pooled = encoded.masked_fill(real == 0, 0.0).sum(dim=1) / real.sum(dim=1).clamp(min=1)"),
    ("device", "classifier-pooling", "real = (tokens != self.encoder.pad_id).unsqueeze(-1).float()", "real = torch.ones(tokens.shape, device=tokens.device).masked_fill(tokens == self.encoder.pad_id, 0.0).unsqueeze(-1)"),
    ("device", "classifier-pooling", "real = (tokens != self.encoder.pad_id).unsqueeze(-1).float()", "real = torch.where(tokens != self.encoder.pad_id, 1.0, 0.0).unsqueeze(-1)"),
    ("device", "classifier-pooling", "pooled = encoded.mean(dim=1)", "pooled = encoded.sum(dim=1) / encoded.new_full((tokens.size(0), 1), tokens.size(1))"),
    ("in place", "classifier-pooling", "pooled = (encoded * real).sum(dim=1) / real.sum(dim=1).clamp(min=1)", "pooled = (encoded * real).sum(dim=1)\n            pooled.div_(real.sum(dim=1).clamp_(min=1))"),
    ("in place", "classifier-pooling", "real = (tokens != self.encoder.pad_id).unsqueeze(-1).float()", "real = tokens.clone().ne_(self.encoder.pad_id).unsqueeze(-1).float()"),
]  # fmt: skip
