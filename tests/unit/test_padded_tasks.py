"""The padded tasks: batches, labels, the tagger, and answers that do not depend on the amount of padding."""

import pytest
import torch
from torch import nn

from tutorial_code.encoder import Encoder, EncoderClassifier
from tutorial_code.padded_tasks import (
    IGNORE,
    PAD,
    VOCAB_SIZE,
    EncoderTagger,
    accuracy,
    add_padding,
    held_out,
    padded_batch,
    sequence_labels,
    token_labels,
    train_padded,
)

SIZES = {"d_model": 16, "num_heads": 4, "d_ff": 32, "num_layers": 2, "dropout": 0.0}


def encoder(masked: bool = True) -> Encoder:
    return Encoder(VOCAB_SIZE, **SIZES, pad_id=PAD if masked else None)


def real_digits(tokens: torch.Tensor) -> list[list[int]]:
    return [[t for t in row if t != PAD] for row in tokens.tolist()]


def test_a_batch_is_digits_then_padding_up_to_its_longest_sequence():
    tokens = padded_batch(200, min_len=3, max_len=12, generator=torch.Generator().manual_seed(0))
    lengths = (tokens != PAD).sum(dim=1)
    assert tokens.dtype == torch.long and tokens.size(1) == lengths.max() == 12
    assert lengths.min() >= 3
    for row, length in zip(tokens.tolist(), lengths.tolist(), strict=True):
        assert all(0 <= t <= 9 for t in row[:length]) and all(t == PAD for t in row[length:])


def test_the_same_generator_seed_gives_the_same_batch():
    def draw():
        return padded_batch(8, generator=torch.Generator().manual_seed(3))

    assert torch.equal(draw(), draw())
    assert torch.equal(held_out(16), held_out(16))


def test_add_padding_appends_pad_tokens_only():
    tokens = torch.tensor([[1, 2, PAD], [3, 4, 5]])
    assert torch.equal(add_padding(tokens, 2), torch.tensor([[1, 2, PAD, PAD, PAD], [3, 4, 5, PAD, PAD]]))
    assert torch.equal(add_padding(tokens, 0), tokens)


def test_labels_match_a_reference_computed_digit_by_digit():
    tokens = padded_batch(300, generator=torch.Generator().manual_seed(1))
    digits = real_digits(tokens)
    expected_sequence = [int(sum(row) / len(row) > 4.5) for row in digits]
    assert sequence_labels(tokens).tolist() == expected_sequence
    tags = token_labels(tokens).tolist()
    for row, tag_row in zip(digits, tags, strict=True):
        mean = sum(row) / len(row)
        assert tag_row[: len(row)] == [int(d > mean) for d in row]
        assert all(tag == IGNORE for tag in tag_row[len(row) :])


def test_labels_ignore_the_amount_of_padding():
    tokens = padded_batch(50, generator=torch.Generator().manual_seed(2))
    more = add_padding(tokens, 5)
    assert torch.equal(sequence_labels(more), sequence_labels(tokens))
    assert torch.equal(token_labels(more)[:, : tokens.size(1)], token_labels(tokens))


def test_a_masked_classifier_gives_the_same_logits_with_any_amount_of_padding():
    torch.manual_seed(0)
    classifier = EncoderClassifier(encoder(), num_classes=2).eval()
    tokens = padded_batch(64, generator=torch.Generator().manual_seed(4))
    with torch.no_grad():
        reference = classifier(tokens)
        for extra in (1, 8, 30):
            torch.testing.assert_close(classifier(add_padding(tokens, extra)), reference, rtol=0, atol=1e-5)


def test_an_unmasked_classifier_changes_its_logits_with_the_padding():
    torch.manual_seed(0)
    classifier = EncoderClassifier(encoder(masked=False), num_classes=2).eval()
    tokens = padded_batch(64, generator=torch.Generator().manual_seed(4))
    with torch.no_grad():
        change = (classifier(add_padding(tokens, 8)) - classifier(tokens)).abs().max()
    assert change > 1e-2


