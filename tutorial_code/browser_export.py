"""A trained `CharTransformer` as the attention explorer's JavaScript reads it.

The explorer (docs/javascripts/explorer.js) runs the model's forward pass in
the reader's browser. It needs the sizes, the characters, and every weight:
each as its shape and its float32 bytes (little-endian) in base64.
"""

# --8<-- [start:imports]
import base64

import numpy as np
import torch

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
    weights = {}
    for name, tensor in model.state_dict().items():
        values = tensor.detach().cpu().to(torch.float32).numpy()
        raw = np.ascontiguousarray(values, dtype="<f4").tobytes()
        weights[name] = {
            "shape": list(tensor.shape),
            "data": base64.b64encode(raw).decode("ascii"),
        }
    first = model.layers[0]
    return {
        "d_model": model.embedding.embedding_dim,
        "num_heads": first.attention.num_heads,
        "num_layers": len(model.layers),
        "context": model.context,
        "layer_norm_eps": first.norm1.eps,
        "chars": list(chars),
        "weights": weights,
    }


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
    state = {}
    for name, weight in exported["weights"].items():
        raw = base64.b64decode(weight["data"])
        values = np.frombuffer(raw, dtype="<f4").reshape(weight["shape"])
        state[name] = torch.from_numpy(values.copy())
    model.load_state_dict(state)
    return model.eval()


# --8<-- [end:browser_model]
