# %% [markdown]
# # 10. Cross-attention and the encoder-decoder
#
# The code of the chapter page, in page order. This file is a jupytext percent
# script: it runs as a notebook, with `python`, or as
# `transformer-tutorial encoder-decoder` (options: `--help`).


# %%
# --8<-- [start:setup]
import torch
from torch import nn
from tutorial_code.decoder import DecoderLayer, Transformer
from tutorial_code.diagrams.decoder import (
    encoder_decoder_diagram,
    teacher_forcing_strip,
)
from tutorial_code.diagrams.plots import heatmaps
from tutorial_code.feed_forward import FeedForward
from tutorial_code.from_torch import transformer_from_torch
from tutorial_code.masks import causal_mask, padding_mask
from tutorial_code.multi_head import MultiHeadAttention
from tutorial_code.reverse_task import (
    BOS,
    greedy_decode,
    reversal_batch,
    shift_right,
    train_reversal,
)

torch.set_printoptions(precision=2, sci_mode=False)
# --8<-- [end:setup]


# %% tags=["parameters"]
# --8<-- [start:parameters]
SEED = 0  # seed of the weights, the data and the random inputs
STEPS = 300  # optimizer steps of the reversal models (not of numbers in words)
DEVICE = (
    "cpu"  # "cuda" on an NVIDIA GPU; the trained model comes back to the CPU
)
# --8<-- [end:parameters]


# %%
# --8<-- [start:cross_shapes]
torch.manual_seed(SEED)
cross_attention = MultiHeadAttention(d_model=16, num_heads=4)
# (B, T=3, d_model): 3 target positions so far
decoder_side = torch.randn(2, 3, 16)
memory = torch.randn(2, 7, 16)  # (B, S=7, d_model): the encoder's output
# queries from the decoder, keys and values from the memory
output, weights = cross_attention(decoder_side, memory, memory)
print("queries from the decoder", tuple(decoder_side.shape), "(B, T, d_model)")
print("keys, values from memory ", tuple(memory.shape), "(B, S, d_model)")
print("cross-attention weights  ", tuple(weights.shape), "(B, h, T, S)")
print("output                   ", tuple(output.shape), "(B, T, d_model)")
# --8<-- [end:cross_shapes]


# %%
# --8<-- [start:decoder_layer_by_hand]
class DecoderLayerByHand(nn.Module):
    """A post-norm decoder layer: the computing lines of `DecoderLayer`."""

    def __init__(self, d_model: int, num_heads: int, d_ff: int) -> None:
        super().__init__()
        self.self_attention = MultiHeadAttention(d_model, num_heads)
        self.cross_attention = MultiHeadAttention(d_model, num_heads)
        self.feed_forward = FeedForward(d_model, d_ff)
        self.norm1, self.norm2, self.norm3 = (
            nn.LayerNorm(d_model) for _ in range(3)
        )

    def forward(self, x, memory, *, target_mask=None, memory_mask=None):
        # x: (B, T, d_model), the target so far; memory: (B, S, d_model)
        attended, _ = self.self_attention(x, mask=target_mask)  # t reads 0..t
        x = self.norm1(x + attended)
        # queries from x, keys and values from the memory: weights (B, h, T, S)
        attended, _ = self.cross_attention(x, memory, memory, mask=memory_mask)
        x = self.norm2(x + attended)
        return self.norm3(x + self.feed_forward(x))  # (B, T, d_model)


torch.manual_seed(SEED)
package_layer = DecoderLayer(
    d_model=16, num_heads=4, d_ff=32
).eval()  # no dropout
by_hand = DecoderLayerByHand(d_model=16, num_heads=4, d_ff=32)
by_hand.load_state_dict(package_layer.state_dict())  # the same weights
target_mask = causal_mask(decoder_side.size(1))  # (T, T): t reads 0..t
ours = by_hand(decoder_side, memory, target_mask=target_mask)
theirs = package_layer(decoder_side, memory, target_mask=target_mask)[0]
by_hand_difference = (ours - theirs).abs().max().item()
print(
    "largest difference from the package's DecoderLayer: "
    f"{by_hand_difference:.1e}"
)
# --8<-- [end:decoder_layer_by_hand]


