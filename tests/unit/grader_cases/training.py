"""Wrong solutions and correct variants of the exercises of chapter "The complete model, trained": learning-rate-schedule, classifier-pooling.

The format and the categories: tests/unit/test_grader_mistakes.py.
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
]  # fmt: skip

# (category, exercise, text of the page's solution, a correct solution written differently)
RIGHT = [
    ("sizes", "learning-rate-schedule", "if step < warmup_steps:", "if step + 1 <= warmup_steps:"),
    ("written differently", "learning-rate-schedule", "return 0.5 * (1 + math.cos(math.pi * min(progress, 1.0)))", "return (1 + math.cos(math.pi * min(progress, 1.0))) / 2"),
    ("sizes", "classifier-pooling", "pooled = (encoded * real).sum(dim=1) / real.sum(dim=1).clamp(min=1)", "pooled = torch.stack([e[t != self.encoder.pad_id].sum(dim=0) / max(int((t != self.encoder.pad_id).sum()), 1) for e, t in zip(encoded, tokens)])"),
]  # fmt: skip
