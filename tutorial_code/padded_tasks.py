"""Two tasks on digit sequences of different lengths, padded to the longest.

Shape letters: B = batch size, T = the batch's length (real tokens and
padding), C = number of classes or tags. Functions of `tokens` raise TypeError
for a non-integer tensor and ValueError unless it is (B, T) ids 0-10.
"""

# --8<-- [start:imports]
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import torch
from torch import nn

from tutorial_code.encoder import Encoder
from tutorial_code.modes import in_eval_mode
from tutorial_code.validation import check_count, check_targets, check_token_ids

# --8<-- [end:imports]
# isort: split
# not shown: only the build acts on the mark
from tutorial_code.shared_runs import reusable

# --8<-- [start:data]
PAD = 10  # the padding token; digits are the tokens 0-9
VOCAB_SIZE = 11
# the label of a padded position: cross_entropy's default ignore_index
IGNORE = -100


def padded_batch(
    batch_size: int = 32,
    min_len: int = 3,
    max_len: int = 12,
    generator: torch.Generator | None = None,
) -> torch.Tensor:
    """Digit sequences of random lengths, (B, T) ids padded with `PAD`.

    Examples:
        >>> tokens = padded_batch(3, generator=torch.Generator().manual_seed(0))
        >>> tokens.size(1) == (tokens != PAD).sum(dim=1).max().item()
        True
    """
    check_count(batch_size, "batch_size")
    check_count(min_len, "min_len")
    check_count(max_len, "max_len", minimum=min_len)
    lengths = torch.randint(
        min_len, max_len + 1, (batch_size,), generator=generator
    )
    T = int(lengths.max())  # the longest sequence sets the batch's length
    digits = torch.randint(0, 10, (batch_size, T), generator=generator)
    real = torch.arange(T) < lengths[:, None]  # (B, T): True = a real digit
    return digits.masked_fill(~real, PAD)  # (B, T)


def add_padding(tokens: torch.Tensor, extra: int) -> torch.Tensor:
    """Append `extra` >= 0 more `PAD` tokens to every sequence: (B, T + extra).

    Examples:
        >>> add_padding(torch.tensor([[3, 4, PAD]]), 2)
        tensor([[ 3,  4, 10, 10, 10]])
    """
    check_token_ids(tokens, VOCAB_SIZE)
    check_count(extra, "extra", minimum=0)
    return torch.cat(
        [tokens, tokens.new_full((tokens.size(0), extra), PAD)], dim=1
    )


def sequence_labels(tokens: torch.Tensor) -> torch.Tensor:
    """One label per sequence, (B,): 1 if the mean of its digits is above 4.5.

    Examples:
        >>> sequence_labels(torch.tensor([[9, 1, 8, PAD], [0, 9, PAD, PAD]]))
        tensor([1, 0])
    """
    check_token_ids(tokens, VOCAB_SIZE)
    real = tokens != PAD  # (B, T)
    total = (tokens * real).sum(dim=1)  # padding counts 0
    return (2 * total > 9 * real.sum(dim=1)).long()  # mean > 4.5, in integers


def token_labels(tokens: torch.Tensor) -> torch.Tensor:
    """One tag per token, (B, T): 1 if the digit is above its sequence's mean.

    Padded positions get `IGNORE`.

    Examples:
        >>> token_labels(torch.tensor([[1, 2, 6, PAD]]))
        tensor([[   0,    0,    1, -100]])
    """
    check_token_ids(tokens, VOCAB_SIZE)
    real = tokens != PAD  # (B, T)
    total = (tokens * real).sum(dim=1, keepdim=True)  # (B, 1)
    # digit > total / length
    above = tokens * real.sum(dim=1, keepdim=True) > total
    return above.long().masked_fill(~real, IGNORE)


# --8<-- [end:data]


# --8<-- [start:tagger]
class EncoderTagger(nn.Module):
    """An `Encoder` with a linear head: (B, T) ids to (B, T, C) logits.

    The outputs at padded positions mean nothing: loss and accuracy skip them.

    Args:
        encoder: Set its `pad_id`, so that no token attends to padding.

    Raises:
        ValueError: If `num_tags` is smaller than 2.

    Examples:
        >>> encoder = Encoder(vocab_size=11, d_model=16, num_heads=4, d_ff=32,
        ...                   num_layers=1, pad_id=10)
        >>> tagger = EncoderTagger(encoder, num_tags=2)
        >>> tagger(torch.tensor([[3, 4, 10]])).shape
        torch.Size([1, 3, 2])
    """

    def __init__(self, encoder: Encoder, num_tags: int) -> None:
        super().__init__()
        check_count(num_tags, "num_tags", minimum=2)
        if encoder.pad_id is None:  # padding would move every token's tags
            raise ValueError(
                "the encoder has no pad_id, so its tokens attend to padding: "
                "build it with Encoder(..., pad_id=PAD)"
            )
        self.encoder = encoder
        self.head = nn.Linear(encoder.d_model, num_tags)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        """Return the logits of every token."""
        encoded, _ = self.encoder(tokens)  # (B, T, d_model)
        return self.head(encoded)  # (B, T, C)


