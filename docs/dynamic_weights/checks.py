"""What the page of the chapter `dynamic_weights` says it measured, checked after the section that measures it
(`sitebuild.in_chapter.claims`)."""

from sitebuild.in_chapter.claims import Checks

checks = Checks()


@checks.after(
    "two_inputs", "dynamic_weights: the weights come out close to uniform"
)
def nines_give_nearly_uniform_weights(uniform_distance):
    return (
        0 <= uniform_distance < 0.02
    )  # every weight within 0.02 of an even 1/8 = 0.125


def direction(row: list[float]) -> int:
    """+1 when the weights rise with the key (the digit, on 0 1 2 ... 7), -1 when they fall, 0 when neither."""
    pairs = list(zip(row, row[1:], strict=False))
    return (
        1
        if all(b > a for a, b in pairs)
        else -1
        if all(b < a for a, b in pairs)
        else 0
    )


@checks.after(
    "two_inputs",
    "dynamic_weights: every query weighs the keys in the same order",
)
def ramp_weights_follow_the_digits(head0_ramp):
    # on 0 1 2 ... 7: every row rises with the digit, or every row falls with it
    return len({direction(row) for row in head0_ramp} - {0}) == 1 and all(
        direction(row) for row in head0_ramp
    )


@checks.after(
    "two_inputs",
    "dynamic_weights: puts more than half of its weight on the three digits at the end it favours",
)
def ramp_weights_on_three_digits_at_one_end(head0_ramp):
    end = direction(head0_ramp[0])
    return end != 0 and all(
        sum(row[-3:] if end > 0 else row[:3]) > 0.5 for row in head0_ramp
    )


@checks.after(
    "two_inputs", "dynamic_weights: Same parameters, different weights"
)
def same_parameters_different_weights(largest_change):
    return largest_change > 0.3


@checks.after(
    "two_inputs",
    "dynamic_weights: the model's answer for eight nines is far off, about a quarter too low",
)
def eight_nines_far_off(predicted_nines, predicted_ramp):
    # a quarter too low: 20 % to 30 % under 72, while the answer for 0 to 7 is within 2 of 28
    return (
        0.2 < (72 - predicted_nines) / 72 < 0.3 and abs(predicted_ramp - 28) < 2
    )


@checks.after(
    "every_head",
    "dynamic_weights: every head puts most weight on one of the two extreme digits",
)
def every_head_on_an_extreme_digit(top_digits):
    return len(top_digits) == 4 and set(top_digits) <= {0, 9}


@checks.after("every_head", "dynamic_weights: yet one head is sharply peaked")
def one_head_sharply_peaked(sharpness):
    # in exactly one head, a query's largest weight averages over four times an even spread of 1/8
    return sum(largest > 4 / 8 for largest in sharpness) == 1
