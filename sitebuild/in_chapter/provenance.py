"""Which names of a chapter hold a value that this build did not compute: a recorded run or a committed benchmark.

A check of a page must read only what the build computed (`sitebuild.in_chapter.claims`). Two kinds of value are not:

- a recorded run (a function marked `@recorded`, read from `benchmarks/recorded-runs.json`);
- a benchmark result, read from `tutorial_code/results-cpu.json`, measured on another day on some machine.

`recorded_names(source)` reads a chapter script and follows such values through its assignments, loops and method
calls (`rows.append(...)`), without running it: a name is marked when anything it is computed from is marked, anywhere
in the script. It errs on the safe side: a name that once holds a recorded value is marked everywhere. The functions
of `tutorial_code` that call a recorded run or read the benchmark file are marked too, so a wrapper does not hide one.
`tests/unit/test_checks_read_this_build.py` fails when a check reads a marked name.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

from sitebuild.in_chapter.recorded_runs import recorded_functions
from tutorial_tools.sections import marker

MUTATING = {"append", "extend", "insert", "update", "add", "setdefault", "__setitem__"}  # what rows.append(x) does
RECORDED_FILES = ("results-cpu.json", "recorded-runs.json")  # a string naming one marks what it is read into


def _mentions(node: ast.AST, marked: set[str], sources: set[str]) -> bool:
    """Whether `node` reads a marked name, calls a source function or names a recorded file."""
    for inner in ast.walk(node):
        if isinstance(inner, ast.Name) and inner.id in marked | sources:
            return True
        if isinstance(inner, ast.Attribute) and inner.attr in sources:
            return True
        if isinstance(inner, ast.Constant) and isinstance(inner.value, str):
            if any(name in inner.value for name in RECORDED_FILES):
                return True
    return False


def _base_names(target: ast.AST) -> Iterable[str]:
    """The names an assignment target binds or changes: `x`, `x[i]`, `x.a`, `a, b`."""
    if isinstance(target, ast.Name):
        yield target.id
    elif isinstance(target, ast.Subscript | ast.Attribute | ast.Starred):
        yield from _base_names(target.value)
    elif isinstance(target, ast.Tuple | ast.List):
        for item in target.elts:
            yield from _base_names(item)


def _marked_by(node: ast.AST, marked: set[str], sources: set[str]) -> set[str]:
    """The names that `node` (one statement or expression) marks, given those already marked."""
    found: set[str] = set()
    if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign | ast.NamedExpr):
        value = node.value
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        if value is not None and _mentions(value, marked, sources):
            for target in targets:
                found.update(_base_names(target))
    elif isinstance(node, ast.For | ast.AsyncFor):
        if _mentions(node.iter, marked, sources):
            found.update(_base_names(node.target))
    elif isinstance(node, ast.withitem):
        if node.optional_vars is not None and _mentions(node.context_expr, marked, sources):
            found.update(_base_names(node.optional_vars))
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in MUTATING:
        arguments = [*node.args, *(keyword.value for keyword in node.keywords)]
        if any(_mentions(argument, marked, sources) for argument in arguments):
            found.update(_base_names(node.func.value))  # rows.append(recorded): rows is marked
    elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        if _mentions(node, marked - _local_names(node), sources):
            found.add(node.name)  # a function that reads one: what it returns is marked
    return found


def _local_names(node: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """A function's parameters and the names it assigns: its own, whatever the script calls them elsewhere."""
    arguments = node.args
    every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs, arguments.vararg, arguments.kwarg]
    names = {argument.arg for argument in every if argument is not None}
    for inner in ast.walk(node):
        if isinstance(inner, ast.Name) and isinstance(inner.ctx, ast.Store):
            names.add(inner.id)
    return names


def _script_nodes(tree: ast.AST) -> list[ast.AST]:
    """The statements and expressions of the script's own scope: a function counts as one node (its body is its
    own scope), and so does a comprehension (its loop variable is its own)."""
    found: list[ast.AST] = []
    stack = [tree]
    while stack:
        node = stack.pop()
        found.append(node)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
            continue
        if isinstance(node, ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp):
            continue
        stack.extend(ast.iter_child_nodes(node))
    return found


def _grow(nodes: list[ast.AST], marked: set[str], sources: set[str]) -> set[str]:
    while True:
        more = set().union(*(_marked_by(node, marked, sources) for node in nodes)) - marked
        if not more:
            return marked
        marked = marked | more


def marked_after(tree: ast.Module, sources: set[str]) -> list[tuple[int, set[str]]]:
    """The marked names after each top-level statement of the script, in order, with the statement's last line.

    A statement that assigns a name a value computed from nothing marked clears its mark (`x = 0` after
    `x = recorded(...)`): the chapter runs top to bottom, and a check reads the names as they stand then.
    """
    marked: set[str] = set()
    states = []
    for statement in tree.body:
        marked = _grow(_script_nodes(statement), marked, sources)
        if isinstance(statement, ast.Assign) and not _mentions(statement.value, marked, sources):
            marked = marked - {t.id for t in statement.targets if isinstance(t, ast.Name)}
        states.append((statement.end_lineno or statement.lineno, set(marked)))
    return states


def marked_names(tree: ast.Module, sources: set[str]) -> set[str]:
    """Every name that holds, or may hold, a value computed from a source at the end of the script."""
    states = marked_after(tree, sources)
    return states[-1][1] if states else set()


def source_functions(root: Path) -> set[str]:
    """The `@recorded` functions, and every function of `tutorial_code` (outside the chapters) that calls one or reads
    a recorded file, directly or through another such function."""
    sources = set(recorded_functions(root))
    trees = [ast.parse(path.read_text(encoding="utf-8")) for path in sorted((root / "tutorial_code").glob("*.py"))]
    while True:
        more = set()
        for tree in trees:
            # a module constant that names a recorded file (RESULTS_FILE = "results-cpu.json") marks what reads it
            constants = marked_names(ast.Module(body=[n for n in tree.body if isinstance(n, ast.Assign)]), sources)
            more |= {
                node.name
                for node in tree.body
                if isinstance(node, ast.FunctionDef)
                and node.name not in sources
                and _mentions(node, constants - _local_names(node), sources)
            }
        if not more:
            return sources
        sources |= more


def recorded_names(source: str, root: Path) -> set[str]:
    """The names of a chapter script (its source) that hold, or may hold, a value this build did not compute."""
    return marked_names(ast.parse(source), source_functions(root))


def recorded_names_by_section(source: str, root: Path) -> dict[str, set[str]]:
    """For each section of a chapter script, the names that hold a value this build did not compute when the section
    ends, which is when its checks run."""
    states = marked_after(ast.parse(source), source_functions(root))
    found = {}
    for number, line in enumerate(source.splitlines(), start=1):
        end = marker(line)
        if end and end[0] == "end":
            found[end[1]] = next((marked for last, marked in reversed(states) if last <= number), set())
    return found
