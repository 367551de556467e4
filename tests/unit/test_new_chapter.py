"""Adding a chapter is what CONTRIBUTING.md says: its folder, its module and the module's test, and one line of
the order. In a copy of the checkout, a minimal chapter with a graded exercise gets exactly that; the tests that
hold every chapter and every exercise to the house's rules pass on it, its grader passes the page's solution and
names a wrong one's mistake in both languages, and it runs as the build runs a chapter. Nothing else in the
checkout changes."""

import os
import subprocess
import sys

import pytest
from conftest import ROOT

from tutorial_tools.contents import CHAPTERS
from tutorial_tools.exercises.catalogue import EXERCISES as EXERCISE_NAMES

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
# --8<-- [start:row_sums]
from tutorial_code.minimal import row_sums

print(f"row sums: {row_sums(weights).tolist()}")
# --8<-- [end:row_sums]


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

```python run
--8<-- "docs/minimal/script.py:row_sums"
```

## Exercises

### Implement row sums

Return the sum of each row of a batch of attention weights.

Start with `transformer-tutorial exercise row-sums`, grade with `transformer-tutorial check row-sums`.

??? success "Solution: `tutorial_code/minimal.py`"

    ```python
    --8<-- "tutorial_code/minimal.py:imports"
    --8<-- "tutorial_code/minimal.py:row_sums"
    ```
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

```python run
--8<-- "docs/minimal/script.py:row_sums"
```

## 练习 { #exercises }

### 实现行和 { #implement-row-sums }

返回一批注意力权重（attention weights）每一行的和。

用 `transformer-tutorial exercise row-sums` 开始，用 `transformer-tutorial check row-sums` 评分。

??? success "参考答案：`tutorial_code/minimal.py`"

    ```python
    --8<-- "tutorial_code/minimal.py:imports"
    --8<-- "tutorial_code/minimal.py:row_sums"
    ```
"""

ENTRY = "title: A minimal chapter\ntitle_zh: 最小的一章\nteaches: [minimal]\n"

MODULE = '''"""Row sums of attention weights: the minimal chapter's module."""

# --8<-- [start:imports]
import torch

# --8<-- [end:imports]


# --8<-- [start:row_sums]
def row_sums(weights: torch.Tensor) -> torch.Tensor:
    """One number per query: the sum of its row of weights."""
    return weights.sum(dim=-1)


# --8<-- [end:row_sums]
'''

MODULE_TEST = """import torch

from tutorial_code.minimal import row_sums


def test_each_row_of_a_softmax_sums_to_one():
    weights = torch.softmax(torch.randn(2, 5, 5), dim=-1)
    assert torch.allclose(row_sums(weights), torch.ones(2, 5))
"""

EXERCISES = '''"""The exercise that ends the minimal chapter."""

from tutorial_tools.exercises.exercise import Exercise

EXERCISES = [
    Exercise(
        "row-sums",
        "minimal",
        "Implement row sums",
        "Return the sum of each row of a batch of attention weights.",
        "tutorial_code.minimal",
        ("row_sums",),
        "ROW_SUMS",
        write=("row_sums",),
        applies=("sizes", "device", "in place"),
    ),
]

PLANTED = [("row-sums", "weights.sum(dim=-1)", "weights.sum(dim=-2)", "summed each column")]
'''

GRADERS = '''"""The minimal chapter: row sums."""

from types import ModuleType

import torch
from tutorial_code import minimal
from tutorial_tools.exercises.common import META, Grader, call_on_copies, expect_on_meta, expect_same


def _check_row_sums(learner: ModuleType) -> None:
    for shape in [(2, 3, 3), (1, 1, 1), (4, 2, 7, 7), (3, 40, 40)]:
        weights = torch.softmax(torch.randn(shape, generator=torch.Generator().manual_seed(0)), dim=-1)
        kept = weights.clone()
        what = f"row_sums of weights of shape {tuple(shape)}"
        expect_same(
            call_on_copies(learner.row_sums, weights),
            minimal.row_sums(kept),
            what,
            [(kept.sum(dim=-2), "you summed each column (dim=-2): a row is one query's weights")],
        )


def _check_row_sums_device(learner: ModuleType) -> None:
    weights = torch.softmax(torch.randn(2, 4, 4), dim=-1)
    expect_on_meta(
        lambda: learner.row_sums(weights.to(META)), minimal.row_sums(weights).to(META), "row_sums on another device"
    )


ROW_SUMS: Grader = [("row_sums", _check_row_sums), ("on the weights' device", _check_row_sums_device)]
'''

GRADER_CASES = '''"""Wrong solutions and correct variants of the minimal chapter's exercise, row-sums."""

NO_HINT = None

WRONG = [
    ("sizes", "row-sums", "return weights.sum(dim=-1)", "return weights[..., :3].sum(dim=-1)", "(4, 2, 7, 7)"),
    ("device", "row-sums", "weights.sum(dim=-1)", "weights.sum(dim=-1) * torch.ones(weights.shape[:-1])", "device"),
    ("in place", "row-sums", "return weights.sum(dim=-1)", "return weights.cumsum_(dim=-1)[..., -1]", "in place"),
]

