"""What the page of the chapter `checking_against_pytorch` says it measured, checked after the section that
measures it (`sitebuild.in_chapter.claims`)."""

import math

from sitebuild.in_chapter.claims import Checks

checks = Checks()


@checks.after(
    "copy_weights",
    "checking_against_pytorch: each pair of matrices shows the same pattern",
)
def each_copy_equals_its_slice(copied):
    return copied is True


@checks.after(
    "encoder_layer",
    "checking_against_pytorch: The largest difference, over every output number of the four comparisons, "
    "is below $10^{-6}$",
)
def largest_difference_below_1e_6(
    output_difference, weight_difference, layer_differences
):
    return (
        len(layer_differences) == 2
        and max(output_difference, weight_difference, *layer_differences) < 1e-6
    )


@checks.after(
    "encoder_layer",
    "checking_against_pytorch: The outputs are not bit-for-bit equal",
)
def not_bit_for_bit_equal(output_difference, layer_differences):
    return output_difference > 0 and all(
        difference > 0 for difference in layer_differences
    )


@checks.after(
    "float64",
    "checking_against_pytorch: the difference shrinks by more than eight orders of magnitude, "
    "to float64's rounding level",
)
def float64_shrinks_to_rounding(output_difference, float64_difference):
    # float64 keeps about 16 significant digits: on values of order 1, rounding is a few 1e-16
    shrinks = (
        float64_difference == 0
        or math.log10(output_difference / float64_difference) > 8
    )
    return shrinks and float64_difference < 1e-14


@checks.after(
    "parameter_count",
    "checking_against_pytorch: The parameter counts are equal too",
)
def parameter_counts_equal(our_count, their_count):
    return our_count == their_count
