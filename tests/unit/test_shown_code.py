"""What a page shows of the code it includes (tutorial_tools/shown_code.py): the lesson's lines, each import in
the block that first uses it, and code that still runs block after block."""

import ast

import pytest
from snippets import folded_blocks, page_name, pages

from tutorial_tools.shown_code import Imported, placed, render, trimmed

LIBRARY_FUNCTION = '''def padding_mask(lengths, max_len=None):
    """Mask (B, 1, 1, T) that hides the padding.

    `True` for real tokens.
    """
    check_lengths(lengths, "lengths")
    keep = lengths[:, None] > 0
    return keep
'''


def test_a_lesson_block_keeps_one_docstring_line_and_no_input_check():
    assert trimmed(LIBRARY_FUNCTION) == (
        'def padding_mask(lengths, max_len=None):\n    """Mask (B, 1, 1, T) that hides the padding."""\n'
        "    keep = lengths[:, None] > 0\n    return keep\n"
    )


def test_a_check_that_is_the_whole_body_stays_so_the_code_still_runs():
    code = "def f(x):\n    check_x(x)\n"
    assert trimmed(code) == code


def test_an_import_moves_to_the_first_lesson_block_that_uses_it_and_a_folded_box_borrows_it():
    setup = "import math\nfrom torch import nn, optim\n\nSEED = 0\n"
    folded = "layer = nn.Linear(2, 2)\n"
    first_use = "model = nn.Linear(2, 2)\n"
    shown = placed([setup, folded, first_use], [True, False, True])
    assert shown[0] == "SEED = 0\n"  # math and optim: used by no block, gone; nn: moved
    assert shown[1] == "from torch import nn\n\nlayer = nn.Linear(2, 2)\n"
    assert shown[2] == "from torch import nn\n\nmodel = nn.Linear(2, 2)\n"


def test_a_name_the_block_defines_takes_no_import():
    shown = placed(["from x import describe\n", "def describe():\n    return 1\n\n\ndescribe()\n"], [True, True])
    assert "import" not in shown[1]


def test_a_long_import_is_packed_into_lines_that_fit_the_column():
    names = [Imported("tutorial_code.language_model", name, None) for name in ["a" * 30, "b" * 30, "c" * 30]]
    lines = render(names)
    assert len(lines) == 4 and all(len(line) <= 80 for line in lines)
    assert ast.parse("\n".join(lines))


def bound_names(tree: ast.AST) -> set[str]:
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            names |= {(alias.asname or alias.name).split(".")[0] for alias in node.names}
    return names


@pytest.mark.parametrize("page", [p for p in pages() if folded_blocks(p)], ids=page_name)
def test_each_lesson_block_imports_only_what_it_uses_and_what_it_uses_was_imported_in_the_lesson(page):
    imported_on_page = set()
    for block, _ in folded_blocks(page):
        try:
            imported_on_page |= bound_names(ast.parse(block.code()))
        except SyntaxError:
            continue
    seen: set[str] = set()  # imported by the lesson's blocks so far, or defined by any block above
    for block, folded in folded_blocks(page):
        try:
            tree = ast.parse(block.code())
        except SyntaxError:
            continue
        defined = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        defined |= {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.ClassDef)}
        if not folded and block.shown:
            imports = bound_names(tree) - {"annotations"}
            rest = ast.Module([s for s in tree.body if not isinstance(s, ast.Import | ast.ImportFrom)], [])
            used = {node.id for node in ast.walk(rest) if isinstance(node, ast.Name)}
            assert imports <= used, f"{page_name(page)}: a block imports {sorted(imports - used)} and never uses it"
            missing = (used & imported_on_page) - seen - imports - defined
            assert not missing, f"{page_name(page)}: a block uses {sorted(missing)}, which no block above imports"
            seen |= imports
        seen |= defined


def test_an_if_that_only_checks_goes_with_its_check():
    code = "def f(x, mask=None):\n    if mask is not None:\n        check_mask(mask)\n    return x\n"
    assert trimmed(code) == "def f(x, mask=None):\n    return x\n"


def test_a_name_read_before_the_block_defines_it_still_gets_its_import():
    folded = "def train() -> Result:\n    pass\n\n\nclass Result:\n    pass\n"
    shown = placed(["from m import Result\n\nx = 1\n", folded], [True, False])
    assert shown[1].startswith("from m import Result\n")
