"""The reversal task: an encoder-decoder learns to write digits backwards.

Shape letters: B = batch size, S = source length, T = target length,
V = vocabulary size. The `*_per_seed` functions leave torch's global random
state as it was.
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
from tutorial_code.modes import in_eval_mode
from tutorial_code.positional import SinusoidalPositionalEncoding
from tutorial_code.validation import (
    check_count,
    check_counts,
    check_probabilities,
    check_same_batch,
    check_share,
    check_token_ids,
)

# --8<-- [end:imports]
# isort: split
# not shown: only the build acts on the mark
from tutorial_code.shared_runs import recorded, reusable

# --8<-- [start:data]
BOS = 10  # the start token; digits are the tokens 0-9
VOCAB_SIZE = 11


def reversal_batch(
    batch_size: int = 64,
    seq_len: int = 8,
    generator: torch.Generator | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Random digit sequences and their reversals, both (B, seq_len) ids."""
    check_counts(batch_size=batch_size, seq_len=seq_len)
    source = torch.randint(0, 10, (batch_size, seq_len), generator=generator)
    return source, source.flip(-1)


def shift_right(target: torch.Tensor) -> torch.Tensor:
    """The decoder's input under teacher forcing: `BOS`, then `target[:, :-1]`.

    Examples:
        >>> shift_right(torch.tensor([[7, 8, 9]]))
        tensor([[10,  7,  8]])
    """
    start = torch.full_like(target[:, :1], BOS)
    return torch.cat([start, target[:, :-1]], dim=1)


# --8<-- [end:data]


