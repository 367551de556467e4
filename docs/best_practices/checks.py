"""What the page of the chapter `best_practices` says it measured, checked after the section that measures it
(`sitebuild.in_chapter.claims`).

The schedule and dropout tables are recorded runs, and the speed and memory tables a recorded benchmark
(`tutorial_code/results-cpu.json`): neither is this build's, so no check reads them, and the page's sentences about
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


@checks.after(
    "float16_range",
    "best_practices: In float16, a small share of chapter 7's gradient entries would become 0, and scaled by "
    "65536 almost none: less than a tenth as many",
)
def the_scale_keeps_small_gradients(flushed):
    unscaled, scaled = flushed["1.0"], flushed["65536.0"]
    return 0 < unscaled < 0.05 and scaled < unscaled / 10


@checks.after(
    "float16_range", "best_practices: a number below about 6e-8 becomes 0"
)
def float16_flushes_1e_8(in_float16, scaled_back):
    return in_float16 == 0 and abs(scaled_back - 1e-8) < 1e-10


@checks.after(
    "mixed_training",
    "best_practices: All three losses fall by more than a factor of 30 in 150 steps",
)
def all_three_train(mixed_losses):
    return all(losses[0] > 30 * losses[-1] for losses in mixed_losses.values())


@checks.after(
    "mixed_training",
    "best_practices: from step 50 on, the 16-bit losses stay within a fifth of float32's",
)
def sixteen_bits_follow_float32(mixed_losses):
    reference = mixed_losses["torch.float32"]
    return all(
        abs(mixed_losses[name][s] / reference[s] - 1) < 0.2
        for name in ("torch.bfloat16", "torch.float16")
        for s in (49, 99, 149)
    )


@checks.after(
    "mixed_training",
    "best_practices: In float16 the loss stays near its start for the first steps, while float32's falls",
)
def float16_first_finds_its_scale(mixed_losses):
    fp32, fp16 = mixed_losses["torch.float32"], mixed_losses["torch.float16"]
    return fp16[4] > 0.9 * fp16[0] and fp32[4] < 0.6 * fp32[0]
