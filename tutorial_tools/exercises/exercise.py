"""One graded exercise, as a chapter's `exercises.py` describes it, and the loading of a chapter's files."""

from __future__ import annotations

import functools
import importlib.util
import sys
from dataclasses import dataclass
from types import ModuleType

from tutorial_tools import contents

KINDS = ("sizes", "arguments", "modes", "gradients", "device", "in place")
"""The kinds of mistake a grader is held to (`Exercise.applies`)."""


@dataclass(frozen=True)
class Exercise:
    """One graded exercise.

    Attributes:
        name: The command's name, `transformer-tutorial exercise NAME`.
        chapter: The chapter it ends; its folder `docs/<chapter>/` holds the entry and the grader.
        title: What to do, in a few words.
        task: The task in one or two sentences, for the starter's header.
        module: The `tutorial_code` module that holds the reference.
        sections: The named sections of `module` that make the starter and the page's solution.
        grader: The name of its checks in the chapter's `graders.py`, imported only to grade
            (so that writing a starter does not import torch).
        write: The functions or methods ("Class.method") whose bodies the learner writes.
        bug: For a find-the-bug exercise, `(correct text, planted text)`.
        imports: The starter's imports, when the module's `imports` section holds more than it needs.
        applies: For the exercise a grader was written for, the kinds of mistake (`KINDS`) that grader must catch:
            its chapter's `grader_cases.py` holds, for each, a wrong solution that fails and a correct variant that
            passes (tests/unit/test_grader_mistakes.py). A kind is left out where it cannot happen: `arguments`
            where the function has no optional argument or setting to read; `modes` where no dropout runs in the
            code written or a layer it calls; `gradients` where nothing trains through it; `device` for a table or
            number made from Python numbers; `in place` where no tensor comes in.
    """

    name: str
    chapter: str
    title: str
    task: str
    module: str
    sections: tuple[str, ...]
    grader: str
    write: tuple[str, ...] = ()
    bug: tuple[str, str] | None = None
    imports: str | None = None
    applies: tuple[str, ...] = ()

    @property
    def file_name(self) -> str:
        """The learner's file, in the current directory."""
        return self.name.replace("-", "_") + ".py"

    @property
    def checks(self) -> list:
        """The `(name, check)` pairs that grade it."""
        return getattr(chapter_module(self.chapter, "graders"), self.grader)

    @property
    def kind(self) -> str:
        return "find the bug" if self.bug else "implement"


@functools.cache
def chapter_module(chapter: str, name: str) -> ModuleType | None:
    """The module `name` of a chapter's folder (`exercises`, `graders`), or None when the folder has none.

    Loaded from its file, in a checkout or where the package is installed (`tutorial_chapters`)."""
    path = contents.by_slug()[chapter].file(f"{name}.py")
    if not path.is_file():
        return None
    qualified = f"tutorial_chapters.{chapter}.{name}"
    spec = importlib.util.spec_from_file_location(qualified, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[qualified] = module  # before it runs: dataclasses and pickling look a module up by name
    spec.loader.exec_module(module)
    return module
