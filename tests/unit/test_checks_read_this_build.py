"""No check of a page reads a value that this build did not compute: a recorded run or a committed benchmark."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from sitebuild.fingerprint import ROOT
from sitebuild.in_chapter.claims import claims_of
from sitebuild.in_chapter.provenance import marked_names, recorded_names_by_section, source_functions
from sitebuild.in_chapter.recorded_runs import read_records
from tutorial_tools import contents

pytestmark = pytest.mark.unit


@pytest.mark.parametrize("chapter", [chapter.slug for chapter in contents.CHAPTERS])
def test_no_check_reads_a_recorded_value(chapter):
    by_section = recorded_names_by_section((ROOT / f"docs/{chapter}/script.py").read_text(encoding="utf-8"))
    offending = []
    for claim in claims_of(chapter):
        read = sorted(set(claim.names) & by_section.get(claim.section, set()))
        if read:
            offending.append(f"{claim.statement!r} reads {', '.join(read)}")
    assert offending == [], (
        f"checks of {chapter} read values this build did not compute (a recorded run, or benchmarks/"
        f"results-cpu.json): {offending}. Compute the value in the build, or rewrite the sentence to describe the "
        "recorded run (the page's note under the table says where it ran) and drop its check"
    )


def marked(source: str, sources=frozenset({"recorded_run"})) -> set[str]:
    return marked_names(ast.parse(source), set(sources))


def test_a_value_is_followed_through_assignments_loops_and_appends():
    found = marked(
        "runs = recorded_run(3)\n"
        "mean = sum(runs) / len(runs)\n"
        "rows = []\n"
        "for value in runs:\n"
        "    rows.append(value * 2)\n"
        "table = {name: r for name, r in zip('ab', rows)}\n"
        "live = train(3)\n"
    )
    assert {"runs", "mean", "rows", "value", "table"} <= found
    assert "live" not in found


def test_a_name_given_a_live_value_again_is_no_longer_marked():
    assert "x" not in marked("x = recorded_run(1)\nx = train(1)\n")
    assert "x" in marked("x = train(1)\nx = recorded_run(1)\n")


def test_reading_a_benchmark_file_marks_what_it_is_read_into():
    found = marked(
        "path = root / 'benchmarks' / 'results-cpu.json'\n"
        "results = json.loads(path.read_text())\n"
        "speedup = results['generation']['rows'][0]['tokens_per_s']\n"
        "torch.manual_seed(speedup)\n"  # a call on a module with a marked argument does not mark the module
        "other = torch.zeros(3)\n",
        sources=frozenset(),
    )
    assert {"path", "results", "speedup"} <= found
    assert "torch" not in found and "other" not in found


def test_a_function_of_the_script_that_reads_one_is_a_source_and_its_parameters_are_its_own():
    found = marked(
        "def table(seeds):\n"
        "    return recorded_run(seeds)\n"
        "def live(runs):\n"
        "    return runs\n"
        "runs = recorded_run(2)\n"
        "a = table([0])\n"
        "b = live([1])\n"
    )
    assert "a" in found and "table" in found
    assert "b" not in found and "live" not in found


def test_a_wrapper_in_tutorial_code_around_a_recorded_run_is_a_source(tmp_path: Path):
    package = tmp_path / "tutorial_code"
    package.mkdir()
    (package / "runs.py").write_text(
        "@recorded\ndef per_seed(seeds):\n    return seeds\n\n"
        "def wrapper(seeds):\n    return per_seed(seeds)\n\n"
        "def plain(seeds):\n    return seeds\n",
        encoding="utf-8",
    )
    assert source_functions(tmp_path) == {"per_seed", "wrapper"}


def test_every_recorded_run_says_where_it_ran():
    for call, entry in read_records().items():
        machine = entry.get("machine") or {}
        assert {"cpu", "torch_threads", "torch", "date"} <= set(machine), f"{call}: no machine recorded"


@pytest.mark.parametrize("page", ["README.md", "docs/notebooks.md", "docs/index.md"])
def test_the_pages_that_say_where_the_numbers_come_from_name_both_files(page):
    text = (ROOT / page).read_text(encoding="utf-8")
    if page == "docs/index.md":  # the home page prints its list from the chapter overview
        assert "## About these numbers" in text and "overview/script.py:provenance" in text
        text = (ROOT / "docs/overview/script.py").read_text(encoding="utf-8")
    for source in ("recorded-runs.json", "results-cpu.json"):
        assert source in text, f"{page} does not name benchmarks/{source}"
    assert "two exceptions" not in text, f"{page} still counts two exceptions"


def test_the_home_page_lists_every_benchmark_run_of_the_results_file():
    results = json.loads((ROOT / "tutorial_code/results-cpu.json").read_text(encoding="utf-8"))
    runs = {name for name, value in results.items() if isinstance(value, dict) and "machine" in value}
    overview = (ROOT / "docs/overview/script.py").read_text(encoding="utf-8")
    assert 'results["machine"]' in overview, "the home page does not list the attention benchmark's machine"
    missing = sorted(run for run in runs if f'"{run}"' not in overview)
    assert missing == [], f"the home page's list of benchmark runs leaves out {missing}"
