"""What the page of the chapter `feed_forward_and_norm` says it measured, checked after the section that measures it
(`sitebuild.claims`)."""

from sitebuild.claims import Checks

checks = Checks()

ARTICLE_STD = 0.3548  # what the article named on the page prints for this experiment
# the chapter's dict `gradients` reaches the checks with its keys (residual, norm) as strings
NEITHER = "(False, False)"
OTHERS = ("(True, False)", "(False, True)", "(True, True)")


@checks.after("ffn_std", "feed_forward_and_norm: has about a quarter of the spread of its unit-variance input")
def fresh_ffn_output_about_a_quarter(stds):
    return 0.2 < min(stds) and max(stds) < 0.3


@checks.after("ffn_std", "feed_forward_and_norm: the measured value is lower for every seed tried")
def measured_value_lower_for_every_seed(stds):
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
def gradient_reaches_first_layers_vanishingly_small(gradients):
    neither = gradients[NEITHER]
    return neither[0] < 1e-10 * neither[-1]


@checks.after(
    "deep_stack", "feed_forward_and_norm: three configurations stay within one order of magnitude across 32 layers"
)
def three_configurations_stay_within_one_order(gradients):
    return all(max(gradients[key]) < 10 * min(gradients[key]) for key in OTHERS)


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
def which_one_ends_lower_changes_with(lower):
    return set(lower) == {"post-norm", "pre-norm"}


@checks.after("deep_post_norm", "feed_forward_and_norm: Warm-up can rescue post-norm, but not on every seed")
def warm_up_can_rescue_post_norm(deep_mse, sum_variance):
    # rescued: under 5 % of the target's variance left; not rescued: over 90 % of it left
    warmed_up = deep_mse["post-norm, 50 warm-up steps"]
    return min(warmed_up) < 0.05 * sum_variance and max(warmed_up) > 0.9 * sum_variance


@checks.after(
    "deep_post_norm",
    "feed_forward_and_norm: the post-norm stack learns nothing: its error stays near the variance of the target",
)
def post_norm_stack_learns_nothing(deep_mse, sum_variance):
    # for every seed, within 10 % of the error of always answering the mean
    return all(0.9 * sum_variance < mse < 1.1 * sum_variance for mse in deep_mse["post-norm"])


@checks.after("deep_post_norm", "feed_forward_and_norm: its error is under 1 % of that variance")
def pre_norm_stack_trains(deep_mse, sum_variance):
    return max(deep_mse["pre-norm"]) < 0.01 * sum_variance


@checks.after("deep_post_norm", "feed_forward_and_norm: A larger LayerNorm epsilon changes nothing here")
def larger_layernorm_epsilon_changes_nothing(deep_mse):
    larger_eps, post_norm_mse = deep_mse["post-norm, LayerNorm eps 1e-3"], deep_mse["post-norm"]
    return all(abs(a - b) < 0.01 * b for a, b in zip(larger_eps, post_norm_mse, strict=True))


@checks.after("deep_stack", "feed_forward_and_norm: passes the gradient down intact")
def post_norm_block_stack_passes_gradient_down(gradients):
    both = gradients["(True, True)"]  # residual and LayerNorm: the post-norm blocks of the table
    return 0.5 < both[0] / both[-1] < 2