def test_the_tagger_is_the_head_on_every_encoded_token_and_ignores_padding():
    torch.manual_seed(0)
    tagger = EncoderTagger(encoder(), num_tags=3).eval()
    tokens = padded_batch(16, generator=torch.Generator().manual_seed(5))
    with torch.no_grad():
        logits = tagger(tokens)
        encoded, _ = tagger.encoder(tokens)
        torch.testing.assert_close(logits, tagger.head(encoded))
        more = tagger(add_padding(tokens, 7))
    assert logits.shape == (16, tokens.size(1), 3)
    real = tokens != PAD
    torch.testing.assert_close(more[:, : tokens.size(1)][real], logits[real], rtol=0, atol=1e-5)


def test_ignore_index_gives_the_mean_loss_of_the_real_tokens():
    torch.manual_seed(0)
    tagger = EncoderTagger(encoder(), num_tags=2)
    tokens = padded_batch(16, generator=torch.Generator().manual_seed(6))
    logits, targets = tagger(tokens), token_labels(tokens)
    loss = nn.functional.cross_entropy(logits.flatten(0, 1), targets.flatten(), ignore_index=IGNORE)
    real = targets != IGNORE
    torch.testing.assert_close(loss, nn.functional.cross_entropy(logits[real], targets[real]))


class Constant(nn.Module):
    """Always answers `answer`, for sequences (per_token=False) or for every token."""

    def __init__(self, answer: int, per_token: bool) -> None:
        super().__init__()
        self.answer, self.per_token = answer, per_token

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        shape = tokens.shape if self.per_token else tokens.shape[:1]
        return nn.functional.one_hot(torch.full(shape, self.answer), 2).float()


def test_accuracy_counts_sequences_or_real_tokens_only():
    tokens = padded_batch(100, generator=torch.Generator().manual_seed(7))
    sequences = sequence_labels(tokens)
    assert accuracy(Constant(1, False), sequence_labels, tokens) == pytest.approx(sequences.float().mean().item())
    tags = token_labels(tokens)
    ones = (tags == 1).sum().item() / (tags != IGNORE).sum().item()
    assert accuracy(Constant(1, True), token_labels, tokens) == pytest.approx(ones)
    assert accuracy(Constant(0, True), token_labels, tokens) == pytest.approx(1 - ones)


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: padded_batch(0), ValueError, "batch_size must be >= 1, got 0"),
        (lambda: padded_batch(4, min_len=5, max_len=3), ValueError, "max_len must be >= 5, got 3"),
        (lambda: padded_batch(4, min_len=0), ValueError, "min_len must be >= 1, got 0"),
        (lambda: padded_batch(2.0), TypeError, "batch_size must be an int"),
        (lambda: add_padding(torch.tensor([[1, 2]]), -1), ValueError, "extra must be >= 0, got -1"),
        (lambda: sequence_labels(torch.tensor([[1.0, 2.0]])), TypeError, "must be integer ids"),
        (lambda: token_labels(torch.tensor([[1, 12]])), ValueError, "token ids must lie in"),
        (lambda: EncoderTagger(encoder(), num_tags=1), ValueError, "num_tags must be >= 2, got 1"),
        (lambda: train_padded(nn.Linear(2, 2), sequence_labels, steps=0), ValueError, "steps must be >= 1, got 0"),
    ],
)
def test_bad_input_is_refused_with_a_message_that_says_what_to_fix(call, error, message):
    with pytest.raises(error, match=message):
        call()


@pytest.mark.integration
def test_a_short_training_classifies_better_than_chance_and_is_deterministic():
    def train():
        torch.manual_seed(0)
        return train_padded(EncoderClassifier(encoder(), num_classes=2), sequence_labels, steps=60, seed=0)

    first, second = train(), train()
    assert first.losses == second.losses
    assert first.accuracy > 0.7
    assert not first.model.training
