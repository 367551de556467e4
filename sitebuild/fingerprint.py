"""What a piece of code depends on: the `tutorial_code` modules it imports, followed through imports.

Everything here reads source files of one checkout (`root`); nothing imports `tutorial_code`.
So the build fingerprints the very files its kernels execute, whatever copy of the package
happens to be installed in the environment.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import hashlib
import importlib.metadata
import platform
import re
from collections.abc import Iterable
from pathlib import Path

PACKAGE = "tutorial_code"
PACKAGES = (PACKAGE,)  # what the fingerprints of the reader's code follow; the chapter key adds the build's own


def module_path(module: str, root: Path, packages: tuple[str, ...] = PACKAGES) -> Path:
    """The source file of a module of `packages` (`tutorial_code`), for example `tutorial_code.masks`.

    Raises:
        ValueError: If `module` is not part of `packages` or has no source file.
    """
    if module.split(".")[0] not in packages:
        raise ValueError(f"{module!r} is not a module of {', '.join(packages)}")
    parts = module.split(".")
    candidates = [root.joinpath(*parts).with_suffix(".py"), root.joinpath(*parts, "__init__.py")]
    for path in candidates:
        if path.is_file():
            return path
    raise ValueError(f"no source file for {module!r}: looked for {', '.join(str(p) for p in candidates)}")


@functools.lru_cache(maxsize=4096)
def imported_modules(source: str, root: Path, packages: tuple[str, ...] = PACKAGES) -> frozenset[str]:
    """The modules of `packages` (`tutorial_code`) that a piece of Python source imports directly.

    Examples:
        >>> sorted(imported_modules("from tutorial_code.masks import causal_mask\\nimport torch", Path()))
        ['tutorial_code.masks']
        >>> sorted(imported_modules("from tutorial_code import attention", Path()))
        ['tutorial_code.attention']
        >>> sorted(imported_modules("if TYPE_CHECKING:\\n    from tutorial_code.encoder import Encoder", Path()))
        []
    """
    tree = ast.parse(source)
    for block in ast.walk(tree):  # imports for annotations only (`if TYPE_CHECKING:`) run no code
        if isinstance(block, ast.If) and "TYPE_CHECKING" in ast.unparse(block.test):
            block.body = []
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.split(".")[0] in packages)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module in packages:
                for alias in node.names:
                    submodule = f"{node.module}.{alias.name}"
                    with contextlib.suppress(ValueError):
                        module_path(submodule, root, packages)
                        found.add(submodule)
            elif node.module.split(".")[0] in packages:
                found.add(node.module)
    return frozenset(found)


def dependencies(modules: Iterable[str], root: Path, packages: tuple[str, ...] = PACKAGES) -> set[str]:
    """`modules` and every module of `packages` (`tutorial_code`) they import, directly or not.

    Examples:
        >>> sorted(dependencies(["tutorial_code.multi_head"], Path()))
        ['tutorial_code.attention', 'tutorial_code.masks', 'tutorial_code.multi_head', 'tutorial_code.validation']
    """
    seen: set[str] = set()
    pending = list(modules)
    while pending:
        module = pending.pop()
        if module in seen:
            continue
        seen.add(module)
        source = module_path(module, root, packages).read_text(encoding="utf-8")
        pending.extend(imported_modules(source, root, packages) - seen)
    return seen


def code_fingerprint(
    modules: Iterable[str] = (), source: str = "", *, root: Path, packages: tuple[str, ...] = PACKAGES
) -> str:
    """A hash of `source` and of every module of `packages` that it and `modules` depend on, with the files of
    package data those modules name (`tutorial_code/results-cpu.json`, read by `benchmark_results`), and the
    Python version."""
    digest = hashlib.sha256()
    wanted = set(modules) | (imported_modules(source, root, packages) if source else set())
    for module in sorted(dependencies(wanted, root, packages)):
        code = module_path(module, root, packages).read_bytes()
        digest.update(module.encode() + b"\0" + code + b"\0")
        for data in package_data(module, code.decode("utf-8"), root):
            digest.update(data.name.encode() + b"\0" + data.read_bytes() + b"\0")
    digest.update(source.encode())
    digest.update(f"python {platform.python_version()}".encode())
    return digest.hexdigest()


def package_data(module: str, source: str, root: Path) -> list[Path]:
    """The data files of `module`'s package (not Python) whose names its source mentions: what it may read.

    Examples:
        >>> [p.name for p in package_data("tutorial_code.benchmark_results", 'NAME = "results-cpu.json"', Path())]
        ['results-cpu.json']
    """
    folder = root.joinpath(*module.split(".")[:1])
    return [
        path for path in sorted(folder.iterdir()) if path.suffix != ".py" and path.is_file() and path.name in source
    ]


def library_versions(root: Path) -> str:
    """The installed version of every requirement in `requirements.txt`, with Python's: a chapter run or a training
    made with other versions of torch, NumPy, matplotlib … is made again, since its numbers, figures and error
    texts may differ (the troubleshooting page prints PyTorch's own messages)."""
    names = []
    requirements = root / "requirements.txt"
    listed = requirements.read_text(encoding="utf-8") if requirements.exists() else "torch"  # an installed copy
    for line in listed.splitlines():
        match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", line.split("#", 1)[0])
        if match:
            names.append(match[1])
    versions = [f"python {platform.python_version()}"]
    for name in sorted(set(names)):
        try:
            versions.append(f"{name} {importlib.metadata.version(name)}")
        except importlib.metadata.PackageNotFoundError:
            versions.append(f"{name} not installed")
    return ", ".join(versions)
