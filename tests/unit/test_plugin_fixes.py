"""The build's changes to plugins' internals were written for particular versions: an upgrade must read them again."""

from sitebuild.in_mkdocs import plugin_fixes


def test_the_installed_plugins_are_the_versions_the_fixes_were_written_for():
    changed = plugin_fixes.version_changes()
    assert not changed, (
        f"plugins changed since sitebuild/in_mkdocs/plugin_fixes.py was written: {changed} (written for, installed). "
        "Read each fix there again, check that it is still needed and still works (tests/site), then update "
        "WRITTEN_FOR."
    )


def test_a_changed_version_is_reported(monkeypatch):
    monkeypatch.setitem(plugin_fixes.WRITTEN_FOR, "mkdocs-static-i18n", "0.0.1")
    assert plugin_fixes.version_changes()["mkdocs-static-i18n"][0] == "0.0.1"
