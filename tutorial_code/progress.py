"""Progress bars for training loops: shown by the command line, hidden on the site and in notebooks."""

import sys
from collections.abc import Iterable, Iterator
from typing import TypeVar

T = TypeVar("T")
_enabled = False


def show_progress(enabled: bool = True) -> None:
    """Turn progress bars on (the `transformer-tutorial` command does) or off (the default).

    Args:
        enabled: Show a bar on standard error for every training run from now on. Defaults to True.
    """
    global _enabled
    _enabled = enabled


def progress(steps: Iterable[T], total: int, description: str) -> Iterator[T]:
    """Iterate over `steps`, drawing a bar on standard error when progress bars are on.

    Standard output stays exactly what the chapter prints, so it can be compared or piped.

    Args:
        steps: What the loop iterates over.
        total: How many items `steps` yields.
        description: Shown left of the bar.

    Returns:
        An iterator over the same items.

    Examples:
        >>> list(progress(range(3), total=3, description="training"))
        [0, 1, 2]
    """
    if not _enabled:
        return iter(steps)
    from tqdm import tqdm

    return iter(tqdm(steps, total=total, desc=description, unit="step", file=sys.stderr))
