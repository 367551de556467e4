"""Keep a chapter's trained language model, and continue a prompt with it.

    transformer-tutorial language-model --save runs/lm       train chapter 11's model, keep it in runs/lm
    transformer-tutorial todays-models --save runs/llama     chapter 14's Llama-style model, trained and kept
    transformer-tutorial sample --from runs/lm --prompt "def " --temperature 0.8 --top-p 0.9

The model is kept as one file, `model.pt` (`tutorial_code.saved_models`), that a later run loads without training.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from tutorial_tools.arguments import MAX_SEED, positive_number, probability, whole_number
from tutorial_tools.language import LANGUAGES, SpeakingParser

# chapter command -> what it trains and keeps: the model and its characters, from the chapter's run
Keeper = Callable[[dict, dict], tuple]


def language_model(namespace: dict, values: dict) -> tuple:
    """Chapter 11's model: the run of the chapter itself (`trained_language_model` is kept per process and
    arguments, so asking again trains nothing)."""
    from tutorial_code.language_model import trained_language_model

    result = trained_language_model(steps=values["STEPS"], seed=values["SEED"], device=values.get("DEVICE", "cpu"))
    return result.model, result.vocabulary


def llama_like_chapter_11(namespace: dict, values: dict) -> tuple:
    """Chapter 14's Llama-style model, the size of chapter 11's (its `d_ff` as the chapter computed it), trained
    on chapter 11's text with chapter 11's recipe for --steps steps."""
    import torch

    from tutorial_code.language_model import CharVocabulary, python_reference_text, split
    from tutorial_code.llama import LlamaModel, train_next_character

    text = python_reference_text()
    vocabulary = CharVocabulary.of(text)
    train_ids, _ = split(vocabulary.encode(text))
    print(f"training chapter 14's model to keep it: {values['STEPS']} steps", file=sys.stderr)
    with torch.random.fork_rng():
        torch.manual_seed(values["SEED"])
        model = LlamaModel(len(vocabulary.chars), 64, 2, 4, 4, namespace["d_ff"])
        train_next_character(model, train_ids, values["STEPS"], values["SEED"])
    return model.eval(), vocabulary


KEEPERS: dict[str, Keeper] = {"language-model": language_model, "todays-models": llama_like_chapter_11}


def writable_folder(parser: argparse.ArgumentParser, folder: str) -> Path:
    """`folder`, made if needed, once a file can be written there; else one line from `parser` that says why."""
    path = Path(folder).expanduser()
    probe = path / ".transformer-tutorial-probe"
    try:
        path.mkdir(parents=True, exist_ok=True)
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as error:
        parser.error(f"--save {folder}: cannot write there ({error.strerror or error})")
    return path


def keep_trained(command: str, folder: Path, namespace: dict, values: dict) -> None:
    """After the chapter ran: keep its trained model in `folder`, and say how to sample it (on standard error:
    standard output is what the chapter prints)."""
    from tutorial_code.saved_models import keep

    model, vocabulary = KEEPERS[command](namespace, values)
    about = {"chapter": command, "steps": values["STEPS"], "seed": values["SEED"]}
    path = keep(folder, model, vocabulary, about)
    print(
        f"kept the trained model in {path}; continue a prompt with: "
        f'transformer-tutorial sample --from {folder} --prompt "def "',
        file=sys.stderr,
    )


def sample_parser() -> argparse.ArgumentParser:
    parser = SpeakingParser(
        prog="transformer-tutorial sample",
        description="Continue a prompt with a model kept by `language-model --save DIR` or `todays-models --save "
        "DIR`. Prints the prompt and what the model wrote after it.",
    )
    parser.add_argument("--from", dest="folder", required=True, help="the folder given to --save")
    parser.add_argument("--prompt", required=True, help='the text to continue, e.g. "def "')
    parser.add_argument("--chars", type=whole_number(0, 100_000), default=300, help="characters to add (300)")
    parser.add_argument("--temperature", type=positive_number, default=0.8, help="divides the logits (0.8)")
    parser.add_argument("--top-p", type=probability, default=None, help="keep the nucleus of this mass (off)")
    parser.add_argument("--seed", type=whole_number(0, MAX_SEED), default=0, help="seed of the sampling (0)")
    parser.add_argument("--lang", choices=LANGUAGES, help="the language of the messages: en or zh")
    return parser


def sample_main(argv: list[str]) -> int:
    """`transformer-tutorial sample`: load a kept model and print the prompt continued."""
    parser = sample_parser()
    args = parser.parse_args(argv)
    from tutorial_code.saved_models import continue_prompt, load

    try:
        saved = load(args.folder)
    except (FileNotFoundError, ValueError) as error:
        parser.error(str(error))
    try:
        text = continue_prompt(
            saved.model, saved.vocabulary, args.prompt, args.chars, args.temperature, args.top_p, args.seed
        )
    except ValueError as error:
        parser.error(f"--prompt: {error}" if "prompt" in str(error) else str(error))
    print(text)
    return 0
