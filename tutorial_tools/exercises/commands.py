"""`transformer-tutorial exercise` and `transformer-tutorial check`: write a starter file, grade it."""

from __future__ import annotations

import argparse
import difflib
import math
from pathlib import Path

from tutorial_tools.exercises.catalogue import EXERCISES, Exercise
from tutorial_tools.exercises.grading import DEFAULT_TIME_LIMIT, grade_in_subprocess
from tutorial_tools.exercises.starter import starter_code
from tutorial_tools.language import LANGUAGES, SpeakingParser, chosen, given_in, say, say_report

LANGUAGE_HELP = "the language of the messages: en or zh (default: from LANG, else en)"


def _exercise(parser: argparse.ArgumentParser, name: str) -> Exercise:
    if name not in EXERCISES:
        close = difflib.get_close_matches(name, EXERCISES, n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        parser.error(f"no exercise {name!r}; {hint}`transformer-tutorial exercise --list` shows them all")
    return EXERCISES[name]


MAX_TIME_LIMIT = 24 * 3600  # a day: more is a typo, and the operating system's timers stop far below 1e300 s


def positive_seconds(text: str) -> float:
    """The `--time-limit` argument: a positive number of seconds, at most a day; anything else is refused by
    argparse."""
    try:
        seconds = float(text)
    except ValueError:
        seconds = math.nan
    if not (seconds > 0 and math.isfinite(seconds)):
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a time limit: give a positive number of seconds, e.g. --time-limit 120"
        )
    if seconds > MAX_TIME_LIMIT:
        raise argparse.ArgumentTypeError(f"must be at most {MAX_TIME_LIMIT:,} seconds (a day), got {text}")
    return seconds


def _learner_file(parser: argparse.ArgumentParser, exercise: Exercise, given: str | None) -> Path:
    """The file to grade: FILE, or the starter's name here; refused with a message when it is not a .py file."""
    path = Path(given) if given else Path.cwd() / exercise.file_name
    try:
        path.stat()
    except FileNotFoundError:
        pass
    except OSError as error:  # a name too long, a folder that may not be read
        parser.error(f"cannot read {given or path}: {error.strerror}")
    if path.is_dir():
        parser.error(f"{path} is a folder: give your .py file, e.g. {path / exercise.file_name}")
    if not path.is_file():
        parser.error(f"no file {path}; write the starter first: transformer-tutorial exercise {exercise.name}")
    if path.suffix != ".py":
        parser.error(
            f"{path.name} is not a Python file: give the .py file you wrote the exercise in, e.g. {exercise.file_name}"
        )
    return path


def exercise_main(argv: list[str]) -> int:
    """`transformer-tutorial exercise NAME [--force]` and `transformer-tutorial exercise --list`."""
    SpeakingParser.language = chosen(given_in(argv))  # argparse's own errors too
    parser = SpeakingParser(
        prog="transformer-tutorial exercise",
        description="Write the starter file of an exercise into the current directory, or list the exercises.",
        epilog="Then grade it with: transformer-tutorial check NAME",
    )
    parser.add_argument("name", nargs="?", metavar="NAME", help="the exercise, e.g. causal-mask")
    parser.add_argument("--list", action="store_true", help="every exercise, and whether your file here passes")
    parser.add_argument("--force", action="store_true", help="overwrite your file with a fresh starter")
    parser.add_argument("--lang", choices=LANGUAGES, help=LANGUAGE_HELP)
    args = parser.parse_args(argv)
    language = chosen(args.lang)
    if args.list:
        return list_exercises(Path.cwd(), language)
    if args.name is None:
        parser.error("name an exercise, or use --list to see them")
    exercise = _exercise(parser, args.name)
    path = Path.cwd() / exercise.file_name
    if path.is_dir():
        parser.error(f"{path} is a folder: rename or move it, then write the starter again")
    if path.exists() and not args.force:
        parser.error(f"{exercise.file_name} already exists here; add --force to replace it with a fresh starter")
    try:
        path.write_text(starter_code(exercise, language), encoding="utf-8")
    except OSError as error:  # a read-only folder, a full disk
        parser.error(f"cannot write {path}: {error.strerror}; run the command in a folder you can write to")
    title = say(exercise.title, language)
    if exercise.bug:
        wrote = f"Wrote {exercise.file_name}: {title}. Open it, find and fix the mistake, then run:"
    else:
        wrote = f"Wrote {exercise.file_name}: {title}. Open it, write the code where the raise stands, then run:"
    print(say(wrote, language))
    print(f"    transformer-tutorial check {exercise.name}")
    return 0


def list_exercises(directory: Path, language: str = "en") -> int:
    """Print every exercise with its chapter, and the state of the learner's file in `directory`."""
    width = max(len(name) for name in EXERCISES)
    for name, exercise in EXERCISES.items():
        path = directory / exercise.file_name
        if not path.exists():
            state = "not started yet"
        else:
            status, _ = grade_in_subprocess(name, path)
            state = "every check passes" if status == 0 else "does not pass yet"
        print(f"{name:<{width}}  {exercise.chapter:<28}  {exercise.kind:<12}  {say(state, language)}")
    return 0


def check_main(argv: list[str]) -> int:
    """`transformer-tutorial check NAME [FILE]`: grade the learner's file, exit 0 when every check passes."""
    SpeakingParser.language = chosen(given_in(argv))
    parser = SpeakingParser(
        prog="transformer-tutorial check",
        description="Grade your solution of an exercise, in a separate process with a time limit.",
    )
    parser.add_argument("name", metavar="NAME", help="the exercise, e.g. causal-mask")
    parser.add_argument("file", nargs="?", metavar="FILE", help="your file (default: the starter's name, here)")
    parser.add_argument(
        "--time-limit",
        type=positive_seconds,
        default=DEFAULT_TIME_LIMIT,
        metavar="SECONDS",
        help=f"how long your code may run, a positive number of seconds (default {DEFAULT_TIME_LIMIT:g})",
    )
    parser.add_argument("--lang", choices=LANGUAGES, help=LANGUAGE_HELP)
    args = parser.parse_args(argv)
    exercise = _exercise(parser, args.name)
    path = _learner_file(parser, exercise, args.file)
    status, text = grade_in_subprocess(exercise.name, path, args.time_limit)
    print(say_report(text, chosen(args.lang)))
    return status
