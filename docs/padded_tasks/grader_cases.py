"""Wrong solutions and correct variants of the exercises of chapter "Classifying and tagging variable-length sequences": tags-on-padding.

The format and the categories: tests/unit/test_grader_mistakes.py; the kinds each grader must catch: `applies`
on the exercise, in exercises.py beside this file.
"""

# ruff: noqa: E501 - the tables read best one solution per line

NO_HINT = None  # rejected, and no failing check claims a known mistake

# (category, exercise, text of the page's solution, the learner's text, words of the failure, or NO_HINT)
WRONG = [
    ("sizes", "tags-on-padding", "total = (tokens * real).sum(dim=1, keepdim=True)", "total = (tokens * real).sum(dim=1).view(32, 1)", "is invalid for input of size"),
    ("sizes", "tags-on-padding", "real = tokens != PAD  # (B, T)\n    total = (tokens * real).sum(dim=1, keepdim=True)", "real = torch.arange(12, device=tokens.device)[: tokens.size(1)] < (tokens != PAD).sum(dim=1, keepdim=True)\n    total = (tokens * real).sum(dim=1, keepdim=True)", "must match the size"),
    ("device", "tags-on-padding", "real = tokens != PAD  # (B, T)\n    total = (tokens * real).sum(dim=1, keepdim=True)", "real = torch.arange(tokens.size(1)) < (tokens != PAD).sum(dim=1, keepdim=True)\n    total = (tokens * real).sum(dim=1, keepdim=True)", "the inputs' device"),
    ("device", "tags-on-padding", "return above.long().masked_fill(~real, IGNORE)", "return torch.where(real, above.long(), torch.full(tokens.shape, IGNORE))", "the inputs' device"),
    ("in place", "tags-on-padding", "total = (tokens * real).sum(dim=1, keepdim=True)", "tokens[~real] = 0\n    total = tokens.sum(dim=1, keepdim=True)", "in place"),
    ("in place", "tags-on-padding", "total = (tokens * real).sum(dim=1, keepdim=True)", "total = tokens.masked_fill_(~real, 0).sum(dim=1, keepdim=True)", "in place"),
]  # fmt: skip

# (category, exercise, text of the page's solution, a correct solution written differently)
RIGHT = [
    ("sizes", "tags-on-padding", "real = tokens != PAD  # (B, T)\n    total = (tokens * real).sum(dim=1, keepdim=True)", "real = torch.arange(tokens.shape[-1], device=tokens.device) < (tokens != PAD).sum(dim=1, keepdim=True)\n    total = (tokens * real).sum(dim=1, keepdim=True)"),
    ("sizes", "tags-on-padding", "total = (tokens * real).sum(dim=1, keepdim=True)", "total = (tokens * real).sum(dim=1).view(-1, 1)"),
    ("device", "tags-on-padding", "return above.long().masked_fill(~real, IGNORE)", "return torch.where(real, above.long(), torch.full_like(tokens, IGNORE))"),
    ("device", "tags-on-padding", "return above.long().masked_fill(~real, IGNORE)", "return torch.where(real, above.long(), IGNORE)"),
    ("in place", "tags-on-padding", "total = (tokens * real).sum(dim=1, keepdim=True)", "digits = tokens.clone()\n    digits[~real] = 0\n    total = digits.sum(dim=1, keepdim=True)"),
    ("in place", "tags-on-padding", "return above.long().masked_fill(~real, IGNORE)", "labels = above.long()\n    labels[~real] = IGNORE\n    return labels"),
    ("written differently", "tags-on-padding", "above = tokens * real.sum(dim=1, keepdim=True) > total", "above = tokens.double() > total.double() / real.sum(dim=1, keepdim=True).clamp(min=1)"),
]  # fmt: skip
