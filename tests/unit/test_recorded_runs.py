"""Recorded runs: the build reads multi-seed comparisons from benchmarks/recorded-runs.json, never a stale one."""

from __future__ import annotations

import importlib
import json

import pytest
from conftest import ROOT

import tutorial_code
from sitebuild.checkout import Checkout
from sitebuild.in_chapter import recorded_runs
from sitebuild.in_chapter.recorded_runs import (
    StaleRecord,
    call_text,
    code_version,
    read_records,
    recorded_functions,
    use_record,
)
from tutorial_code import shared_runs


def test_the_recorded_functions_are_found_and_wrapped():
    found = recorded_functions(ROOT)
    assert {"held_out_mse_per_seed", "reversed_share_per_seed"} <= set(found)
    for name, module in found.items():
        function = getattr(importlib.import_module(module), name)
        assert function.__wrapped__.__name__ == name  # @recorded at the definition


def test_every_recorded_run_was_recorded_with_the_current_code():
    functions = recorded_functions(ROOT)
    stale = []
    for name, entry in read_records(Checkout(ROOT).records).items():
        function = name.split("(", 1)[0]
        assert function in functions, f"{name}: no @recorded function {function} in tutorial_code"
        if entry["code"] != code_version(functions[function]):
            stale.append(name)
    assert stale == [], (
        f"recorded with other code: {stale}; delete these entries from benchmarks/recorded-runs.json and build the "
        "site once (it records the runs again), then commit the file"
    )


def test_the_call_text_names_every_argument_in_a_fixed_order():
    def compare(steps, seeds, **options): ...

    one = call_text(compare, 200, [0, 1], lr=0.01, dropout=0.1)
    other = call_text(compare, seeds=[0, 1], steps=200, dropout=0.1, lr=0.01)
    assert one == other
    assert one.endswith(".<locals>.compare(steps=200, seeds=[0, 1], dropout=0.1, lr=0.01)")


@pytest.fixture
def counted(monkeypatch):
    calls = []

    def compare(steps: int, seeds: list[int]) -> list[float]:
        calls.append(steps)
        return [steps / 10 + seed for seed in seeds]

    monkeypatch.setattr(recorded_runs, "code_version", lambda module: "code-now")
    return compare, calls


def test_a_current_record_is_read_and_nothing_runs(tmp_path, counted):
    compare, calls = counted
    path = tmp_path / "records.json"
    name = call_text(compare, 20, [0])
    path.write_text(json.dumps({name: {"code": "code-now", "value": [99.0]}}))
    assert use_record(compare, path)(20, [0]) == [99.0]
    assert calls == []


@pytest.mark.parametrize("stored", [None, "code-before"], ids=["missing", "stale"])
def test_outside_ci_a_missing_or_stale_record_is_computed_and_written(tmp_path, monkeypatch, counted, stored):
    compare, calls = counted
    monkeypatch.delenv("CI", raising=False)
    path = tmp_path / "records.json"
    name = call_text(compare, 20, [0, 1])
    if stored:
        path.write_text(json.dumps({name: {"code": stored, "value": [0.0]}, "other(x=1)": {"code": "c", "value": 1}}))
    assert use_record(compare, path)(20, [0, 1]) == [2.0, 3.0]
    assert calls == [20]
    records = json.loads(path.read_text())
    assert records[name] == {"code": "code-now", "machine": recorded_runs.machine(), "value": [2.0, 3.0]}
    assert ("other(x=1)" in records) == bool(stored)  # the other entries are kept


@pytest.mark.parametrize("stored", [None, "code-before"], ids=["missing", "stale"])
def test_on_ci_a_missing_or_stale_record_stops_the_build(tmp_path, monkeypatch, counted, stored):
    compare, calls = counted
    monkeypatch.setenv("CI", "true")
    path = tmp_path / "records.json"
    if stored:
        path.write_text(json.dumps({call_text(compare, 20, [0]): {"code": stored, "value": [0.0]}}))
    with pytest.raises(StaleRecord, match="build the site once on your machine"):
        use_record(compare, path)(20, [0])
    assert calls == []


def test_a_run_that_returns_no_json_value_is_refused(tmp_path, monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.setattr(recorded_runs, "code_version", lambda module: "code-now")

    def compare(seeds):
        return tuple(seeds)  # JSON has no tuples: read back, it would be a list

    with pytest.raises(TypeError, match="returns JSON values only"):
        use_record(compare, tmp_path / "records.json")([0])


def test_without_the_build_the_function_is_plain(monkeypatch):
    monkeypatch.setenv("TUTORIAL_CACHE_DIR", "/nonexistent")  # even with the variable: no handler registered
    monkeypatch.setattr(shared_runs, "HANDLERS", {})
    marked = shared_runs.recorded(lambda seeds: [float(s) for s in seeds])
    assert marked([1, 2]) == [1.0, 2.0]


def test_a_code_version_changes_with_a_module_the_function_depends_on(tmp_path):
    package = tmp_path / "tutorial_code"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "base.py").write_text("X = 1\n")
    (package / "runs.py").write_text("from tutorial_code.base import X\n")
    before = code_version("tutorial_code.runs", tmp_path)
    (package / "base.py").write_text("X = 2\n")
    assert code_version("tutorial_code.runs", tmp_path) != before
    assert tutorial_code.__name__ == "tutorial_code"
