"""Run each chapter script once, as a notebook, and keep what it printed and drew, section by section.

A chapter script (`docs/<name>/script.py`) is a jupytext percent file whose code
cells each hold one named section (`# --8<-- [start:name]` ... `# --8<-- [end:name]`).
The build turns it into a notebook, executes it in a fresh kernel with nbclient, and
takes everything a page or the notebook page shows from that one run:

- the text a section printed, shown under the section's code on the chapter page;
- the figure a section drew, published as `figures/<section>.png`;
- the executed notebook itself, rendered as the notebook page and offered for download.

An executed notebook is stored under a key made of the notebook's code cells, the source
of every `tutorial_code` module they import (followed through imports), the package data
those modules read (`tutorial_code/results-cpu.json`), the recorded runs where the chapter
reads one (`benchmarks/recorded-runs.json`), and the versions. An edit to a module or to one of
those files re-executes exactly the chapters that read it, directly or not; an edit to prose
re-executes nothing.
"""

from __future__ import annotations

import base64
import hashlib
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from sitebuild.checkout import Checkout
from sitebuild.fingerprint import (
    PACKAGES,
    code_fingerprint,
    dependencies,
    imported_modules,
    library_versions,
    module_path,
)
from tutorial_tools import contents
from tutorial_tools.sections import marker, without_markers

RUNNER_PACKAGES = ("sitebuild", "tutorial_tools", *PACKAGES)  # what runs in a chapter's process besides it


class ChapterError(RuntimeError):
    """A chapter script could not be executed, or printed something a page must not show."""


@dataclass
class Section:
    """What one section of a chapter printed and drew when the chapter ran."""

    text: str = ""
    png: bytes | None = None
    svg: str | None = None  # the same figure with its words as text, for the Chinese edition
    data: object = None  # the value the editions render in their own words (its chapter.yml names it)
    recorded: list[dict] = field(default_factory=list)  # recorded runs it shows, with their machines (not this build's)


@dataclass
class ChapterNotebook:
    """One chapter script, read as a notebook that is ready to execute."""

    name: str
    script: Path
    notebook: nbformat.NotebookNode
    sections: list[str] = field(default_factory=list)  # the section of each code cell, in order

    @property
    def entry(self) -> contents.Chapter:
        """Its entry in the table of contents (a script not listed there: a chapter of that name, unnumbered)."""
        return contents.by_slug().get(self.name) or contents.Chapter(self.name, self.name, self.name)

    @property
    def page(self) -> str:
        return self.entry.page_path

    @property
    def command(self) -> str:
        return self.entry.command

    def key(self) -> str:
        """What the executed notebook depends on: its code cells, the code they import, the data, the versions."""
        code = [cell.source for cell in self.notebook.cells if cell.cell_type == "code"]
        root = self.script.parent.parent.parent
        digest = hashlib.sha256(repr(code).encode())  # Markdown cells are not part of it: prose re-runs nothing
        # the code and the package data it reads (tutorial_code/results-cpu.json)
        digest.update(code_fingerprint(source="\n".join(code), root=root).encode())
        records = Checkout(root).records
        if records.exists() and reads_records("\n".join(code), root):  # a recorded run, or their list (home page)
            digest.update(records.read_bytes())
        digest.update(library_versions(root).encode())  # the versions installed with this checkout
        # The chapter's process: the runner and the chapter's checks, followed through their imports.
        checks = self.script.with_name("checks.py")
        checks_source = checks.read_text(encoding="utf-8") if checks.exists() else ""
        digest.update(checks_source.encode())
        entry = self.script.with_name(contents.ENTRY_FILE)  # what the run keeps (`data`)
        digest.update(entry.read_bytes() if entry.exists() else b"")
        digest.update(
            code_fingerprint(
                ["sitebuild.in_chapter.execute"], checks_source, root=root, packages=RUNNER_PACKAGES
            ).encode()
        )
        return digest.hexdigest()[:20]


RECORDED_MARK = "@recorded"  # how tutorial_code marks a run the build reads from the records (shared_runs)


def reads_records(code: str, root: Path) -> bool:
    """Whether a chapter's code reads `benchmarks/recorded-runs.json`: it names the file, or imports, directly or
    not, a module with a `@recorded` run. Either way its output changes when the records do."""
    if Checkout(root).records.name in code:
        return True
    modules = dependencies(imported_modules(code, root), root)
    return any(RECORDED_MARK in module_path(module, root).read_text(encoding="utf-8") for module in modules)


def chapter_scripts(root: Path) -> dict[str, Path]:
    """Every chapter's script, in the order of the table of contents."""
    return {chapter.slug: root / chapter.script for chapter in contents.CHAPTERS}


def read_notebook(script: Path) -> ChapterNotebook:
    """Read a chapter script as a notebook: section markers dropped, the section of each code cell noted.

    Raises:
        ChapterError: If a code cell holds no section or more than one.
    """
    import jupytext

    notebook = jupytext.reads(script.read_text(encoding="utf-8"), fmt="py:percent")
    cells, sections = [], []
    for cell in notebook.cells:
        names = [m[1] for m in map(marker, cell.source.splitlines()) if m and m[0] == "start"]
        cell.source = without_markers(cell.source).strip("\n")
        if not cell.source.strip():
            continue
        if cell.cell_type == "code":
            if len(names) != 1:
                raise ChapterError(
                    f"{script}: every code cell must hold exactly one named section, found {names or 'none'} "
                    f"in the cell that starts with {cell.source.splitlines()[0]!r}"
                )
            sections.append(names[0])
            cell.metadata["section"] = names[0]  # the checks of the chapter run after the section they name
        cells.append(cell)
    notebook.cells = cells
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    notebook.metadata.pop("jupytext", None)
    for index, cell in enumerate(notebook.cells):
        cell["id"] = f"{script.parent.name}-{index}"  # stable ids: the same source gives the same file
    return ChapterNotebook(script.parent.name, script, notebook, sections)


