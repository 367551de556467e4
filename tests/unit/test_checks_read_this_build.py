"""What a check may read. A live sentence's check reads only what this build computed, never a recorded run or a
committed benchmark; a recorded sentence's check (`checks.recorded`) reads only that record's values."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest
from conftest import ROOT

from sitebuild.checkout import Checkout
from sitebuild.in_chapter.claims import claims_of
from sitebuild.in_chapter.provenance import marked_names, recorded_names_by_section, source_functions
from sitebuild.in_chapter.recorded_runs import read_records
from tutorial_tools import contents

pytestmark = pytest.mark.unit


@pytest.mark.parametrize("chapter", [chapter.slug for chapter in contents.CHAPTERS])
def test_a_live_check_reads_no_record_and_a_recorded_check_reads_only_records(chapter):
    by_section = recorded_names_by_section((ROOT / f"docs/{chapter}/script.py").read_text(encoding="utf-8"), ROOT)
    offending = []
    for claim in claims_of(chapter, ROOT):
        recorded = by_section.get(claim.section, set())
        if claim.recorded:
            live = sorted(set(claim.names) - recorded)
            if live:
                offending.append(f"the recorded sentence {claim.statement!r} reads {', '.join(live)}, computed live")
        else:
            read = sorted(set(claim.names) & recorded)
            if read:
                offending.append(f"the live sentence {claim.statement!r} reads {', '.join(read)}, a record")
    assert offending == [], (
        f"checks of {chapter} read the wrong kind of value: {offending}. A sentence about this build's values is "
        "checked with checks.after on what the build computed; a sentence about a recorded run or benchmark (the page "
        "says so) is checked with checks.recorded on that record's values alone"
    )


def test_the_rule_catches_both_kinds_of_mistake(tmp_path: Path, monkeypatch):
    """The test above on a chapter of its own: a live check on a record, and a recorded check on a live value."""
    from sitebuild.in_chapter.claims import Checks

    script = (
        "# --8<-- [start:run]\n"
        "runs = held_out_mse_per_seed(200, [0, 1, 2])\n"
        "live = train_sum_model(steps=10)\n"
        "# --8<-- [end:run]\n"
    )
    by_section = recorded_names_by_section(script, ROOT)
    assert by_section["run"] >= {"runs"} and "live" not in by_section["run"]
    checks = Checks()
    checks.after("run", "p: live on a record")(lambda runs: True)
    checks.recorded("run", "p: recorded on a live value")(lambda runs, live: True)
    checks.recorded("run", "p: recorded on a record")(lambda runs: True)
    checks.after("run", "p: live on a live value")(lambda live: True)
    wrong = [
        claim.statement
        for claim in checks.claims
        if (set(claim.names) - by_section["run"] if claim.recorded else set(claim.names) & by_section["run"])
    ]
    assert wrong == ["p: live on a record", "p: recorded on a live value"]


#: Chapters that show a record and state nothing about it: the home page lists where each record was made.
ONLY_SHOWN = {"overview": "prints each record's machine, threads and date, and states no result about them"}


def test_every_chapter_that_shows_a_record_checks_a_sentence_about_it():
    """Each chapter that shows a recorded run or benchmark has recorded checks: its sentences about them are read."""
    unchecked = []
    for chapter in contents.CHAPTERS:
        if chapter.slug in ONLY_SHOWN:
            continue
        source = (ROOT / f"docs/{chapter.slug}/script.py").read_text(encoding="utf-8")
        if not any(names for names in recorded_names_by_section(source, ROOT).values()):
            continue
        if not any(claim.recorded for claim in claims_of(chapter.slug, ROOT)):
            unchecked.append(chapter.slug)
    assert unchecked == [], f"chapters that show a recorded run and check no sentence about it: {unchecked}"


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
    for call, entry in read_records(Checkout(ROOT).records).items():
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


def test_a_function_that_reads_a_recorded_file_through_a_module_constant_is_a_source(tmp_path: Path):
    package = tmp_path / "tutorial_code"
    package.mkdir()
    (package / "results.py").write_text(
        'RESULTS_FILE = "results-cpu.json"\n\n'
        "def read_results():\n    return open(RESULTS_FILE).read()\n\n"
        "def other(RESULTS_FILE):\n    return RESULTS_FILE\n",
        encoding="utf-8",
    )
    assert source_functions(tmp_path) == {"read_results"}