# %%
# --8<-- [start:masks_together]
source_keys = padding_mask(torch.tensor([7, 4]), max_len=7)  # (B, 1, 1, S)
layer = DecoderLayer(d_model=16, num_heads=4, d_ff=32, dropout=0.0).eval()
masks = {"target_mask": target_mask, "memory_mask": source_keys}
_, self_weights, cross_weights = layer(decoder_side, memory, **masks)
print("self-attention weights, sequence 1, head 0 (T x T, causal):")
print(self_weights[1, 0].detach())
print(
    "cross-attention weights, sequence 1, head 0 (T x S, 4 real source tokens):"
)
print(cross_weights[1, 0].detach())
# --8<-- [end:masks_together]


# %%
# --8<-- [start:transformer_shapes]
torch.manual_seed(SEED)
layers = {"num_encoder_layers": 2, "num_decoder_layers": 2}
transformer = Transformer(d_model=32, num_heads=4, d_ff=64, **layers)
transformer.eval()  # no dropout
# (B, S, d_model): embedded source tokens
source_vectors = torch.randn(2, 7, 32)
# (B, T, d_model): embedded target tokens
target_vectors = torch.randn(2, 5, 32)
# (B, S, d_model): for every decoder layer
memory = transformer.encode(source_vectors)
decoded, cross = transformer.decode(
    target_vectors, memory, target_mask=causal_mask(5)
)
print("source", tuple(source_vectors.shape), "-> memory", tuple(memory.shape))
print("target", tuple(target_vectors.shape), "-> output", tuple(decoded.shape))
print("cross-attention weights in each decoder layer", tuple(cross[0].shape))
# --8<-- [end:transformer_shapes]


# %%
# --8<-- [start:encoder_decoder_architecture]
fig = encoder_decoder_diagram(
    source=tuple(source_vectors.shape),
    memory=tuple(memory.shape),
    target=tuple(target_vectors.shape),
    output=tuple(decoded.shape),
    cross_weights=tuple(cross[0].shape),
    num_layers=len(transformer.decoder_layers),
)
# --8<-- [end:encoder_decoder_architecture]


# %%
# --8<-- [start:teacher_forcing]
source, target = reversal_batch(1, 8, torch.Generator().manual_seed(SEED))
decoder_input = shift_right(target)  # the start token, then target[:-1]
print("source          ", source[0].tolist())
print("target          ", target[0].tolist())
print(
    "decoder input   ", decoder_input[0].tolist(), f"({BOS} = the start token)"
)
# --8<-- [end:teacher_forcing]


# %%
# --8<-- [start:teacher_forcing_strip]
rows = [source[0].tolist(), decoder_input[0].tolist(), target[0].tolist()]
fig = teacher_forcing_strip(*rows, start_token=BOS)
# --8<-- [end:teacher_forcing_strip]


# %%
# --8<-- [start:train]
result = train_reversal(steps=STEPS, seed=SEED, device=DEVICE)  # trained once
first, last = result.losses[0], result.losses[-1]
print(
    f"training loss: step 0 {first:.3f}, "
    f"last {last:.4f} ({result.seconds:.1f} s)"
)
accuracy = result.accuracy  # greedy decoding on 512 held-out sources
print(f"held-out sequences that greedy decoding reverses: {accuracy:.1%}")
held_out, _ = reversal_batch(3, 8, torch.Generator().manual_seed(99))
written = greedy_decode(result.model, held_out, 8)  # (3, 8)
for source_digits, digits in zip(held_out, written, strict=True):
    print(f"{source_digits.tolist()} -> {digits.tolist()}")
