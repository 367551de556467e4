"""The build's chapter runner against nbclient, on the whole build: `python scripts/compare_runners.py [CHAPTER ...]`.

Both ways execute every chapter of the site (or the ones named) two at a time, as the build does, with the build's
environment (one CPU thread, the shared trainings of `.cache/trainings`, so no chapter trains here):

- `runner`: the build's own (`sitebuild.in_chapter.execute`): a forkserver that has imported torch once, a fresh
  forked process per chapter;
- `nbclient`: one Jupyter kernel per worker, started once, that runs its chapters one after another. It does all of
  the runner's work, so that the seconds compare like with like: before a chapter a cell empties the namespace
  (`%reset -f`) and undoes what an earlier chapter may have changed in the process (`fresh_state`); after each cell,
  one draws the figures as PNG and SVG and runs the chapter's checks; a last one hands back what the checks read.

It prints each way's seconds, their ratio to the yardstick (`benchmarks/yardstick.py`, run before and after in the
same session, when it is there), and the code cells whose outputs differ from the runner's (a live timing differs
by nature). The build keeps its runner only if nbclient is slower or its outputs differ.
"""

from __future__ import annotations

import copy
import json
import os
import queue
import re
import subprocess
import sys
import threading
import time
import warnings
from collections.abc import Iterable, Iterator
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sitebuild.checkout import Checkout  # noqa: E402
from sitebuild.in_chapter.execute import as_data, figure_outputs  # noqa: E402
from sitebuild.in_mkdocs import chapters  # noqa: E402
from tutorial_tools import contents  # noqa: E402

YARDSTICK = ROOT / "benchmarks" / "yardstick.py"
ADDED = "compare_runners"  # the metadata key of the cells this script adds around a chapter's own
RESULT = "text/x-compare-runners"  # the kind of output of `finish`: JSON as text, where NaN stays a number


# ---------------------------------------------------------------- in the kernel

WARNING_FILTERS = list(warnings.filters)  # as the kernel had them when this module was first imported there
CHAPTER: dict = {}  # the chapter running in this kernel: its checks, and what they read


def fresh_state() -> None:
    """Undo what an earlier chapter in this kernel may have changed outside its namespace: the trainings
    `tutorial_code` keeps per process, open figures and matplotlib's settings, PyTorch's print options, and the
    warning filters. (A new process's random generators start from a random seed too: chapters seed theirs.)"""
    import matplotlib
    import matplotlib.pyplot as plt
    import torch

    for name, module in list(sys.modules.items()):
        if name == "tutorial_code" or name.startswith("tutorial_code."):
            for value in vars(module).values():
                if callable(getattr(value, "cache_clear", None)) and getattr(value, "__module__", "") == name:
                    value.cache_clear()
    plt.close("all")
    matplotlib.rc_file_defaults()
    torch.set_printoptions(profile="default")
    warnings.filters[:] = WARNING_FILTERS


def start(name: str, root: str, environment: dict[str, str], sections: list[str]) -> None:
    """Before the chapter's first cell: its environment, a fresh state, the kernel's preparation, its checks."""
    os.environ.update(environment)
    os.chdir(root)
    if root not in sys.path:
        sys.path.insert(0, root)
    import matplotlib
    import torch

    matplotlib.use(environment.get("MPLBACKEND", "Agg"))
    torch.set_num_threads(int(environment.get("OMP_NUM_THREADS", "1")))
    with warnings.catch_warnings():  # in a kernel, tqdm.auto looks for notebook widgets and warns that none is there
        warnings.simplefilter("ignore")
        import tqdm.auto  # noqa: F401 - imported once, quietly, before a library imports it in a chapter
    fresh_state()
    from sitebuild.in_chapter import claims, recorded_runs
    from sitebuild.in_chapter.kernel import prepare

    prepare(root)
    recorded_runs.CALLED.clear()
    # The chapter's checks run after the sections they follow; what each read is kept for the tests.
    chapter_claims = claims.claims_of(name, ROOT)
    unknown = [claim.section for claim in chapter_claims if claim.section not in sections]
    if unknown:
        raise claims.CheckInputError(f"docs/{name}/checks.py follows sections the chapter lacks: {unknown}")
    CHAPTER.clear()
    CHAPTER.update(name=name, claims=chapter_claims, records=[], data={}, recorded={}, seen=set(), svg={})


