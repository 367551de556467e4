"""A small GPT-style character model that learns English from the Python docs.

Shape letters: B = batch size, T = sequence length, V = vocabulary size.
"""

# --8<-- [start:imports]
import functools
import math
import re
import time
from dataclasses import dataclass, field
from pydoc_data.topics import topics

import torch
from torch import nn
from tqdm import tqdm

from tutorial_code.encoder import EncoderLayer
from tutorial_code.masks import causal_mask
from tutorial_code.modes import in_eval_mode
from tutorial_code.multi_head import (
    EfficientMultiHeadAttention,
    combine_heads,
    split_heads,
)
from tutorial_code.positional import LearnedPositionalEncoding
from tutorial_code.validation import (
    check_cache_step,
    check_count,
    check_counts,
    check_flags,
    check_positive,
    check_probabilities,
    check_sampling,
    check_share,
    check_token_ids,
)

# --8<-- [end:imports]
# isort: split
# not shown: only the build acts on the mark
from tutorial_code.shared_runs import recorded, reusable


# --8<-- [start:data]
def python_reference_text() -> str:
    """The prose of the Python reference, `pydoc_data.topics`, without code."""
    lines = "\n".join(topics[name] for name in sorted(topics)).split("\n")
    prose = [
        line
        for line in lines
        if line
        and not line[0].isspace()
        and "|" not in line
        and not re.fullmatch(r"[*=~^+-]+", line)
    ]
    return "\n".join(prose)


@dataclass
class CharVocabulary:
    """Every character of a text, numbered: `encode` to ids, `decode` back."""

    chars: list[str]

    @classmethod
    def of(cls, text: str) -> "CharVocabulary":
        return cls(sorted(set(text)))

    def encode(self, text: str) -> torch.Tensor:
        index = {char: i for i, char in enumerate(self.chars)}
        unknown = sorted(set(text) - set(index))
        if unknown:
            raise ValueError(
                f"characters not in the vocabulary: {unknown[:10]}; "
                "build it from a text that has them"
            )
        return torch.tensor([index[char] for char in text], dtype=torch.long)

    def decode(self, ids: torch.Tensor | list[int]) -> str:
        check_token_ids(
            ids, len(self.chars), "ids", dims=1, empty_ok=True, lists=True
        )
        return "".join(
            self.chars[i]
            for i in (ids.tolist() if isinstance(ids, torch.Tensor) else ids)
        )


def split(
    ids: torch.Tensor, held_out: float = 0.1
) -> tuple[torch.Tensor, torch.Tensor]:
    """The first 90 % for training, the last 10 % held out (one block)."""
    check_share(held_out, "held_out")
    if held_out == 0:
        raise ValueError("held_out must be above 0, got 0: nothing held out")
    cut = int(len(ids) * (1 - held_out))
    return ids[:cut], ids[cut:]


def random_windows(
    ids: torch.Tensor, batch_size: int, context: int, generator: torch.Generator
) -> tuple[torch.Tensor, torch.Tensor]:
    """`batch_size` random windows of `context` ids, and their next ids."""
    check_counts(batch_size=batch_size, context=context)
    check_count(len(ids), "len(ids)", minimum=context + 2)  # room for a window
    starts = torch.randint(
        0, len(ids) - context - 1, (batch_size,), generator=generator
    )
    # (B, context + 1)
    windows = torch.stack([ids[s : s + context + 1] for s in starts.tolist()])
    return windows[:, :-1], windows[:, 1:]


# --8<-- [end:data]


