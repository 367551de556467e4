"""Keep the Chinese edition in step with the English one.

    python scripts/translations.py                  list the outdated Chinese pages, each with the English diff
                                                    since the version it translates (exit 1 when any is outdated)
    python scripts/translations.py stamp PAGE...    record that the Chinese page now translates the current
                                                    English one (PAGE: masks for docs/masks/index.md, notebooks
                                                    for docs/notebooks.md, or --all), and copy the English
                                                    heading anchors onto its headings
    python scripts/translations.py stamp troubleshooting-table
                                                    the same for docs/troubleshooting/table.zh.yml

Each Chinese page starts with front matter that names the English version it translates:
`source_hash`, the first 12 hex digits of the SHA-256 of the English page. A test fails when the
English page changed and the hash was not brought up to date; this script shows what changed,
from the git history of the English page. See CONTRIBUTING.md, "Updating a translation".
"""

from __future__ import annotations

import difflib
import hashlib
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
TABLE = ROOT / "docs" / "troubleshooting" / "table.zh.yml"
FRONT_MATTER = re.compile(r"\A---\n(.*?)\n---\n", re.S)
HEADING = re.compile(r"^((?:    )*)(#{1,6}) (.*?)(?:\s*\{\s*#([\w-]+)\s*\})?\s*$")  # in a box: indented


def source_hash(text: str) -> str:
    """The version stamp of an English text."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def english_pages() -> list[Path]:
    """Every English page that has (or needs) a Chinese edition: all of docs/ but the API reference."""
    found = [*DOCS.glob("*.md"), *DOCS.glob("*/index.md")]
    return sorted(path for path in found if not path.name.endswith(".zh.md") and path.parent.name != "reference")


def page_of(name: str) -> Path:
    """The English page of a name: a chapter's (`masks`: docs/masks/index.md) or another's (`notebooks`)."""
    name = name.removesuffix(".md")
    return DOCS / name / "index.md" if (DOCS / name).is_dir() else DOCS / f"{name}.md"


def chinese_of(english: Path) -> Path:
    return english.with_name(english.stem + ".zh.md")


def recorded_hash(chinese: Path) -> str | None:
    match = FRONT_MATTER.match(chinese.read_text(encoding="utf-8"))
    found = re.search(r"^source_hash:\s*(\w+)\s*$", match.group(1), re.M) if match else None
    return found.group(1) if found else None


def outdated() -> list[Path]:
    """English pages whose Chinese edition is missing or translates an older version."""
    return [
        page
        for page in english_pages()
        if not chinese_of(page).exists() or recorded_hash(chinese_of(page)) != source_hash(page.read_text("utf-8"))
    ]


def english_version(page: Path, wanted: str) -> str | None:
    """The text of `page` at the version whose hash is `wanted`, searched in the git history (across moves)."""
    relative = page.relative_to(ROOT).as_posix()
    log = subprocess.run(
        ["git", "log", "--follow", "--format=commit %H", "--name-only", "--", relative],
        cwd=ROOT,
        capture_output=True,
        text=True,
    ).stdout.split()
    versions = [(log[i + 1], log[i + 2]) for i in range(len(log) - 2) if log[i] == "commit"]  # (commit, its path)
    for commit, path in versions:
        shown = subprocess.run(["git", "show", f"{commit}:{path}"], cwd=ROOT, capture_output=True, text=True)
        if shown.returncode == 0 and source_hash(shown.stdout) == wanted:
            return shown.stdout
    return None


def heading_ids(markdown_text: str) -> list[str]:
    """The anchor of each heading of an English page, as the site's Markdown renders it."""
    import markdown

    renderer = markdown.Markdown(
        extensions=["toc", "attr_list", "pymdownx.arithmatex", "admonition", "pymdownx.details", "md_in_html"],
        extension_configs={"pymdownx.arithmatex": {"generic": True}},
    )
    renderer.convert(without_fences(markdown_text))
    ids: list[str] = []
    pending = list(renderer.toc_tokens)
    while pending:
        token = pending.pop(0)
        ids.append(token["id"])
        pending[:0] = token["children"]
    return ids


def without_fences(text: str) -> str:
    """The text with fenced blocks blanked, so a `# comment` in code is not read as a heading."""
    out, fence = [], None
    for line in text.splitlines():
        marker = re.match(r"^\s*(`{3,})", line)
        if fence is None and marker:
            fence = marker.group(1)
        elif fence is not None and line.strip().startswith(fence):
            fence = None
            line = ""
        out.append("" if fence is not None else line)
    return "\n".join(out)


