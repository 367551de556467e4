"""EncoderLayer and Encoder: equality with nn.TransformerEncoderLayer and the properties a correct encoder has."""

import pytest
import torch
from torch import nn

from tutorial_code.encoder import Encoder, EncoderLayer
from tutorial_code.from_torch import encoder_layer_from_torch
from tutorial_code.masks import causal_mask, padding_mask


@pytest.mark.parametrize("norm_first", [False, True])
def test_layer_matches_torch(norm_first, assert_matches_torch):
    torch.manual_seed(0)
    theirs = nn.TransformerEncoderLayer(
        64, 8, dim_feedforward=128, dropout=0.0, batch_first=True, norm_first=norm_first
    ).eval()
    ours = encoder_layer_from_torch(theirs)
    x = torch.randn(4, 10, 64)
    mask = padding_mask(torch.tensor([10, 7, 3, 1]), max_len=10)
    assert_matches_torch("nn.TransformerEncoderLayer", ours(x)[0], theirs(x))
    key_padding_mask = ~mask[:, 0, 0]
    assert_matches_torch(
        "nn.TransformerEncoderLayer", ours(x, mask=mask)[0], theirs(x, src_key_padding_mask=key_padding_mask)
    )


@pytest.mark.parametrize("norm_first", [False, True])
def test_layer_matches_torch_in_training_mode_without_dropout(norm_first, assert_matches_torch):
    """train() mode takes PyTorch's slow path, eval() its fast path: check both."""
    torch.manual_seed(0)
    theirs = nn.TransformerEncoderLayer(32, 4, 64, dropout=0.0, batch_first=True, norm_first=norm_first)
    ours = encoder_layer_from_torch(theirs)
    x = torch.randn(2, 5, 32)
    assert_matches_torch(
        "nn.TransformerEncoderLayer", ours(x, mask=causal_mask(5))[0], theirs(x, src_mask=~causal_mask(5))
    )


@pytest.mark.parametrize("norm_first", [False, True])
def test_layer_key_padding_mask_matches_torch(norm_first, assert_matches_torch):
    torch.manual_seed(0)
    theirs = nn.TransformerEncoderLayer(32, 4, 64, dropout=0.0, batch_first=True, norm_first=norm_first).train()
    ours = encoder_layer_from_torch(theirs)
    x = torch.randn(3, 6, 32)
    keep = padding_mask(torch.tensor([6, 4, 1]), max_len=6)[:, 0, 0]  # (B, T), True = real token
    output, _ = ours(x, mask=causal_mask(6), key_is_real=keep)
    expected = theirs(x, src_mask=~causal_mask(6), src_key_padding_mask=~keep)
    assert_matches_torch("nn.TransformerEncoderLayer", output, expected)
    torch.testing.assert_close(ours(x, key_is_real=keep)[0], ours(x, mask=keep[:, None, None, :])[0])


def test_the_encoder_combines_key_padding_mask_with_pad_id():
    encoder = small_encoder(pad_id=0)
    tokens = torch.tensor([[5, 6, 7, 8, 0]])  # pad_id hides position 4
    keep = torch.tensor([[True, True, True, False, True]])  # the caller hides position 3
    _, weights = encoder(tokens, key_is_real=keep)
    assert weights[0][..., 3:].abs().max() == 0
    output, _ = encoder(tokens, mask=padding_mask(torch.tensor([3]), max_len=5))
    torch.testing.assert_close(encoder(tokens, key_is_real=keep)[0], output)


def test_parameter_count_of_paper_layer_matches_torch():
    ours = EncoderLayer(512, 8, 2048)
    theirs = nn.TransformerEncoderLayer(512, 8, 2048)
    count = sum(p.numel() for p in ours.parameters())
    assert count == sum(p.numel() for p in theirs.parameters()) == 3_152_384


def small_encoder(**kwargs) -> Encoder:
    torch.manual_seed(0)
    options = dict(vocab_size=20, d_model=32, num_heads=4, d_ff=64, num_layers=2, max_len=16, dropout=0.0)
    return Encoder(**options | kwargs).eval()


