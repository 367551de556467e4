"""Share trained models between the chapters of one build.

Seven chapters train the same sum-task model; two train the reversal model, two the language
model. Each chapter runs once per build, in its own process. The training functions marked
`@reusable` (`tutorial_code/shared_runs.py`: the digit model's, the reversal's, the language
model's) call [`cache_training`][sitebuild.in_chapter.training_cache.cache_training] when the build has set
`TUTORIAL_CACHE_DIR`, so that a training already done by another chapter, with the same arguments
and the same code, is loaded instead of repeated. The key
holds the arguments, the source of every `tutorial_code` module the training depends on
(followed through imports), the Python and PyTorch versions (the language model's text comes
with Python) and the number of CPU threads. A reused result is exactly what training would
have returned, wall-clock time aside: the model passed in gets the trained weights, and
torch's global random state is left as training leaves it.

The folder is `TUTORIAL_CACHE_DIR`; the build sets it to `.cache/trainings`.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import inspect
import os
import pickle
import sys
import types
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import torch
from torch import nn

from sitebuild.checkout import code_root
from sitebuild.fingerprint import PACKAGE, code_fingerprint, library_versions

CACHE_DIR_VARIABLE = "TUTORIAL_CACHE_DIR"  # the folder of saved trainings; the build sets it for its chapters

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


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
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

    `key` must already include a fingerprint of the code behind `compute`.
    Without `TUTORIAL_CACHE_DIR`, this just calls `compute()`.
    """
    directory = cache_directory()
    if directory is None:
        return compute()
    name = hashlib.sha256(key.encode()).hexdigest()[:32]
    path = directory / f"{name}.pt"
    with locked(directory / f"{name}.lock"):
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
    """Wrap a training function whose result has a `model`: reuse its saved result when caching is on.

    On a reused result the caller gets exactly what training would have given it: a model
    passed in is loaded with the trained weights, and torch's global random state is left
    as training leaves it, so the code that runs next draws the same numbers either way.
    """
    train = inspect.unwrap(train)  # the function itself, not its `@reusable` mark (which calls this one)
    signature = inspect.signature(train)

    @functools.wraps(train)
    def train_or_reuse(*args: Any, **kwargs: Any) -> T:
        if cache_directory() is None:
            return train(*args, **kwargs)
        arguments = signature.bind(*args, **kwargs)
        arguments.apply_defaults()
        modules = {train.__module__}
        described = ", ".join(f"{name}={describe(value, modules)}" for name, value in arguments.arguments.items())
        fingerprint = code_fingerprint(modules, root=code_root())
        key = f"{train.__module__}.{train.__qualname__}({described}) code {fingerprint} {torch_build()}"

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


def torch_build() -> str:
    """The libraries' versions (PyTorch's build included) and the thread count: one and two threads add floats
    in different orders."""
    return f"{library_versions(code_root())}, torch build {torch.__version__}, threads {torch.get_num_threads()}"