def headings(text: str) -> list[tuple[int, str]]:
    """(line number, level) of every heading outside fenced blocks."""
    return [
        (number, len(match.group(2)))
        for number, line in enumerate(without_fences(text).splitlines())
        if (match := HEADING.match(line))
    ]


def stamp(page: Path) -> None:
    """Record the current English version in the Chinese page, and give its headings the English anchors."""
    english = page.read_text(encoding="utf-8")
    chinese_path = chinese_of(page)
    chinese = FRONT_MATTER.sub("", chinese_path.read_text(encoding="utf-8"), count=1)
    english_headings, chinese_headings = headings(FRONT_MATTER.sub("", english, count=1)), headings(chinese)
    if [level for _, level in english_headings] != [level for _, level in chinese_headings]:
        raise SystemExit(
            f"{chinese_path.name}: its headings do not match {page.name}'s, level by level; fix them first"
        )
    lines = chinese.splitlines()
    for (number, _), anchor in zip(chinese_headings, heading_ids(english), strict=True):
        match = HEADING.match(lines[number])
        lines[number] = f"{match.group(1)}{match.group(2)} {match.group(3)} {{ #{anchor} }}"
    chinese_path.write_text(
        f"---\nsource_hash: {source_hash(english)}\n---\n" + "\n".join(lines) + "\n", encoding="utf-8"
    )


def table_entries() -> dict[str, str]:
    """The hash of each troubleshooting row's English prose, by title."""
    sys.path.insert(0, str(ROOT))
    from tutorial_code.troubleshooting import PROBLEMS

    return {problem.title: source_hash(f"{problem.title}\n{problem.cause}\n{problem.fix}") for problem in PROBLEMS}


def stamp_table() -> None:
    """Record the current English version of each troubleshooting row in its Chinese entry."""
    import yaml

    entries = yaml.safe_load(TABLE.read_text(encoding="utf-8"))
    hashes = table_entries()
    missing = sorted(set(hashes) - set(entries))
    if missing:
        raise SystemExit(f"{TABLE.name} has no entry for {missing}; translate them first")
    comment = TABLE.read_text(encoding="utf-8").splitlines()[0]
    stamped = {
        title: {"source_hash": digest, **{key: entries[title][key] for key in ("title", "cause", "fix")}}
        for title, digest in hashes.items()
    }
    text = yaml.safe_dump(stamped, allow_unicode=True, sort_keys=False, width=1000)
    TABLE.write_text(f"{comment}\n{text}", encoding="utf-8")


def status() -> int:
    stale = outdated()
    import yaml

    entries = yaml.safe_load(TABLE.read_text(encoding="utf-8"))
    stale_rows = [
        title for title, digest in table_entries().items() if entries.get(title, {}).get("source_hash") != digest
    ]
    if not stale and not stale_rows:
        print("The Chinese edition is up to date.")
        return 0
    for page in stale:
        chinese = chinese_of(page)
        if not chinese.exists():
            print(f"== {chinese.relative_to(ROOT)} is missing: translate {page.relative_to(ROOT)}\n")
            continue
        recorded = recorded_hash(chinese)
        old = english_version(page, recorded) if recorded else None
        print(f"== {chinese.relative_to(ROOT)} translates an older {page.relative_to(ROOT)} ({recorded}):")
        if old is None:
            print("   (that version is not in the git history; compare the whole page)\n")
            continue
        new = page.read_text(encoding="utf-8")
        sys.stdout.writelines(difflib.unified_diff(old.splitlines(True), new.splitlines(True), "translated", "now"))
        print()
    for title in stale_rows:
        print(f"== {TABLE.relative_to(ROOT)}: the row {title!r} is new or changed in tutorial_code/troubleshooting.py")
    print("Update the translations, then: python scripts/translations.py stamp PAGE (or troubleshooting-table)")
    return 1


def main(argv: list[str]) -> int:
    if not argv:
        return status()
    if argv[0] != "stamp" or len(argv) < 2:
        print(__doc__)
        return 2
    for name in argv[1:]:
        if name == "troubleshooting-table":
            stamp_table()
        else:
            for page in english_pages() if name == "--all" else [page_of(name)]:
                stamp(page)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
