"""What the page of the chapter `scaled_dot_product_attention` says it measured, checked after the section
that measures it (`sitebuild.claims`)."""

from sitebuild.claims import Checks

checks = Checks()


@checks.after("qkv", "scaled_dot_product_attention: these small random projections give weights close to uniform")
def small_random_projections_give_weights_close(farthest_from_uniform):
    return farthest_from_uniform < 0.1


@checks.after("spread", "scaled_dot_product_attention: brings the spread back to 1 whatever the head width")
def brings_spread_back_1_whatever_head(scaled_spreads):
    return all(abs(spread - 1) < 0.05 for spread in scaled_spreads)


@checks.after(
    "peak", "scaled_dot_product_attention: here the unscaled softmax's Jacobian is well under the scaled one's"
)
def unscaled_softmax_s_jacobian_well_under(top, gradient):
    return top["unscaled"] > 2 * top["scaled"] and gradient["unscaled"] < 0.75 * gradient["scaled"]


@checks.after("six_steps", "scaled_dot_product_attention: checks that the result equals scaled_dot_product_attention's")
def checks_result_equals_scaled_dot_product(same):
    return same


@checks.after("check_torch", "scaled_dot_product_attention: the two agree to float32 rounding")
def two_agree_float32_rounding(largest_difference):
    return max(largest_difference.values()) < 1e-05