def after_cell(section: str | None, values: dict) -> None:
    """After a chapter cell: show its figures, keep the SVG of its section's first, run the checks that follow it."""
    import torch
    from IPython.display import display

    from sitebuild.in_chapter import claims, recorded_runs

    figures, svgs = figure_outputs()
    for output in figures:
        display(output["data"], raw=True)
    if section is None:
        return
    name = CHAPTER["name"]
    if svgs:
        CHAPTER["svg"][section] = svgs[0]
    new = sorted(recorded_runs.CALLED - CHAPTER["seen"])
    CHAPTER["seen"].update(new)
    if new:
        entries = recorded_runs.read_records(Checkout(ROOT).records)
        CHAPTER["recorded"][section] = [{"call": call, "machine": entries[call].get("machine")} for call in new]
    strict = os.environ.get("TUTORIAL_CHECKS") != "report"  # the robustness script reports, never stops
    CHAPTER["records"].extend(claims.run_after(section, CHAPTER["claims"], values, strict=strict))
    kept = dict(contents.by_slug()[name].data)
    if section in kept:  # a value each edition renders in its own words
        CHAPTER["data"][section] = {"torch": torch.__version__, "value": as_data(values[kept[section]])}


def finish() -> None:
    """After the chapter's last cell: hand back what the checks read and the recorded runs the chapter read."""
    from IPython.display import display

    from sitebuild.in_chapter import recorded_runs

    result = {
        "claims": CHAPTER["records"],
        "data": CHAPTER["data"],
        "recorded_runs": sorted(recorded_runs.CALLED),  # the entries this chapter read
        "recorded_sections": CHAPTER["recorded"],
        "svg": CHAPTER["svg"],
    }
    display({RESULT: json.dumps(result)}, raw=True)


# ---------------------------------------------------------------- in the build


def added(source: str) -> nbformat.NotebookNode:
    cell = nbformat.v4.new_code_cell(source)
    cell.metadata[ADDED] = True
    return cell


def with_build_cells(notebook: nbformat.NotebookNode, name: str, root: str, environment: dict[str, str]):
    """The notebook as the kernel runs it: the chapter's cells with the build's around them."""
    runnable = copy.deepcopy(notebook)
    sections = [cell.metadata.get("section") for cell in runnable.cells if cell.cell_type == "code"]
    first = (
        "%reset -f\n%colors nocolor\nimport sys\n"
        f"sys.path[:0] = [{root!r}, {str(Path(__file__).resolve().parent)!r}]\n"
        "import compare_runners as _build\n"
        f"_build.start({name!r}, {root!r}, {environment!r}, {[s for s in sections if s]!r})"
    )
    cells = [added(first)]
    for cell in runnable.cells:
        cells.append(cell)
        if cell.cell_type == "code":
            cells.append(added(f"_build.after_cell({cell.metadata.get('section')!r}, globals())"))
    cells.append(added("_build.finish()"))
    runnable.cells = cells
    return runnable


ANSI = re.compile(r"\x1b\[[0-9;]*m")


def failure(ran: nbformat.NotebookNode) -> str:
    """The error of the first cell that raised, as the build reports it."""
    count = 0
    for cell in ran.cells:
        if cell.cell_type != "code":
            continue
        count += 0 if cell.metadata.get(ADDED) else 1
        for output in cell.get("outputs", []):
            if output.get("output_type") != "error":
                continue
            if cell.metadata.get(ADDED):  # the build's own cells: the chapter's checks, its preparation
                return f"{output['ename']}: {output['evalue']}"
            printed = "".join(o.get("text", "") for o in cell.outputs if o.get("output_type") == "stream")
            trace = ANSI.sub("", "\n".join(output.get("traceback", [])))
            return f"CellError: cell {count}:\n{cell.source}\n\n{printed}{trace}"
    return "the kernel stopped before the chapter ended"


def outputs_of(cell: nbformat.NotebookNode, after: nbformat.NotebookNode) -> list:
    """A chapter cell's outputs as one stdout stream, one stderr stream, then its figures (shown by the cell
    the build added after it)."""
    outputs = []
    for stream in ("stdout", "stderr"):
        text = "".join(o["text"] for o in cell.outputs if o.get("output_type") == "stream" and o["name"] == stream)
        if text:
            outputs.append(nbformat.v4.new_output("stream", name=stream, text=text))
    return outputs + [nbformat.v4.new_output("display_data", data=o["data"]) for o in after.outputs]


def run_in_kernel(manager, job: tuple[str, str, str, dict[str, str]]) -> tuple[str, str, str | None, float]:
    """Run one chapter in a started kernel; return `(name, notebook, error, seconds)`."""
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    name, notebook_json, root, environment = job
    start_time = time.perf_counter()
    notebook = nbformat.reads(notebook_json, as_version=4)
    ran = with_build_cells(notebook, name, root, environment)
    try:
        NotebookClient(ran, km=manager, record_timing=False).execute()
    except CellExecutionError:
        return name, "", failure(ran), time.perf_counter() - start_time
    except Exception as error:  # noqa: BLE001 - sent back to the build, which names the chapter
        return name, "", f"{type(error).__name__}: {error}", time.perf_counter() - start_time
    chapter_cells = iter(ran.cells[1:-1])
    count = 0
    for cell in notebook.cells:
        ran_cell = next(chapter_cells)
        if cell.cell_type != "code":
            continue
        count += 1
        cell.outputs, cell.execution_count = outputs_of(ran_cell, next(chapter_cells)), count
    (result,) = (json.loads(o["data"][RESULT]) for o in ran.cells[-1].outputs if RESULT in o.get("data", {}))
    notebook.metadata["claims"] = result["claims"]
    notebook.metadata["data"] = result["data"]
    notebook.metadata["recorded_runs"] = result["recorded_runs"]
    notebook.metadata["recorded_sections"] = result["recorded_sections"]
    if result["svg"]:
        notebook.metadata["svg"] = result["svg"]
    return name, nbformat.writes(notebook), None, time.perf_counter() - start_time


