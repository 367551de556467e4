"""A small text task for the encoder-decoder: write a number in English words.

The source is a number's three digits ("047"), the target its words, one
character per token ("forty-seven"), closed by an end token. A fifth of the
numbers are held out: the model never trains on them.

Shape letters: B = batch size, S = source length (3), T = target length.
"""

# --8<-- [start:imports]
import time
from dataclasses import dataclass, field

import torch
from torch import nn
from tqdm import tqdm

from tutorial_code.modes import in_eval_mode
from tutorial_code.reverse_task import Seq2SeqModel
from tutorial_code.validation import check_count

# --8<-- [end:imports]
# isort: split
# not shown: only the build acts on the mark
from tutorial_code.shared_runs import reusable

# --8<-- [start:words]
ONES = (
    "zero one two three four five six seven eight nine ten eleven twelve "
    "thirteen fourteen fifteen sixteen seventeen eighteen nineteen"
).split()
TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()


def number_words(n: int) -> str:
    """English words for a whole number from 0 to 999.

    Examples:
        >>> number_words(347), number_words(80), number_words(0)
        ('three hundred forty-seven', 'eighty', 'zero')
    """
    if isinstance(n, bool) or not isinstance(n, int) or not 0 <= n <= 999:
        raise ValueError(f"n must be a whole number from 0 to 999, got {n}")
    hundreds, rest = divmod(n, 100)
    words = [f"{ONES[hundreds]} hundred"] if hundreds else []
    if rest >= 20:
        tens, ones = divmod(rest, 10)
        words.append(TENS[tens] + (f"-{ONES[ones]}" if ones else ""))
    elif rest or not hundreds:
        words.append(ONES[rest])
    return " ".join(words)


# --8<-- [end:words]


# --8<-- [start:tokens]
PAD, START, END = 0, 1, 2  # padding, start of the target, end of the target
DIGITS = "0123456789"  # the source's tokens: 3 to 12
CHARS = sorted(set("".join(number_words(n) for n in range(1000))))
NUM_TOKENS = 3 + len(DIGITS) + len(CHARS)  # one table for source and target


def encode_digits(numbers: list[int]) -> torch.Tensor:
    """Each number's three digits as tokens: (B, 3)."""
    return torch.tensor([[3 + int(d) for d in f"{n:03d}"] for n in numbers])


def encode_words(numbers: list[int]) -> torch.Tensor:
    """Each number's words as character tokens, then END, then PAD: (B, T)."""
    rows = [
        [3 + len(DIGITS) + CHARS.index(c) for c in number_words(n)] + [END]
        for n in numbers
    ]
    longest = max(len(row) for row in rows)
    return torch.tensor([row + [PAD] * (longest - len(row)) for row in rows])


def decode_words(tokens: torch.Tensor) -> str:
    """Character tokens back to text, up to the first END."""
    text = []
    for token in tokens.tolist():
        if token == END:
            break
        text.append(CHARS[token - 3 - len(DIGITS)] if token >= 13 else "?")
    return "".join(text)


# --8<-- [end:tokens]


# --8<-- [start:split]
def split_numbers(seed: int = 0) -> tuple[list[int], list[int]]:
    """0 to 999 in a random order: 800 to train on, 200 held out."""
    order = torch.randperm(1000, generator=torch.Generator().manual_seed(seed))
    return order[:800].tolist(), order[800:].tolist()


# --8<-- [end:split]


# --8<-- [start:write]
@in_eval_mode  # dropout off; the caller's mode restored
@torch.no_grad()
def write_words(
    model: Seq2SeqModel, numbers: list[int], max_len: int = 30
) -> list[str]:
    """Greedy decoding: each number's words, one likeliest token at a time."""
    check_count(max_len, "max_len")
    source = encode_digits(numbers)  # (B, 3)
    written = torch.full((len(numbers), 1), START)  # (B, 1)
    for _ in range(max_len):
        logits, _ = model(source, written)  # (B, t, V)
        next_token = logits[:, -1].argmax(dim=-1, keepdim=True)  # (B, 1)
        written = torch.cat([written, next_token], dim=1)
        if (written == END).any(dim=1).all():  # every row has ended
            break
    return [decode_words(row) for row in written[:, 1:]]


def words_accuracy(model: Seq2SeqModel, numbers: list[int]) -> float:
    """Share of `numbers` whose words the model writes exactly right."""
    written = write_words(model, numbers)
    pairs = zip(written, numbers, strict=True)
    return sum(words == number_words(n) for words, n in pairs) / len(numbers)


# --8<-- [end:write]


# --8<-- [start:spelled_digit]
def spelled_digit(n: int) -> list[int | None]:
    """For each character of a three-part number's words ("three hundred
    forty-seven"), the source position of the digit it spells: 0, 1 or 2;
    None for the space and the hyphen between the parts.

    Examples:
        >>> spelled_digit(121)
        [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, None, 1, 1, 1, 1, 1, 1, None, 2, 2, 2]
    """
    if not (100 <= n <= 999 and n % 100 >= 20 and n % 10):
        raise ValueError(
            f"n must have three parts (a hundreds digit, tens from 2 and "
            f"ones from 1, as in 347), got {n}"
        )
    hundreds, rest = number_words(n).split(" hundred ")
    tens, ones = rest.split("-")
    digits = [0] * len(f"{hundreds} hundred") + [None] + [1] * len(tens)
    return digits + [None] + [2] * len(ones)


# --8<-- [end:spelled_digit]


# --8<-- [start:result]
@dataclass
class NumberWordsResult:
    """What `train_number_words` returns.

    Attributes:
        model: The trained model, in eval mode, on the CPU.
        losses: Training cross-entropy at every step.
        held_out_accuracy: Share of the 200 held-out numbers written right.
    """

    model: Seq2SeqModel
    losses: list[float] = field(repr=False)
    held_out_accuracy: float
    seconds: float


# --8<-- [end:result]


# the build shares trainings between chapters: tutorial_code/shared_runs.py
@reusable
# --8<-- [start:train]
def train_number_words(
    steps: int = 500, seed: int = 0, lr: float = 3e-3, device: str = "cpu"
) -> NumberWordsResult:
    """Train a `Seq2SeqModel` to write the words of the 800 training numbers."""
    check_count(steps, "steps")
    train_numbers, held_out = split_numbers()
    torch.manual_seed(seed)
    batches = torch.Generator().manual_seed(seed)
    model = Seq2SeqModel(NUM_TOKENS).to(device)  # chapter 10's sizes
    optimizer = torch.optim.Adam(model.parameters(), lr=lr, foreach=True)
    losses, start = [], time.perf_counter()
    model.train()
    for _ in tqdm(range(steps), desc="number words", unit="step"):
        picks = torch.randint(0, 800, (64,), generator=batches).tolist()
        numbers = [train_numbers[i] for i in picks]
        source = encode_digits(numbers).to(device)  # (B, 3)
        target = encode_words(numbers).to(device)  # (B, T)
        starts = torch.full_like(target[:, :1], START)  # (B, 1)
        target_input = torch.cat([starts, target[:, :-1]], dim=1)  # shift right
        logits, _ = model(source, target_input)  # (B, T, V)
        loss = nn.functional.cross_entropy(  # padding scores nothing
            logits.flatten(0, 1), target.flatten(), ignore_index=PAD
        )
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    seconds = time.perf_counter() - start
    model.cpu().eval()
    accuracy = words_accuracy(model, held_out)
    return NumberWordsResult(model, losses, accuracy, seconds)


# --8<-- [end:train]
