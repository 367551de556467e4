"""What the page of the chapter `feed_forward_and_norm` says it measured, checked after the section that measures it
(`sitebuild.in_chapter.claims`)."""

from sitebuild.in_chapter.claims import Checks

checks = Checks()

# the chapter's dict `gradients` reaches the checks with its keys (residual, norm) as strings
NEITHER = "(False, False)"
OTHERS = ("(True, False)", "(False, True)", "(True, True)")


@checks.after(
    "ffn_std",
    "feed_forward_and_norm: has about a quarter of the spread of its unit-variance input",
)
def fresh_ffn_output_about_a_quarter(stds):
    return 0.2 < min(stds) and max(stds) < 0.3


@checks.after(
    "ffn_needed", "feed_forward_and_norm: Attention alone gets part of the way"
)
def attention_alone_gets_part_of_the_way(without_ffn, with_ffn, variance):
    # below half the error of answering the mean, and far above the error with the FFN, seed by seed
    far_above = all(
        alone > 5 * with_it
        for alone, with_it in zip(without_ffn, with_ffn, strict=True)
    )
    return max(without_ffn) < 0.5 * variance and far_above


@checks.after(
    "ffn_needed",
    "feed_forward_and_norm: with the FFN the error falls to a small fraction of that on every seed",
)
def with_ffn_error_falls_to_a_small_fraction(with_ffn, without_ffn):
    # a fifth at most, seed by seed (seed 0: a fraction of a percent; seed 102: 9 %)
    return all(
        0 <= with_it < 0.2 * alone
        for alone, with_it in zip(without_ffn, with_ffn, strict=True)
    )


@checks.after(
    "layer_norm_by_hand",
    "feed_forward_and_norm: the hand-written LayerNorm gives nn.LayerNorm's output up to float rounding",
)
def hand_written_layer_norm_equals_nn(layer_norm_difference):
    return layer_norm_difference < 1e-5


@checks.after(
    "deep_stack",
    "feed_forward_and_norm: the gradient that reaches the first layers is vanishingly small",
)
def gradient_reaches_first_layers_vanishingly_small(gradients):
    neither = gradients[NEITHER]
    return neither[0] < 1e-10 * neither[-1]


@checks.after(
    "deep_stack",
    "feed_forward_and_norm: three configurations stay within one order of magnitude across 32 layers",
)
def three_configurations_stay_within_one_order(gradients):
    return all(max(gradients[key]) < 10 * min(gradients[key]) for key in OTHERS)


@checks.after(
    "residual_orders",
    "feed_forward_and_norm: Pre-norm hands x on exactly as it came",
)
def pre_norm_hands_x_on_unchanged(pre_keeps_x):
    return pre_keeps_x


@checks.after(
    "residual_orders", "feed_forward_and_norm: post-norm hands on LN(x)"
)
def post_norm_hands_on_normalized(post_mean, post_std):
    return post_mean < 1e-5 and abs(post_std - 1) < 1e-3


@checks.after(
    "deep_stack", "feed_forward_and_norm: passes the gradient down intact"
)
def post_norm_block_stack_passes_gradient_down(gradients):
    both = gradients[
        "(True, True)"
    ]  # residual and LayerNorm: the post-norm blocks of the table
    return (
        min(both) / max(both) > 0.8
    )  # every layer within 20 % of every other, not only the two ends