# --8<-- [end:train]


# %%
# --8<-- [start:embedding_scale]
import math

from tutorial_code.reverse_task import Seq2SeqModel, reversed_share_per_seed

torch.manual_seed(SEED)
fresh = Seq2SeqModel()  # d_model = 32
# the paper's factor, sqrt(d_model)
scale = math.sqrt(fresh.embedding.embedding_dim)
embedding_norm = fresh.embedding.weight.norm(dim=-1).mean().item()
position_norm = fresh.positions.table[:8].norm(dim=-1).mean().item()
scaled_norm = scale * embedding_norm
print(f"mean norm: embedding {embedding_norm:.1f}, scaled {scaled_norm:.1f}")
print(f"mean norm: position {position_norm:.1f}")
seeds = [SEED, SEED + 1, SEED + 2]
reversed_share = {}  # per factor: the held-out sequences reversed, one per seed
for name, factor in (("unscaled", 1.0), ("scaled by sqrt(d_model)", scale)):
    options = {"embedding_scale": factor, "device": DEVICE}
    reversed_share[name] = reversed_share_per_seed(STEPS, seeds, **options)
    shares = ", ".join(f"{share:.1%}" for share in reversed_share[name])
    print(f"{name:>23}: sequences reversed, seeds {seeds}: {shares}")
# --8<-- [end:embedding_scale]


# %%
# --8<-- [start:label_smoothing_target]
# 11 tokens: ten digits and the start token
vocab_size = result.model.output.out_features
smoothing = 0.1  # the paper's value
logits = torch.randn(vocab_size)  # any logits, for one position; true token 3
# every token gets smoothing / vocab_size ...
smoothed = torch.full((vocab_size,), smoothing / vocab_size)
smoothed[3] += 1 - smoothing  # ... and the true token the rest: 0.9 + 0.1 / 11
by_hand = -(smoothed * logits.log_softmax(dim=-1)).sum()  # cross-entropy to it
true_token = torch.tensor(3)
builtin = nn.functional.cross_entropy(
    logits, true_token, label_smoothing=smoothing
)
print(
    f"target: true token {smoothed[3]:.4f}, each other token {smoothed[0]:.4f}"
)
print(
    f"cross-entropy to that target {by_hand:.4f}, "
    f"label_smoothing=0.1 {builtin:.4f}"
)
# --8<-- [end:label_smoothing_target]


# %%
# --8<-- [start:label_smoothing]
from tutorial_code.reverse_task import held_out_scores_per_seed

smoothing_scores = {}  # per setting: lists over the seeds
for value in (0.0, smoothing):
    options = {"label_smoothing": value, "device": DEVICE}
    smoothing_scores[value] = held_out_scores_per_seed(STEPS, seeds, **options)
    for name, values in smoothing_scores[value].items():
        style = ".1%" if name == "reversed" else ".4f"  # a share, or a number
        shown = ", ".join(f"{v:{style}}" for v in values)
        print(f"label smoothing {value}: {name:>13}, seeds {seeds}: {shown}")
true_share = smoothed[
    3
].item()  # the smoothed target's probability of the true token
# the cross-entropy of a model that reproduces it
reproduced = -math.log(true_share)
print(f"giving the true token {true_share:.3f}: cross-entropy {reproduced:.4f}")
# --8<-- [end:label_smoothing]


# %%
# --8<-- [start:cross_attention_map]
source, _ = reversal_batch(1, 8, torch.Generator().manual_seed(7))
written = greedy_decode(result.model, source, 8)
with torch.no_grad():  # the decoder's input when it wrote `written`:
    _, cross = result.model(source, shift_right(written))
weights = cross[-1][0]  # last decoder layer, sequence 0: (h, T, S)
fig = heatmaps(
    [weights.mean(dim=0)],
    ["cross-attention, mean of the heads"],
    labels=[str(d) for d in source[0].tolist()],
    row_labels=[f"{t}: wrote {d}" for t, d in enumerate(written[0].tolist())],
    xlabel="source digit (key)",
    ylabel="output position (query)",
)
# --8<-- [end:cross_attention_map]


