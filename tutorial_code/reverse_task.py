"""The reversal task: an encoder-decoder learns to write a digit sequence backwards.

The source is 8 digits; the target is the same digits in reverse order. The decoder writes the
target one token at a time. In training it reads the true target shifted right by one, behind a
start token (*teacher forcing*); to generate, it reads back its own earlier outputs (*greedy
decoding*). Reversal needs cross-attention: output position t must find source position 7 - t,
so its cross-attention weights form an anti-diagonal.

Shape letters: B = batch size, S = source length, T = target length, V = vocabulary size.
"""

# --8<-- [start:imports]
import functools
import time
from dataclasses import dataclass, field

import torch
from torch import nn
from tqdm import tqdm

from tutorial_code.decoder import Transformer
from tutorial_code.masks import causal_mask
from tutorial_code.positional import SinusoidalPositionalEncoding
from tutorial_code.validation import (
    check_count,
    check_same_batch,
    check_share,
    check_token_ids,
)

# --8<-- [end:imports]
# isort: split
from tutorial_code.shared_runs import recorded, reusable  # not shown: only the build acts on the mark

# --8<-- [start:data]
BOS = 10  # the start token; digits are the tokens 0-9
VOCAB_SIZE = 11


def reversal_batch(
    batch_size: int = 64, seq_len: int = 8, generator: torch.Generator | None = None
) -> tuple[torch.Tensor, torch.Tensor]:
    """Random digit sequences and their reversals, both (B, seq_len) token ids."""
    source = torch.randint(0, 10, (batch_size, seq_len), generator=generator)
    return source, source.flip(-1)


def shift_right(target: torch.Tensor) -> torch.Tensor:
    """The decoder's input under teacher forcing: the target shifted right by one.

    The start token comes first, then the target without its last token.

    Examples:
        >>> shift_right(torch.tensor([[7, 8, 9]]))
        tensor([[10,  7,  8]])
    """
    start = torch.full_like(target[:, :1], BOS)
    return torch.cat([start, target[:, :-1]], dim=1)


# --8<-- [end:data]


# --8<-- [start:model]
class Seq2SeqModel(nn.Module):
    """Token ids in, next-token logits out.

    Embeddings, sinusoidal positions, a Transformer and an output layer.

    Args:
        vocab_size: Number of token ids. Defaults to 11 (ten digits, the start token).
        d_model: Width of the token vectors. Defaults to 32.
        num_heads: Attention heads. Defaults to 4.
        num_layers: Encoder layers, and as many decoder layers. Defaults to 1.
        d_ff: Hidden width of the feed-forward networks. Defaults to 64.
        dropout: Dropout probability. Defaults to 0.0.
        max_len: Longest sequence accepted. Defaults to 32.
        embedding_scale: Multiplies the embeddings before the positions are
            added. Defaults to 1.0; the paper uses sqrt(d_model).

    Shape:
        - source: (B, S) token ids; target_input: (B, T) token ids
        - output: logits (B, T, vocab_size), and each decoder layer's cross-attention
          weights (B, h, T, S)

    Examples:
        >>> source = torch.zeros(2, 8, dtype=torch.long)
        >>> target_input = torch.zeros(2, 3, dtype=torch.long)
        >>> logits, cross = Seq2SeqModel()(source, target_input)
        >>> logits.shape, cross[0].shape
        (torch.Size([2, 3, 11]), torch.Size([2, 4, 3, 8]))
    """

    def __init__(
        self,
        vocab_size: int = VOCAB_SIZE,
        d_model: int = 32,
        num_heads: int = 4,
        num_layers: int = 1,
        d_ff: int = 64,
        dropout: float = 0.0,
        max_len: int = 32,
        embedding_scale: float = 1.0,
    ) -> None:
        super().__init__()
        # One embedding table for source and target. Its entries start with
        # variance 1, as large as the position vectors: no sqrt(d_model) factor.
        self.embedding = nn.Embedding(vocab_size, d_model)
        self.embedding_scale = embedding_scale
        self.positions = SinusoidalPositionalEncoding(d_model, max_len)
        n = num_layers  # encoder layers, and as many decoder layers
        self.transformer = Transformer(d_model, num_heads, n, n, d_ff, dropout)
        self.output = nn.Linear(d_model, vocab_size)

    def embed(self, tokens: torch.Tensor) -> torch.Tensor:
        return self.positions(self.embedding(tokens) * self.embedding_scale)

    def forward(
        self, source: torch.Tensor, target_input: torch.Tensor, causal: bool = True
    ) -> tuple[torch.Tensor, list[torch.Tensor]]:
        """Return `(logits, cross_weights)`.

        `causal=False` drops the target's causal mask: a bug, for the demonstration.
        """
        check_token_ids(source, self.embedding.num_embeddings, "source")
        check_token_ids(target_input, self.embedding.num_embeddings, "target_input")
        memory = self.transformer.encode(self.embed(source))
        T = target_input.size(1)
        target_mask = causal_mask(T, device=target_input.device) if causal else None
        target = self.embed(target_input)
        decoded, cross_weights = self.transformer.decode(target, memory, target_mask)
        return self.output(decoded), cross_weights