# --8<-- [start:model]
class CharTransformer(nn.Module):
    """A decoder-only Transformer: each position predicts the next character.

    Args:
        context: Longest sequence accepted.
        fused_attention: Attend with PyTorch's fused kernel: faster, but the
            layers return no weights. The `state_dict` is the same either way.
        tie_weights: Use the embedding table as the output layer's weight.
        embedding_std: Start the embedding table at this standard deviation
            instead of 1 (GPT-2: 0.02), drawn after every other weight.

    Shape:
        - tokens: (B, T) character ids, T <= context
        - output: logits (B, T, V), and each layer's weights (B, h, T, T)

    Examples:
        >>> model = CharTransformer(vocab_size=10, fused_attention=False)
        >>> logits, weights = model(torch.zeros(2, 5, dtype=torch.long))
        >>> logits.shape, weights[0].shape
        (torch.Size([2, 5, 10]), torch.Size([2, 4, 5, 5]))
        >>> tied = CharTransformer(vocab_size=10, tie_weights=True)
        >>> tied.output.weight is tied.embedding.weight
        True
        >>> small = CharTransformer(vocab_size=1000, tie_weights=True,
        ...                         embedding_std=0.02)
        >>> round(small.output.weight.std().item(), 2)
        0.02
    """

    def __init__(
        self,
        vocab_size: int,
        d_model: int = 64,
        num_heads: int = 4,
        num_layers: int = 2,
        context: int = 64,
        dropout: float = 0.0,
        fused_attention: bool = True,
        tie_weights: bool = False,
        embedding_std: float | None = None,
    ) -> None:
        super().__init__()
        check_counts(
            vocab_size=vocab_size,
            d_model=d_model,
            num_heads=num_heads,
            num_layers=num_layers,
            context=context,
        )
        check_flags(fused_attention=fused_attention, tie_weights=tie_weights)
        check_probabilities(dropout=dropout)
        check_positive(embedding_std=embedding_std)
        self.context = context
        self.embedding = nn.Embedding(vocab_size, d_model)
        self.positions = LearnedPositionalEncoding(d_model, context)
        self.layers = nn.ModuleList(
            EncoderLayer(
                d_model, num_heads, 4 * d_model, dropout, norm_first=True
            )
            for _ in range(num_layers)
        )
        if fused_attention:
            for layer in self.layers:
                layer.attention = EfficientMultiHeadAttention(
                    d_model, num_heads, dropout=dropout
                )
        self.final_norm = nn.LayerNorm(d_model)
        self.output = nn.Linear(d_model, vocab_size)
        # the output layer scores each token against its own embedding
        if tie_weights:
            # (V, d_model): one matrix, not two
            self.output.weight = self.embedding.weight
        # drawn last: the other weights stay the default's
        if embedding_std is not None:
            nn.init.normal_(self.embedding.weight, std=embedding_std)

    def forward(
        self, tokens: torch.Tensor
    ) -> tuple[torch.Tensor, list[torch.Tensor]]:
        """Return `(logits, weights)`; position t sees positions 0..t only."""
        check_token_ids(
            tokens, self.embedding.num_embeddings, max_len=self.context
        )
        x = self.positions(self.embedding(tokens))  # (B, T, d_model)
        mask = causal_mask(tokens.size(1), device=tokens.device)
        all_weights = []
        for layer in self.layers:
            x, weights = layer(x, mask=mask)
            all_weights.append(weights)
        return self.output(self.final_norm(x)), all_weights


# --8<-- [end:model]


# --8<-- [start:train]
@dataclass
class LanguageModelResult:
    """What `train_language_model` returns.

    Attributes:
        model: The trained model, in eval mode.
        losses: Training cross-entropy (nats per character) at every step.
        held_out_bpc: Bits per character on the held-out 10 % of the text.
    """

    model: CharTransformer
    vocabulary: CharVocabulary
    losses: list[float] = field(repr=False)
    held_out_bpc: float
    seconds: float


