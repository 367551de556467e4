"""The packages import downwards only, and no module imports itself through others: the contracts of
`[tool.importlinter]` in pyproject.toml (`lint-imports` checks them too), checked on grimp's graph of this checkout."""

import ast
from pathlib import Path

import grimp
import pytest
from conftest import ROOT
from importlinter.api import read_configuration

CONFIGURATION = read_configuration(str(ROOT / "pyproject.toml"))
CONTRACTS = {contract["type"]: contract for contract in CONFIGURATION["contracts_options"]}
LAYERS = [contract["layers"] for contract in CONFIGURATION["contracts_options"] if contract["type"] == "layers"]


@pytest.fixture(scope="module")
def graph():
    packages = CONFIGURATION["session_options"]["root_packages"]
    return grimp.build_graph(*packages, include_external_packages=False, exclude_type_checking_imports=False)


def upwards(graph, layers: list[str]) -> list[str]:
    return [
        f"{dependency.importer} imports {dependency.imported}"
        for dependency in graph.find_illegal_dependencies_for_layers(layers=layers)
    ]


def test_the_build_the_tools_and_the_readers_code_import_downwards_only(graph):
    assert LAYERS[0] == ["sitebuild", "tutorial_tools", "tutorial_code"]
    assert upwards(graph, LAYERS[0]) == [], (
        "tutorial_code imports neither tutorial_tools nor sitebuild; tutorial_tools not sitebuild"
    )


def test_a_chapters_process_never_imports_the_mkdocs_part_of_the_build(graph):
    assert LAYERS[1] == ["sitebuild.in_mkdocs", "sitebuild.in_chapter", "sitebuild.fingerprint"]
    assert upwards(graph, LAYERS[1]) == [], "sitebuild.in_chapter imports nothing from sitebuild.in_mkdocs"


@pytest.mark.parametrize("package", CONTRACTS["acyclic_siblings"]["ancestors"])
def test_no_module_imports_itself_through_others(graph, package):
    assert graph.nominate_cycle_breakers(package) == set(), f"import cycles in {package}: break one of these imports"


def private_imports(source: str) -> list[str]:
    """The private names (`_name`) one module of the readers' code imports from another."""
    return [
        f"{node.module}.{alias.name}"
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("tutorial_code")
        for alias in node.names
        if alias.name.startswith("_")
    ]


@pytest.mark.parametrize("module", sorted((ROOT / "tutorial_code").rglob("*.py")), ids=Path.name.fget)
def test_the_readers_code_shares_no_private_name_across_modules(module):
    assert private_imports(module.read_text(encoding="utf-8")) == [], (
        f"{module.relative_to(ROOT)} imports a private name: make it public in its module "
        "(a check goes in tutorial_code/validation.py)"
    )


def test_a_private_import_is_found():
    assert private_imports("from tutorial_code.attention import _check_mask, softmax") == [
        "tutorial_code.attention._check_mask"
    ]
    assert private_imports("from torch.nn import _reduction") == []


def test_a_cycle_or_an_upward_import_is_found():
    """The checks above can fail: on a graph with a loop and an upward import, both report it."""
    graph = grimp.ImportGraph()
    for module in ("tutorial_code", "tutorial_code.a", "tutorial_code.b", "sitebuild", "sitebuild.x"):
        graph.add_module(module)
    graph.add_import(importer="tutorial_code.a", imported="tutorial_code.b")
    graph.add_import(importer="tutorial_code.b", imported="tutorial_code.a")
    graph.add_import(importer="tutorial_code.a", imported="sitebuild.x")
    assert graph.nominate_cycle_breakers("tutorial_code")
    assert graph.find_illegal_dependencies_for_layers(layers=["sitebuild", "tutorial_code"])
