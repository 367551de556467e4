"""What the page of the chapter `feed_forward_and_norm` says it measured, checked after the section that measures it
(`sitebuild.claims`)."""

from sitebuild.claims import Checks

checks = Checks()


@checks.after("ffn_std", "feed_forward_and_norm: has about a quarter of the spread of its unit-variance input")
def fresh_ffn_output_about_a_quarter(stds):
    return 0.2 < min(stds) and max(stds) < 0.3


@checks.after("ffn_std", "feed_forward_and_norm: the measured value is lower for every seed tried")
def measured_value_lower_for_every_seed(ARTICLE_STD, stds):
    return max(stds) < ARTICLE_STD


@checks.after("ffn_needed", "feed_forward_and_norm: Attention alone gets part of the way")
def attention_alone_gets_part_of_the_way(without_ffn, with_ffn, variance):
    # below half the error of answering the mean, and far above the error with the FFN
    return max(without_ffn) < 0.5 * variance and min(without_ffn) > 20 * max(with_ffn)


@checks.after("ffn_needed", "feed_forward_and_norm: with the FFN the error falls to nearly zero")
def with_ffn_error_falls_nearly_zero(with_ffn, variance):
    return max(with_ffn) < 0.005 * variance


@checks.after(
    "layer_norm_by_hand",
    "feed_forward_and_norm: the hand-written LayerNorm gives nn.LayerNorm's output up to float rounding",
)
def hand_written_layer_norm_equals_nn(layer_norm_difference):
    return layer_norm_difference < 1e-5


@checks.after("deep_stack", "feed_forward_and_norm: the gradient that reaches the first layers is vanishingly small")
def gradient_reaches_first_layers_vanishingly_small(neither):
    return neither[0] < 1e-10 * neither[-1]


@checks.after(
    "deep_stack", "feed_forward_and_norm: three configurations stay within one order of magnitude across 32 layers"
)
def three_configurations_stay_within_one_order(others):
    return all(max(norms) < 10 * min(norms) for norms in others)


@checks.after("layer_norm_gradient", "feed_forward_and_norm: The second is zero up to rounding")
def second_zero_up_rounding(layer_norm_gradient):
    return layer_norm_gradient < 1e-5


@checks.after("residual_orders", "feed_forward_and_norm: Pre-norm hands x on exactly as it came")
def pre_norm_hands_x_on_unchanged(pre_keeps_x):
    return pre_keeps_x


@checks.after("residual_orders", "feed_forward_and_norm: post-norm hands on LN(x)")
def post_norm_hands_on_normalized(post_mean, post_std):
    return post_mean < 1e-5 and abs(post_std - 1) < 1e-3


@checks.after("post_vs_pre", "feed_forward_and_norm: which one ends lower changes with the seed")
def which_one_ends_lower_changes_with(post_lower):
    return 0 < sum(post_lower) < len(post_lower)


@checks.after("deep_post_norm", "feed_forward_and_norm: Warm-up can rescue post-norm, but not on every seed")
def warm_up_can_rescue_post_norm(warmed_up, sum_variance):
    # rescued: under 5 % of the target's variance left; not rescued: over 90 % of it left
    return min(warmed_up) < 0.05 * sum_variance and max(warmed_up) > 0.9 * sum_variance


@checks.after(
    "deep_post_norm",
    "feed_forward_and_norm: the post-norm stack learns nothing: its error stays near the variance of the target",
)
def post_norm_stack_learns_nothing(post_norm_mse, sum_variance):
    # for every seed, within 10 % of the error of always answering the mean
    return all(0.9 * sum_variance < mse < 1.1 * sum_variance for mse in post_norm_mse)


@checks.after("deep_post_norm", "feed_forward_and_norm: its error is under 1 % of that variance")
def pre_norm_stack_trains(pre_norm_mse, sum_variance):
    return max(pre_norm_mse) < 0.01 * sum_variance


@checks.after("deep_post_norm", "feed_forward_and_norm: A larger LayerNorm epsilon changes nothing here")
def larger_layernorm_epsilon_changes_nothing(larger_eps, post_norm_mse):
    return all(abs(a - b) < 0.01 * b for a, b in zip(larger_eps, post_norm_mse, strict=True))


@checks.after("deep_stack", "feed_forward_and_norm: passes the gradient down intact")
def post_norm_block_stack_passes_gradient_down(others):
    both = others[2]  # residual and LayerNorm: the post-norm blocks of the table
    return 0.5 < both[0] / both[-1] < 2