# the build shares trainings between chapters: tutorial_code/shared_runs.py
@reusable
def train_language_model(
    steps: int = 350,
    seed: int = 0,
    batch_size: int = 32,
    lr: float = 1e-2,
    device: str = "cpu",
    tie_weights: bool = False,
    embedding_std: float | None = None,
) -> LanguageModelResult:
    """Train a `CharTransformer` on the Python reference.

    Args:
        batch_size: Windows of 64 characters per step.
        lr: Peak AdamW learning rate, after 50 warm-up steps; cosine decay to 0.
        device: Where to train; the model comes back on the CPU.

    Raises:
        ValueError: If `steps` is not positive.
    """
    if steps < 1:
        raise ValueError(f"steps must be >= 1, got {steps}")
    text = python_reference_text()
    vocabulary = CharVocabulary.of(text)
    train_ids, held_out_ids = split(vocabulary.encode(text))
    torch.manual_seed(seed)
    data = torch.Generator().manual_seed(seed)
    options = {"tie_weights": tie_weights, "embedding_std": embedding_std}
    model = CharTransformer(len(vocabulary.chars), **options).to(device)
    optimizer = torch.optim.AdamW(
        model.parameters(), lr=lr, weight_decay=0.01, foreach=True
    )
    warmup = min(50, steps)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer,
        lambda s: (
            (s + 1) / warmup
            if s < warmup
            else 0.5
            * (1 + math.cos(math.pi * (s - warmup) / max(1, steps - warmup)))
        ),
    )
    losses, start = [], time.perf_counter()
    model.train()
    for _ in tqdm(range(steps), desc="language model", unit="step"):
        inputs, targets = random_windows(
            train_ids, batch_size, model.context, data
        )
        logits, _ = model(inputs.to(device))
        loss = nn.functional.cross_entropy(
            logits.flatten(0, 1), targets.to(device).flatten()
        )
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        schedule.step()
        losses.append(loss.item())
    seconds = time.perf_counter() - start
    model.cpu().eval()
    return LanguageModelResult(
        model,
        vocabulary,
        losses,
        bits_per_character(model, held_out_ids),
        seconds,
    )


@functools.cache
def trained_language_model(
    steps: int = 350,
    seed: int = 0,
    batch_size: int = 32,
    lr: float = 1e-2,
    device: str = "cpu",
    tie_weights: bool = False,
    embedding_std: float | None = None,
) -> LanguageModelResult:
    """`train_language_model`, once per process and arguments."""
    return train_language_model(
        steps, seed, batch_size, lr, device, tie_weights, embedding_std
    )


@in_eval_mode  # dropout off; the caller's mode restored
@torch.no_grad()
def bits_per_character(model: CharTransformer, ids: torch.Tensor) -> float:
    """Mean bits per character of `ids`, in windows of the model's context."""
    check_count(len(ids), "len(ids)", minimum=model.context + 1)
    usable = (len(ids) - 1) // model.context * model.context
    inputs = ids[:usable].view(-1, model.context)
    targets = ids[1 : usable + 1].view(-1, model.context)
    total = 0.0
    for start in range(0, len(inputs), 256):
        logits, _ = model(inputs[start : start + 256])
        total += nn.functional.cross_entropy(
            logits.flatten(0, 1),
            targets[start : start + 256].flatten(),
            reduction="sum",
        )
    return total.item() / targets.numel() / math.log(2)


# --8<-- [end:train]


# --8<-- [start:baselines]
def unigram_bpc(
    train_ids: torch.Tensor, held_out_ids: torch.Tensor, vocab_size: int
) -> float:
    """Bits per character of character frequencies, add-one smoothed."""
    counts = torch.bincount(train_ids, minlength=vocab_size).double() + 1
    log_p = torch.log2(counts / counts.sum())
    return -log_p[held_out_ids].mean().item()


def bigram_bpc(
    train_ids: torch.Tensor, held_out_ids: torch.Tensor, vocab_size: int
) -> float:
    """Bits per character of P(next | previous), add-one smoothed."""
    pairs = train_ids[:-1] * vocab_size + train_ids[1:]
    counts = torch.bincount(pairs, minlength=vocab_size * vocab_size).double()
    # (previous, next), add-one
    counts = counts.view(vocab_size, vocab_size) + 1
    log_p = torch.log2(counts / counts.sum(dim=1, keepdim=True))
    return -log_p[held_out_ids[:-1], held_out_ids[1:]].mean().item()


# --8<-- [end:baselines]


# --8<-- [start:kv_cache]
@dataclass
class KVCache:
    """The keys and values of every position so far, one pair per layer.

    Attributes:
        keys: One tensor (B, h, t, d_k) per layer; empty before the first call.
        values: The same for the values.
    """

    keys: list[torch.Tensor] = field(default_factory=list)
    values: list[torch.Tensor] = field(default_factory=list)

    @property
    def length(self) -> int:
        """The positions the cache holds: the position of the next token."""
        return self.keys[0].size(2) if self.keys else 0


