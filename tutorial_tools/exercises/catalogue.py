"""Every exercise, gathered from the chapters' folders in reading order.

A chapter's exercises are in its folder: `docs/<chapter>/exercises.py` lists them (and the mistakes the tests
plant in each reference), `docs/<chapter>/graders.py` holds their checks.
"""

from __future__ import annotations

from tutorial_tools import contents
from tutorial_tools.exercises.exercise import Exercise, chapter_module

__all__ = ["EXERCISES", "PLANTED", "Exercise"]

_FOUND = [module for chapter in contents.CHAPTERS if (module := chapter_module(chapter.slug, "exercises"))]

EXERCISES: dict[str, Exercise] = {exercise.name: exercise for module in _FOUND for exercise in module.EXERCISES}
"""Every exercise by name, in the order of the chapters."""

PLANTED: list[tuple[str, str, str, str]] = [mistake for module in _FOUND for mistake in module.PLANTED]
"""Mistakes planted in the references: `(exercise, text of the reference, planted text, words of the hint)`."""