RIGHT = [
    ("sizes", "row-sums", "return weights.sum(dim=-1)", "return torch.einsum('...ij->...i', weights)"),
    ("device", "row-sums", "weights.sum(dim=-1)", "weights @ torch.ones(weights.shape[-1], device=weights.device)"),
    ("in place", "row-sums", "return weights.sum(dim=-1)", "return weights.clone().sum(dim=-1)"),
]
'''

CATALOGUE = """"Implement row sums": "实现行和"
"Return the sum of each row of a batch of attention weights.": "返回一批注意力权重每一行的和。"
"you summed each column (dim=-2): a row is one query's weights": "你对每一列求了和（dim=-2）：一行是一个查询的权重"
"row_sums of weights of shape {0}": "形状为 {0} 的权重的 row_sums"
"row_sums on another device": "在另一台设备上的 row_sums"
"on the weights' device": "在权重所在的设备上"
"""

RULES = [  # the unit tests that hold every chapter and every exercise to the house's rules
    "tests/unit/test_minimal.py",
    "tests/unit/test_contents.py",
    "tests/unit/test_exercises.py",
    "tests/unit/test_grader_mistakes.py",
    "tests/unit/test_cli_language.py",
    "tests/unit/test_translations.py",
    "tests/unit/test_lesson_shape.py",
    "tests/unit/test_claims.py",
    "tests/unit/test_checks_read_this_build.py",
]


def add_minimal_chapter(root):
    """What CONTRIBUTING.md asks of a new chapter: its folder, its module and the module's test, and its line in
    the order of the table of contents."""
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
    for name, text in [
        ("chapter.yml", ENTRY),
        ("exercises.py", EXERCISES),
        ("graders.py", GRADERS),
        ("grader_cases.py", GRADER_CASES),
        ("cli.zh.yml", CATALOGUE),
    ]:
        (folder / name).write_text(text, encoding="utf-8")
    (root / "tutorial_code" / "minimal.py").write_text(MODULE, encoding="utf-8")
    (root / "tests" / "unit" / "test_minimal.py").write_text(MODULE_TEST, encoding="utf-8")
    order = root / "docs" / "contents.yml"
    source = order.read_text(encoding="utf-8")
    order.write_text(source.replace("  - troubleshooting\n", "  - minimal\n  - troubleshooting\n", 1), "utf-8")


def changed_files(root) -> list[str]:
    """The files that differ from this checkout's: what adding the chapter touched."""
    changed = []
    for path in sorted(root.rglob("*")):
        name = path.relative_to(root).as_posix()
        if path.is_file() and "__pycache__" not in name and ".hypothesis" not in name:
            original = ROOT / name
            if not original.is_file() or original.read_bytes() != path.read_bytes():
                changed.append(name)
    return changed


def copy_of_the_checkout(target):
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT, capture_output=True, text=True)
    for name in files.stdout.splitlines():
        if (ROOT / name).is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            (target / name).write_bytes((ROOT / name).read_bytes())


def rules_that_see_the_new_chapter(node_ids: list[str]) -> list[str]:
    """The rules' tests that can see the new chapter: those made for it, and those not made for one chapter. A test
    made for another chapter (its parameters name one) runs in the suite already, on the same code."""
    others = {c.slug for c in CHAPTERS} | {c.slug.replace("_", "-") for c in CHAPTERS} | set(EXERCISE_NAMES)
    kept = []
    for node_id in node_ids:
        parameters = node_id.partition("[")[2]
        if "minimal" in parameters or not any(name in parameters for name in others):
            kept.append(node_id)
    return kept


def test_a_new_chapter_with_an_exercise_is_its_folder_its_module_and_one_line(tmp_path):
    copy_of_the_checkout(tmp_path)
    add_minimal_chapter(tmp_path)
    touched = changed_files(tmp_path)
    assert touched == [
        "docs/contents.yml",
        *(f"docs/minimal/{name}" for name in ("chapter.yml", "cli.zh.yml", "exercises.py", "grader_cases.py")),
        *(f"docs/minimal/{name}" for name in ("graders.py", "index.md", "index.zh.md", "script.py")),
        "tests/unit/test_minimal.py",
        "tutorial_code/minimal.py",
    ]
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
    for language, words in [("en", "you summed each column"), ("zh", "你对每一列求了和")]:  # the grader, as a learner
        wrong = tmp_path / f"learner-{language}"
        wrong.mkdir()
        environment = {**os.environ, "PYTHONPATH": str(tmp_path)}  # the copy's command, not this checkout's
        command = [sys.executable, "-m", "tutorial_tools", "exercise", "row-sums"]
        subprocess.run(command, cwd=wrong, capture_output=True, text=True, check=True, env=environment)
        starter = wrong / "row_sums.py"
        code = starter.read_text(encoding="utf-8")
        body = code.rindex("raise NotImplementedError")  # the body of row_sums, the last function
        starter.write_text(code[:body] + "return weights.sum(dim=-2)\n", encoding="utf-8")
        checked = subprocess.run(
            [sys.executable, "-m", "tutorial_tools", "check", "row-sums", "--lang", language],
            cwd=wrong,
            capture_output=True,
            text=True,
            env=environment,
        )
        assert checked.returncode == 1 and words in checked.stdout, checked.stdout[-2000:] + checked.stderr[-2000:]