# %%
# --8<-- [start:number_words_data]
from tutorial_code.number_words import (
    START,
    encode_digits,
    encode_words,
    number_words,
    spelled_digit,
    split_numbers,
    train_number_words,
    write_words,
)

train_numbers, held_out_numbers = split_numbers()
print(f"train on {len(train_numbers)}, hold out {len(held_out_numbers)}")
for n in (7, 40, 347):
    digit_ids, letter_ids = encode_digits([n])[0], encode_words([n])[0]
    print(
        f"{n:>3} -> {number_words(n)!r}: source {digit_ids.tolist()}, "
        f"target {letter_ids[:5].tolist()}... "
        f"({len(letter_ids)} tokens, END last)"
    )
# --8<-- [end:number_words_data]


# %%
# --8<-- [start:number_words_train]
WORDS_STEPS = 500  # optimizer steps of the numbers-in-words model
words_result = train_number_words(steps=WORDS_STEPS, seed=SEED, device=DEVICE)
first, last = words_result.losses[0], words_result.losses[-1]
print(f"training loss: step 0 {first:.2f}, last {last:.4f}")
written_words = write_words(words_result.model, held_out_numbers)  # greedy
pairs = list(zip(held_out_numbers, written_words, strict=True))
for n, words in pairs[:4]:
    print(f"{n:>3}: {words}")
mistakes = [(n, words) for n, words in pairs if words != number_words(n)]
share_right = 1 - len(mistakes) / len(held_out_numbers)
print(f"held-out numbers written exactly right: {share_right:.1%}")
print("its mistakes:", ", ".join(f"{n} -> {w!r}" for n, w in mistakes))
wrong = [n for n, _ in mistakes]  # the numbers it wrote wrong
below_20 = sum(n < 20 for n in train_numbers) / len(train_numbers)
print(f"numbers below 20: {below_20:.0%} of the training numbers")
# --8<-- [end:number_words_train]


# %%
# --8<-- [start:number_words_attention]
from tutorial_code.diagrams.decoder import spelling_attention


def cross_weights(n: int) -> torch.Tensor:  # mean of the heads: (T, S)
    letter_ids = encode_words([n])
    start = torch.full((1, 1), START)
    with torch.no_grad():  # teacher forcing: the decoder's input is known
        _, weights = words_result.model(
            encode_digits([n]), torch.cat([start, letter_ids[:, :-1]], dim=1)
        )
    return weights[-1][0].mean(dim=0)


shown_number = 347
fig = spelling_attention(
    cross_weights(shown_number)[:-1].T,  # (S, T) without the EOS step
    list(str(shown_number)),
    list(number_words(shown_number)),
)
text, shown_weights = number_words(shown_number), cross_weights(shown_number)
read_by = {}  # the digit each word's letters read most, on average
for word in ("three", "forty", "seven"):
    at = text.index(word)
    letters = shown_weights[at : at + len(word)]  # (letters, S)
    read_by[word] = str(shown_number)[letters.mean(dim=0).argmax()]
print("the digit each word reads most:", read_by)
# held-out numbers of three parts: the weight on the digit each letter spells
on_its_digit = []
for n in held_out_numbers:
    if 100 <= n and n % 100 >= 20 and n % 10:
        number_weights = cross_weights(n)  # (T, S)
        for t, digit in enumerate(spelled_digit(n)):
            if digit is not None:
                on_its_digit.append(number_weights[t, digit].item())
mean_on_digit = sum(on_its_digit) / len(on_its_digit)
print(f"{len(on_its_digit)} letters of held-out numbers: mean weight on the")
print(f"digit each one spells {mean_on_digit:.2f} (spread evenly: 0.33)")
# --8<-- [end:number_words_attention]


