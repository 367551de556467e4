"""Wrong solutions and correct variants of the exercises of chapter "A language model that writes": unigram-bpc, bigram-bpc, top-p-filter.

The format and the categories: tests/unit/test_grader_mistakes.py.
"""

# ruff: noqa: E501 - the tables read best one solution per line

NO_HINT = None  # rejected, and no failing check claims a known mistake

# (category, exercise, text of the page's solution, the learner's text, words of the failure, or NO_HINT)
WRONG = [
    ("sizes", "unigram-bpc", "minlength=vocab_size).double() + 1", "minlength=6).double() + 1", "vocabulary of 3"),
    ("sizes", "bigram-bpc", "pairs = train_ids[:-1] * vocab_size + train_ids[1:]", "pairs = train_ids[:-1] * 6 + train_ids[1:]", "vocabulary of 3"),
    ("hints", "unigram-bpc", "log_p = torch.log2(counts / counts.sum())", "log_p = torch.log2(counts / len(train_ids))", "the new total"),
    ("hints", "top-p-filter", "logits.softmax(dim=-1).sort(dim=-1, descending=True)", "logits.softmax(dim=-1).sort(dim=-1)", "descending"),
    ("hints", "top-p-filter", "logits.softmax(dim=-1).sort(dim=-1, descending=True)", "logits.softmax(dim=-1), torch.arange(logits.size(-1)).expand_as(logits)", "sort the probabilities first"),
    ("device", "top-p-filter", "outside = outside.scatter(-1, order, outside)", "outside = torch.zeros(logits.shape, dtype=torch.bool).scatter(-1, order, outside)", "the inputs' device"),
]  # fmt: skip

# (category, exercise, text of the page's solution, a correct solution written differently)
RIGHT = [
    ("written differently", "unigram-bpc", "log_p = torch.log2(counts / counts.sum())", "log_p = torch.log(counts / counts.sum()) / torch.log(torch.tensor(2.0, dtype=torch.float64))"),
    ("device", "top-p-filter", "outside = ahead >= top_p  # sorted order: the nucleus reached top_p before it\n    outside = outside.scatter(-1, order, outside)", "outside = torch.zeros_like(ahead, dtype=torch.bool).scatter(-1, order, ahead >= top_p)"),
    ("sizes", "bigram-bpc", "counts = torch.bincount(pairs, minlength=vocab_size * vocab_size).double()\n    counts = counts.view(vocab_size, vocab_size) + 1", "counts = torch.ones(vocab_size, vocab_size, dtype=torch.float64)\n    for previous, following in zip(train_ids[:-1].tolist(), train_ids[1:].tolist()):\n        counts[previous, following] += 1"),
]  # fmt: skip