# --8<-- [end:model]


# --8<-- [start:greedy]
@torch.no_grad()
def greedy_decode(
    model: Seq2SeqModel,
    source: torch.Tensor,
    length: int,
) -> torch.Tensor:
    """Write `length` tokens for each source, each time the most likely next token.

    Returns the written tokens, (B, length), without the start token.
    """
    check_count(length, "length", minimum=0)
    model.eval()
    written = source.new_full((source.size(0), 1), BOS)  # (B, 1): BOS
    for _ in range(length):
        logits, _ = model(source, written)  # (B, t, V): a guess at every position
        # the newest position's most likely token: (B, 1)
        next_token = logits[:, -1].argmax(dim=-1, keepdim=True)
        written = torch.cat([written, next_token], dim=1)
    return written[:, 1:]  # without the start token


def sequence_accuracy(model: Seq2SeqModel, sequences: int = 512) -> float:
    """Share of held-out sources (seed 1234) that greedy decoding reverses exactly."""
    check_count(sequences, "sequences")
    source, target = reversal_batch(sequences, 8, torch.Generator().manual_seed(1234))
    written = greedy_decode(model, source, target.size(1))
    return (written == target).all(dim=1).float().mean().item()


# --8<-- [end:greedy]


# --8<-- [start:beam_search]
@torch.no_grad()
def beam_search(
    model: Seq2SeqModel,
    source: torch.Tensor,
    length: int,
    beam_width: int,
) -> torch.Tensor:
    """Write `length` tokens for each source, keeping the `beam_width` likeliest drafts.

    At each step every draft (a *beam*) is extended by every token; of all these
    candidates the `beam_width` with the highest total log-probability survive.
    `beam_width=1` is greedy decoding. A wider beam is not an exhaustive search: a
    draft dropped early may have had the best continuation.

    Returns the best draft's tokens, (B, length), without the start token.
    """
    check_count(length, "length", minimum=0)
    check_count(beam_width, "beam_width")
    model.eval()
    B = source.size(0)
    drafts = source.new_full((B, 1, 1), BOS)  # (B, beams, t): BOS
    scores = torch.zeros(B, 1, device=source.device)  # (B, beams): total log-prob
    for _ in range(length):
        beams = drafts.size(1)
        sources = source.repeat_interleave(beams, dim=0)  # (B * beams, S)
        logits, _ = model(sources, drafts.flatten(0, 1))  # (B * beams, t, V)
        log_p = logits[:, -1].log_softmax(dim=-1).view(B, beams, -1)  # (B, beams, V)
        V = log_p.size(-1)
        # every draft extended by every token: (B, beams * V) candidates
        candidates = (scores.unsqueeze(-1) + log_p).flatten(1)
        scores, best = candidates.topk(min(beam_width, beams * V), dim=-1)  # sorted
        parent, token = best // V, best % V  # (B, width): which draft, which token
        kept = drafts.gather(1, parent.unsqueeze(-1).expand(-1, -1, drafts.size(2)))
        drafts = torch.cat([kept, token.unsqueeze(-1)], dim=2)  # (B, width, t + 1)
    return drafts[:, 0, 1:]  # the likeliest draft, without the start token


# --8<-- [end:beam_search]


# --8<-- [start:log_prob]
def sequence_log_prob(
    model: Seq2SeqModel,
    source: torch.Tensor,
    written: torch.Tensor,
) -> torch.Tensor:
    """Total log-probability (natural log) that `model` gives `written` (B, T); (B,).

    Examples:
        >>> model = Seq2SeqModel()
        >>> source = torch.zeros(2, 8, dtype=torch.long)
        >>> sequence_log_prob(model, source, greedy_decode(model, source, 8)).shape
        torch.Size([2])
    """
    check_token_ids(written, model.embedding.num_embeddings, "written")
    check_same_batch(source=source, written=written)
    model.eval()
    with torch.no_grad():
        logits, _ = model(source, shift_right(written))  # (B, T, V)
    log_p = logits.log_softmax(dim=-1)
    return log_p.gather(-1, written.unsqueeze(-1)).squeeze(-1).sum(dim=-1)


