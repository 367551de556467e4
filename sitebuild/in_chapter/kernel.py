"""What the build runs in a chapter's kernel before the chapter's first cell (that cell is not published).

- It checks that `tutorial_code` is imported from the checkout being built, and stops the
  build with a message that says what to do when another copy is found first.
- It draws figures the same way every time: white background, 120 dpi, no metadata that
  changes between runs.
- It registers the build's handlers of `tutorial_code.shared_runs`' marks: with `TUTORIAL_CACHE_DIR`
  set, a `@reusable` training is shared between chapters and a `@recorded` comparison read from
  `benchmarks/recorded-runs.json` (`sitebuild/in_chapter/training_cache.py`, `sitebuild/in_chapter/recorded_runs.py`).

The same preparation serves the tests that run a page's code or a chapter command as a plain program:
`python -m sitebuild.in_chapter.kernel ROOT FILE [ARGS]` prepares, then runs FILE as `__main__`;
`python -m sitebuild.in_chapter.kernel ROOT -m MODULE [ARGS]` runs a module, as `python -m` does.
"""

from __future__ import annotations

import os
import runpy
import sys
from pathlib import Path


class WrongCheckoutError(RuntimeError):
    """`tutorial_code` was imported from somewhere else than the checkout being built."""


def check_checkout(root: Path) -> None:
    """Raise [`WrongCheckoutError`][sitebuild.in_chapter.kernel.WrongCheckoutError] unless `tutorial_code`
    comes from `root`."""
    import tutorial_code

    found = Path(tutorial_code.__file__).resolve().parent
    expected = (Path(root) / "tutorial_code").resolve()
    if found != expected:
        raise WrongCheckoutError(
            f"the chapter imported tutorial_code from {found}, but the site being built is {expected.parent}. "
            f"Another copy of the package comes first on sys.path; uninstall it (pip uninstall transformer-tutorial) "
            f"or install this checkout (pip install -e {expected.parent})."
        )


def configure_figures() -> None:
    """PNG figures at 120 dpi on white, with no 'Software' metadata, so identical drawings give identical bytes."""
    try:
        from matplotlib_inline.backend_inline import set_matplotlib_formats
    except ImportError:  # not in a kernel
        return
    set_matplotlib_formats("png", dpi=120, facecolor="white", bbox_inches="tight", metadata={"Software": None})


def share_runs() -> None:
    """Register the handlers of `@reusable` and `@recorded`; each acts only while `TUTORIAL_CACHE_DIR` is set."""
    from sitebuild.in_chapter.recorded_runs import use_record
    from sitebuild.in_chapter.training_cache import CACHE_DIR_VARIABLE, cache_training
    from tutorial_code import shared_runs

    def while_caching(wrap):
        def handler(function):
            return wrap(function) if os.environ.get(CACHE_DIR_VARIABLE, "").strip() else function

        return handler

    shared_runs.HANDLERS.update(reusable=while_caching(cache_training), recorded=while_caching(use_record))


def prepare(root: str | Path) -> None:
    """Everything the build needs in a kernel or a test process before the chapter's code runs, for the checkout
    `root`: its `tutorial_code` first on the path, and its root where the build's modules look for it."""
    from sitebuild.checkout import CHECKOUT_VARIABLE

    root = Path(root).resolve()
    os.environ[CHECKOUT_VARIABLE] = str(root)
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    check_checkout(root)
    configure_figures()
    share_runs()


if __name__ == "__main__":
    prepare(sys.argv[1])
    if sys.argv[2] == "-m":
        module, sys.argv = sys.argv[3], sys.argv[3:]
        runpy.run_module(module, run_name="__main__", alter_sys=True)
    else:
        program, sys.argv = sys.argv[2], sys.argv[2:]
        runpy.run_path(program, run_name="__main__")
