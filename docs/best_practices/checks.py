"""What the page of the chapter `best_practices` says it measured, checked after the section that measures it
(`sitebuild.in_chapter.claims`).

The schedule and dropout tables are recorded runs, and the speed and memory tables a recorded benchmark
(`benchmarks/results-cpu.json`): neither is this build's, so no check reads them, and the page's sentences about
them describe that one run.
"""

from sitebuild.in_chapter.claims import Checks

checks = Checks()


@checks.after(
    "paper_schedule",
    "best_practices: the paper's formula is this site's inverse_sqrt schedule times that peak rate, at every step "
    "to float rounding",
)
def paper_formula_is_inverse_sqrt_times_peak(schedule_difference, peak):
    return schedule_difference < 1e-12 * 1e3 * peak and peak > 0