def test_without_positions_the_encoder_is_permutation_equivariant():
    encoder = small_encoder(positional="none")
    tokens = torch.randint(1, 20, (2, 9), generator=torch.Generator().manual_seed(0))
    permutation = torch.randperm(9, generator=torch.Generator().manual_seed(1))
    output, _ = encoder(tokens)
    permuted_output, _ = encoder(tokens[:, permutation])
    torch.testing.assert_close(permuted_output, output[:, permutation], atol=1e-5, rtol=0)


def test_with_positions_order_matters():
    encoder = small_encoder(positional="sinusoidal")
    tokens = torch.tensor([[1, 2, 3, 4]])
    output, _ = encoder(tokens)
    flipped, _ = encoder(tokens.flip(1))
    assert (flipped.flip(1) - output).abs().max() > 1e-3


def test_causal_mask_hides_the_future():
    encoder = small_encoder()
    tokens = torch.randint(1, 20, (1, 10), generator=torch.Generator().manual_seed(0))
    changed = tokens.clone()
    changed[0, 6:] = (changed[0, 6:] % 19) + 1  # new tokens after t = 5
    output, _ = encoder(tokens, mask=causal_mask(10))
    changed_output, _ = encoder(changed, mask=causal_mask(10))
    torch.testing.assert_close(changed_output[:, :6], output[:, :6], atol=1e-6, rtol=0)
    assert (changed_output[:, 6:] - output[:, 6:]).abs().max() > 1e-3


def test_padded_tokens_do_not_change_real_outputs():
    encoder = small_encoder(pad_id=0)
    tokens = torch.tensor([[5, 6, 7, 0, 0]])
    output, weights = encoder(tokens)
    # Whatever sits in the padded slots, with the mask the real positions see the same keys.
    other = torch.tensor([[5, 6, 7, 9, 11]])
    other_output, _ = encoder(other, mask=padding_mask(torch.tensor([3]), max_len=5))
    torch.testing.assert_close(other_output[:, :3], output[:, :3], atol=1e-6, rtol=0)
    assert weights[0][..., 3:].abs().max() == 0


@pytest.mark.parametrize("norm_first", [False, True])
def test_every_parameter_gets_a_gradient(norm_first):
    encoder = small_encoder(positional="learned", norm_first=norm_first).train()
    output, _ = encoder(torch.randint(0, 20, (3, 8), generator=torch.Generator().manual_seed(0)))
    output.pow(2).mean().backward()
    missing = [name for name, p in encoder.named_parameters() if p.grad is None or p.grad.abs().max() == 0]
    assert missing == []


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: small_encoder()(torch.rand(1, 4)), TypeError, "tokens must be integer ids"),
        (lambda: small_encoder()(torch.tensor([1, 2])), ValueError, r"tokens must have shape \(B, T\)"),
        (lambda: small_encoder()(torch.tensor([[1, 25]])), ValueError, r"token ids must lie in \[0, vocab_size=20\)"),
        (
            lambda: small_encoder()(torch.ones(1, 17, dtype=torch.long)),
            ValueError,
            "sequence length 17 exceeds max_len=16",
        ),
        (lambda: small_encoder(positional="rotary"), ValueError, "positional must be"),
    ],
)
def test_bad_input_is_explained(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_the_classifier_ignores_what_fills_the_padding():
    from tutorial_code.encoder import Encoder, EncoderClassifier

    torch.manual_seed(0)
    model = EncoderClassifier(Encoder(vocab_size=20, d_model=16, num_heads=4, d_ff=32, num_layers=2, pad_id=0), 3)
    model.eval()
    tokens = torch.tensor([[5, 6, 7, 0, 0], [8, 9, 0, 0, 0]])
    logits = model(tokens)
    assert logits.shape == (2, 3)
    shorter = model(tokens[:, :3])  # the same sequences with less padding
    torch.testing.assert_close(logits, shorter, atol=1e-5, rtol=0)


def test_a_classifier_needs_two_classes():
    import pytest

    from tutorial_code.encoder import Encoder, EncoderClassifier

    with pytest.raises(ValueError, match="num_classes must be >= 2"):
        EncoderClassifier(Encoder(vocab_size=5, d_model=8, num_heads=2, d_ff=16, num_layers=1), 1)
