"""mkdocs-gen-files script: one API reference page per public `tutorial_code` module.

A new module gets its page and its nav entry with no edit to mkdocs.yml.
Private modules (a leading underscore) and the chapter scripts are left out.
"""

from pathlib import Path

import mkdocs_gen_files

root = Path(__file__).resolve().parent.parent
nav = mkdocs_gen_files.Nav()

for path in sorted((root / "tutorial_code").glob("*.py")):
    module = path.stem
    if module.startswith("_"):
        continue
    page = Path("reference", f"{module}.md")
    nav[module] = f"{module}.md"
    with mkdocs_gen_files.open(page, "w") as f:
        f.write(f"::: tutorial_code.{module}\n")
    mkdocs_gen_files.set_edit_path(page, Path("..") / path.relative_to(root))  # relative to docs/

# literate-nav reads this list as the section's navigation; the page itself lists the modules.
with mkdocs_gen_files.open("reference/SUMMARY.md", "w") as f:
    f.write("# API reference\n\nOne page per module of `tutorial_code`:\n\n")
    f.writelines(nav.build_literate_nav())
mkdocs_gen_files.set_edit_path("reference/SUMMARY.md", Path("..") / "scripts" / "gen_api_pages.py")