# %%
# --8<-- [start:beam_trained]
from tutorial_code.reverse_task import beam_search, sequence_log_prob

held_out, _ = reversal_batch(512, 8, torch.Generator().manual_seed(1234))
greedy_written = greedy_decode(result.model, held_out, 8)
beam_written = beam_search(result.model, held_out, 8, beam_width=4)
same_as_greedy = (
    (beam_written == greedy_written).all(dim=1).float().mean().item()
)
print(f"beam width 4 writes what greedy decoding writes: {same_as_greedy:.1%}")
greedy_log_p = sequence_log_prob(result.model, held_out, greedy_written).mean()
print(f"mean log-probability of the written sequences: {greedy_log_p:.4f}")
# --8<-- [end:beam_trained]


# %%
# --8<-- [start:beam_tree]
from tutorial_code.diagrams.decoder import beam_tree

source = held_out[:1]  # one held-out source, (1, S)
drafts, scores, steps = torch.full((1, 1), BOS), torch.zeros(1), []
with torch.no_grad():  # beam_search's loop for one source, width 3, four steps
    for _ in range(4):
        logits, _ = result.model(source.expand(len(drafts), -1), drafts)
        log_p = logits[:, -1].log_softmax(dim=-1)  # (beams, vocab_size)
        scores, best = (scores[:, None] + log_p).flatten().topk(3)
        parent, token = best // log_p.size(-1), best % log_p.size(-1)
        drafts = torch.cat([drafts[parent], token[:, None]], dim=1)
        steps.append((parent.tolist(), token.tolist(), scores.tolist()))
print("source", source[0].tolist(), "reversed", source[0].flip(0).tolist())
for draft, score in zip(drafts[:, 1:].tolist(), scores.tolist(), strict=True):
    print(f"after 4 steps: draft {draft}, log-probability {score:.4f}")
fig = beam_tree(steps)
# --8<-- [end:beam_tree]


# %%
# --8<-- [start:beam_under_trained]
from tutorial_code.reverse_task import beam_against_greedy_per_seed

few_steps = max(1, STEPS // 3)  # under-trained: greedy decoding errs
beam = beam_against_greedy_per_seed(
    few_steps, seeds, beam_width=4, device=DEVICE
)
print(f"{few_steps} steps, 512 held-out sources, beam width 4")
for i, seed in enumerate(seeds):
    # this seed's numbers
    run = {name: values[i] for name, values in beam.items()}
    print(
        f"seed {seed}: reversed {run['greedy_reversed']:.1%} greedy, "
        f"{run['beam_reversed']:.1%} beam; mean log-probability "
        f"{run['greedy_log_prob']:.3f} greedy, "
        f"{run['beam_log_prob']:.3f} beam; "
        f"beam likelier for {run['beam_higher']}, "
        f"less likely for {run['beam_lower']}"
    )
# --8<-- [end:beam_under_trained]


# %%
# --8<-- [start:check_torch]
torch.manual_seed(SEED)
theirs = nn.Transformer(32, 4, 2, 2, 64, dropout=0.0, batch_first=True)
theirs.train()  # train(): PyTorch's fast path would skip the code compared here
ours = transformer_from_torch(theirs)
source, target = torch.randn(3, 7, 32), torch.randn(3, 5, 32)
# (B, 1, 1, S); True = attend
keys = padding_mask(torch.tensor([7, 4, 1]), max_len=7)
ours_out = ours(source, target, source_mask=keys, target_mask=causal_mask(5))
theirs_out = theirs(
    source,
    target,
    tgt_mask=~causal_mask(5),
    src_key_padding_mask=~keys[:, 0, 0],
    memory_key_padding_mask=~keys[:, 0, 0],
)
largest_difference = (ours_out - theirs_out).abs().max().item()
print(f"largest difference from nn.Transformer: {largest_difference:.1e}")
# --8<-- [end:check_torch]