@in_eval_mode  # dropout off; the caller's mode restored
@torch.no_grad()
def forward_with_cache(
    model: CharTransformer,
    tokens: torch.Tensor,
    cache: KVCache,
    position_offset: int | None = None,
) -> torch.Tensor:
    """The last n logits of `model(all tokens)`, from `tokens` (B, n) and cache.

    Args:
        model: A `CharTransformer`, run in eval mode.
        cache: The earlier positions; updated in place.
        position_offset: Defaults to `cache.length`, the only right value;
            anything else shifts the position vectors (a bug).

    Raises:
        ValueError: If a token id is outside the vocabulary, the cache holds
            another batch size, or the tokens would go past the context.
    """
    offset = cache.length if position_offset is None else position_offset
    check_cache_step(model, tokens, cache, offset)
    n = tokens.size(1)
    # the new tokens' positions
    positions = model.positions.table[offset : offset + n]
    x = model.embedding(tokens) + positions  # (B, n, d_model)
    # New queries see every cached key and the new keys up to their own:
    # rows t..t+n-1 of a causal mask. A single new token sees everything: no
    # mask at all.
    t = cache.length
    allowed = None if n == 1 else causal_mask(t + n, device=tokens.device)[t:]
    # Pre-norm layers: x + attention(norm1(x)), then x + FFN(norm2(x)).
    for index, layer in enumerate(model.layers):
        attention, h = layer.attention, layer.norm1(x)
        # (B, h, n, d_k)
        Q = split_heads(attention.W_Q(h), attention.num_heads)
        K = split_heads(attention.W_K(h), attention.num_heads)
        V = split_heads(attention.W_V(h), attention.num_heads)
        if index < len(cache.keys):  # the earlier positions, computed once
            K = torch.cat([cache.keys[index], K], dim=2)  # (B, h, t + n, d_k)
            V = torch.cat([cache.values[index], V], dim=2)
            cache.keys[index], cache.values[index] = K, V
        else:
            cache.keys.append(K)
            cache.values.append(V)
        heads, _ = attention.attend(Q, K, V, allowed)  # (B, h, n, d_k)
        x = x + layer.dropout1(attention.W_O(combine_heads(heads)))
        x = x + layer.dropout2(layer.feed_forward(layer.norm2(x)))
    return model.output(model.final_norm(x))


# --8<-- [end:kv_cache]


# --8<-- [start:top_p]
def top_p_filter(logits: torch.Tensor, top_p: float) -> torch.Tensor:
    """-inf outside the fewest likeliest tokens whose probabilities reach top_p.

    `logits`: (..., V); `top_p` in (0, 1]. The likeliest token is always
    kept; `top_p=1` keeps every token.

    Examples:
        >>> top_p_filter(torch.tensor([2.0, 1.0, 0.0, -1.0]), 0.9)
        tensor([2., 1., 0., -inf])
    """
    if isinstance(top_p, bool) or not isinstance(top_p, int | float):
        raise TypeError(
            f"top_p must be a number, got {top_p!r}; None keeps all tokens"
        )
    if not 0 < top_p <= 1:  # also refuses NaN
        raise ValueError(
            f"top_p must be in (0, 1], got {top_p}; 1 keeps every token"
        )
    if top_p == 1:  # every token; float sums could drop a tiny last one
        return logits
    probabilities, order = logits.softmax(dim=-1).sort(dim=-1, descending=True)
    # the likelier tokens' sum
    ahead = probabilities.cumsum(dim=-1) - probabilities
    # sorted order: the nucleus reached top_p before it
    outside = ahead >= top_p
    # back to the tokens' own order
    outside = outside.scatter(-1, order, outside)
    return logits.masked_fill(outside, float("-inf"))


# --8<-- [end:top_p]


