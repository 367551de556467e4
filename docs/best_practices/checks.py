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


@checks.after(
    "int8",
    "best_practices: The linear layers' weights take about a quarter of their float32 bytes",
)
def int8_weights_take_a_quarter(int8_share):
    return 0.25 <= int8_share < 0.3


@checks.after(
    "int8",
    "best_practices: the held-out bits per character change only in the fourth decimal",
)
def int8_changes_the_fourth_decimal(float_bpc, int8_bpc):
    return abs(int8_bpc - float_bpc) < 0.001