# --8<-- [start:model]
class Seq2SeqModel(nn.Module):
    """Token ids in, next-token logits out: embeddings, positions, Transformer.

    Args:
        num_layers: Encoder layers, and as many decoder layers.
        embedding_scale: Multiplies the embeddings; the paper: sqrt(d_model).

    Shape:
        - source: (B, S) token ids; target_input: (B, T) token ids
        - output: logits (B, T, vocab_size), and each decoder layer's
          cross-attention weights (B, h, T, S)

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
        check_counts(
            vocab_size=vocab_size,
            d_model=d_model,
            num_heads=num_heads,
            num_layers=num_layers,
            d_ff=d_ff,
            max_len=max_len,
        )
        check_probabilities(dropout=dropout)
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
        self,
        source: torch.Tensor,
        target_input: torch.Tensor,
        causal: bool = True,
    ) -> tuple[torch.Tensor, list[torch.Tensor]]:
        """Return `(logits, cross_weights)`; `causal=False` (a bug): no mask."""
        check_token_ids(source, self.embedding.num_embeddings, "source")
        check_token_ids(
            target_input, self.embedding.num_embeddings, "target_input"
        )
        memory = self.transformer.encode(self.embed(source))
        T = target_input.size(1)
        target_mask = (
            causal_mask(T, device=target_input.device) if causal else None
        )
        target = self.embed(target_input)
        decoded, cross_weights = self.transformer.decode(
            target, memory, target_mask=target_mask
        )
        return self.output(decoded), cross_weights


# --8<-- [end:model]


# --8<-- [start:greedy]
@in_eval_mode  # dropout off; the caller's mode restored
@torch.no_grad()
def greedy_decode(
    model: Seq2SeqModel, source: torch.Tensor, length: int
) -> torch.Tensor:
    """Write `length` likeliest next tokens per source: (B, length), no BOS."""
    check_count(length, "length", minimum=0)
    written = source.new_full((source.size(0), 1), BOS)  # (B, 1): BOS
    for _ in range(length):
        # (B, t, V): a guess at every position
        logits, _ = model(source, written)
        # the newest position's most likely token: (B, 1)
        next_token = logits[:, -1].argmax(dim=-1, keepdim=True)
        written = torch.cat([written, next_token], dim=1)
    return written[:, 1:]  # without the start token


def sequence_accuracy(model: Seq2SeqModel, sequences: int = 512) -> float:
    """Share of held-out sources (seed 1234) that greedy decoding reverses."""
    check_count(sequences, "sequences")
    source, target = reversal_batch(
        sequences, 8, torch.Generator().manual_seed(1234)
    )
    written = greedy_decode(model, source, target.size(1))
    return (written == target).all(dim=1).float().mean().item()


# --8<-- [end:greedy]


# --8<-- [start:beam_search]
@in_eval_mode  # dropout off; the caller's mode restored
@torch.no_grad()
def beam_search(
    model: Seq2SeqModel, source: torch.Tensor, length: int, beam_width: int
) -> torch.Tensor:
    """Write `length` tokens per source, keeping `beam_width` likeliest drafts.

    `beam_width=1` is greedy decoding. Returns the best draft, (B, length),
    without BOS.
    """
    check_count(length, "length", minimum=0)
    check_count(beam_width, "beam_width")
    B = source.size(0)
    drafts = source.new_full((B, 1, 1), BOS)  # (B, beams, t): BOS
    # (B, beams): total log-prob
    scores = torch.zeros(B, 1, device=source.device)
    for _ in range(length):
        beams = drafts.size(1)
        sources = source.repeat_interleave(beams, dim=0)  # (B * beams, S)
        logits, _ = model(sources, drafts.flatten(0, 1))  # (B * beams, t, V)
        # (B, beams, V)
        log_p = logits[:, -1].log_softmax(dim=-1).view(B, beams, -1)
        V = log_p.size(-1)
        # every draft extended by every token: (B, beams * V) candidates
        candidates = (scores.unsqueeze(-1) + log_p).flatten(1)
        # sorted
        scores, best = candidates.topk(min(beam_width, beams * V), dim=-1)
        # (B, width): which draft, which token
        parent, token = best // V, best % V
        kept = drafts.gather(
            1, parent.unsqueeze(-1).expand(-1, -1, drafts.size(2))
        )
        # (B, width, t + 1)
        drafts = torch.cat([kept, token.unsqueeze(-1)], dim=2)
    return drafts[:, 0, 1:]  # the likeliest draft, without the start token


# --8<-- [end:beam_search]


# --8<-- [start:log_prob]
def sequence_log_prob(
    model: Seq2SeqModel, source: torch.Tensor, written: torch.Tensor
) -> torch.Tensor:
    """Total log-probability (natural log) that `model` gives `written` (B, T).

    Examples:
        >>> model = Seq2SeqModel()
        >>> source = torch.zeros(2, 8, dtype=torch.long)
        >>> written = greedy_decode(model, source, 8)
        >>> sequence_log_prob(model, source, written).shape
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
    """What `train_reversal` returns.

    Attributes:
        model: The trained model, in eval mode.
        accuracy: Share of held-out sequences that greedy decoding reverses.
    """

    model: Seq2SeqModel
    losses: list[float] = field(repr=False)
    accuracy: float
    seconds: float


# the build shares trainings between chapters: tutorial_code/shared_runs.py
@reusable
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
    """Train a `Seq2SeqModel` to reverse 8 digits, with teacher forcing.

    Args:
        steps: Optimizer steps, one fresh batch of 64 each.
        shift: Feed the target shifted right; False feeds the target: a bug.
        causal: Mask the future in the decoder; False is a bug.
        device: Where to train; the model comes back on the CPU.
        label_smoothing: Share of each target's probability spread over all
            tokens (the paper: 0.1).

    Raises:
        ValueError: If `steps` < 1 or `label_smoothing` is not in [0, 1).
    """
    check_count(steps, "steps")
    check_share(label_smoothing, "label_smoothing", "; the paper uses 0.1")
    torch.manual_seed(seed)
    data = torch.Generator().manual_seed(seed)
    model = Seq2SeqModel(embedding_scale=embedding_scale).to(device)
    # one update for all tensors: faster
    optimizer = torch.optim.Adam(model.parameters(), lr=lr, foreach=True)
    losses, start = [], time.perf_counter()
    model.train()
    for _ in tqdm(range(steps), desc="reversal model", unit="step"):
        source, target = reversal_batch(64, 8, data)
        source, target = source.to(device), target.to(device)
        target_input = shift_right(target) if shift else target
        logits, _ = model(source, target_input, causal=causal)  # (B, T, V)
        loss = nn.functional.cross_entropy(
            logits.flatten(0, 1),
            target.flatten(),
            label_smoothing=label_smoothing,
        )
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    seconds = time.perf_counter() - start
    model.cpu().eval()
    return Seq2SeqResult(model, losses, sequence_accuracy(model), seconds)


