"""What the page of the chapter `feed_forward_and_norm` says it measured, checked after the section that measures it
(`sitebuild.claims`)."""

from sitebuild.claims import Checks

checks = Checks()


@checks.after("ffn_std", "feed_forward_and_norm: the measured value is lower for every seed tried")
def measured_value_lower_for_every_seed(ARTICLE_STD, stds):
    return max(stds) < ARTICLE_STD


@checks.after("ffn_needed", "feed_forward_and_norm: with the FFN the error falls to nearly zero")
def with_ffn_error_falls_nearly_zero(without_ffn, with_ffn):
    return min(without_ffn) > 20 * max(with_ffn) and max(with_ffn) < 0.01


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
    return layer_norm_gradient < 0.0001


@checks.after("post_vs_pre", "feed_forward_and_norm: which one ends lower changes with the seed")
def which_one_ends_lower_changes_with(post_lower):
    return 0 < sum(post_lower) < len(post_lower)


@checks.after("deep_post_norm", "feed_forward_and_norm: Warm-up can rescue post-norm, but not on every seed")
def warm_up_can_rescue_post_norm(warmed_up):
    return min(warmed_up) < 0.1 < 0.5 < max(warmed_up)


@checks.after("deep_post_norm", "feed_forward_and_norm: the post-norm stack learns nothing")
def post_norm_stack_learns_nothing(post_norm, pre_norm):
    return min(post_norm) > 0.5 and max(pre_norm) < 0.05


@checks.after("deep_post_norm", "feed_forward_and_norm: A larger LayerNorm epsilon changes nothing here")
def larger_layernorm_epsilon_changes_nothing(larger_eps, post_norm):
    return all((abs(a - b) < 0.05 for a, b in zip(larger_eps, post_norm, strict=True)))
