"""Adding a chapter is what CONTRIBUTING.md says: one folder and one line. In a copy of the checkout, a minimal
chapter gets exactly that, and the tests that hold every chapter to the house's rules pass on it, and it runs
as the build runs a chapter."""

import subprocess
import sys

import pytest
from conftest import ROOT

from tutorial_tools.contents import CHAPTERS

pytestmark = pytest.mark.integration

SCRIPT = """# %% [markdown]
# # 15. A minimal chapter
#
# The code of the chapter page, in page order.


# %%
# --8<-- [start:setup]
import torch

from tutorial_code.diagrams.plots import heatmaps
# --8<-- [end:setup]


# %%
# --8<-- [start:weights]
weights = torch.softmax(torch.arange(9.0).reshape(3, 3), dim=-1)
print(f"each row sums to {weights.sum(dim=-1).tolist()}")
# --8<-- [end:weights]


# %%
# --8<-- [start:minimal_weights]
fig = heatmaps([weights], ["softmax"], ["0", "1", "2"], xlabel="key", ylabel="query")
# --8<-- [end:minimal_weights]
"""

PAGE = """# A minimal chapter

Each row of a softmax sums to one.

```python run
--8<-- "docs/minimal/script.py:setup"
--8<-- "docs/minimal/script.py:weights"
```

```python run="markdown"
--8<-- "docs/minimal/script.py:minimal_weights"
```

![A three by three grid of weights, each row darker to the right.](../figures/minimal_weights.png)
"""

PAGE_ZH = """# 最小的一章 { #a-minimal-chapter }

每一行的和都是一。

```python run
--8<-- "docs/minimal/script.py:setup"
--8<-- "docs/minimal/script.py:weights"
```

```python run="markdown"
--8<-- "docs/minimal/script.py:minimal_weights"
```

![三乘三的权重格子，每一行越往右越深。](../figures/minimal_weights.png)
"""

ENTRY = '    Chapter("minimal", "A minimal chapter", "最小的一章", 15),\n'

RULES = [  # the unit tests that hold every chapter to the house's rules
    "tests/unit/test_contents.py",
    "tests/unit/test_translations.py",
    "tests/unit/test_lesson_shape.py",
    "tests/unit/test_claims.py",
    "tests/unit/test_checks_read_this_build.py",
]


def add_minimal_chapter(root):
    """What CONTRIBUTING.md asks of a new chapter: its folder, and its line in the table of contents."""
    sys.path.insert(0, str(root / "scripts"))
    try:
        import translations
    finally:
        sys.path.pop(0)
    folder = root / "docs" / "minimal"
    folder.mkdir()
    (folder / "script.py").write_text(SCRIPT, encoding="utf-8")
    (folder / "index.md").write_text(PAGE, encoding="utf-8")
    stamp = f"---\nsource_hash: {translations.source_hash(PAGE)}\n---\n"
    (folder / "index.zh.md").write_text(stamp + PAGE_ZH, encoding="utf-8")
    contents = root / "tutorial_tools" / "contents.py"
    source = contents.read_text(encoding="utf-8")
    last = '    Chapter("troubleshooting",'
    contents.write_text(source.replace(last, ENTRY + last, 1), encoding="utf-8")


def copy_of_the_checkout(target):
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT, capture_output=True, text=True)
    for name in files.stdout.splitlines():
        if (ROOT / name).is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            (target / name).write_bytes((ROOT / name).read_bytes())


def rules_that_see_the_new_chapter(node_ids: list[str]) -> list[str]:
    """The rules' tests that can see the new chapter: those made for it, and those not made for one chapter. A test
    made for another chapter (its parameters name one) runs in the suite already, on the same code."""
    others = {c.slug for c in CHAPTERS} | {c.slug.replace("_", "-") for c in CHAPTERS}
    kept = []
    for node_id in node_ids:
        parameters = node_id.partition("[")[2]
        if "minimal" in parameters or not any(name in parameters for name in others):
            kept.append(node_id)
    return kept


def test_a_new_chapter_is_one_folder_and_one_line(tmp_path):
    copy_of_the_checkout(tmp_path)
    add_minimal_chapter(tmp_path)
    pytest_command = [sys.executable, "-m", "pytest", "-q", "-p", "no:xdist", "-p", "no:cacheprovider"]
    collected = subprocess.run(
        [*pytest_command, "--collect-only", *RULES], cwd=tmp_path, capture_output=True, text=True, timeout=600
    )
    node_ids = [line for line in collected.stdout.splitlines() if "::" in line]
    selected = rules_that_see_the_new_chapter(node_ids)
    assert any("minimal" in node_id for node_id in selected) and len(selected) < len(node_ids)
    for module in RULES:  # every file of rules keeps tests of the new chapter
        assert any(node_id.startswith(module + "::") for node_id in selected), module
    rules = subprocess.run(
        [*pytest_command, "-x", *selected], cwd=tmp_path, capture_output=True, text=True, timeout=600
    )
    assert rules.returncode == 0, rules.stdout[-3000:]
    ran = subprocess.run(
        [sys.executable, "-m", "sitebuild.in_mkdocs.chapters", "minimal"], cwd=tmp_path, capture_output=True, text=True
    )
    assert ran.returncode == 0, ran.stdout[-3000:] + ran.stderr[-3000:]
    assert "each row sums to [1.0, 1.0, 1.0]" in ran.stdout
