"""What the page of the chapter `scaled_dot_product_attention` says it measured, checked after the section
that measures it (`sitebuild.in_chapter.claims`)."""

from sitebuild.in_chapter.claims import Checks

checks = Checks()


@checks.after("average", "scaled_dot_product_attention: The three agree")
def the_three_averages_agree(same_means, same_weights):
    return same_means and same_weights


@checks.after(
    "soft_lookup",
    "scaled_dot_product_attention: The larger the scores, the closer the softmax comes to picking key 1 alone",
)
def larger_scores_pick_key_1(lookups):
    on_key_1 = [weights[1] for weights in lookups]
    return on_key_1 == sorted(on_key_1) and on_key_1[-1] > 0.99


@checks.after(
    "soft_lookup",
    "scaled_dot_product_attention: with small scores it mixes all three values",
)
def small_scores_mix_all_three(lookups):
    return min(lookups[0]) > 0.1


@checks.after(
    "six_steps",
    "scaled_dot_product_attention: query $t$ gives the keys after $t$ exactly zero weight",
)
def rows_sum_to_one_and_no_key_after_t(weights):
    rows = [row for sequence in weights for row in sequence]
    sums_to_one = all(abs(sum(row) - 1) < 1e-6 for row in rows)
    future_zero = all(
        row[s] == 0
        for sequence in weights
        for t, row in enumerate(sequence)
        for s in range(t + 1, 5)
    )
    return sums_to_one and future_zero


@checks.after(
    "same_as_function",
    "scaled_dot_product_attention: the same output as the six steps, to float32 rounding",
)
def same_output_as_six_steps(difference):
    return difference < 1e-6


@checks.after(
    "tiny_example",
    "scaled_dot_product_attention: Tokens 0 and 2 take most of their input from each other",
)
def tokens_0_and_2_take_most_from_each_other(weights):
    rows = weights[0]
    return (
        all(
            rows[t][0] + rows[t][2] > 0.75 and rows[t][1] < 0.25 for t in (0, 2)
        )
        and rows[1][1] > 0.5
    )


@checks.after(
    "tiny_example",
    "scaled_dot_product_attention: Every output row is the weighted sum of the value rows",
)
def every_output_row_is_weighted_sum(output, weights, x):
    (out,), (rows,), (values,) = output, weights, x
    return all(
        abs(out[t][i] - sum(rows[t][s] * values[s][i] for s in range(3))) < 1e-6
        for t in range(3)
        for i in range(4)
    )


@checks.after(
    "qkv",
    "scaled_dot_product_attention: these small random projections give weights close to uniform",
)
def small_random_projections_give_weights_close(weights):
    # no weight of the three queries is more than 0.1 from the uniform 1/3
    return all(abs(w - 1 / 3) < 0.1 for row in weights[0] for w in row)


@checks.after(
    "spread",
    "scaled_dot_product_attention: brings the spread back to 1 whatever the head width",
)
def brings_spread_back_1_whatever_head(scaled_spreads):
    return len(scaled_spreads) == 3 and all(
        abs(spread - 1) < 0.03 for spread in scaled_spreads
    )


@checks.after(
    "peak",
    "scaled_dot_product_attention: Unscaled, the softmax's Jacobian is the smaller one at both widths",
)
def unscaled_jacobian_smaller(top, jacobian):
    widths = ("d_k  64", "d_k 256")
    return all(
        top[f"{w}, unscaled"] > 2 * top[f"{w},   scaled"]
        and jacobian[f"{w}, unscaled"] < 0.75 * jacobian[f"{w},   scaled"]
        for w in widths
    )


@checks.after(
    "peak",
    "scaled_dot_product_attention: Scaled, the Jacobian and the gradient reaching $q$ keep the same size at both "
    "widths",
)
def scaled_gradient_keeps_its_size(jacobian, median_gradient, mean_gradient):
    def same(values):
        low, high = values["d_k  64,   scaled"], values["d_k 256,   scaled"]
        return 0 < low and abs(high / low - 1) < 0.1

    return same(jacobian) and same(median_gradient) and same(mean_gradient)


@checks.after(
    "peak",
    "scaled_dot_product_attention: at $d_k = 256$ the median query gets less gradient than with the scaling, and "
    "the mean is larger at both widths",
)
def unscaled_gradient_splits(median_gradient, mean_gradient):
    return (
        median_gradient["d_k 256, unscaled"]
        < median_gradient["d_k 256,   scaled"] / 2
        and median_gradient["d_k 256, unscaled"]
        < median_gradient["d_k  64, unscaled"] / 2
        and all(
            mean_gradient[f"d_k {w}, unscaled"]
            > 2 * mean_gradient[f"d_k {w},   scaled"]
            for w in (" 64", "256")
        )
    )


@checks.after(
    "causal", "scaled_dot_product_attention: Token 0 sees only itself"
)
def token_0_sees_only_itself(weights):
    rows = weights[0]
    return (
        rows[0] == [1.0, 0.0, 0.0]
        and rows[1][2] == 0
        and min(rows[1][:2]) > 0.1
        and all(w > 0.1 for w in rows[2])
    )


@checks.after(
    "check_torch",
    "scaled_dot_product_attention: the two agree to float32 rounding",
)
def two_agree_float32_rounding(largest_difference):
    return max(largest_difference.values()) < 1e-05


@checks.after(
    "weighted_sum_figure",
    "scaled_dot_product_attention: it takes most from the tokens whose dot product with its vector is largest",
)
def computed_weights_follow_the_dot_products(computed_row, scores_of_2):
    largest = max(scores_of_2)
    most = max(computed_row)
    return all(
        (score == largest) == (weight == most)
        for score, weight in zip(scores_of_2, computed_row, strict=True)
    )
