"""Run every chapter again with other seeds, and report each checked sentence that no longer holds.

A sentence that holds on the seeds the build uses may only describe those seeds. This script takes each
chapter script, sets its `SEED = 0` to another seed (every other seed of a chapter is counted from it:
`SEED + 1`, ...), runs it as the build does, and evaluates every check of the page on what that run
computed, without stopping at the first that fails:

    python scripts/check_claims_robust.py               # every chapter, seeds from 100 on
    python scripts/check_claims_robust.py --seed 200 --chapters masks training

Trainings are kept in `.cache/robust-trainings/`, apart from the build's. A recorded run called with other
seeds is computed and written to a copy of `benchmarks/recorded-runs.json`, never to the file itself; no
check reads one (`tests/unit/test_checks_read_this_build.py`). The exit status is 1 when a sentence fails
or a chapter stops. A GitHub workflow runs it every week (`.github/workflows/robustness.yml`).
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sitebuild.in_chapter.execute import execute  # noqa: E402
from sitebuild.in_chapter.recorded_runs import RECORDS  # noqa: E402
from sitebuild.in_mkdocs.chapters import build_environment, read_notebook  # noqa: E402
from tutorial_tools import contents  # noqa: E402

SEED_LINE = re.compile(r"^SEED = 0\b", flags=re.MULTILINE)


def with_seed(notebook: nbformat.NotebookNode, seed: int) -> bool:
    """Set the chapter's `SEED = 0` to `seed`, in place; False when the chapter has no such line."""
    for cell in notebook.cells:
        if cell.cell_type == "code" and SEED_LINE.search(cell.source):
            cell.source = SEED_LINE.sub(f"SEED = {seed}", cell.source, count=1)
            return True
    return False


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=100, help="the chapters' SEED (default 100: seeds 100, 101, ...)")
    parser.add_argument("--chapters", nargs="*", help="chapter slugs (default: every chapter)")
    parser.add_argument("--workers", type=int, default=2, help="chapters run at once (default 2)")
    options = parser.parse_args(argv)
    if options.seed < 10:
        parser.error("--seed must be 10 or more, so that its seeds do not overlap the build's (0, 1, 2, ...)")
    slugs = options.chapters or [chapter.slug for chapter in contents.CHAPTERS]
    unknown = sorted(set(slugs) - {chapter.slug for chapter in contents.CHAPTERS})
    if unknown:
        parser.error(f"no such chapter: {', '.join(unknown)}")

    records = Path(tempfile.mkdtemp(prefix="robust-records-")) / "recorded-runs.json"
    shutil.copy(RECORDS, records)
    environment = build_environment(ROOT) | {
        "TUTORIAL_CACHE_DIR": str(ROOT / ".cache" / "robust-trainings"),
        "TUTORIAL_CHECKS": "report",  # every check is evaluated and recorded; none stops the run
        "TUTORIAL_RECORDS_FILE": str(records),
        "CI": "",  # a recorded run with other seeds is computed, also on CI
    }
    jobs, unseeded = [], []
    for slug in slugs:
        chapter = read_notebook(ROOT / contents.by_slug()[slug].script)
        if not with_seed(chapter.notebook, options.seed):
            unseeded.append(slug)
        jobs.append((slug, nbformat.writes(chapter.notebook), str(ROOT), environment))

    start, held, failed, stopped = time.perf_counter(), 0, [], []
    for name, notebook, error, seconds in execute(jobs, options.workers):
        if error is not None:
            stopped.append((name, error.splitlines()[0][:300]))
            print(f"{name}: stopped after {seconds:.0f} s: {error.splitlines()[0][:300]}", flush=True)
            continue
        results = nbformat.reads(notebook, as_version=4).metadata.get("claims", [])
        failing = [record for record in results if not record["holds"]]
        held += len(results) - len(failing)
        failed += [record["statement"] for record in failing]
        print(f"{name}: {len(results) - len(failing)} of {len(results)} checks hold ({seconds:.0f} s)", flush=True)
        for record in failing:
            print(f"  FAILS: {record['statement']}\n    on {str(record['values'])[:400]}", flush=True)
    print(
        f"\nseed {options.seed}: {held} checked sentences hold, {len(failed)} fail, {len(stopped)} chapters "
        f"stopped; {time.perf_counter() - start:.0f} s"
    )
    if unseeded:
        print(f"chapters with no SEED line (run unchanged): {', '.join(unseeded)}")
    return 1 if failed or stopped else 0


if __name__ == "__main__":
    sys.exit(main())
