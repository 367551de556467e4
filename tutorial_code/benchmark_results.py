"""The benchmark results the chapters show: measured by
`python benchmarks/bench.py` on some machine, on some day, and shipped with the
package (`tutorial_code/results-cpu.json`), so that an installed copy reads
them too. No check of a page reads them: this build did not measure them.
"""

from __future__ import annotations

import json
from importlib.resources import files

RESULTS_FILE = "results-cpu.json"


def benchmark_results() -> dict:
    """The results file of `benchmarks/bench.py`, a file of this package.

    Examples:
        >>> benchmark_results()["machine"]["cores"] >= 1  # where it ran
        True
    """
    text = files("tutorial_code").joinpath(RESULTS_FILE).read_text("utf-8")
    return json.loads(text)
