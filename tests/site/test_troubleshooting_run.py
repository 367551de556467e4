"""The troubleshooting table as this build ran it: every problem reproduced (its broken variant shows the symptom,
its fix removes it), and the errors in PyTorch's exact words, read from the values the chapter's checks recorded."""

from conftest import executed_chapters

from tutorial_code.troubleshooting import PROBLEMS

# The exact text PyTorch prints, so that an upgrade that changes a message fails here, not on the page.
EXPECTED_MESSAGES = {
    "linear_width": "RuntimeError: mat1 and mat2 shapes cannot be multiplied (10x32 and 64x64)",
    "position_table": "RuntimeError: The size of tensor a (10) must match the size of tensor b (16) at non-singleton "
    "dimension 1",
    "mask_shape": "RuntimeError: The size of tensor a (2) must match the size of tensor b (5) at non-singleton "
    "dimension 2",
}


def recorded(name: str):
    """The value of `name` in the build's run of the troubleshooting chapter, as its checks read it."""
    claims = executed_chapters()["troubleshooting"]["metadata"]["claims"]
    return next(record["values"][name] for record in claims if name in record["values"])


def test_every_problem_was_reproduced_by_the_build(site):
    reproduced = recorded("reproduced")
    assert set(reproduced) == {problem.name for problem in PROBLEMS}
    assert [name for name, ok in reproduced.items() if not ok] == []


def test_the_errors_are_this_pytorchs_exact_words(site):
    symptoms = recorded("symptoms")
    assert {name: symptoms[name] for name in EXPECTED_MESSAGES} == EXPECTED_MESSAGES