@functools.cache
def trained_reversal(
    steps: int = 300,
    seed: int = 0,
    lr: float = 3e-3,
    shift: bool = True,
    causal: bool = True,
    device: str = "cpu",
) -> Seq2SeqResult:
    """`train_reversal`, once per process and arguments."""
    return train_reversal(steps, seed, lr, shift, causal, device)


# --8<-- [end:train]


# not shown: the build reads these runs from benchmarks/recorded-runs.json
@recorded
# --8<-- [start:reversed_share_per_seed]
def reversed_share_per_seed(
    steps: int, seeds: list[int], **options
) -> list[float]:
    """The `accuracy` of `train_reversal(steps, seed, **options)` per seed.

    Examples:
        >>> len(reversed_share_per_seed(1, [0]))
        1
    """
    with torch.random.fork_rng():
        return [
            train_reversal(steps, seed, **options).accuracy for seed in seeds
        ]


# --8<-- [end:reversed_share_per_seed]


# not shown: the build reads these runs from benchmarks/recorded-runs.json
@recorded
# --8<-- [start:held_out_scores_per_seed]
def held_out_scores_per_seed(
    steps: int, seeds: list[int], **options
) -> dict[str, list[float]]:
    """Score `train_reversal(steps, seed, **options)` on 512 held-out sources.

    Returns:
        Lists in the order of `seeds`: `"reversed"`, the share reversed
        exactly; `"confidence"`, the mean probability of the chosen tokens;
        `"cross_entropy"`, nats per token of the true reversals.

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
            # (B, T, 1)
            p = chosen.softmax(-1).gather(-1, written.unsqueeze(-1))
            loss = nn.functional.cross_entropy(
                true.flatten(0, 1), target.flatten()
            )
            reversed_share = (written == target).all(dim=1).float().mean()
            scores["reversed"].append(reversed_share.item())
            scores["confidence"].append(p.mean().item())
            scores["cross_entropy"].append(loss.item())
    return scores


# --8<-- [end:held_out_scores_per_seed]


# not shown: the build reads these runs from benchmarks/recorded-runs.json
@recorded
# --8<-- [start:beam_against_greedy_per_seed]
def beam_against_greedy_per_seed(
    steps: int, seeds: list[int], beam_width: int, **options
) -> dict[str, list[float]]:
    """Decode 512 held-out sources greedily and by beam, one training per seed.

    `**options` go to `train_reversal`.

    Returns:
        Lists in the order of `seeds`: `"greedy_reversed"`, `"beam_reversed"`:
        the share reversed exactly; `"greedy_log_prob"`, `"beam_log_prob"`:
        the mean total log-probability; `"beam_higher"`, `"beam_lower"`: how
        many sources the beam wrote a likelier (less likely) sequence for.

    Examples:
        >>> len(beam_against_greedy_per_seed(1, [0], 2)["beam_lower"])
        1
    """
    source, target = reversal_batch(512, 8, torch.Generator().manual_seed(1234))
    names = [
        "greedy_reversed",
        "beam_reversed",
        "greedy_log_prob",
        "beam_log_prob",
    ]
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
