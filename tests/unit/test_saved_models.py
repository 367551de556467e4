"""`keep` writes only what `load` reads back, for every model kind, and `load` refuses a file it cannot use with
one sentence (the command line's `sample --from` shows it), never a traceback."""

import os
from pathlib import Path

import numpy as np
import pytest
import torch

from tutorial_code.language_model import CharTransformer, CharVocabulary
from tutorial_code.llama import LlamaModel
from tutorial_code.saved_models import keep, load

VOCABULARY = CharVocabulary(list("abcdefgh "))


def models():
    torch.manual_seed(0)
    yield CharTransformer(vocab_size=9, d_model=16, num_heads=2, num_layers=1, context=8)
    yield LlamaModel(
        vocab_size=9, d_model=16, num_layers=1, num_heads=4, num_kv_heads=2, d_ff=24, rope_base=500.0, eps=1e-3
    )


@pytest.mark.parametrize("model", list(models()), ids=lambda m: type(m).__name__)
def test_what_keep_writes_load_reads_back_as_the_same_model(model, tmp_path):
    about = {
        "chapter": "language-model",
        "steps": np.int64(3),
        "lr": np.float32(0.5),
        "run": Path("x"),
        "t": torch.tensor(2.0),
    }
    keep(tmp_path, model, VOCABULARY, about)
    saved = load(tmp_path)
    ids = torch.tensor([[1, 2, 3, 4]])
    first = model.eval()(ids)
    again = saved.model(ids)
    first, again = (first[0] if isinstance(first, tuple) else first), (again[0] if isinstance(again, tuple) else again)
    assert torch.equal(first, again)  # rope_base and eps included: the same model, not one of the same sizes
    assert saved.about == {"chapter": "language-model", "steps": 3, "lr": 0.5, "run": "x", "t": 2.0}


def test_keep_refuses_what_load_could_not_read(tmp_path):
    model = next(models())
    with pytest.raises(TypeError, match=r"about\['when'\] must be text or a number"):
        keep(tmp_path, model, VOCABULARY, {"when": object()})


@pytest.mark.parametrize("damage", ["truncated", "edited about", "not a model"])
def test_a_damaged_file_is_refused_in_one_sentence(damage, tmp_path):
    path = keep(tmp_path, next(models()), VOCABULARY, {"chapter": "x"})
    if damage == "truncated":
        path.write_bytes(path.read_bytes()[:200])
    elif damage == "edited about":
        saved = torch.load(path, weights_only=True)
        saved["about"] = ["a", "list"]
        torch.save(saved, path)
    else:
        path.write_text("hello", encoding="utf-8")
    with pytest.raises(ValueError, match="is not a model kept by this tutorial"):
        load(tmp_path)


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root reads every file")
def test_an_unreadable_file_is_refused_in_one_sentence(tmp_path):
    path = keep(tmp_path, next(models()), VOCABULARY)
    path.chmod(0)
    with pytest.raises(ValueError, match="permission denied"):
        load(tmp_path)
