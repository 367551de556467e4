"""The build's shared trainings and fingerprints: a result is reused only while the code behind it is unchanged,
and a reused training leaves the caller exactly where a real one would."""

import shutil

import pytest
import torch
from conftest import ROOT
from torch import nn

from sitebuild.fingerprint import code_fingerprint, dependencies
from sitebuild.in_chapter.kernel import share_runs
from sitebuild.in_chapter.training_cache import cache_training, cached
from tutorial_code import shared_runs
from tutorial_code.digit_model import DigitModel, train_digit_model
from tutorial_code.sum_task import make_batch

train = cache_training(train_digit_model)


def train_sum(steps: int, seed: int, **options):
    return train(make_batch, nn.MSELoss(), steps=steps, seed=seed, **options)


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    """Caching on, and the marks handled, as in a chapter's process of the build
    (`sitebuild.in_chapter.kernel.prepare`)."""
    monkeypatch.setenv("TUTORIAL_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(shared_runs, "HANDLERS", {})
    share_runs()
    return tmp_path / "cache"


def test_without_the_variable_nothing_is_cached(monkeypatch):
    monkeypatch.delenv("TUTORIAL_CACHE_DIR", raising=False)
    calls = []
    assert cached("key", lambda: calls.append(1) or len(calls)) == 1
    assert cached("key", lambda: calls.append(1) or len(calls)) == 2


def test_a_value_is_computed_once_per_key(cache_dir):
    calls = []
    assert cached("key", lambda: calls.append(1) or "first") == "first"
    assert cached("key", lambda: calls.append(1) or "second") == "first"
    assert cached("other key", lambda: calls.append(1) or "third") == "third"
    assert len(calls) == 2
    assert len(list(cache_dir.glob("*.pt"))) == 2


def test_an_unreadable_entry_is_computed_again(cache_dir):
    cached("key", lambda: "value")
    for entry in cache_dir.glob("*.pt"):
        entry.write_bytes(b"not a pickle")
    assert cached("key", lambda: "fresh") == "fresh"


def test_dependencies_follow_imports_through_the_package():
    assert dependencies(["tutorial_code.encoder"], ROOT) >= {
        "tutorial_code.encoder",
        "tutorial_code.multi_head",
        "tutorial_code.attention",
        "tutorial_code.masks",
        "tutorial_code.feed_forward",
        "tutorial_code.positional",
    }
    assert "tutorial_code.masks" not in dependencies(["tutorial_code.why_attention"], ROOT)


def test_the_fingerprint_reads_the_checkout_it_is_given_and_changes_with_the_code_imported(tmp_path):
    shutil.copytree(ROOT / "tutorial_code", tmp_path / "tutorial_code", ignore=shutil.ignore_patterns("__pycache__"))
    encoder = code_fingerprint(["tutorial_code.encoder"], root=tmp_path)
    why = code_fingerprint(["tutorial_code.why_attention"], root=tmp_path)
    assert encoder == code_fingerprint(["tutorial_code.encoder"], root=ROOT)
    masks = tmp_path / "tutorial_code" / "masks.py"
    masks.write_text(masks.read_text(encoding="utf-8") + "\n# an edit\n", encoding="utf-8")
    assert code_fingerprint(["tutorial_code.encoder"], root=tmp_path) != encoder  # encoder imports masks
    assert code_fingerprint(["tutorial_code.why_attention"], root=tmp_path) == why  # why_attention does not
    source = "from tutorial_code.masks import causal_mask\nprint(causal_mask(3))"
    assert code_fingerprint(source=source, root=ROOT) != code_fingerprint(source=source.replace("3", "4"), root=ROOT)


@pytest.mark.integration
def test_a_reused_training_gives_the_same_result_weights_and_random_state(cache_dir):
    first = train_sum(steps=3, seed=5)
    after_first = torch.rand(3)
    torch.manual_seed(123)  # whatever state the caller is in, training reseeds
    second = train_sum(steps=3, seed=5)
    after_second = torch.rand(3)
    assert second.losses == first.losses and second.seconds == first.seconds
    assert torch.equal(after_first, after_second)  # the code after training draws the same numbers
    for a, b in zip(first.model.state_dict().values(), second.model.state_dict().values(), strict=True):
        assert torch.equal(a, b)
    assert len(list(cache_dir.glob("*.pt"))) == 1


@pytest.mark.integration
def test_a_model_passed_in_is_trained_in_place_on_reuse(cache_dir):
    torch.manual_seed(0)
    trained_once = train_sum(steps=3, seed=0, model=DigitModel())
    torch.manual_seed(0)
    given = DigitModel()
    result = train_sum(steps=3, seed=0, model=given)
    assert result.model is given and not given.training
    for a, b in zip(given.state_dict().values(), trained_once.model.state_dict().values(), strict=True):
        assert torch.equal(a, b)


@pytest.mark.integration
def test_different_arguments_or_initial_weights_are_different_entries(cache_dir):
    train_sum(steps=2, seed=0)
    train_sum(steps=2, seed=1)
    train_sum(steps=2, seed=0, lr=1e-2)
    torch.manual_seed(7)
    train_sum(steps=2, seed=0, model=DigitModel())
    torch.manual_seed(8)
    train_sum(steps=2, seed=0, model=DigitModel())
    frozen = DigitModel()
    frozen.head.weight.requires_grad_(False)
    train_sum(steps=2, seed=0, model=frozen)
    assert len(list(cache_dir.glob("*.pt"))) == 6


def test_the_wrapper_keeps_the_signature_and_docstring():
    assert train.__name__ == "train_digit_model"
    assert "Adam" in train.__doc__


@pytest.mark.integration
def test_the_marked_trainings_reuse_a_saved_result_only_when_the_build_asks(cache_dir, monkeypatch):
    from tutorial_code import language_model, reverse_task
    from tutorial_code.sum_task import train_sum_model

    for marked in (train_digit_model, reverse_task.train_reversal, language_model.train_language_model):
        assert marked.__wrapped__.__name__ == marked.__name__  # @reusable, at the definition: no patching
    first = train_sum_model(steps=2, seed=5)
    second = train_sum_model(steps=2, seed=5)
    assert len(list(cache_dir.glob("*.pt"))) == 1 and second.losses == first.losses
    monkeypatch.delenv("TUTORIAL_CACHE_DIR")
    assert train_sum_model(steps=2, seed=5).losses == first.losses
    assert len(list(cache_dir.glob("*.pt"))) == 1
    monkeypatch.setenv("TUTORIAL_CACHE_DIR", str(cache_dir))
    monkeypatch.setattr(shared_runs, "HANDLERS", {})  # outside the build: no handler, the plain training
    train_sum_model(steps=2, seed=6)
    assert len(list(cache_dir.glob("*.pt"))) == 1


@pytest.mark.integration
def test_a_pasted_copy_of_a_package_function_shares_its_results_and_an_edited_copy_does_not(cache_dir):
    """A page shows tasks.py's code; a reader runs it in their own namespace: the same code, the same results."""
    from snippets import section

    from tutorial_code.tasks import first_minus_last_batch

    train(first_minus_last_batch, nn.MSELoss(), steps=2, seed=0)
    code = section("tutorial_code/tasks.py", "imports") + "\n" + section("tutorial_code/tasks.py", "first_minus_last")
    for source in (code, code.replace("numbers[:, 0] - numbers[:, -1]", "numbers[:, 0] + numbers[:, -1]")):
        namespace = {"__name__": "pasted"}
        exec(compile(source, "<pasted>", "exec"), namespace)
        train(namespace["first_minus_last_batch"], nn.MSELoss(), steps=2, seed=0)
    assert len(list(cache_dir.glob("*.pt"))) == 2
