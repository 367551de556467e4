"""Measure the three build times the README reports, on this machine.

    .venv/bin/python scripts/measure_build.py                 # measure, print, write benchmarks/build-times.json
    .venv/bin/python scripts/measure_build.py --update-readme # and rewrite the figures in README.md

1. Cold build: `mkdocs build --strict` after deleting `.cache/` (chapter runs, shared
   trainings), as on a fresh clone: every chapter executed once, every figure drawn, every
   model trained. Just before it and just after it, each in a fresh process, the
   yardstick of this machine's speed (`benchmarks/yardstick.py`; the speed of a shared machine drifts): the
   script prints and records both runs, and the ratio of the build to their mean.
   The build is held to at most 20 times the yardstick; the ratio is a benchmark, not a test.
2. Prose edit: with `mkdocs serve` running, add a sentence to a page; the time until the
   served page contains it (the median of five edits).
3. Code edits: with `mkdocs serve` running, change `tutorial_code/debugging.py`, then
   `tutorial_code/positional.py` (a comment); the time until each rebuild is done, and which
   chapters ran again: only those that import the module, directly or not.

Both edits are undone at the end, also when the script fails. The README's figures are
written by `--update-readme` from the JSON file, never by hand.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
import uuid
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUTPUT = ROOT / "benchmarks" / "build-times.json"
YARDSTICK = ROOT / "benchmarks" / "yardstick.py"  # this machine's speed as one number
PROSE_PAGE = ROOT / "docs" / "masks" / "index.md"
PROSE_PAGE_ZH = ROOT / "docs" / "masks" / "index.zh.md"  # the same page in the Chinese edition
CODE_MODULES = [ROOT / "tutorial_code" / "debugging.py", ROOT / "tutorial_code" / "positional.py"]
PROSE_REPEATS = 5
# The end of each rebuild: MkDocs logs "Reloading browsers" with the time, every time (it drops a log line
# that repeats the one before, such as two "Documentation built in 0.54 seconds").
BUILT = r"Reloading browsers"
README_START, README_END = "<!-- build-times:start -->", "<!-- build-times:end -->"
ENV = os.environ | {"DISABLE_MKDOCS_2_WARNING": "true", "NO_MKDOCS_2_WARNING": "1"}
ENV.pop("TUTORIAL_CACHE_DIR", None)  # the build's own folder, .cache/trainings
EXTRA = os.environ.get("SERVE_OPTIONS", "--dirty --no-strict").split()  # as `bash scripts/dev.sh serve` runs it


def one_training() -> float:
    """Seconds of the yardstick, `benchmarks/yardstick.py` (500 Adam steps of a small nn.TransformerEncoder on one
    thread), in a fresh process; without it, one 500-step sum-task training of this package."""
    env = ENV | {"TQDM_DISABLE": "1", "PYTHONPATH": str(ROOT)}
    if YARDSTICK.exists():
        code = f"import runpy; print(runpy.run_path({str(YARDSTICK)!r})['yardstick']())"
    else:
        code = "from tutorial_code.sum_task import train_sum_model; print(train_sum_model(steps=500, seed=0).seconds)"
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"the training failed:\n{result.stderr[-3000:]}")
    return round(float(result.stdout.strip().splitlines()[-1]), 2)


def cold_build() -> dict:
    shutil.rmtree(ROOT / ".cache", ignore_errors=True)
    with tempfile.TemporaryDirectory() as site:
        start = time.perf_counter()
        result = subprocess.run(
            [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", site],
            cwd=ROOT,
            env=ENV,
            capture_output=True,
            text=True,
        )
        seconds = time.perf_counter() - start
    if result.returncode != 0:
        sys.exit(f"cold build failed:\n{result.stderr[-3000:]}")
    chapters = re.search(r"chapters executed in ([\d.]+) s: (.*)", result.stderr)
    each = dict(re.findall(r"(\w+) ([\d.]+) s", chapters[2])) if chapters else {}
    chinese = re.search(r"the Chinese pass took ([\d.]+) s", result.stderr)
    return {
        "seconds": round(seconds, 1),
        "chapters_seconds": float(chapters[1]) if chapters else None,
        "chinese_pass_seconds": float(chinese[1]) if chinese else 0.0,  # the English-only build is the rest
        "chapter_seconds": {name: float(seconds) for name, seconds in each.items()},  # the build schedules by these
    }


class Server:
    """`mkdocs serve` in the background, its log collected line by line."""

    def __init__(self) -> None:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.lines: list[tuple[float, str]] = []
        self.process = subprocess.Popen(
            [sys.executable, "-m", "mkdocs", "serve", *EXTRA, "--dev-addr", f"127.0.0.1:{self.port}"],
            cwd=ROOT,
            env=ENV,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.process.stdout:
            self.lines.append((time.perf_counter(), line.rstrip()))

    def wait_for(self, pattern: str, after: float, timeout: float = 300) -> tuple[float, list[str]]:
        """Wait for a log line matching `pattern` logged after `after`; return its time and the lines since."""
        deadline = time.perf_counter() + timeout
        while time.perf_counter() < deadline:
            since = [(t, line) for t, line in self.lines if t >= after]
            for t, line in since:
                if re.search(pattern, line):
                    return t, [line for _, line in since]
            if self.process.poll() is not None:
                sys.exit("mkdocs serve stopped:\n" + "\n".join(line for _, line in self.lines[-30:]))
            time.sleep(0.05)
        sys.exit(f"no {pattern!r} within {timeout} s:\n" + "\n".join(line for _, line in self.lines[-30:]))

    def page(self, path: str) -> str:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}{path}", timeout=5) as response:
                return response.read().decode()
        except OSError:
            return ""

    def stop(self) -> None:
        os.killpg(self.process.pid, signal.SIGTERM)
        self.process.wait(timeout=30)


def site_prefix() -> str:
    from urllib.parse import urlsplit

    sys.path.insert(0, str(ROOT))
    from sitebuild.in_mkdocs.build import published_site_url

    return urlsplit(published_site_url(ROOT / "mkdocs.yml")).path or "/"


def measure_prose_edits(server: Server, page: Path, url: str) -> list[float]:
    """Seconds from saving a prose edit of `page` to `url` showing it, PROSE_REPEATS times."""
    prose, times = page.read_text(encoding="utf-8"), []
    try:
        for _ in range(PROSE_REPEATS):
            marker = f"Measured edit {uuid.uuid4().hex[:8]}."
            start = time.perf_counter()
            page.write_text(prose + f"\n{marker}\n", encoding="utf-8")
            while marker not in server.page(url):
                if time.perf_counter() - start > 120:
                    log = "\n".join(line for _, line in server.lines[-15:])
                    sys.exit(f"the prose edit of {page.name} did not show up within 120 s:\n{log}")
                time.sleep(0.05)
            times.append(round(time.perf_counter() - start, 2))
            server.wait_for(BUILT, after=start)
            undone = time.perf_counter()
            page.write_text(prose, encoding="utf-8")
            server.wait_for(BUILT, after=undone)
            time.sleep(0.5)
    finally:
        page.write_text(prose, encoding="utf-8")
    return times


def edit_rebuilds() -> dict:
    codes = {module: module.read_text(encoding="utf-8") for module in CODE_MODULES}
    server = Server()
    try:
        server.wait_for(r"Serving on", after=0)
        time.sleep(1)  # let the watcher settle
        prose_times = {}
        for page, url in ((PROSE_PAGE, site_prefix() + "masks/"), (PROSE_PAGE_ZH, site_prefix() + "zh/masks/")):
            prose_times[page.name] = measure_prose_edits(server, page, url)

        code_edits = []
        for module, code in codes.items():
            start = time.perf_counter()
            module.write_text(code + f"\n# measured edit {uuid.uuid4().hex[:8]}\n", encoding="utf-8")
            done, lines = server.wait_for(BUILT, after=start, timeout=600)
            ran = next((line.split("chapters executed in", 1)[1] for line in lines if "executed in" in line), "")
            code_edits.append(
                {
                    "module": module.relative_to(ROOT).as_posix(),
                    "seconds": round(done - start, 1),
                    "chapters": re.sub(r"^[\d.]+ s: ", "", ran.strip()),
                }
            )
            module.write_text(code, encoding="utf-8")
            server.wait_for(BUILT, after=time.perf_counter(), timeout=600)
    finally:
        for module, code in codes.items():
            module.write_text(code, encoding="utf-8")
        server.stop()
    return {
        "prose_edit_seconds": statistics.median(prose_times[PROSE_PAGE.name]),
        "prose_edit_runs": prose_times[PROSE_PAGE.name],
        "prose_edit_zh_seconds": statistics.median(prose_times[PROSE_PAGE_ZH.name]),
        "prose_edit_zh_runs": prose_times[PROSE_PAGE_ZH.name],
        "code_edits": code_edits,
    }


def machine_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def readme_text(times: dict) -> str:
    cold, training = times["cold"]["seconds"], times["training_seconds"]
    chinese = times["cold"]["chinese_pass_seconds"]
    edits = "".join(
        f"| `mkdocs serve`, rebuild after an edit of `{edit['module']}` | {edit['seconds']} |\n"
        for edit in times["code_edits"]
    )
    reran = "; ".join(f"`{edit['module']}`: {edit['chapters']}" for edit in times["code_edits"])
    return (
        f"{README_START}\n"
        f"Measured by `scripts/measure_build.py` on {times['date']} ({times['machine']}, {times['cpus']} CPUs, "
        f"torch {times['torch']}):\n\n"
        f"| Build | Seconds |\n|---|---|\n"
        f"| `benchmarks/yardstick.py`, this machine's speed (500 Adam steps of a small encoder; mean of a run before "
        f"and a run after the cold build) | {training} |\n"
        f"| cold `mkdocs build --strict`, chapters, notebooks and figures included, both editions | {cold} |\n"
        f"| of which the Chinese edition's pass | {chinese} |\n"
        f"| `mkdocs serve`, page shows a prose edit (median of {len(times['prose_edit_runs'])}) "
        f"| {times['prose_edit_seconds']} |\n"
        f"| `mkdocs serve`, Chinese page shows a prose edit of its own (median of {len(times['prose_edit_zh_runs'])}) "
        f"| {times['prose_edit_zh_seconds']} |\n"
        f"{edits}\n"
        f"The cold build takes {cold / training:.1f} times as long as the yardstick; the Chinese edition makes it "
        f"{chinese / (cold - chinese):.1%} longer than the English one alone (its pass runs no chapter). "
        f"Chapters executed again after each code edit: {reran}.\n"
        f"{README_END}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--update-readme", action="store_true", help="rewrite the figures in README.md")
    parser.add_argument("--edits-only", action="store_true", help="measure the two edits, not the cold build")
    args = parser.parse_args()
    import torch

    times = {
        "date": date.today().isoformat(),
        "machine": machine_name(),
        "cpus": os.cpu_count(),
        "torch": torch.__version__,
    }
    if args.edits_only:
        print(json.dumps(edit_rebuilds(), indent=2))
        return
    before = one_training()
    times["cold"] = cold_build()
    after = one_training()  # the machine's speed drifts: the yardstick runs on both sides of the build
    times["training_seconds_runs"] = [before, after]
    times["training_seconds"] = round((before + after) / 2, 2)
    print(f"the yardstick before and after the build: {before} s, {after} s", flush=True)
    times["chapter_seconds"] = times["cold"].pop("chapter_seconds")
    times["yardstick_ratio"] = round(times["cold"]["seconds"] / times["training_seconds"], 1)
    print(f"cold build: {times['cold']['seconds']} s, {times['yardstick_ratio']} times the yardstick", flush=True)
    times |= edit_rebuilds()
    print(f"prose edit shown by mkdocs serve after {times['prose_edit_seconds']} s (runs: {times['prose_edit_runs']})")
    print(f"Chinese prose edit shown after {times['prose_edit_zh_seconds']} s (runs: {times['prose_edit_zh_runs']})")
    for edit in times["code_edits"]:
        print(f"code edit of {edit['module']}: rebuilt in {edit['seconds']} s; chapters run again: {edit['chapters']}")
    OUTPUT.write_text(json.dumps(times, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {OUTPUT.relative_to(ROOT)}")
    if args.update_readme:
        readme = (ROOT / "README.md").read_text(encoding="utf-8")
        pattern = re.compile(re.escape(README_START) + ".*?" + re.escape(README_END), re.S)
        if not pattern.search(readme):
            sys.exit(f"README.md has no {README_START} ... {README_END} block")
        (ROOT / "README.md").write_text(pattern.sub(lambda _: readme_text(times), readme), encoding="utf-8")
        print("updated README.md")


if __name__ == "__main__":
    main()