def build_environment(root: Path) -> dict[str, str]:
    """What every chapter process needs in its environment: one CPU thread, no progress bars, no display.

    One thread per process: two chapters can run at once on two cores, and every process of
    the build adds floats in the same order, so a model trained by one chapter and reused by
    another is exactly the model the other would have trained.
    """
    return {
        "OMP_NUM_THREADS": "1",
        "TQDM_DISABLE": "1",
        "MPLBACKEND": "Agg",
        "TUTORIAL_CACHE_DIR": os.environ.get("TUTORIAL_CACHE_DIR") or str(root / ".cache" / "trainings"),
    }


def execute(chapters: list[ChapterNotebook], root: Path, workers: int = 2):
    """Execute each chapter in a fresh process; yield `(chapter, executed notebook, seconds)` as each finishes.

    Raises:
        ChapterError: If a cell fails; the message names the chapter, the cell and the error.
    """
    from sitebuild.in_chapter import execute as executor

    by_name = {chapter.name: chapter for chapter in chapters}
    environment = build_environment(root)  # set in each chapter's process, not in this one
    jobs = [(chapter.name, nbformat.writes(chapter.notebook), str(root), environment) for chapter in chapters]
    for name, notebook, error, seconds in executor.execute(jobs, workers):
        if error is not None:
            raise ChapterError(f"chapter {name!r} (docs/{name}/script.py) failed to execute:\n{error}")
        yield by_name[name], nbformat.reads(notebook, as_version=4), seconds


def sections_of(chapter: ChapterNotebook, executed: nbformat.NotebookNode) -> dict[str, Section]:
    """What each section printed (standard output) and drew (one PNG at most).

    Raises:
        ChapterError: If a section wrote to standard error, drew two figures, or left another kind of output.
    """
    code_cells = [cell for cell in executed.cells if cell.cell_type == "code"]
    if len(code_cells) != len(chapter.sections):
        raise ChapterError(f"chapter {chapter.name!r}: the executed notebook does not match the script")
    found = {}
    for name, cell in zip(chapter.sections, code_cells, strict=True):
        section, where = Section(), f"chapter {chapter.name!r}, section {name!r}"
        for output in cell.outputs:
            kind = output.get("output_type")
            if kind == "stream" and output.get("name") == "stdout":
                section.text += output["text"]
            elif kind == "stream":
                raise ChapterError(
                    f"{where} wrote to standard error: {output['text'][:500]!r}. A page must show only what the "
                    "chapter prints: catch the warning in the chapter and print what it says."
                )
            elif kind == "display_data" and "image/png" in output.get("data", {}):
                if section.png is not None:
                    raise ChapterError(f"{where} drew two figures; give each figure a section of its own")
                section.png = base64.b64decode(output["data"]["image/png"])
            else:
                raise ChapterError(
                    f"{where} left an output of type {kind!r}: end the cell with a print() or a figure, "
                    "not with an expression"
                )
        section.data = executed.metadata.get("data", {}).get(name)
        section.recorded = executed.metadata.get("recorded_sections", {}).get(name, [])
        section.svg = executed.metadata.get("svg", {}).get(name) if section.png is not None else None
        found[name] = section
    return found


def with_outputs(notebook: nbformat.NotebookNode, executed: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """`notebook` (its current Markdown cells) with the outputs of `executed` (the same code cells, in order)."""
    code_cells = [cell for cell in executed.cells if cell.cell_type == "code"]
    for cell in notebook.cells:
        if cell.cell_type == "code":
            ran = code_cells.pop(0)
            cell.outputs, cell.execution_count = ran.outputs, ran.execution_count
    return notebook


def main(argv: list[str]) -> int:
    """`python -m sitebuild.in_mkdocs.chapters CHAPTER [FIGURES_DIR]`: run one chapter as the build does,
    checks included.

    Prints what each section printed and which checks held, and writes each section's figure to
    `FIGURES_DIR/<section>.png` when a folder is given. Trainings are shared with the build's cache.
    """
    from sitebuild.in_chapter.execute import run_chapter

    root = Path(__file__).resolve().parents[2]
    if not argv or argv[0] not in chapter_scripts(root):
        print(
            "usage: python -m sitebuild.in_mkdocs.chapters CHAPTER [FIGURES_DIR]; "
            f"chapters: {', '.join(chapter_scripts(root))}"
        )
        return 2
    chapter = read_notebook(chapter_scripts(root)[argv[0]])
    job = (chapter.name, nbformat.writes(chapter.notebook), str(root), build_environment(root))
    name, notebook, error, seconds = run_chapter(job)
    if error is not None:
        print(f"chapter {name} failed after {seconds:.1f} s:\n{error}")
        return 1
    executed = nbformat.reads(notebook, as_version=4)
    for section, found in sections_of(chapter, executed).items():
        print(f"---- {section}\n{found.text}", end="" if found.text.endswith("\n") or not found.text else "\n")
        if found.png is not None and len(argv) > 1:
            Path(argv[1]).mkdir(parents=True, exist_ok=True)
            (Path(argv[1]) / f"{section}.png").write_bytes(found.png)
            print(f"[figure written to {Path(argv[1]) / f'{section}.png'}]")
    for record in executed.metadata["claims"]:
        print(f"check held: {record['statement']}")
    print(f"chapter {name} ran in {seconds:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
