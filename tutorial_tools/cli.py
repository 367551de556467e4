"""The `transformer-tutorial` command: run any chapter from a terminal.

    transformer-tutorial --help                  the chapters
    transformer-tutorial training                run chapter 7, print what its page shows
    transformer-tutorial training --seed 1 --steps 200 --device cuda
    transformer-tutorial exercise --list         the graded exercises
    transformer-tutorial exercise causal-mask    write a starter file; then: transformer-tutorial check causal-mask
    transformer-tutorial language-model --save runs/lm
    transformer-tutorial sample --from runs/lm --prompt "def "   continue a prompt with the kept model

`python -m tutorial_tools ...` does the same. A chapter is its script,
`docs/<chapter>/script.py`; the options replace the values of the script's parameters
cell (`SEED`, `STEPS`, `DEVICE`), the way papermill treats a notebook's parameters
cell, and training draws a progress bar on standard error. Standard output is what
the chapter prints, nothing else.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import io
import os
import sys
import tokenize
import types
from pathlib import Path

from tutorial_tools.arguments import MAX_SEED, whole_number
from tutorial_tools.contents import CHAPTERS, Chapter
from tutorial_tools.language import LANGUAGES, SpeakingParser, chosen
from tutorial_tools.language import given_in as language_given_in
from tutorial_tools.sections import section_lines, section_text
from tutorial_tools.trained_models import KEEPERS, keep_trained, sample_main, writable_folder

PARAMETERS = "parameters"  # the section of a chapter script whose values the options replace


def script_path(chapter: Chapter) -> Path:
    return chapter.file("script.py")


def parameters(chapter: Chapter) -> dict[str, object]:
    """The names and default values of the chapter script's parameters cell.

    A parameter computed from others (`SEEDS = [SEED, SEED + 1, SEED + 2]`) is no option: it follows them.
    """
    cell = section_text(script_path(chapter).read_text(encoding="utf-8"), PARAMETERS)
    found: dict[str, object] = {}
    for node in ast.parse(cell or "").body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            try:
                found[node.targets[0].id] = ast.literal_eval(node.value)
            except ValueError:
                continue  # computed from the parameters above it
    return found


def parameter_notes(chapter: Chapter) -> dict[str, str]:
    """The comment after each parameter of the chapter's parameters cell (`STEPS = 300  # optimizer steps of the
    reversal models`): what the option sets in that chapter, in its help."""
    cell = section_text(script_path(chapter).read_text(encoding="utf-8"), PARAMETERS) or ""
    notes = {}
    for token in tokenize.generate_tokens(io.StringIO(cell).readline):
        if token.type == tokenize.COMMENT:
            name = token.line.split("=", 1)[0].strip()
            if name.isidentifier() and token.line.lstrip().startswith(name):
                notes[name] = token.string.lstrip("# ").strip()
    return notes


def version() -> str:
    """The installed package's version, or that of the checkout's pyproject.toml."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed

    try:
        return installed("transformer-tutorial")
    except PackageNotFoundError:
        return "unknown (not installed)"


def chapters() -> dict[str, Chapter]:
    """Every chapter, by command name (`feed-forward-and-norm`), in the site's reading order."""
    return {chapter.command: chapter for chapter in CHAPTERS}


def device_value(text: str) -> str:
    """Check a `--device` value: one PyTorch understands and that this machine has."""
    import torch

    try:
        device = torch.device(text)
    except RuntimeError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a device name; use cpu, cuda, cuda:1 or mps") from None
    if device.type == "cuda" and not torch.cuda.is_available():
        raise argparse.ArgumentTypeError(
            f"{text!r}: this PyTorch ({torch.__version__}) sees no CUDA GPU on this machine; use --device cpu"
        )
    if device.type == "cuda" and device.index is not None and device.index >= torch.cuda.device_count():
        raise argparse.ArgumentTypeError(f"{text!r}: this machine has {torch.cuda.device_count()} CUDA GPU(s)")
    if device.type == "mps" and not torch.backends.mps.is_available():
        raise argparse.ArgumentTypeError(f"{text!r}: Apple's MPS is not available here; use --device cpu")
    if device.type not in ("cpu", "cuda", "mps"):
        raise argparse.ArgumentTypeError(f"{text!r}: the tutorial runs on cpu, cuda or mps")
    return text


LANGUAGE_HELP = "the language of the messages: en or zh (default: from LANG, else en)"
MAX_STEPS = 1_000_000  # far beyond what any chapter needs; a typo with extra digits should not run for days

OPTIONS = {  # option -> (parameter, how to read it, what it sets)
    "seed": ("SEED", whole_number(0, MAX_SEED), "seed of the weights and data"),
    "steps": ("STEPS", whole_number(1, MAX_STEPS), "training steps of every model the chapter trains"),
    "device": ("DEVICE", device_value, "where to train: cpu, cuda, cuda:1, mps"),
}


def build_parser(found: dict[str, Chapter]) -> argparse.ArgumentParser:
    parser = SpeakingParser(
        prog="transformer-tutorial",
        description="Run a chapter of 'Attention, by hand' and print what its page shows.",
        epilog="Options of one chapter: transformer-tutorial CHAPTER --help. Exercises: transformer-tutorial "
        "exercise --list, transformer-tutorial exercise NAME, transformer-tutorial check NAME. A trained model: "
        "transformer-tutorial language-model --save DIR, then transformer-tutorial sample --from DIR --prompt TEXT",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {version()}")
    parser.add_argument("--lang", choices=LANGUAGES, help=LANGUAGE_HELP)
    commands = parser.add_subparsers(dest="chapter", metavar="CHAPTER", required=True, parser_class=SpeakingParser)
    for command, chapter in found.items():
        defaults, notes = parameters(chapter), parameter_notes(chapter)
        sub = commands.add_parser(
            command, help=chapter.heading(), description=f"{chapter.heading()}. Source: {chapter.script}"
        )
        for option, (parameter, parse, meaning) in OPTIONS.items():
            # An option the chapter has no parameter for is still accepted, so main() can say why it does not apply.
            meaning = notes.get(parameter, meaning)  # the chapter's own words: which models --steps sets
            shown = f"{meaning} (default {defaults[parameter]})" if parameter in defaults else argparse.SUPPRESS
            sub.add_argument(f"--{option}", type=parse, help=shown)
        keeps = "keep the trained model in this folder, for `transformer-tutorial sample --from DIR`"
        sub.add_argument("--save", metavar="DIR", help=keeps if command in KEEPERS else argparse.SUPPRESS)
        sub.add_argument("--no-progress", action="store_true", help="no progress bar on standard error")
        sub.add_argument("--lang", choices=LANGUAGES, help=LANGUAGE_HELP)
        sub.set_defaults(chapter_key=command)
    # Listed for --help; run() hands them to their own parsers (tutorial_tools/exercises/commands.py).
    commands.add_parser("exercise", help="write the starter file of a graded exercise; exercise --list: all of them")
    commands.add_parser("check", help="grade your file of an exercise: check NAME [FILE]")
    commands.add_parser("sample", help="continue a prompt with a model kept by --save: sample --from DIR --prompt TEXT")
    return parser


def chapter_code(chapter: Chapter, overrides: dict[str, object]) -> types.CodeType:
    """The chapter's code, compiled, with the values of `overrides` in its parameters cell.

    The assignments are replaced in the parsed code, not in the text, so every line keeps its number:
    a traceback from the chapter points at the chapter file's real lines.
    """
    path = script_path(chapter)
    source = path.read_text(encoding="utf-8")
    tree = ast.parse(source, str(path))
    cell = section_lines(source, PARAMETERS) if overrides else range(0)
    for node in tree.body:
        if node.lineno - 1 in (cell or ()) and isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            if node.targets[0].id in overrides:
                node.value = ast.copy_location(ast.Constant(overrides[node.targets[0].id]), node.value)
    return compile(tree, str(path), "exec")


def main(argv: list[str] | None = None) -> int:
    """Entry point of `transformer-tutorial` and `python -m tutorial_tools`: Ctrl-C stops it with one line, and a
    reader that stops reading (`| head`) ends it quietly."""
    try:
        return run(list(sys.argv[1:] if argv is None else argv))
    except KeyboardInterrupt:
        print("transformer-tutorial: interrupted (Ctrl-C)", file=sys.stderr)
        return 130  # the shell's status for a program stopped by SIGINT
    except BrokenPipeError:
        # What Python's documentation advises: nothing more can be written, and the exit at shutdown would try to
        # flush standard output again, so point it at devnull first.
        with contextlib.suppress(OSError, ValueError):  # a standard output with no file behind it: nothing to do
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141  # the shell's status for a program stopped by SIGPIPE


def command_first(argv: list[str]) -> list[str]:
    """`--lang zh check NAME` as `check NAME --lang zh`: the usage line puts `--lang` before the command, and every
    command takes it after."""
    moved = []
    while argv and (argv[0] == "--lang" or argv[0].startswith("--lang=")):
        taken = 1 if "=" in argv[0] else 2
        moved, argv = moved + argv[:taken], argv[taken:]
    return argv + moved


def run(argv: list[str]) -> int:
    """Run the command line `argv`: a chapter, or the `exercise` and `check` commands."""
    SpeakingParser.language = chosen(language_given_in(argv))
    argv = command_first(argv)
    if argv and argv[0] == "sample":
        return sample_main(argv[1:])
    if argv and argv[0] in ("exercise", "check"):
        from tutorial_tools.exercises import commands

        return (commands.exercise_main if argv[0] == "exercise" else commands.check_main)(argv[1:])
    found = chapters()
    parser = build_parser(found)
    if argv and not argv[0].startswith("-"):
        argv[0] = argv[0].replace("_", "-")  # the module name works too: feed_forward_and_norm
        if argv[0] not in found:
            import difflib

            close = difflib.get_close_matches(argv[0], found, n=1)
            hint = f"did you mean {close[0]!r}? " if close else ""
            parser.error(f"no chapter {argv[0]!r}; {hint}The chapters: {', '.join(found)}")
    args = parser.parse_args(argv)
    chapter = found[args.chapter_key]
    parameter = {option: name for option, (name, _, _) in OPTIONS.items()}
    given = {option: getattr(args, option) for option in OPTIONS if getattr(args, option) is not None}
    defaults = parameters(chapter)
    unknown = [option for option in given if parameter[option] not in defaults]
    if unknown:
        takes = [f"--{option}" for option in OPTIONS if parameter[option] in defaults]
        what = "trains no model" if "steps" in unknown else "has no such parameter"
        parser.error(
            f"the chapter {chapter.command!r} {what}, so {' and '.join('--' + o for o in unknown)} "
            f"does not apply; it takes {', '.join(takes) if takes else 'no options'}"
        )
    if args.save is not None and chapter.command not in KEEPERS:
        parser.error(
            f"the chapter {chapter.command!r} keeps no model, so --save does not apply; {', '.join(KEEPERS)} do"
        )
    folder = writable_folder(parser, args.save) if args.save is not None else None
    if args.no_progress:
        os.environ["TQDM_DISABLE"] = "1"  # tqdm reads its defaults from TQDM_* variables
    overrides = {parameter[option]: value for option, value in given.items()}
    namespace = {"__name__": "__main__", "__file__": str(script_path(chapter))}
    exec(chapter_code(chapter, overrides), namespace)
    if folder is not None:
        keep_trained(chapter.command, folder, namespace, {**defaults, **overrides})
    return 0


if __name__ == "__main__":
    sys.exit(main())
