"""Wrong solutions and correct variants of the exercises of chapter "A language model that writes": unigram-bpc, bigram-bpc, top-p-filter.

The format and the categories: tests/unit/test_grader_mistakes.py; the kinds each grader must catch: `applies`
on the exercise, in exercises.py beside this file.
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
    ("in place", "unigram-bpc", "counts = torch.bincount(train_ids, minlength=vocab_size).double() + 1", "train_ids.numpy().sort()  # NumPy sorts in place, in the tensor's memory\n    counts = torch.bincount(train_ids, minlength=vocab_size).double() + 1", "in place"),
    ("in place", "unigram-bpc", "counts = torch.bincount(train_ids, minlength=vocab_size).double() + 1", "counts = torch.ones(vocab_size, dtype=torch.float64).index_add_(0, train_ids, train_ids.fill_(1).double())", "in place"),
    ("in place", "bigram-bpc", "pairs = train_ids[:-1] * vocab_size + train_ids[1:]", "pairs = train_ids[1:].add_(train_ids[:-1] * vocab_size)  # saves a tensor", "in place"),
    ("sizes", "unigram-bpc", "return -log_p[held_out_ids].mean().item()", "return -log_p[held_out_ids].sum().item() / 52", "(31 training ids, vocabulary of 3)"),
    ("sizes", "top-p-filter", "ahead = probabilities.cumsum(dim=-1) - probabilities", "ahead = probabilities.cumsum(dim=1) - probabilities", "your code raised IndexError"),
    ("sizes", "top-p-filter", "outside = outside.scatter(-1, order, outside)", "outside = outside.scatter(1, order, outside)", "your code raised IndexError"),
    ("in place", "top-p-filter", "return logits.masked_fill(outside, float(\"-inf\"))", "return logits.masked_fill_(outside, float(\"-inf\"))", "in place"),
    ("in place", "top-p-filter", "return logits.masked_fill(outside, float(\"-inf\"))", "logits[outside] = float(\"-inf\")\n    return logits", "in place"),
]  # fmt: skip

# (category, exercise, text of the page's solution, a correct solution written differently)
RIGHT = [
    ("written differently", "unigram-bpc", "log_p = torch.log2(counts / counts.sum())", "log_p = torch.log(counts / counts.sum()) / torch.log(torch.tensor(2.0, dtype=torch.float64))"),
    ("device", "top-p-filter", "outside = ahead >= top_p  # sorted order: the nucleus reached top_p before it\n    outside = outside.scatter(-1, order, outside)", "outside = torch.zeros_like(ahead, dtype=torch.bool).scatter(-1, order, ahead >= top_p)"),
    ("sizes", "bigram-bpc", "counts = torch.bincount(pairs, minlength=vocab_size * vocab_size).double()\n    counts = counts.view(vocab_size, vocab_size) + 1", "counts = torch.ones(vocab_size, vocab_size, dtype=torch.float64)\n    for previous, following in zip(train_ids[:-1].tolist(), train_ids[1:].tolist()):\n        counts[previous, following] += 1"),
    ("sizes", "unigram-bpc", "return -log_p[held_out_ids].mean().item()", "return -log_p[held_out_ids].sum().item() / len(held_out_ids)"),
    ("in place", "unigram-bpc", "counts = torch.bincount(train_ids, minlength=vocab_size).double() + 1", "counts = torch.bincount(train_ids, minlength=vocab_size).double()\n    counts.add_(1)  # a new tensor: train_ids stays as it is"),
    ("in place", "unigram-bpc", "counts = torch.bincount(train_ids, minlength=vocab_size).double() + 1", "ids = train_ids.clone()\n    ids.numpy().sort()  # sorts the copy\n    counts = torch.bincount(ids, minlength=vocab_size).double() + 1"),
    ("in place", "bigram-bpc", "pairs = train_ids[:-1] * vocab_size + train_ids[1:]", "pairs = train_ids[:-1] * vocab_size\n    pairs.add_(train_ids[1:])  # pairs is a new tensor"),
    ("sizes", "top-p-filter", "probabilities, order = logits.softmax(dim=-1).sort(dim=-1, descending=True)\n    ahead = probabilities.cumsum(dim=-1) - probabilities\n    outside = ahead >= top_p\n    outside = outside.scatter(-1, order, outside)\n    return logits.masked_fill(outside, float(\"-inf\"))", "flat = logits.reshape(-1, logits.shape[-1])  # (rows, V), whatever the leading sizes\n    probabilities, order = flat.softmax(dim=-1).sort(dim=-1, descending=True)\n    ahead = probabilities.cumsum(dim=-1) - probabilities\n    outside = (ahead >= top_p).scatter(-1, order, ahead >= top_p)\n    return logits.masked_fill(outside.view_as(logits), float(\"-inf\"))"),
    ("in place", "top-p-filter", "return logits.masked_fill(outside, float(\"-inf\"))", "filtered = logits.clone()\n    filtered[outside] = float(\"-inf\")  # edits the copy\n    return filtered"),
]  # fmt: skip
