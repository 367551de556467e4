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
ROOT = Path(__file__).resolve().parent.parent


def module_path(module: str, root: Path = ROOT) -> Path:
    """The source file of a `tutorial_code` module, for example `tutorial_code.masks`.

    Raises:
        ValueError: If `module` is not part of `tutorial_code` or has no source file.
    """
    if module != PACKAGE and not module.startswith(PACKAGE + "."):
        raise ValueError(f"{module!r} is not a tutorial_code module")
    parts = module.split(".")
    candidates = [root.joinpath(*parts).with_suffix(".py"), root.joinpath(*parts, "__init__.py")]
    for path in candidates:
        if path.is_file():
            return path
    raise ValueError(f"no source file for {module!r}: looked for {', '.join(str(p) for p in candidates)}")


@functools.lru_cache(maxsize=4096)
def imported_modules(source: str, root: Path = ROOT) -> frozenset[str]:
    """The `tutorial_code` modules that a piece of Python source imports directly.

    Examples:
        >>> sorted(imported_modules("from tutorial_code.masks import causal_mask\\nimport torch"))
        ['tutorial_code.masks']
        >>> sorted(imported_modules("from tutorial_code import attention"))
        ['tutorial_code.attention']
        >>> sorted(imported_modules("if TYPE_CHECKING:\\n    from tutorial_code.encoder import Encoder"))
        []
    """
    tree = ast.parse(source)
    for block in ast.walk(tree):  # imports for annotations only (`if TYPE_CHECKING:`) run no code
        if isinstance(block, ast.If) and "TYPE_CHECKING" in ast.unparse(block.test):
            block.body = []
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.split(".")[0] == PACKAGE)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == PACKAGE:
                for alias in node.names:
                    submodule = f"{PACKAGE}.{alias.name}"
                    with contextlib.suppress(ValueError):
                        module_path(submodule, root)
                        found.add(submodule)
            elif node.module.startswith(PACKAGE + "."):
                found.add(node.module)
    return frozenset(found)


def dependencies(modules: Iterable[str], root: Path = ROOT) -> set[str]:
    """`modules` and every `tutorial_code` module they import, directly or not.

    Examples:
        >>> sorted(dependencies(["tutorial_code.multi_head"]))
        ['tutorial_code.attention', 'tutorial_code.masks', 'tutorial_code.multi_head', 'tutorial_code.validation']
    """
    seen: set[str] = set()
    pending = list(modules)
    while pending:
        module = pending.pop()
        if module in seen:
            continue
        seen.add(module)
        pending.extend(imported_modules(module_path(module, root).read_text(encoding="utf-8"), root) - seen)
    return seen


def code_fingerprint(modules: Iterable[str] = (), source: str = "", root: Path = ROOT) -> str:
    """A hash of `source` and of every module that it and `modules` depend on, with the Python version."""
    digest = hashlib.sha256()
    wanted = set(modules) | (imported_modules(source, root) if source else set())
    for module in sorted(dependencies(wanted, root)):
        digest.update(module.encode() + b"\0" + module_path(module, root).read_bytes() + b"\0")
    digest.update(source.encode())
    digest.update(f"python {platform.python_version()}".encode())
    return digest.hexdigest()


def data_fingerprint(root: Path = ROOT) -> str:
    """A hash of the benchmark results (`benchmarks/results-*.json`), which a chapter reads: written by the
    benchmark, never by the build, so no code fingerprint covers them."""
    digest = hashlib.sha256()
    for data in sorted((root / "benchmarks").glob("results-*.json")):
        digest.update(data.name.encode() + b"\0" + data.read_bytes())
    return digest.hexdigest()


def library_versions(root: Path = ROOT) -> str:
    """The installed version of every requirement in `requirements.txt`, with Python's: a chapter run or a training
    made with other versions of torch, NumPy, matplotlib … is made again, since its numbers, figures and error
    texts may differ (the troubleshooting page prints PyTorch's own messages)."""
    names = []
    for line in (root / "requirements.txt").read_text(encoding="utf-8").splitlines():
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
