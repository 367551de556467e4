"""Execute chapter notebooks, each in a fresh process forked from one that has already imported PyTorch.

A Jupyter kernel per chapter costs about 3.5 s of CPU before the first cell runs (the
kernel itself, then importing torch and matplotlib), more than most chapters compute.
Here a `multiprocessing` forkserver imports torch, matplotlib and tqdm once; every
chapter then runs in a new child forked from it, which imports `tutorial_code` from the
checkout, runs the cells in order in one namespace (as a kernel would) and records what
each cell printed and drew as the cell's notebook outputs. The result is an ordinary
executed notebook (nbformat); the test suite runs the downloaded notebooks again in real
Jupyter kernels and compares the outputs. `scripts/compare_runners.py` measures this runner against
nbclient on the same chapters.
"""

from __future__ import annotations

import base64
import builtins
import contextlib
import dataclasses
import io
import multiprocessing
import os
import sys
import time
import traceback
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

import nbformat

from sitebuild.checkout import Checkout

PRELOAD = ["torch", "matplotlib.pyplot", "tqdm", "numpy"]
FIGURE_OPTIONS = {"format": "png", "dpi": 120, "facecolor": "white", "bbox_inches": "tight"}
# The same figure as SVG with its words kept as text, for the Chinese edition to translate
# (sitebuild/in_mkdocs/editions.py).
SVG_OPTIONS = {"format": "svg", "facecolor": "white", "bbox_inches": "tight", "metadata": {"Date": None}}


class CellError(RuntimeError):
    """A cell of a chapter raised an exception."""


