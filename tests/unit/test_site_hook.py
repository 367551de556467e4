"""The MkDocs hook keeps one build's state: a failed build leaves nothing for the next one to reuse."""

from conftest import load_file


def test_a_failed_build_leaves_a_fresh_state_for_the_next():
    hook = load_file("hooks/site.py")
    failed = hook.state
    failed.pass_started.append(("en", 0.0))  # the build stopped inside its English pass
    failed.generated.append(("figures/old.png", b"stale"))
    hook.on_build_error(error=RuntimeError("a chapter failed"))
    assert hook.state is not failed
    assert hook.state.pass_started == [] and hook.state.generated == []