# --8<-- [end:log_prob]


# --8<-- [start:train]
@dataclass
class Seq2SeqResult:
    """What [`train_reversal`][tutorial_code.reverse_task.train_reversal] returns.

    Attributes:
        model: The trained model, in eval mode.
        losses: Training cross-entropy at every step.
        accuracy: Share of held-out sequences that greedy decoding reverses exactly.
        seconds: Wall-clock training time.
    """

    model: Seq2SeqModel
    losses: list[float] = field(repr=False)
    accuracy: float
    seconds: float


@reusable  # the build shares trainings between chapters: tutorial_code/shared_runs.py
def train_reversal(
    steps: int = 300,
    seed: int = 0,
    lr: float = 3e-3,
    shift: bool = True,
    causal: bool = True,
    device: str = "cpu",
    embedding_scale: float = 1.0,
    label_smoothing: float = 0.0,
) -> Seq2SeqResult:
    """Train a [`Seq2SeqModel`][tutorial_code.reverse_task.Seq2SeqModel] to reverse 8 digits, with teacher forcing.

    Args:
        steps: Optimizer steps, one fresh batch of 64 each. Defaults to 300.
        seed: Seeds the weights and the data. Defaults to 0.
        lr: Adam learning rate. Defaults to 3e-3.
        shift: Feed the target shifted right (correct). False feeds the target itself: a bug. Defaults to True.
        causal: Mask the future in the decoder (correct). False is a bug. Defaults to True.
        device: Where to train; the model comes back on the CPU. Defaults to `"cpu"`.
        embedding_scale: Passed to the model: the factor of the embeddings. Defaults to 1.0.
        label_smoothing: Share of each target's probability spread evenly over all
            tokens (the paper: 0.1). Defaults to 0.0, the one-hot target.

    Returns:
        A [`Seq2SeqResult`][tutorial_code.reverse_task.Seq2SeqResult].

    Raises:
        TypeError: If `steps` is not an int or `label_smoothing` not a number.
        ValueError: If `steps` is not positive, or `label_smoothing` not in [0, 1).
    """
    check_count(steps, "steps")
    check_share(label_smoothing, "label_smoothing", "; the paper uses 0.1")
    torch.manual_seed(seed)
    data = torch.Generator().manual_seed(seed)
    model = Seq2SeqModel(embedding_scale=embedding_scale).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=lr, foreach=True)  # one update for all tensors: faster
    losses, start = [], time.perf_counter()
    model.train()
    for _ in tqdm(range(steps), desc="training", unit="step"):
        source, target = reversal_batch(64, 8, data)
        source, target = source.to(device), target.to(device)
        target_input = shift_right(target) if shift else target
        logits, _ = model(source, target_input, causal=causal)  # (B, T, V)
        loss = nn.functional.cross_entropy(logits.flatten(0, 1), target.flatten(), label_smoothing=label_smoothing)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    seconds = time.perf_counter() - start
    model.cpu().eval()
    return Seq2SeqResult(model, losses, sequence_accuracy(model), seconds)


@functools.cache
def trained_reversal(
    steps: int = 300, seed: int = 0, lr: float = 3e-3, shift: bool = True, causal: bool = True, device: str = "cpu"
) -> Seq2SeqResult:
    """[`train_reversal`][tutorial_code.reverse_task.train_reversal], once per process and arguments."""
    return train_reversal(steps, seed, lr, shift, causal, device)


# --8<-- [end:train]


@recorded  # not shown: the build reads these runs from benchmarks/recorded-runs.json
# --8<-- [start:reversed_share_per_seed]
def reversed_share_per_seed(steps: int, seeds: list[int], **options) -> list[float]:
    """Train the reversal model once per seed; the share of held-out sequences that each
    run reverses.

    Torch's global random state is left as it was.

    Args:
        steps: Optimizer steps of each run.
        seeds: One run per seed.
        **options (object): Passed on to `train_reversal`: `lr`, `embedding_scale`, ...

    Returns:
        The share of held-out sequences reversed exactly, per seed, in the order of
        `seeds`.

    Examples:
        >>> len(reversed_share_per_seed(1, [0]))
        1
    """
    with torch.random.fork_rng():
        return [train_reversal(steps, seed, **options).accuracy for seed in seeds]