def as_data(value: object) -> object:
    """A chapter value as plain data (dataclasses become dicts), to keep in the executed notebook."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    if isinstance(value, (list, tuple)):
        return [as_data(item) for item in value]
    return value


def figure_outputs() -> tuple[list[dict], list[str]]:
    """Every open matplotlib figure as a `display_data` output (PNG), and as SVG text with its words as text
    elements; then closed."""
    import matplotlib
    import matplotlib.pyplot as plt

    outputs, svgs = [], []
    for number in plt.get_fignums():
        figure = plt.figure(number)
        buffer = io.BytesIO()
        figure.savefig(buffer, metadata={"Software": None}, **FIGURE_OPTIONS)  # no metadata: stable bytes
        text = io.StringIO()
        with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "attention-by-hand"}):
            figure.savefig(text, **SVG_OPTIONS)  # the words stay text; fixed ids: stable bytes
        svgs.append(text.getvalue())
        plt.close(figure)
        outputs.append(
            nbformat.v4.new_output(
                "display_data",
                data={
                    "image/png": base64.b64encode(buffer.getvalue()).decode(),
                    "text/plain": f"<Figure size {figure.bbox.width:.0f}x{figure.bbox.height:.0f} with "
                    f"{len(figure.axes)} Axes>",
                },
            )
        )
    return outputs, svgs


def run_cells(
    notebook: nbformat.NotebookNode, name: str, after_cell: Callable[[str, dict], None] | None = None
) -> nbformat.NotebookNode:
    """Run the code cells of `notebook` in order, in one namespace, and fill in their outputs.

    `after_cell(section, namespace)` is called after each cell whose metadata names its section.

    Raises:
        CellError: If a cell raises; the message holds the cell's code and the traceback.
    """
    namespace = {"__name__": "__main__", "__builtins__": builtins}
    count = 0
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        count += 1
        stdout, stderr = io.StringIO(), io.StringIO()
        try:
            code = compile(cell.source, f"<{name}, cell {count}>", "exec")
            with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
                exec(code, namespace)
        except BaseException as error:  # noqa: BLE001 - reported with the cell, whatever it is
            trace = "".join(traceback.format_exception(error)[1:])
            raise CellError(f"cell {count}:\n{cell.source}\n\n{stdout.getvalue()}{trace}") from None
        outputs = []
        for stream, buffer in (("stdout", stdout), ("stderr", stderr)):
            if buffer.getvalue():
                outputs.append(nbformat.v4.new_output("stream", name=stream, text=buffer.getvalue()))
        figures, svgs = figure_outputs()
        cell.outputs = outputs + figures
        if svgs and "section" in cell.metadata:
            notebook.metadata.setdefault("svg", {})[cell.metadata["section"]] = svgs[0]
        cell.execution_count = count
        if after_cell is not None and "section" in cell.metadata:
            after_cell(cell.metadata["section"], namespace)
    return notebook


def run_chapter(job: tuple[str, str, str, dict[str, str]]) -> tuple[str, str, str | None, float]:
    """In a fresh child process: set its environment, prepare it for `root`, run the notebook; return
    `(name, notebook, error, seconds)`."""
    name, notebook_json, root, environment = job
    start = time.perf_counter()
    os.environ.update(environment)  # this process's only: the build's own environment stays as it was
    os.chdir(root)
    sys.path.insert(0, root)
    import matplotlib
    import torch

    matplotlib.use(environment.get("MPLBACKEND", "Agg"))  # pyplot was imported before the variable was set
    torch.set_num_threads(int(environment.get("OMP_NUM_THREADS", "1")))
    from sitebuild.in_chapter.kernel import prepare

    notebook = nbformat.reads(notebook_json, as_version=4)
    try:
        prepare(root)
        from sitebuild.in_chapter import claims, recorded_runs
        from tutorial_tools import contents

        # The chapter's checks run after the sections they follow; what each read is kept for the tests.
        chapter_claims, records = claims.claims_of(name, Path(root)), []
        sections = {cell.metadata.get("section") for cell in notebook.cells if cell.cell_type == "code"}
        unknown = [claim.section for claim in chapter_claims if claim.section not in sections]
        if unknown:
            raise claims.CheckInputError(f"docs/{name}/checks.py follows sections the chapter lacks: {unknown}")
        data: dict[str, object] = {}
        folder = Path(root) / "docs" / name  # its chapter.yml's `data`; a chapter without one keeps nothing
        kept = dict(contents.read_entry(folder).data) if (folder / contents.ENTRY_FILE).is_file() else {}
        recorded: dict[str, list[dict]] = {}  # the recorded runs each section read first, with their machine
        seen: set[str] = set()

        def after_section(section: str, values: dict) -> None:
            new = sorted(recorded_runs.CALLED - seen)
            seen.update(new)
            if new:
                entries = recorded_runs.read_records(Checkout(Path(root)).records)
                recorded[section] = [{"call": call, "machine": entries[call].get("machine")} for call in new]
            strict = os.environ.get("TUTORIAL_CHECKS") != "report"  # the robustness script reports, never stops
            records.extend(claims.run_after(section, chapter_claims, values, strict=strict))
            if section in kept:  # a value each edition renders in its own words, or the site publishes
                value = as_data(values[kept[section]])
                data[section] = {"torch": torch.__version__, "value": value}

        executed = run_cells(notebook, name, after_section)
        executed.metadata["claims"] = records
        executed.metadata["data"] = data
        executed.metadata["recorded_runs"] = sorted(recorded_runs.CALLED)  # the entries this chapter read
        executed.metadata["recorded_sections"] = recorded
        return name, nbformat.writes(executed), None, time.perf_counter() - start
    except Exception as error:  # noqa: BLE001 - sent back to the build, which names the chapter
        return name, "", f"{type(error).__name__}: {error}", time.perf_counter() - start


def execute(
    jobs: Iterable[tuple[str, str, str, dict[str, str]]], workers: int = 2
) -> Iterator[tuple[str, str, str | None, float]]:
    """Run each `(name, notebook_json, root, environment)` job in a fresh process, `workers` at a time, as they
    finish. Each process sets `environment` (one CPU thread, `MPLBACKEND=Agg`, ...) for itself."""
    jobs = list(jobs)
    if not jobs:
        return
    root = jobs[0][2]
    if root not in sys.path:
        sys.path.insert(0, root)  # the forkserver starts with this process's sys.path, and must find sitebuild
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(PRELOAD)
    # A fresh process for every chapter (max_tasks_per_child=1); a process that dies breaks the pool
    # with an error instead of leaving the build waiting.
    with ProcessPoolExecutor(max_workers=workers, mp_context=context, max_tasks_per_child=1) as pool:
        with environment_while_starting(jobs[0][3]):
            futures = [pool.submit(run_chapter, job) for job in jobs]
        for future in as_completed(futures):
            yield future.result()


@contextlib.contextmanager
def environment_while_starting(variables: dict[str, str]) -> Iterator[None]:
    """Set `variables` in this process while the pool starts its processes, then restore the environment.

    The forkserver, started with the first chapter of the build process, imports torch, which imports
    tqdm, which reads `TQDM_DISABLE` once: the variable must be there when the forkserver starts.
    """
    before = {name: os.environ.get(name) for name in variables}
    os.environ.update(variables)
    try:
        yield
    finally:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