def execute(
    jobs: Iterable[tuple[str, str, str, dict[str, str]]], workers: int = 2
) -> Iterator[tuple[str, str, str | None, float]]:
    """Run each `(name, notebook_json, root, environment)` job, `workers` kernels at a time, and yield
    `(name, notebook_json, error, seconds)` as each chapter finishes. The kernels start with `environment` (one
    CPU thread, `MPLBACKEND=Agg`, ...) in theirs; this process's stays as it was."""
    from jupyter_client.manager import KernelManager

    jobs = list(jobs)
    if not jobs:
        return
    waiting: queue.Queue = queue.Queue()
    for job in jobs:
        waiting.put(job)
    done: queue.Queue = queue.Queue()

    def worker() -> None:
        manager = KernelManager(kernel_name="python3")
        try:
            # the kernel's own log (not the chapters' outputs) would only say that it talks over local TCP
            manager.start_kernel(env=os.environ | jobs[0][3], cwd=jobs[0][2], stderr=subprocess.DEVNULL)
            while True:
                try:
                    job = waiting.get_nowait()
                except queue.Empty:
                    return
                done.put(run_in_kernel(manager, job))
        except Exception as error:  # noqa: BLE001 - the kernel did not start: every chapter left fails with it
            while True:
                try:
                    job = waiting.get_nowait()
                except queue.Empty:
                    return
                done.put((job[0], "", f"{type(error).__name__}: {error}", 0.0))
        finally:
            if manager.has_kernel:
                manager.shutdown_kernel(now=True)

    threads = [threading.Thread(target=worker, daemon=True) for _ in range(min(workers, len(jobs)))]
    for thread in threads:
        thread.start()
    for _ in jobs:
        yield done.get()
    for thread in threads:
        thread.join()


def environment() -> dict[str, str]:
    return chapters.build_environment(ROOT) | {"TUTORIAL_CACHE_DIR": str(ROOT / ".cache" / "trainings")}


def yardstick() -> float | None:
    if not YARDSTICK.exists():
        return None
    done = subprocess.run([sys.executable, str(YARDSTICK)], check=True, capture_output=True, text=True)
    return float(done.stdout.split()[-1])  # the seconds it prints


def printed(notebook) -> list[str]:
    """What each code cell printed, as text."""
    return [
        "".join(o.get("text", "") for o in cell.get("outputs", []) if o.get("output_type") == "stream")
        for cell in notebook.cells
        if cell.cell_type == "code"
    ]


def timed(run, found: list, workers: int) -> tuple[float, dict[str, list[str]]]:
    jobs = [(c.name, nbformat.writes(c.notebook), str(ROOT), environment()) for c in found]
    start, outputs = time.perf_counter(), {}
    for name, notebook, error, _ in run(jobs, workers):
        if error is not None:
            raise RuntimeError(f"{name}: {error}")
        outputs[name] = printed(nbformat.reads(notebook, as_version=4))
    return time.perf_counter() - start, outputs


def main(names: list[str]) -> None:
    from sitebuild.in_chapter import execute as runner

    scripts = chapters.chapter_scripts(ROOT)
    found = [chapters.read_notebook(scripts[name]) for name in names or scripts]
    before = yardstick()
    rows = []
    runner_seconds, reference = timed(runner.execute, found, 2)
    rows.append(("runner", runner_seconds, []))
    seconds, outputs = timed(execute, found, 2)
    differing = [
        (name, index, b[:70])
        for name in reference
        for index, (a, b) in enumerate(zip(reference[name], outputs[name], strict=True))
        if a != b
    ]
    rows.append(("nbclient, a kernel per worker", seconds, differing))
    after = yardstick()
    cells = sum(len(texts) for texts in reference.values())
    print(f"{len(found)} chapters, {cells} code cells, two workers")
    if before and after:
        print(f"yardstick: {before:.2f} s before, {after:.2f} s after")
    for label, seconds, differing in rows:
        ratio = f", {seconds / ((before + after) / 2):.1f} times the yardstick" if before and after else ""
        print(f"{label:>30}: {seconds:6.1f} s{ratio}; cells printing otherwise than the runner: {len(differing)}")
        for name, index, text in differing:
            print(f"{'':>32}{name}, code cell {index + 1}: {text!r}")


if __name__ == "__main__":
    main(sys.argv[1:])
