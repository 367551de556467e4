"""What the page of the chapter `dynamic_weights` says it measured, checked after the section that measures it
(`sitebuild.claims`)."""

from sitebuild.claims import Checks

checks = Checks()


@checks.after("two_inputs", "dynamic_weights: the weights come out close to uniform")
def nines_give_nearly_uniform_weights(uniform_distance):
    return 0 <= uniform_distance < 0.02  # every weight within 0.02 of an even 1/8 = 0.125


@checks.after("two_inputs", "dynamic_weights: this head concentrates on the smallest digits")
def ramp_weights_fall_from_the_smallest_digit(head0_ramp):
    # on 0 1 2 ... 7 every query gives most weight to key 0 and less to each larger digit
    return all(all(a > b for a, b in zip(row, row[1:], strict=False)) for row in head0_ramp)


@checks.after(
    "two_inputs", "dynamic_weights: every query puts more than half of its weight on the first three positions"
)
def ramp_weights_on_the_first_three_positions(head0_ramp):
    return all(sum(row[:3]) > 0.5 for row in head0_ramp)


@checks.after("two_inputs", "dynamic_weights: Same parameters, different weights")
def same_parameters_different_weights(largest_change):
    return largest_change > 0.3


@checks.after("two_inputs", "dynamic_weights: the model's answer for eight nines is far off, about a quarter too low")
def eight_nines_far_off(predicted_nines, predicted_ramp):
    # a quarter too low: 20 % to 30 % under 72, while the answer for 0 to 7 is within 2 of 28
    return 0.2 < (72 - predicted_nines) / 72 < 0.3 and abs(predicted_ramp - 28) < 2


@checks.after("every_head", "dynamic_weights: two heads put most weight on the 0, the other two on the 9")
def two_heads_on_the_zero_two_on_the_nine(top_digits):
    return sorted(top_digits) == [0, 0, 9, 9]


@checks.after("every_head", "dynamic_weights: yet one head is sharply peaked")
def one_head_sharply_peaked(sharpness):
    # in exactly one head, a query's largest weight averages over four times an even spread of 1/8
    return sum(largest > 4 / 8 for largest in sharpness) == 1
