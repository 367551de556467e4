"""What the page of the chapter `positional_encoding` says it measured, checked after the section that measures it
(`sitebuild.in_chapter.claims`)."""

from sitebuild.in_chapter.claims import Checks

checks = Checks()


@checks.after(
    "order_blind",
    "positional_encoding: the outputs are reordered the same way but otherwise unchanged",
)
def outputs_are_reordered_same_way_but(same_up_to_order):
    return same_up_to_order


@checks.after(
    "order_blind",
    "positional_encoding: The second row is the first one read backwards",
)
def second_row_is_first_read_backwards(first_feature, first_feature_reversed):
    pairs = zip(first_feature_reversed, reversed(first_feature), strict=True)
    return len(first_feature) > 1 and all(abs(a - b) < 1e-6 for a, b in pairs)


@checks.after(
    "shift",
    "positional_encoding: the dot product cannot tell two to the left from two to the right",
)
def dot_product_cannot_tell_two_left(similarity):
    two_left, two_right = similarity[10][8], similarity[10][12]
    return abs(two_left - two_right) < 0.0001


@checks.after(
    "shift",
    "positional_encoding: moves every position the same number of steps",
)
def moves_every_position_same_number_steps(errors):
    return 0 <= max(errors.values()) < 0.0001


@checks.after(
    "shift",
    "positional_encoding: The matrix for two to the left differs from the one for two to the right",
)
def matrix_for_two_left_differs_from(rotation_gap):
    return rotation_gap > 0.1
