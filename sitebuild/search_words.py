"""Search in Chinese: jieba cuts Chinese text into words, and learns the glossary's terms as words."""

from __future__ import annotations

from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
GLOSSARY = ROOT / "i18n" / "glossary.yml"


def jieba_dictionary() -> Path:
    """jieba's user dictionary made of the glossary's Chinese terms (written only when it changes)."""
    words = ROOT / ".cache" / "jieba-glossary.txt"
    words.parent.mkdir(parents=True, exist_ok=True)
    glossary = yaml.safe_load(GLOSSARY.read_text(encoding="utf-8"))
    text = "".join(f"{term.replace(' ', '')} 1000 n\n" for term in glossary.values())
    if not words.exists() or words.read_text(encoding="utf-8") != text:
        words.write_text(text, encoding="utf-8")
    return words