# --8<-- [start:generate]
@in_eval_mode  # dropout off; the caller's mode restored
@torch.no_grad()
def generate(
    model: CharTransformer,
    prompt: torch.Tensor,
    new_tokens: int,
    temperature: float = 1.0,
    top_k: int | None = None,
    generator: torch.Generator | None = None,
    use_cache: bool = False,
    top_p: float | None = None,
) -> torch.Tensor:
    """`prompt` (1-D ids) and `new_tokens` ids sampled after it, one at a time.

    Each step divides the newest logits by `temperature`, keeps the `top_k`
    likeliest, then the `top_p` nucleus. `use_cache=True` restarts the cache
    at every step once the ids outgrow the context.

    Raises:
        ValueError: If the prompt is empty or holds an id outside the
            vocabulary, `new_tokens` is negative, `temperature` is not a finite
            number above 0, `top_k` is not in 1..V, or `top_p` is not in (0, 1].
    """
    check_token_ids(prompt, model.embedding.num_embeddings, "prompt", dims=1)
    check_count(new_tokens, "new_tokens", minimum=0)
    check_sampling(temperature, top_k, model.embedding.num_embeddings)
    if top_p is not None:
        # refuses a bad top_p before the first step
        top_p_filter(torch.zeros(1), top_p)
    ids, cache = prompt.clone(), None
    for _ in range(new_tokens):
        window = ids[-model.context :].unsqueeze(0)  # (1, t)
        if not use_cache:
            logits = model(window)[0][0, -1]
        # first step, or the window slid: fill a new cache
        elif cache is None or len(ids) > model.context:
            cache = KVCache()
            logits = forward_with_cache(model, window, cache)[0, -1]
        else:  # only the newest id is new
            logits = forward_with_cache(model, window[:, -1:], cache)[0, -1]
        logits = logits / temperature  # (V,): the next character
        if top_k is not None:
            kth_largest = logits.topk(top_k).values[-1]
            logits = logits.masked_fill(logits < kth_largest, float("-inf"))
        if top_p is not None:
            logits = top_p_filter(logits, top_p)
        next_id = torch.multinomial(
            torch.softmax(logits, dim=-1), 1, generator=generator
        )
        ids = torch.cat([ids, next_id])
    return ids


def known_word_share(sample: str, reference: str) -> float:
    """Share of the words (runs of letters) of `sample` found in `reference`.

    Examples:
        >>> known_word_share("the cat sat on the mta", "the cat sat on a mat")
        0.8333333333333334
    """
    known = set(re.findall(r"[A-Za-z]+", reference))
    words = re.findall(r"[A-Za-z]+", sample)
    return sum(word in known for word in words) / max(1, len(words))


# --8<-- [end:generate]


def with_attention_weights(model: CharTransformer) -> CharTransformer:
    """A copy of `model` on the hand-written attention, which gives weights."""
    first = model.layers[0].attention
    twin = CharTransformer(
        model.output.out_features,
        d_model=model.output.in_features,
        num_heads=first.num_heads,
        num_layers=len(model.layers),
        context=model.context,
        fused_attention=False,
        tie_weights=model.output.weight is model.embedding.weight,
    )
    twin.load_state_dict(model.state_dict())
    return twin.eval()


# not shown: the build reads these runs from benchmarks/recorded-runs.json
@recorded
# --8<-- [start:held_out_bpc_per_seed]
def held_out_bpc_per_seed(
    steps: int, seeds: list[int], **options
) -> list[float]:
    """Held-out bpc of `trained_language_model(steps, seed, **options)` by seed.

    Torch's global random state is left as it was.

    Examples:
        >>> len(held_out_bpc_per_seed(1, [0]))
        1
    """
    with torch.random.fork_rng():
        runs = [
            trained_language_model(steps, seed, **options) for seed in seeds
        ]
    return [run.held_out_bpc for run in runs]


# --8<-- [end:held_out_bpc_per_seed]


# not shown: the build reads these runs from benchmarks/recorded-runs.json
@recorded
# --8<-- [start:known_word_share_per_seed]
def known_word_share_per_seed(
    steps: int,
    seeds: list[int],
    model_seed: int = 0,
    new_tokens: int = 1200,
    **sampling,
) -> list[float]:
    """The `known_word_share` of one sample per seed, from the prompt "The ".

    The model is trained with `model_seed`; `**sampling` goes to `generate`.
    """
    result = trained_language_model(steps, model_seed)
    text = python_reference_text()
    train_ids, _ = split(result.vocabulary.encode(text))
    reference = result.vocabulary.decode(train_ids)  # the training text
    start = result.vocabulary.encode("The ")
    shares = []
    for seed in seeds:
        generator = torch.Generator().manual_seed(seed)
        ids = generate(
            result.model, start, new_tokens, generator=generator, **sampling
        )
        sample = result.vocabulary.decode(ids[len(start) :])
        shares.append(known_word_share(sample, reference))
    return shares


# --8<-- [end:known_word_share_per_seed]