# --8<-- [end:tagger]


# --8<-- [start:accuracy]
@in_eval_mode  # dropout off; the caller's mode restored
@torch.no_grad()
def accuracy(
    model: nn.Module,
    labels: Callable[[torch.Tensor], torch.Tensor],
    tokens: torch.Tensor,
) -> float:
    """The share of correct answers, over the labels that are not `IGNORE`.

    Args:
        model: A classifier (logits (B, C)) or a tagger (logits (B, T, C)).
        labels: `sequence_labels` or `token_labels`.

    Raises:
        ValueError: If `labels` does not fit the model (a label per sequence
            for a tagger, or the reverse), or every position is padding.

    Examples:
        >>> class Ones(nn.Module):
        ...     def forward(self, tokens):
        ...         return torch.tensor([0.0, 1.0]).expand(*tokens.shape, 2)
        >>> tokens = torch.tensor([[1, 2, 6, PAD]])
        >>> round(accuracy(Ones(), token_labels, tokens), 4)
        0.3333
    """
    targets = labels(tokens)  # (B,) or (B, T)
    logits = model(tokens)  # (B, C) or (B, T, C)
    check_targets(logits, targets, IGNORE)  # the labels fit the model's kind
    predictions = logits.argmax(dim=-1)  # the shape of targets
    scored = targets != IGNORE  # every sequence, or the real tokens
    return (predictions == targets)[scored].float().mean().item()


def held_out(sequences: int = 512) -> torch.Tensor:
    """A fixed `padded_batch` of seed 1234, which no training draws."""
    return padded_batch(
        sequences, generator=torch.Generator().manual_seed(1234)
    )


# --8<-- [end:accuracy]


# --8<-- [start:result]
@dataclass
class PaddedResult:
    """What `train_padded` returns.

    Attributes:
        model: The trained model, in eval mode, on the CPU.
        accuracy: `accuracy` on the held-out batch.
    """

    model: nn.Module
    losses: list[float] = field(repr=False)
    accuracy: float
    seconds: float


# --8<-- [end:result]


@reusable  # not shown: the build shares trainings (shared_runs.py)
# --8<-- [start:train_padded]
def train_padded(
    model: nn.Module,
    labels: Callable[[torch.Tensor], torch.Tensor],
    steps: int = 150,
    seed: int = 0,
    batch_size: int = 32,
    lr: float = 3e-3,
    device: str = "cpu",
) -> PaddedResult:
    """Train a classifier or a tagger on padded batches, Adam and cross-entropy.

    Args:
        model: An `EncoderClassifier` or an `EncoderTagger`.
        labels: `sequence_labels` or `token_labels`.
        seed: Seeds the batches and the dropout.
        device: Where to train; the model comes back on the CPU.
    """
    check_count(steps, "steps")
    check_count(batch_size, "batch_size")
    torch.manual_seed(seed)  # dropout draws from the global generator
    # the batches: same seed, same data
    data = torch.Generator().manual_seed(seed)
    model.to(device)
    # faster
    optimizer = torch.optim.Adam(model.parameters(), lr=lr, foreach=True)
    losses, start = [], time.perf_counter()
    model.train()
    for _ in range(steps):
        tokens = padded_batch(batch_size, generator=data)
        targets = labels(tokens).to(device)  # (B,) or (B, T)
        logits = model(tokens.to(device))  # (B, C) or (B, T, C)
        # the labels fit the model's kind
        check_targets(logits, targets, IGNORE)
        # one per sequence or token
        rows = (logits.flatten(0, -2), targets.flatten())
        # skips IGNORE
        loss = nn.functional.cross_entropy(*rows, ignore_index=IGNORE)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    seconds = time.perf_counter() - start
    model.cpu().eval()
    return PaddedResult(
        model, losses, accuracy(model, labels, held_out()), seconds
    )


# --8<-- [end:train_padded]