# --8<-- [end:reversed_share_per_seed]


@recorded  # not shown: the build reads these runs from benchmarks/recorded-runs.json
# --8<-- [start:held_out_scores_per_seed]
def held_out_scores_per_seed(
    steps: int,
    seeds: list[int],
    **options,
) -> dict[str, list[float]]:
    """Train the reversal model once per seed and score it on 512 held-out sources.

    Torch's global random state is left as it was.

    Args:
        steps: Optimizer steps of each run.
        seeds: One run per seed.
        **options (object): Passed on to `train_reversal`: `label_smoothing`, `lr`, ...

    Returns:
        Lists in the order of `seeds`: `"reversed"`, the share that greedy decoding
        reverses exactly; `"confidence"`, the mean probability of the tokens it
        chose; `"cross_entropy"`, the mean cross-entropy (nats per token) of the
        true reversals.

    Examples:
        >>> sorted(held_out_scores_per_seed(1, [0]))
        ['confidence', 'cross_entropy', 'reversed']
    """
    source, target = reversal_batch(512, 8, torch.Generator().manual_seed(1234))
    scores = {"reversed": [], "confidence": [], "cross_entropy": []}
    with torch.random.fork_rng():
        for seed in seeds:
            model = train_reversal(steps, seed, **options).model
            written = greedy_decode(model, source, 8)
            with torch.no_grad():
                chosen, _ = model(source, shift_right(written))  # (B, T, V)
                true, _ = model(source, shift_right(target))
            p = chosen.softmax(-1).gather(-1, written.unsqueeze(-1))  # (B, T, 1)
            loss = nn.functional.cross_entropy(true.flatten(0, 1), target.flatten())
            reversed_share = (written == target).all(dim=1).float().mean()
            scores["reversed"].append(reversed_share.item())
            scores["confidence"].append(p.mean().item())
            scores["cross_entropy"].append(loss.item())
    return scores


# --8<-- [end:held_out_scores_per_seed]


@recorded  # not shown: the build reads these runs from benchmarks/recorded-runs.json
# --8<-- [start:beam_against_greedy_per_seed]
def beam_against_greedy_per_seed(
    steps: int,
    seeds: list[int],
    beam_width: int,
    **options,
) -> dict[str, list[float]]:
    """Train the reversal model once per seed; decode 512 held-out sources greedily and
    with a beam.

    Torch's global random state is left as it was.

    Args:
        steps: Optimizer steps of each run.
        seeds: One run per seed.
        beam_width: The beam's width.
        **options (object): Passed on to `train_reversal`.

    Returns:
        Lists in the order of `seeds`: `"greedy_reversed"` and `"beam_reversed"`, the
        share reversed exactly; `"greedy_log_prob"` and `"beam_log_prob"`, the mean
        total log-probability of the written sequences; `"beam_higher"` and
        `"beam_lower"`, how many sources the beam wrote a likelier or a less likely
        sequence for than greedy decoding.

    Examples:
        >>> len(beam_against_greedy_per_seed(1, [0], 2)["beam_lower"])
        1
    """
    source, target = reversal_batch(512, 8, torch.Generator().manual_seed(1234))
    names = ["greedy_reversed", "beam_reversed", "greedy_log_prob", "beam_log_prob"]
    scores = {name: [] for name in [*names, "beam_higher", "beam_lower"]}
    with torch.random.fork_rng():
        for seed in seeds:
            model = train_reversal(steps, seed, **options).model
            log_probs = {}
            for way, written in (
                ("greedy", greedy_decode(model, source, 8)),
                ("beam", beam_search(model, source, 8, beam_width)),
            ):
                log_probs[way] = sequence_log_prob(model, source, written)
                reversed_share = (written == target).all(dim=1).float().mean()
                scores[f"{way}_reversed"].append(reversed_share.item())
                scores[f"{way}_log_prob"].append(log_probs[way].mean().item())
            difference = log_probs["beam"] - log_probs["greedy"]
            scores["beam_higher"].append(int((difference > 1e-5).sum()))
            scores["beam_lower"].append(int((difference < -1e-5).sum()))
    return scores


# --8<-- [end:beam_against_greedy_per_seed]
