"""Trained models as the attention explorer's JavaScript reads them.

The explorer (docs/javascripts/explorer.js) runs a model's forward pass in the
reader's browser: chapter 11's `CharTransformer`, and chapter 7's sum model,
a `DigitModel`. It needs the sizes, the tokens, and every weight: each as its
shape and its float32 bytes (little-endian) in base64.
"""

# --8<-- [start:imports]
import base64

import numpy as np
import torch

from tutorial_code.digit_model import DigitModel
from tutorial_code.language_model import CharTransformer

# --8<-- [end:imports]


# --8<-- [start:browser_model]
def browser_model(model: CharTransformer, chars: list[str]) -> dict:
    """The model's sizes, its characters and its weights, ready for JSON.

    Examples:
        >>> model = CharTransformer(vocab_size=3, d_model=8, num_heads=2)
        >>> exported = browser_model(model, ["a", "b", "c"])
        >>> exported["num_heads"], exported["weights"]["output.bias"]["shape"]
        (2, [3])
    """
    if len(chars) != model.embedding.num_embeddings:
        raise ValueError(
            f"chars must hold one character per token id: got {len(chars)} "
            f"for a vocabulary of {model.embedding.num_embeddings}"
        )
    first = model.layers[0]
    return {
        "kind": "characters",
        "d_model": model.embedding.embedding_dim,
        "num_heads": first.attention.num_heads,
        "num_layers": len(model.layers),
        "context": model.context,
        "layer_norm_eps": first.norm1.eps,
        "chars": list(chars),
        "weights": exported_weights(model),
    }


def browser_digit_model(model: DigitModel, target_scale: float) -> dict:
    """Chapter 7's sum model for the explorer: its sizes, its layer order,
    the factor its output is multiplied by to give the sum, its weights.

    Examples:
        >>> exported = browser_digit_model(DigitModel(), target_scale=10.0)
        >>> exported["kind"], exported["norm_first"], exported["num_layers"]
        ('numbers', False, 2)
    """
    first = model.layers[0]
    if not hasattr(model.positions, "table"):
        raise ValueError("the explorer runs DigitModels with learned positions")
    return {
        "kind": "numbers",
        "d_model": model.input_projection.out_features,
        "num_heads": first.attention.num_heads,
        "num_layers": len(model.layers),
        "context": model.positions.table.size(0),
        "norm_first": first.norm_first,
        "layer_norm_eps": first.norm1.eps,
        "target_scale": target_scale,
        "weights": exported_weights(model),
    }


def exported_weights(model: torch.nn.Module) -> dict:
    """Each weight of `model`: its shape, and its float32 bytes in base64."""
    weights = {}
    for name, tensor in model.state_dict().items():
        values = tensor.detach().cpu().to(torch.float32).numpy()
        raw = np.ascontiguousarray(values, dtype="<f4").tobytes()
        weights[name] = {
            "shape": list(tensor.shape),
            "data": base64.b64encode(raw).decode("ascii"),
        }
    return weights


def from_browser_model(exported: dict) -> CharTransformer:
    """The model back from `browser_model`'s output, on the hand-written
    attention, which returns the weights: what the explorer is tested against.
    """
    model = CharTransformer(
        len(exported["chars"]),
        d_model=exported["d_model"],
        num_heads=exported["num_heads"],
        num_layers=exported["num_layers"],
        context=exported["context"],
        fused_attention=False,
    )
    model.load_state_dict(state_from(exported))
    return model.eval()


def from_browser_digit_model(exported: dict) -> DigitModel:
    """The sum model back from `browser_digit_model`'s output, in eval mode."""
    model = DigitModel(
        d_model=exported["d_model"],
        num_heads=exported["num_heads"],
        num_layers=exported["num_layers"],
        max_len=exported["context"],
        norm_first=exported["norm_first"],
        d_ff=exported["weights"]["layers.0.feed_forward.linear1.bias"]["shape"][
            0
        ],
    )
    model.load_state_dict(state_from(exported))
    return model.eval()


def state_from(exported: dict) -> dict[str, torch.Tensor]:
    """The `state_dict` that `exported_weights` wrote."""
    state = {}
    for name, weight in exported["weights"].items():
        raw = base64.b64decode(weight["data"])
        values = np.frombuffer(raw, dtype="<f4").reshape(weight["shape"])
        state[name] = torch.from_numpy(values.copy())
    return state


# --8<-- [end:browser_model]
