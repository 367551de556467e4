"""The one conftest of the three tiers, each a marker (`pytest -m unit`, `-m integration`, `-m site`).

- `unit` (tests/unit/ and the docstring examples): models, masks, equality with PyTorch, bad input,
  the build's fingerprints. No training and no subprocess: a unit test that steps an optimizer or
  starts a process fails, and says to mark it `integration`. The quickest tier: `-m unit`.
- `integration` (tests in tests/unit/ marked so): trainings, the command line, grading in a separate
  process.
- `site` (tests/site/): the built site, its pages, notebooks, browser behaviour, the CLI on every chapter.

The site is built once per test run. Figures measured by the tests (largest difference against
PyTorch, build time) are printed at the end of the run, so a reader of the CI log sees them.
"""

import functools
import os
import subprocess
import sys
import time
from pathlib import Path

import jupytext  # noqa: F401 - imported before any test: it runs `pandoc --version` when first imported
import pytest
import torch
from filelock import FileLock
from torch.optim.optimizer import register_optimizer_step_pre_hook

ROOT = Path(__file__).resolve().parent.parent

# Several pytest-xdist workers share the machine's cores: one PyTorch thread each, and in the processes they start,
# so that thread pools do not fight over the cores (on 2 cores the unit tier took 45 s with PyTorch's default
# threads, 32 s with one). The build's chapters run with one thread already (sitebuild/in_mkdocs/chapters.py).
if int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")) > 1:
    os.environ["OMP_NUM_THREADS"] = "1"
    torch.set_num_threads(1)
_LARGEST_DIFFERENCE: dict[str, float] = {}
REPORT: dict[str, str] = {}


def load_file(relative: str):
    """Import a script by its path (scripts/ is not a package)."""
    import importlib.util

    path = ROOT / relative
    spec = importlib.util.spec_from_file_location(path.stem + "_under_test", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def prepared_env() -> dict[str, str]:
    """The environment of a program run the way the build runs a chapter: one CPU thread, no progress bars,
    no display, and the build's shared trainings (`.cache/trainings`), so that a test that runs a chapter
    again reuses the models the build trained and gets the same last digits."""
    from sitebuild.in_mkdocs.chapters import build_environment

    path = os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])  # finds sitebuild
    return (
        os.environ
        | build_environment(ROOT)
        | {"TUTORIAL_CACHE_DIR": str(ROOT / ".cache" / "trainings"), "PYTHONPATH": path}
    )


def prepared_command(program: str) -> list[str]:
    """Run the Python file `program` as `__main__` after `sitebuild.in_chapter.kernel.prepare`, as the build
    runs a chapter."""
    return [sys.executable, "-m", "sitebuild.in_chapter.kernel", str(ROOT), program]


def stdout_of(notebook) -> list[str]:
    """What each code cell of an executed notebook printed (one cell's printing may span several stream outputs)."""
    return [
        "".join(
            "".join(output["text"])
            for output in cell.get("outputs", [])
            if output.get("output_type") == "stream" and output.get("name") == "stdout"
        )
        for cell in notebook["cells"]
        if cell["cell_type"] == "code"
    ]


@functools.cache
def executed_chapters() -> dict[str, dict]:
    """Each chapter's run that the session's build stored (`.cache/chapters/<name>-<key>.ipynb`), as JSON, by
    chapter: its outputs, and in its metadata the checks it ran and the recorded runs it read. Read once per
    process (several MB of notebooks; the site is built once per test run): do not change what it returns."""
    import json

    from sitebuild.checkout import Checkout
    from sitebuild.in_mkdocs.chapters import chapter_scripts, read_notebook

    runs = {}
    for name, script in chapter_scripts(ROOT).items():
        stored = Checkout(ROOT).store / f"{name}-{read_notebook(script).key()}.ipynb"
        assert stored.exists(), f"the build left no run of {name}"
        runs[name] = json.loads(stored.read_text("utf-8"))
    return runs


def notebook_stdout(site: Path, chapter: str) -> str:
    """Everything a chapter printed when the site was built: the stdout of its downloadable notebook."""
    import json

    return "".join(stdout_of(json.loads((site / "notebooks" / chapter / f"{chapter}.ipynb").read_text("utf-8"))))


def site_prefix() -> str:
    """The path under which the site is served, from `site_url` in mkdocs.yml (for example `/attention-by-hand/`)."""
    from urllib.parse import urlsplit

    from sitebuild.in_mkdocs.build import published_site_url

    return urlsplit(published_site_url(ROOT / "mkdocs.yml")).path or "/"


