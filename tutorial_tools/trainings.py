"""Trainings that the site's chapters share: the one place where the build reaches into the training code.

The chapters of one build train the same models again and again (seven train the sum-task model).
A training function marked [`reusable`][tutorial_tools.trainings.reusable] is the plain function
unless the environment variable `TUTORIAL_CACHE_DIR` names a folder: then a result saved there by
a training with the same arguments, the same code and the same library versions is loaded
instead of trained again (`sitebuild/training_cache.py` makes the key). The build sets the
variable for the chapters it runs; nothing else does.

A comparison over several seeds marked [`recorded`][tutorial_tools.trainings.recorded] goes one step
further: with the variable set, its numbers are read from the committed `benchmarks/recorded-runs.json`
when they were recorded with the same code (`sitebuild/recorded_runs.py`), so a cold build does not
train a dozen models for one table.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from typing import TypeVar

CACHE_DIR_VARIABLE = "TUTORIAL_CACHE_DIR"
T = TypeVar("T")


def reusable(train: Callable[..., T]) -> Callable[..., T]:
    """Mark `train` (whose result has a `model`) as a training whose saved result may be reused."""

    @functools.wraps(train)
    def load_or_train(*args: object, **kwargs: object) -> T:
        if not os.environ.get(CACHE_DIR_VARIABLE, "").strip():
            return train(*args, **kwargs)
        try:
            from sitebuild.training_cache import cache_training
        except ImportError as error:
            raise RuntimeError(
                f"{CACHE_DIR_VARIABLE} is set, but the site's build code (sitebuild/) is not importable: run from "
                f"the repository's root, or unset {CACHE_DIR_VARIABLE}"
            ) from error
        return cache_training(train)(*args, **kwargs)

    return load_or_train


def recorded(run: Callable[..., T]) -> Callable[..., T]:
    """Mark `run`, a comparison over several seeds that returns JSON values (numbers, lists, dicts), as one whose
    result the build reads from `benchmarks/recorded-runs.json` when it was recorded with the same code
    (`sitebuild/recorded_runs.py`). Without `TUTORIAL_CACHE_DIR`, the plain function."""

    @functools.wraps(run)
    def record_or_run(*args: object, **kwargs: object) -> T:
        if not os.environ.get(CACHE_DIR_VARIABLE, "").strip():
            return run(*args, **kwargs)
        from sitebuild.recorded_runs import use_record

        return use_record(run)(*args, **kwargs)

    return record_or_run
