"""The language the exercises and checks speak: English, or Chinese with `--lang zh` or a Chinese locale.

    transformer-tutorial check causal-mask --lang zh     or: LANG=zh_CN.UTF-8 transformer-tutorial check causal-mask

The graders write English. `say` puts a text in Chinese from the catalogues: i18n/cli.zh.yml for the tools'
texts, and each chapter's `docs/<chapter>/cli.zh.yml` for its exercises' and graders' own. Their keys are those English
texts with each value of an f-string as a numbered place (`{0}: shape {1}, expected {2}`): the English around
the places is found in what a check said, and the values are carried into the Chinese. A text the catalogue
does not hold stays English (scripts/cli_strings.py lists them; a test keeps the catalogue complete).
"""

from __future__ import annotations

import argparse
import functools
import importlib.resources
import os
import re
from pathlib import Path

from tutorial_tools import contents

LANGUAGES = ("en", "zh")
LOCALE_VARIABLES = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")  # gettext's order
LABELS = {"PASS": "通过", "FAIL": "未通过", "hint: ": "提示："}  # the report's words, which hold one word each
PLACE = re.compile(r"\{(\d+)\}")
FILLED = re.compile(r"\{\{|\}\}|\{(\d+)\}")  # a doubled brace is a brace; {0} takes the value of place 0


def chosen(given: str | None = None) -> str:
    """`given` (from --lang), else the first locale variable set: Chinese for zh_CN, zh_TW, zh, else English."""
    if given:
        return given
    for name in LOCALE_VARIABLES:
        value = os.environ.get(name, "")
        if value:
            return "zh" if value.lower().startswith("zh") else "en"
    return "en"


CHAPTER_CATALOGUE = "cli.zh.yml"  # in a chapter's folder: the Chinese of its exercises and graders


def catalogue_path() -> Path:
    """i18n/cli.zh.yml in a checkout; where the package is installed without one, its copy `tutorial_i18n`."""
    checkout = Path(__file__).resolve().parent.parent / "i18n" / "cli.zh.yml"
    if checkout.is_file():
        return checkout
    return Path(str(importlib.resources.files("tutorial_i18n"))) / "cli.zh.yml"


def catalogue_paths() -> list[Path]:
    """The tools' catalogue, then each chapter folder's, in reading order."""
    chapters = [contents.FOLDER / chapter.slug / CHAPTER_CATALOGUE for chapter in contents.CHAPTERS]
    return [catalogue_path(), *(path for path in chapters if path.is_file())]


def _pattern(english: str) -> re.Pattern:
    parts = PLACE.split(english)  # literal, number, literal, number, ..., literal
    regex = []
    for index, part in enumerate(parts):
        if index % 2:
            regex.append(f"(?P<p{part}>.*?)")  # a value may be empty
        else:
            regex.append(re.escape(part.replace("{{", "{").replace("}}", "}")))
    return re.compile("".join(regex), re.S)


@functools.cache
def catalogue() -> tuple[dict[str, str], list[tuple[re.Pattern, str]]]:
    """The texts without places, by their English; and the texts with places as patterns, the longest English
    first, so that a pattern never matches where a more precise one would."""
    entries = dict(yaml_entries())
    for english in [key for key in entries if key.startswith("FAIL  ")]:  # the report's label is said apart
        entries[english[len("FAIL  ") :]] = entries.pop(english).removeprefix(LABELS["FAIL"]).lstrip()
    entries = {english: chinese for english, chinese in entries.items() if PLACE.sub("", english).strip()}
    exact = {_plain(english): chinese for english, chinese in entries.items() if chinese and not PLACE.search(english)}
    patterns = [
        (_pattern(english), chinese)
        for english, chinese in sorted(entries.items(), key=lambda item: -len(PLACE.sub("", item[0])))
        if chinese and PLACE.search(english)
    ]
    return exact, patterns


