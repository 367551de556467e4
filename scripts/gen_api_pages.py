"""Write one API reference page per public `tutorial_code` module into docs/reference/.

    python scripts/gen_api_pages.py          # write the pages, docs/reference/index.md and SUMMARY.md
    python scripts/gen_api_pages.py --check  # exit 1 if a page is missing, extra or out of date (a test runs this)

Each page holds one mkdocstrings line, `::: tutorial_code.<module>`; the reference itself is
rendered from the docstrings at build time. The pages are plain files rather than generated
during the build, so that `mkdocs serve --dirty` renders them once, not after every edit.
Private modules (a leading underscore) and the chapter scripts are left out: every other
module of `tutorial_code` has its page. What runs the tutorial (`tutorial_tools/`: the command,
the exercises) and what builds the site (`sitebuild/`) live outside the package and
have no API page.
"""

import ast
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "docs" / "reference"


def modules() -> list[str]:
    """Every public module, a subpackage's as `package.module` (the page `diagrams.plots.md`)."""
    package = ROOT / "tutorial_code"
    paths = sorted(package.glob("*.py")) + sorted(package.glob("*/*.py"))
    names = (".".join(path.relative_to(package).with_suffix("").parts) for path in paths)
    return [name for name in names if not name.split(".")[-1].startswith("_")]


def summary_line(module: str) -> str:
    """The first sentence of a module's docstring, on one line."""
    path = ROOT / "tutorial_code" / (module.replace(".", "/") + ".py")
    docstring = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    first = " ".join(docstring.split("\n\n")[0].split())
    return first.split(". ")[0].rstrip(".") + "." if first else ""


def wanted_pages() -> dict[str, str]:
    pages = {  # the front matter gives each page its meta description
        f"{module}.md": f"---\ndescription: {json.dumps(f'tutorial_code.{module}: {summary_line(module)}')}\n---\n\n"
        f"::: tutorial_code.{module}\n"
        for module in modules()
    }
    # literate-nav reads this list as the section's navigation: the index first, then a page per module.
    pages["SUMMARY.md"] = "* [Overview](index.md)\n" + "".join(f"* [{module}]({module}.md)\n" for module in modules())
    # /reference/: every module with what it holds, from its docstring
    cells = {module: summary_line(module).replace("|", "\\|") for module in modules()}
    rows = "".join(f"| [`{module}`]({module}.md) | {cells[module]} |\n" for module in modules())
    pages["index.md"] = (
        "# API reference\n\nEvery module of `tutorial_code`, the package the chapters' code comes from, with "
        "the first line of its docstring. Each page is rendered from the code's docstrings.\n\n"
        "| Module | What it holds |\n|---|---|\n" + rows
    )
    return pages


def main(argv: list[str]) -> int:
    wanted = wanted_pages()
    present = {path.name: path.read_text(encoding="utf-8") for path in REFERENCE.glob("*.md")}
    if "--check" in argv:
        if present != wanted:
            stale = sorted(set(present) ^ set(wanted) | {n for n in wanted if present.get(n) != wanted[n]})
            print(f"docs/reference/ is out of date ({', '.join(stale)}): run python scripts/gen_api_pages.py")
            return 1
        return 0
    REFERENCE.mkdir(parents=True, exist_ok=True)
    for name in set(present) - set(wanted):
        (REFERENCE / name).unlink()
    for name, text in wanted.items():
        if present.get(name) != text:
            (REFERENCE / name).write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
