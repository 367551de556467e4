"""Reuse trained results between processes, keyed by the exact code that produced them.

Training the small models of the chapters takes a few seconds each; the site build,
the notebooks, the chapter commands and the tests all need the same models. When the
environment variable `TUTORIAL_CACHE_DIR` names a folder, a result is saved there the
first time it is computed and loaded the next time, by any process. The key holds the
arguments, the source of every `tutorial_code` module the computation depends on
(followed through imports), the PyTorch version and the number of CPU threads: edit
`encoder.py` and every model trained through it is trained again; edit `masks.py` and
nothing that does not import it is. Without the variable nothing is cached.

The site build sets the variable to `.cache/results` in the repository; delete that
folder, or set `TUTORIAL_CACHE_DIR` to an empty folder, to measure everything again.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import hashlib
import inspect
import os
import pickle
import sys
import types
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import torch
from torch import nn

CACHE_DIR_VARIABLE = "TUTORIAL_CACHE_DIR"
PACKAGE = "tutorial_code"
PACKAGE_DIR = Path(__file__).resolve().parent
# Modules that decide whether a result is reused, or draw progress bars: they never change what is
# computed, so editing them does not throw away every trained model.
NEUTRAL_MODULES = frozenset({"tutorial_code.result_cache", "tutorial_code.progress"})

LIBRARIES = {"torch", "numpy", *sys.stdlib_module_names}
T = TypeVar("T")


def cache_directory() -> Path | None:
    """The folder named by `TUTORIAL_CACHE_DIR`, created if needed, or None when caching is off."""
    value = os.environ.get(CACHE_DIR_VARIABLE, "").strip()
    if not value:
        return None
    directory = Path(value).expanduser()
    directory.mkdir(parents=True, exist_ok=True)
    return directory


def module_path(module: str) -> Path:
    """The source file of a `tutorial_code` module, for example `tutorial_code.masks`.

    Raises:
        ValueError: If `module` is not part of `tutorial_code` or has no source file.
    """
    if module != PACKAGE and not module.startswith(PACKAGE + "."):
        raise ValueError(f"{module!r} is not a tutorial_code module")
    parts = module.split(".")[1:]
    candidates = [PACKAGE_DIR.joinpath(*parts).with_suffix(".py"), PACKAGE_DIR.joinpath(*parts, "__init__.py")]
    for path in candidates:
        if path.is_file():
            return path
    raise ValueError(f"no source file for {module!r}: looked for {', '.join(str(p) for p in candidates)}")


@functools.lru_cache(maxsize=4096)
def imported_modules(source: str) -> frozenset[str]:
    """The `tutorial_code` modules that a piece of Python source imports directly.

    Examples:
        >>> sorted(imported_modules("from tutorial_code.masks import causal_mask\\nimport torch"))
        ['tutorial_code.masks']
        >>> sorted(imported_modules("from tutorial_code import attention"))
        ['tutorial_code.attention']
    """
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.split(".")[0] == PACKAGE)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == PACKAGE:
                for alias in node.names:
                    submodule = f"{PACKAGE}.{alias.name}"
                    with contextlib.suppress(ValueError):
                        module_path(submodule)
                        found.add(submodule)
            elif node.module.startswith(PACKAGE + "."):
                found.add(node.module)
    return frozenset(found)


def dependencies(modules: Iterable[str]) -> set[str]:
    """`modules` and every `tutorial_code` module they import, directly or not.

    Examples:
        >>> sorted(dependencies(["tutorial_code.multi_head"]))
        ['tutorial_code.attention', 'tutorial_code.multi_head']
    """
    seen: set[str] = set()
    pending = list(modules)
    while pending:
        module = pending.pop()
        if module in seen:
            continue
        seen.add(module)
        pending.extend(imported_modules(module_path(module).read_text(encoding="utf-8")) - seen)
    return seen


def code_fingerprint(modules: Iterable[str] = (), source: str = "") -> str:
    """A hash of `source`, of the modules it and `modules` depend on, of torch's version and thread count.

    The thread count is part of it because one and two threads add floats in different orders:
    their results differ in the last digits, and a page must not mix the two.
    """
    digest = hashlib.sha256()
    for module in sorted(dependencies(set(modules) | imported_modules(source) if source else set(modules))):
        if module in NEUTRAL_MODULES:
            continue
        digest.update(module.encode() + b"\0" + module_path(module).read_bytes() + b"\0")
    digest.update(source.encode())
    digest.update(f"torch {torch.__version__} threads {torch.get_num_threads()}".encode())
    return digest.hexdigest()


def data_fingerprint() -> str:
    """A hash of the benchmark results (`benchmarks/results-*.json`), which pages and figures read: written by
    `python -m tutorial_code.bench`, never by the build, so no code fingerprint covers them."""
    digest = hashlib.sha256()
    for data in sorted((PACKAGE_DIR.parent / "benchmarks").glob("results-*.json")):
        digest.update(data.name.encode() + b"\0" + data.read_bytes())
    return digest.hexdigest()


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on `path` (POSIX), so two processes never compute the same result twice."""
    try:
        import fcntl
    except ImportError:  # Windows: no lock, at worst a result is computed twice
        yield
        return
    with open(path, "a+b") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def cached(key: str, compute: Callable[[], T]) -> T:
    """Return the value saved under `key`, or compute, save and return it.

    `key` must already include a [`code_fingerprint`][tutorial_code.result_cache.code_fingerprint]
    of the code behind `compute`. Without `TUTORIAL_CACHE_DIR`, this just calls `compute()`.
    """
    directory = cache_directory()
    if directory is None:
        return compute()
    name = hashlib.sha256(key.encode()).hexdigest()[:32]
    path = directory / f"{name}.pt"
    with _locked(directory / f"{name}.lock"):
        if path.exists():
            try:
                return torch.load(path, weights_only=False)
            except (OSError, EOFError, pickle.UnpicklingError, RuntimeError, AttributeError):
                path.unlink(missing_ok=True)  # unreadable or from an older class layout: compute again
        value = compute()
        partial = path.with_suffix(f".{os.getpid()}.partial")
        torch.save(value, partial)
        partial.replace(path)
    return value


