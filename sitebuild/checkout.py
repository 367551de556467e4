"""The checkout a build builds: one value, and every path of the build hangs off its root.

The site's plugin makes it from the `mkdocs.yml` being built (`Checkout.of_config(config.config_file_path)`), on
every build and rebuild, as mkdocs-material's own plugins find their folders. So one environment, with the package
installed from any clone or from a wheel, builds the checkout it is pointed at: its chapters, its `.cache/`, its
records. A chapter's process learns the same root from its environment (`CHECKOUT_VARIABLE`, set by
`sitebuild.in_chapter.kernel.prepare`). No module of the build names a checkout of its own.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

CHECKOUT_VARIABLE = "TUTORIAL_CHECKOUT"  # the root of the checkout a chapter's process runs for
RECORDS_VARIABLE = "TUTORIAL_RECORDS_FILE"  # another file of recorded runs (the robustness script's scratch copy)


@dataclass(frozen=True)
class Checkout:
    """A checkout of this project, by its root: the folder of its `mkdocs.yml`."""

    root: Path

    @classmethod
    def of_config(cls, config_file_path: str | Path) -> Checkout:
        """The checkout whose `mkdocs.yml` is being built."""
        return cls(Path(config_file_path).resolve().parent)

    @classmethod
    def of_process(cls) -> Checkout:
        """The checkout a chapter's process runs for (`CHECKOUT_VARIABLE`).

        Raises:
            RuntimeError: If the process was not prepared for a checkout.
        """
        root = os.environ.get(CHECKOUT_VARIABLE, "").strip()
        if not root:
            raise RuntimeError(
                f"{CHECKOUT_VARIABLE} is not set: run the chapter through the build, or prepare the process with "
                "sitebuild.in_chapter.kernel.prepare(root)"
            )
        return cls(Path(root))

    @property
    def cache(self) -> Path:
        """What the build keeps between builds (ignored by git)."""
        return self.root / ".cache"

    @property
    def store(self) -> Path:
        """Executed chapter notebooks, by key."""
        return self.cache / "chapters"

    @property
    def published(self) -> Path:
        """The notebooks mkdocs-jupyter renders: it reads them from files on disk."""
        return self.cache / "notebook-pages"

    @property
    def seconds(self) -> Path:
        """How long each chapter last ran here."""
        return self.store / "seconds.json"

    @property
    def measured(self) -> Path:
        """How long each chapter ran on the machine of `scripts/measure_build.py` (committed)."""
        return self.root / "benchmarks" / "build-times.json"

    @property
    def records(self) -> Path:
        """The recorded runs (`sitebuild.in_chapter.recorded_runs`), or the file `RECORDS_VARIABLE` names."""
        other = os.environ.get(RECORDS_VARIABLE, "").strip()
        return Path(other) if other else self.root / "benchmarks" / "recorded-runs.json"

    @property
    def trainings(self) -> Path:
        """Trainings shared between chapters (`sitebuild.in_chapter.training_cache`)."""
        return self.cache / "trainings"


def code_root() -> Path:
    """The checkout whose `tutorial_code` this process imports (in a chapter's process, the one being built, as
    `sitebuild.in_chapter.kernel.check_checkout` makes sure): the code that fingerprints and records describe."""
    import tutorial_code

    return Path(tutorial_code.__file__).resolve().parent.parent