@functools.cache
def tails() -> list[tuple[re.Pattern, str]]:
    """The texts a grader adds to the end of another (`", with a causal mask"`, `"; if there is none, ..."`),
    as patterns whose `head` is the text they were added to."""
    entries = yaml_entries()
    return [
        (re.compile(r"(?P<head>.+?)" + _pattern(english).pattern, re.S), chinese)
        for english, chinese in entries.items()
        if chinese and english[:1] in (" ", ",", ";")
    ]


@functools.cache
def yaml_entries() -> dict[str, str]:
    """Every catalogue, read once: `{English: Chinese}` (do not change it)."""
    import yaml

    entries: dict[str, str] = {}
    for path in catalogue_paths():
        entries.update(yaml.safe_load(path.read_text(encoding="utf-8")) or {})
    return entries


def _plain(text: str) -> str:
    return text.replace("{{", "{").replace("}}", "}")


def _translated(text: str) -> str | None:
    exact, patterns = catalogue()
    if text in exact:
        return _filled(exact[text], {})
    matches = [(found, chinese) for pattern, chinese in patterns if (found := pattern.fullmatch(text))]
    # A text that ends in a place ("the weights for {0}") also matches a message about that text ("the weights
    # for x: shape (2,), expected (3,)"): the match whose values hold no ": " is the message's own
    whole = [(found, chinese) for found, chinese in matches if not any(": " in v for v in found.groupdict().values())]
    for found, chinese in whole[:1] or matches[:1]:
        values = {name[1:]: _translated(value) or value for name, value in found.groupdict().items()}
        return _filled(chinese, values)
    for pattern, chinese in tails():
        found = pattern.fullmatch(text)
        head = _translated(found["head"]) if found else None
        if head is not None:
            values = {name[1:]: value for name, value in found.groupdict().items() if name != "head"}
            return head + _filled(chinese, values).lstrip(" ")
    return None


def _filled(chinese: str, values: dict[str, str]) -> str:
    return FILLED.sub(lambda m: values[m.group(1)] if m.group(1) else m.group(0)[0], chinese)


def say(text: str, language: str) -> str:
    """`text` in `language`: as it is in English; in Chinese from the catalogue, line by line where the whole
    text is not in it, each line English where the catalogue lacks it."""
    if language != "zh" or not text:
        return text
    whole = _translated(text)
    if whole is not None:
        return whole
    return "\n".join(_translated(line) or line for line in text.split("\n"))


REPORT_LINE = re.compile(r"(?P<lead>(?:PASS|FAIL)  |      (?:hint: |      )?)?(?P<text>.*)", re.S)


def say_report(text: str, language: str) -> str:
    """A check's report (`PASS  name`, `FAIL  name`, the message and `hint: ` lines indented below) in
    `language`: the labels and each line's text."""
    if language != "zh":
        return text
    lines = []
    for line in text.split("\n"):
        found = REPORT_LINE.fullmatch(line)
        lead, rest = found["lead"] or "", found["text"]
        for english, chinese in LABELS.items():
            lead = lead.replace(english, chinese)
        lines.append(lead + say(rest, language))
    return "\n".join(lines)


ARGPARSE = (  # argparse's own messages, which carry ours: in the catalogue like every other text
    "argument {0}: {1}",
    "the following arguments are required: {0}",
    "unrecognized arguments: {0}",
    "argument {0}: invalid choice: {1} (choose from {2})",
    "{0}: error: {1}",
)


def given_in(argv: list[str]) -> str | None:
    """The value of `--lang` in `argv` (`--lang zh` or `--lang=zh`), before argparse reads it; None without one."""
    for index, word in enumerate(argv):
        if word == "--lang" and index + 1 < len(argv):
            return argv[index + 1]
        if word.startswith("--lang="):
            return word.split("=", 1)[1]
    return None


class SpeakingParser(argparse.ArgumentParser):
    """An argument parser whose error lines are in `language` (its usage and help stay English)."""

    language = "en"

    def error(self, message: str):  # type: ignore[override]
        super().error(say(message, self.language))
