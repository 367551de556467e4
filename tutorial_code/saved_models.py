"""Keep a trained character model in a file, load it back, continue a prompt.

One file holds everything: the model's kind and sizes, its weights and its
characters. `torch.load(..., weights_only=True)` reads it back, so loading runs
no code from the file.

    keep(folder, model, vocabulary, about={"chapter": "language-model"})
    saved = load(folder)
    text = continue_prompt(saved.model, saved.vocabulary, "def ", 200, 0.8, 0.9)
"""

from __future__ import annotations

import math
import pickle
from dataclasses import dataclass
from pathlib import Path

import torch
from torch import nn

from tutorial_code.language_model import (
    CharTransformer,
    CharVocabulary,
    top_p_filter,
)
from tutorial_code.llama import LlamaModel
from tutorial_code.modes import in_eval_mode
from tutorial_code.validation import check_count

FILE_NAME = "model.pt"
# what torch.load and load_state_dict raise on a file `keep` did not write
NOT_KEPT_HERE = (KeyError, TypeError, ValueError, RuntimeError, EOFError)
TRAINED_CONTEXT = (
    64  # both kinds learn from windows of 64 characters (chapters 11 and 15)
)


def _sizes(model: nn.Module) -> tuple[str, dict[str, int | bool]]:
    """The model's kind, and the arguments that make a model of its shape."""
    if isinstance(model, CharTransformer):
        first = model.layers[0].attention
        return "CharTransformer", {
            "vocab_size": model.embedding.num_embeddings,
            "d_model": model.embedding.embedding_dim,
            "num_heads": first.num_heads,
            "num_layers": len(model.layers),
            "context": model.context,
            "tie_weights": model.output.weight is model.embedding.weight,
        }
    if isinstance(model, LlamaModel):
        block = model.layers[0]
        return "LlamaModel", {
            "vocab_size": model.embedding.num_embeddings,
            "d_model": model.embedding.embedding_dim,
            "num_layers": len(model.layers),
            "num_heads": block.attention.num_heads,
            "num_kv_heads": block.attention.num_kv_heads,
            "d_ff": block.feed_forward.gate.out_features,
            "head_dim": block.attention.head_dim,
            "rope_base": float(block.attention.rope_base),
            "eps": float(model.final_norm.eps),
            "tie_embeddings": model.output.weight is model.embedding.weight,
        }
    raise TypeError(
        "model must be a CharTransformer or a LlamaModel, "
        f"got {type(model).__name__}"
    )


def _plain_about(about: dict | None) -> dict[str, str | int | float | bool]:
    """`about` with plain values only, as `load` can read them back: a path
    becomes its text, a NumPy or 0-d tensor number a Python one."""
    if about is None:
        return {}
    if not isinstance(about, dict):
        raise TypeError(f"about must be a dict, got {type(about).__name__}")
    plain = {}
    for key, value in about.items():
        if isinstance(value, Path):
            value = str(value)
        elif hasattr(value, "item") and getattr(value, "ndim", None) == 0:
            value = value.item()  # np.float32(0.1), torch.tensor(3)
        if not isinstance(key, str) or not isinstance(
            value, str | int | float | bool
        ):
            raise TypeError(
                f"about[{key!r}] must be text or a number with a text key, "
                f"got {type(value).__name__}"
            )
        plain[key] = value
    return plain


def keep(
    folder: str | Path,
    model: nn.Module,
    vocabulary: CharVocabulary,
    about: dict | None = None,
) -> Path:
    """Write `model`, its sizes and `vocabulary` to `folder/model.pt`.

    The folder is made if needed. `about`: a few words and numbers kept with
    the model (its chapter, steps, seed), shown when it is loaded.

    Returns:
        The file written.

    Raises:
        TypeError: If `model` is not a kind `load` makes, or `about` holds a
            value that is not text or a number.
    """
    kind, sizes = _sizes(model)
    about = _plain_about(about)
    path = Path(folder) / FILE_NAME
    path.parent.mkdir(parents=True, exist_ok=True)
    state = {
        name: tensor.detach().cpu()
        for name, tensor in model.state_dict().items()
    }
    saved = {
        "kind": kind,
        "sizes": sizes,
        "chars": vocabulary.chars,
        "about": about,
        "weights": state,
    }
    torch.save(saved, path)
    return path


@dataclass
class SavedModel:
    """A model read back by `load`, in eval mode, with its characters."""

    model: nn.Module
    vocabulary: CharVocabulary
    about: dict


def load(folder: str | Path) -> SavedModel:
    """Read back what `keep` wrote to `folder` (or the file itself).

    Raises:
        FileNotFoundError: If there is no such file.
        ValueError: If the file is not one that `keep` wrote.
    """
    path = Path(folder)
    path = path / FILE_NAME if path.is_dir() else path
    if not path.is_file():
        raise FileNotFoundError(
            f"no saved model in {folder}: keep one with "
            f"`transformer-tutorial language-model --save {folder}`"
        )
    try:
        saved = torch.load(path, map_location="cpu", weights_only=True)
        kinds = {"CharTransformer": CharTransformer, "LlamaModel": LlamaModel}
        model = kinds[saved["kind"]](**saved["sizes"])
        model.load_state_dict(saved["weights"])
        vocabulary = CharVocabulary(list(saved["chars"]))
        about = _plain_about(saved.get("about", {}))
    except PermissionError:
        raise ValueError(f"{path} cannot be read: permission denied") from None
    except (*NOT_KEPT_HERE, pickle.UnpicklingError, OSError) as error:
        raise ValueError(
            f"{path} is not a model kept by this tutorial "
            f"({type(error).__name__})"
        ) from None
    return SavedModel(model.eval(), vocabulary, about)


@in_eval_mode
def continue_prompt(
    model: nn.Module,
    vocabulary: CharVocabulary,
    prompt: str,
    new_chars: int,
    temperature: float = 1.0,
    top_p: float | None = None,
    seed: int = 0,
) -> str:
    """`prompt` and `new_chars` characters sampled after it, one at a time.

    Each step reads the last 64 characters (the windows the model learned
    from), divides the newest logits by `temperature`, and keeps the `top_p`
    nucleus. The same seed gives the same text.

    Raises:
        ValueError: If the prompt is empty or holds a character the model
            never saw, `new_chars` is negative, `temperature` is not above 0,
            or `top_p` is not in (0, 1].
    """
    if not prompt:
        raise ValueError("prompt must hold at least one character")
    unknown = sorted(set(prompt) - set(vocabulary.chars))
    if unknown:
        raise ValueError(
            f"prompt holds characters the model never saw: {''.join(unknown)!r}"
        )
    check_count(new_chars, "new_chars", minimum=0)
    if not (temperature > 0 and math.isfinite(temperature)):
        raise ValueError(
            f"temperature must be a finite number above 0, got {temperature}"
        )
    if top_p is not None and not 0 < top_p <= 1:
        raise ValueError(f"top_p must be in (0, 1], got {top_p}")
    generator = torch.Generator().manual_seed(seed)
    ids = vocabulary.encode(prompt)
    with torch.no_grad():
        for _ in range(new_chars):
            output = model(ids[-TRAINED_CONTEXT:].unsqueeze(0))
            logits = output[0] if isinstance(output, tuple) else output
            logits = logits[0, -1] / temperature  # (V,): the next character
            if top_p is not None:
                logits = top_p_filter(logits, top_p)
            next_id = torch.multinomial(
                torch.softmax(logits, dim=-1), 1, generator=generator
            )
            ids = torch.cat([ids, next_id])
    return vocabulary.decode(ids)