def in_package(owner: Any) -> bool:
    module = getattr(owner, "__module__", "") or ""
    return module == PACKAGE or module.startswith(PACKAGE + ".")


def _code_parts(code: types.CodeType) -> list[bytes]:
    """The parts of a code object that decide what it computes: not its file name or line numbers."""
    parts = [code.co_code, repr(code.co_names).encode()]
    for constant in code.co_consts:
        parts += _code_parts(constant) if isinstance(constant, types.CodeType) else [repr(constant).encode()]
    return parts


def _names(code: types.CodeType) -> set[str]:
    names = set(code.co_names)
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            names |= _names(constant)
    return names


def code_identity(owner: Any, modules: set[str], seen: set[int] | None = None) -> str:
    """A hash of what a function (or a class's methods) computes: its code, and the code of the functions and
    classes it calls that are defined beside it. What it calls from `tutorial_code` is added to `modules`,
    whose fingerprint covers it. So a copy of a `tutorial_code` function pasted into a page or a script
    has the identity of the original, and an edit to either gives a new one."""
    seen = set() if seen is None else seen
    seen.add(id(owner))
    functions = [owner] if inspect.isfunction(owner) else [v for v in vars(owner).values() if inspect.isfunction(v)]
    digest = hashlib.sha256(owner.__qualname__.encode())
    for function in functions:
        digest.update(b"".join(_code_parts(function.__code__)))
        for name in sorted(_names(function.__code__)):
            target = function.__globals__.get(name)
            if not (inspect.isfunction(target) or inspect.isclass(target)) or id(target) in seen:
                continue
            if in_package(target):
                modules.add(target.__module__)
            elif target.__module__ == function.__module__:
                seen.add(id(target))
                digest.update(code_identity(target, modules, seen).encode())
    return digest.hexdigest()[:16]


def describe(value: Any, modules: set[str]) -> str:
    """A stable text for one argument of a cached function: what it is, not where it lives in memory.

    The `tutorial_code` modules it depends on are added to `modules`.
    """

    def kind(cls: type) -> str:
        if in_package(cls):
            modules.add(cls.__module__)
            return f"{cls.__module__}.{cls.__qualname__}"
        if cls.__module__.split(".")[0] in LIBRARIES:  # their version is part of the key, or they do not compute
            return f"{cls.__module__}.{cls.__qualname__}"
        return f"{cls.__qualname__} code {code_identity(cls, modules)}"

    if isinstance(value, nn.Module):
        digest = hashlib.sha256()
        for name, tensor in value.state_dict().items():
            digest.update(name.encode() + tensor.detach().cpu().contiguous().numpy().tobytes())
        frozen = [name for name, parameter in value.named_parameters() if not parameter.requires_grad]
        kinds = sorted({kind(type(module)) for module in value.modules()})
        return f"{kinds}({value!r}, state {digest.hexdigest()}, frozen {frozen}, training {value.training})"
    if inspect.isfunction(value):
        return f"function {value.__qualname__} code {code_identity(value, modules)}"
    if inspect.isclass(value):
        return kind(value)
    if isinstance(value, torch.Tensor):
        data = value.detach().cpu().contiguous()
        return f"tensor {data.dtype} {tuple(data.shape)} {hashlib.sha256(data.numpy().tobytes()).hexdigest()}"
    return repr(value)


def cache_training(train: Callable[..., T]) -> Callable[..., T]:
    """Decorate a training function whose result has a `model`: reuse its saved result when caching is on.

    On a reused result the caller gets exactly what training would have given it: a model
    passed in is loaded with the trained weights, and torch's global random state is left
    as training leaves it, so the code that runs next draws the same numbers either way.
    """
    signature = inspect.signature(train)

    @functools.wraps(train)
    def train_or_reuse(*args: Any, **kwargs: Any) -> T:
        if cache_directory() is None:
            return train(*args, **kwargs)
        arguments = signature.bind(*args, **kwargs)
        arguments.apply_defaults()
        modules = {train.__module__}
        described = ", ".join(f"{name}={describe(value, modules)}" for name, value in arguments.arguments.items())
        key = f"{train.__module__}.{train.__qualname__}({described}) code {code_fingerprint(modules)}"

        def compute() -> tuple[T, torch.Tensor]:
            result = train(*args, **kwargs)
            return result, torch.get_rng_state()

        result, rng_state = cached(key, compute)
        torch.set_rng_state(rng_state)
        given = arguments.arguments.get("model")
        if isinstance(given, nn.Module) and result.model is not given:
            given.load_state_dict(result.model.state_dict())
            given.eval()
            result.model = given
        return result

    return train_or_reuse
