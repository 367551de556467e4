"""The site's MkDocs plugin keeps one build's state on itself: a failed build leaves nothing for the next one to
reuse, and its options are typed."""

import pytest
from conftest import ROOT
from mkdocs.exceptions import PluginError

from sitebuild.in_mkdocs.build import BuildState, Site
from sitebuild.in_mkdocs.plugin import SitePlugin


def test_a_failed_build_leaves_no_state_for_the_next():
    plugin = SitePlugin()
    assert plugin.state is None  # a build makes its state from the mkdocs.yml it builds, in on_config
    plugin.state = failed = BuildState(Site.of_config(ROOT / "mkdocs.yml", None))
    failed.pass_started.append(("en", 0.0))  # the build stopped inside its English pass
    failed.generated.append(("figures/old.png", b"stale"))
    plugin.on_build_error(error=RuntimeError("a chapter failed"))
    assert plugin.state is None


def test_the_site_hangs_off_the_config_it_builds(tmp_path):
    (tmp_path / "mkdocs.yml").write_text("site_url: https://example.org/tutorial\n", encoding="utf-8")
    site = Site.of_config(tmp_path / "mkdocs.yml", "https://github.com/a/b")
    assert site.root == tmp_path.resolve() and site.checkout.store == tmp_path.resolve() / ".cache" / "chapters"
    assert site.site_url == "https://example.org/tutorial/" and site.repository == "https://github.com/a/b"


def test_two_plugins_share_no_state():
    first, second = SitePlugin(), SitePlugin()
    first.state = BuildState(Site.of_config(ROOT / "mkdocs.yml", None))
    first.state.generated.append(("figures/a.png", b"a"))
    assert second.state is None


def test_the_options_are_typed_with_defaults():
    plugin = SitePlugin()
    errors, warnings = plugin.load_config({})
    assert (errors, warnings) == ([], [])
    assert plugin.config.chapter_workers == 2 and plugin.config.notebook_cache == ".cache/mkdocs-jupyter"
    errors, _ = SitePlugin().load_config({"chapter_workers": "two"})
    assert [name for name, _ in errors] == ["chapter_workers"]


def test_a_worker_count_below_one_stops_the_build_with_what_to_give():
    plugin = SitePlugin()
    plugin.load_config({"chapter_workers": 0})
    with pytest.raises(PluginError, match="chapter_workers is 0; give 1 or more"):
        plugin.on_config(config=None)