@pytest.fixture(scope="session")
def site(tmp_path_factory) -> Path:
    """Build the whole site once per test run, strictly, into a temporary folder. Under pytest-xdist
    (`-n 2`, as `scripts/dev.sh test` runs) the first worker that needs it builds it, and the others wait
    for that build and read the same folder."""
    if "PYTEST_XDIST_WORKER" not in os.environ:  # one process
        return build_site(tmp_path_factory.mktemp("site"))
    shared = tmp_path_factory.getbasetemp().parent  # this run's folder, common to its workers
    out = shared / "site"
    with FileLock(str(shared / "site.lock")):
        if (out / ".build-log.txt").is_file():
            return out
        return build_site(out)


def build_site(out: Path) -> Path:
    env = prepared_env() | {"DISABLE_MKDOCS_2_WARNING": "true", "NO_MKDOCS_2_WARNING": "1"}
    start = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env,
        timeout=900,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-5000:]
    REPORT["site build (mkdocs build --strict, with the cache as the test run found it)"] = (
        f"{time.perf_counter() - start:.1f} s"
    )
    for line in result.stderr.splitlines():
        if "chapters executed" in line:
            REPORT.setdefault("site build log", "")
            REPORT["site build log"] += "\n  " + line.split("-  ", 1)[-1]
    (out / ".build-log.txt").write_text(result.stderr, encoding="utf-8")
    return out


@pytest.fixture
def assert_matches_torch():
    """Assert `ours` equals `theirs` within atol 1e-5 and record the difference under `reference`."""

    def check(reference: str, ours: torch.Tensor, theirs: torch.Tensor, atol: float = 1e-5) -> None:
        difference = (ours - theirs).abs().max().item() if ours.numel() else 0.0
        _LARGEST_DIFFERENCE[reference] = max(difference, _LARGEST_DIFFERENCE.get(reference, 0.0))
        torch.testing.assert_close(ours, theirs, atol=atol, rtol=0)

    return check


def pytest_collection_modifyitems(config, items):
    """Mark each test with its tier: `site` and `integration` by folder (or marker), `unit` for the rest."""
    for item in items:
        path = Path(str(item.fspath))
        if "site" in path.relative_to(ROOT).parts[:2]:
            item.add_marker(pytest.mark.site)
        elif "integration" in path.relative_to(ROOT).parts[:2] or item.get_closest_marker("integration"):
            item.add_marker(pytest.mark.integration)
        else:
            item.add_marker(pytest.mark.unit)

    # Under pytest-xdist (`--dist loadfile --no-loadscope-reorder`: whole files, in this order) the browser file
    # comes first, so the worker that takes it builds the site while the other runs the unit tier.
    def order(item) -> int:
        return 0 if item.path.name == "test_browser.py" else 2 if item.get_closest_marker("site") else 1

    items.sort(key=order)


class TierError(AssertionError):
    """A unit test did what only an integration test may do."""


@pytest.fixture(autouse=True)
def unit_tier_rules(request, monkeypatch):
    """A unit test trains nothing and starts no process."""
    if not request.node.get_closest_marker("unit"):
        yield
        return

    def no_process(*args, **kwargs):
        raise TierError("a unit test starts no process: mark the test @pytest.mark.integration")

    def no_training(optimizer, args, kwargs):
        raise TierError("a unit test trains nothing (an optimizer stepped): mark the test @pytest.mark.integration")

    monkeypatch.setattr(subprocess.Popen, "__init__", no_process)
    handle = register_optimizer_step_pre_hook(no_training)
    try:
        yield
    finally:
        handle.remove()


def pytest_sessionfinish(session):
    """A pytest-xdist worker hands what it measured to the controller, which prints the summary."""
    output = getattr(session.config, "workeroutput", None)
    if output is not None:
        output["largest_difference"] = dict(_LARGEST_DIFFERENCE)
        output["report"] = dict(REPORT)


@pytest.hookimpl(optionalhook=True)  # a hook of pytest-xdist
def pytest_testnodedown(node, error):
    """On the controller: what a worker measured (see pytest_sessionfinish)."""
    output = getattr(node, "workeroutput", {})
    for reference, difference in output.get("largest_difference", {}).items():
        _LARGEST_DIFFERENCE[reference] = max(difference, _LARGEST_DIFFERENCE.get(reference, 0.0))
    REPORT.update(output.get("report", {}))


def pytest_terminal_summary(terminalreporter):
    if _LARGEST_DIFFERENCE:
        terminalreporter.section("largest difference against PyTorch (fp32)")
        for reference, difference in sorted(_LARGEST_DIFFERENCE.items()):
            terminalreporter.write_line(f"{reference}: {difference:.2e}")
    if REPORT:
        terminalreporter.section("measured by the site tests")
        for name, value in REPORT.items():
            terminalreporter.write_line(f"{name}: {value}")
