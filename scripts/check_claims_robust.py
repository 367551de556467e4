"""Run every chapter again with other sets of seeds, and report each checked sentence that no longer holds.

A sentence that holds on the seeds the build uses may only describe those seeds. This script takes each
chapter script, sets its `SEED = 0` to another seed (every other seed of a chapter is counted from it:
`SEED + 1`, ...), runs it as the build does, and evaluates every check of the page on what that run
computed, without stopping at the first that fails:

    python scripts/check_claims_robust.py                    # every chapter, seed sets 100 and 200
    python scripts/check_claims_robust.py --seeds 300 --chapters masks training

A recorded run (`benchmarks/recorded-runs.json`) called with other seeds is computed again, and written to a
scratch copy of the file, never to the file itself: so the checks of the sentences about a recorded run
(`checks.recorded`) are evaluated on that run at the other seeds too. Trainings are kept in
`.cache/robust-trainings/`, apart from the build's. It prints each failing sentence with the values it read, and a
summary of the sentences that failed on any set. The exit status is 1 when a sentence fails or a chapter stops. A
GitHub workflow runs it every week (`.github/workflows/robustness.yml`).
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sitebuild.checkout import Checkout  # noqa: E402
from sitebuild.in_chapter.execute import execute  # noqa: E402
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


def run_seed_set(
    slugs: list[str], seed: int, workers: int, every: dict[str, dict] | None = None
) -> tuple[dict[str, list], list[tuple[str, str]]]:
    """Every chapter of `slugs` with `SEED = seed`; the failing sentences (statement: the values each read) and the
    chapters that stopped. `every`, when given, receives every check's record, failing or not, by statement."""
    records = Path(tempfile.mkdtemp(prefix="robust-records-")) / "recorded-runs.json"
    shutil.copy(Checkout(ROOT).records, records)
    environment = build_environment(ROOT) | {
        "TUTORIAL_CACHE_DIR": str(ROOT / ".cache" / "robust-trainings"),
        "TUTORIAL_CHECKS": "report",  # every check is evaluated and recorded; none stops the run
        "TUTORIAL_RECORDS_FILE": str(records),
        "CI": "",  # a recorded run with other seeds is computed, also on CI
    }
    jobs, unseeded = [], []
    for slug in slugs:
        chapter = read_notebook(ROOT / contents.by_slug()[slug].script)
        if not with_seed(chapter.notebook, seed):
            unseeded.append(slug)
        jobs.append((slug, nbformat.writes(chapter.notebook), str(ROOT), environment))

    start, held, failed, stopped = time.perf_counter(), 0, {}, []
    for name, notebook, error, seconds in execute(jobs, workers):
        if error is not None:
            stopped.append((name, error.splitlines()[0][:300]))
            print(f"{name}: stopped after {seconds:.0f} s: {error.splitlines()[0][:300]}", flush=True)
            continue
        results = nbformat.reads(notebook, as_version=4).metadata.get("claims", [])
        failing = [record for record in results if not record["holds"]]
        if every is not None:
            every.update({record["statement"]: record for record in results})
        held += len(results) - len(failing)
        recorded = sum(1 for record in results if record.get("recorded"))
        print(
            f"{name}: {len(results) - len(failing)} of {len(results)} checks hold, {recorded} of them on recorded "
            f"runs ({seconds:.0f} s)",
            flush=True,
        )
        for record in failing:
            failed[record["statement"]] = record["values"]
            print(f"  FAILS: {record['statement']}\n    on {str(record['values'])[:400]}", flush=True)
    print(
        f"seed {seed}: {held} checked sentences hold, {len(failed)} fail, {len(stopped)} chapters stopped; "
        f"{time.perf_counter() - start:.0f} s\n",
        flush=True,
    )
    if unseeded:
        print(f"chapters with no SEED line (run unchanged): {', '.join(unseeded)}")
    return failed, stopped


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--seeds",
        type=int,
        nargs="+",
        default=[100, 200],
        help="the chapters' SEED, one run of every chapter for each (default: 100 200, that is seeds 100, 101, ... "
        "and 200, 201, ...)",
    )
    parser.add_argument("--chapters", nargs="*", help="chapter slugs (default: every chapter)")
    parser.add_argument("--workers", type=int, default=2, help="chapters run at once (default 2)")
    parser.add_argument(
        "--report", type=Path, help="a JSON file to write every check's values to, by seed set (to rewrite a sentence)"
    )
    options = parser.parse_args(argv)
    if any(seed < 10 for seed in options.seeds):
        parser.error("every --seeds value must be 10 or more, so that its seeds miss the build's (0, 1, 2, ...)")
    slugs = options.chapters or [chapter.slug for chapter in contents.CHAPTERS]
    unknown = sorted(set(slugs) - {chapter.slug for chapter in contents.CHAPTERS})
    if unknown:
        parser.error(f"no such chapter: {', '.join(unknown)}")

    start, failing, stopped_any, report = time.perf_counter(), {}, False, {}
    for seed in options.seeds:
        report[seed] = {}
        failed, stopped = run_seed_set(slugs, seed, options.workers, report[seed])
        if options.report:
            options.report.write_text(json.dumps(report, indent=1), encoding="utf-8")
        stopped_any = stopped_any or bool(stopped)
        for statement in failed:
            failing.setdefault(statement, []).append(seed)
    print(f"seed sets {', '.join(map(str, options.seeds))}: {time.perf_counter() - start:.0f} s in all")
    if failing:
        print(f"{len(failing)} sentences fail on at least one set:")
        for statement, seeds in failing.items():
            print(f"  {statement} (seeds {', '.join(map(str, seeds))})")
    else:
        print("every checked sentence holds on every set")
    return 1 if failing or stopped_any else 0


if __name__ == "__main__":
    sys.exit(main())
