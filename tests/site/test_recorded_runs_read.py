"""Every entry of benchmarks/recorded-runs.json is read by a chapter of this build: an entry that no chapter asks
for any more (its arguments changed, or the comparison left the page) is dead weight that reviewers would still
read as a result of the site."""

from conftest import ROOT, executed_chapters

from sitebuild.checkout import Checkout
from sitebuild.in_chapter.recorded_runs import read_records


def test_every_recorded_run_is_read_by_a_chapter(site):
    read = {name for run in executed_chapters().values() for name in run["metadata"]["recorded_runs"]}
    unread = sorted(set(read_records(Checkout(ROOT).records)) - read)
    assert unread == [], f"no chapter reads these entries: delete them from benchmarks/recorded-runs.json: {unread}"
    assert read <= set(read_records(Checkout(ROOT).records))  # the build records what it reads
