"""The build's chapter runner against nbclient, on the same chapters: `python scripts/compare_runners.py [CHAPTER ...]`.

Three ways to execute the same chapter notebooks, one after another on one worker, with the build's
environment (one CPU thread, the shared trainings of `.cache/trainings`, so no chapter trains here):

- `runner`: the build's own (`sitebuild.in_chapter.execute`): a forkserver that has imported torch once,
  a fresh forked process per chapter;
- `nbclient, one kernel`: nbclient with one Jupyter kernel started once for all the chapters, its
  namespace reset between them (`%reset -f`), so imports and module state carry over;
- `nbclient, a kernel each`: nbclient as it is usually run, a fresh kernel per chapter.

Both nbclient ways do the runner's work too, so that the seconds compare like with like: every figure
is drawn as PNG and as SVG with its words as text (the inline backend's two formats), and a cell after
each section runs the chapter's checks on the kernel's namespace (`docs/<chapter>/checks.py`).

It prints each way's seconds, their ratio to the yardstick (`../shared/yardstick.py`, run before and
after in the same session, when it is there), and how many code cells printed something other than the
runner's run did. The build keeps its runner only if nbclient is slower or its outputs differ.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import nbformat
from jupyter_client.manager import KernelManager
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sitebuild.in_mkdocs import chapters  # noqa: E402

DEFAULT = ["why_attention", "dynamic_weights", "scaled_dot_product_attention", "masks", "multi_head_attention"]
YARDSTICK = ROOT.parent / "shared" / "yardstick.py"


def environment() -> dict[str, str]:
    return os.environ | chapters.build_environment(ROOT) | {"TUTORIAL_CACHE_DIR": str(ROOT / ".cache" / "trainings")}


def yardstick() -> float | None:
    if not YARDSTICK.exists():
        return None
    done = subprocess.run([sys.executable, str(YARDSTICK)], check=True, capture_output=True, text=True)
    return float(done.stdout.split()[-1])  # the seconds it prints


ADDED = "compare_runners"  # the metadata key of the cells this script adds


def printed(notebook) -> list[str]:
    """What each code cell of the chapter printed, as text (figures, and the cells added here, aside)."""
    texts = []
    for cell in notebook.cells:
        if cell.cell_type == "code" and ADDED not in cell.metadata:
            streams = [o.get("text", "") for o in cell.get("outputs", []) if o.get("output_type") == "stream"]
            texts.append("".join(streams))
    return texts


def added_cell(source: str):
    cell = nbformat.v4.new_code_cell(source)
    cell.metadata[ADDED] = True
    return cell


def with_preparation(notebook, name: str, reset: bool):
    """The notebook as nbclient runs it, doing what the runner does: a first cell that prepares the
    kernel as the build does and draws each figure as PNG and SVG, and after each section a cell that
    runs the chapter's checks."""
    prepared = nbformat.from_dict(nbformat.reader.reads(nbformat.writes(notebook)))
    source = (
        "import matplotlib\n"
        "from matplotlib_inline.backend_inline import set_matplotlib_formats\n"
        "from sitebuild.in_chapter import claims as _claims\n"
        "from sitebuild.in_chapter.kernel import prepare\n"
        f"prepare({str(ROOT)!r})\n"
        'set_matplotlib_formats("png", "svg", dpi=120, facecolor="white", bbox_inches="tight")\n'
        'matplotlib.rcParams["svg.fonttype"] = "none"\n'
        f"_chapter_claims = _claims.claims_of({name!r})\n"
    )
    if reset:
        source = "%reset -f\n" + source
    cells = [added_cell(source)]
    for cell in prepared.cells:
        cells.append(cell)
        if cell.cell_type == "code" and "section" in cell.metadata:
            section = cell.metadata["section"]
            cells.append(added_cell(f"_claims.run_after({section!r}, _chapter_claims, globals())"))
    prepared.cells = cells
    return prepared


def by_runner(found: list) -> tuple[float, dict[str, list[str]]]:
    start, outputs = time.perf_counter(), {}
    for chapter, notebook, _ in chapters.execute(found, ROOT, workers=1):
        outputs[chapter.name] = printed(notebook)
    return time.perf_counter() - start, outputs


def by_nbclient(found: list, one_kernel: bool) -> tuple[float, dict[str, list[str]]]:
    start, outputs = time.perf_counter(), {}
    manager = None
    if one_kernel:
        manager = KernelManager(kernel_name="python3")
        manager.start_kernel(env=environment(), cwd=str(ROOT))
    try:
        for chapter in found:
            notebook = with_preparation(chapter.notebook, chapter.name, reset=one_kernel)
            if one_kernel:
                client = NotebookClient(notebook, km=manager, timeout=900)
            else:
                client = NotebookClient(notebook, timeout=900, resources={"metadata": {"path": str(ROOT)}})
            client.execute(**({} if one_kernel else {"env": environment(), "cwd": str(ROOT)}))
            outputs[chapter.name] = printed(notebook)
    finally:
        if manager is not None:
            manager.shutdown_kernel(now=True)
    return time.perf_counter() - start, outputs


def main(names: list[str]) -> None:
    scripts = chapters.chapter_scripts(ROOT)
    found = [chapters.read_notebook(scripts[name]) for name in names or DEFAULT]
    before = yardstick()
    runner_seconds, reference = by_runner(found)
    rows = [("runner", runner_seconds, [])]
    for label, one_kernel in (("nbclient, one kernel", True), ("nbclient, a kernel each", False)):
        seconds, outputs = by_nbclient(found, one_kernel)
        differing = [
            (name, index, b[:70])
            for name in reference
            for index, (a, b) in enumerate(zip(reference[name], outputs[name], strict=True))
            if a != b
        ]
        rows.append((label, seconds, differing))
    after = yardstick()
    cells = sum(len(texts) for texts in reference.values())
    print(f"{len(found)} chapters ({', '.join(c.name for c in found)}), {cells} code cells, one worker")
    if before and after:
        print(f"yardstick: {before:.2f} s before, {after:.2f} s after")
    for label, seconds, differing in rows:
        ratio = f", {seconds / ((before + after) / 2):.1f} times the yardstick" if before and after else ""
        print(f"{label:>24}: {seconds:6.1f} s{ratio}; cells printing otherwise than the runner: {len(differing)}")
        for name, index, text in differing:
            print(f"{'':>26}{name}, code cell {index + 1}: {text!r}")


if __name__ == "__main__":
    main(sys.argv[1:])
