"""What the page of the chapter `multi_head_attention` says it measured, checked after the section that measures it
(`sitebuild.claims`)."""

from sitebuild.claims import Checks

checks = Checks()


@checks.after("lesson_module", "multi_head_attention: gives the same output as the complete module")
def lesson_module_gives_the_same_output(lesson_difference):
    return 0 <= lesson_difference < 1e-6


@checks.after("hand_loop", "multi_head_attention: the loss falls below that of always answering the mean target")
def hand_loop_beats_the_mean(losses, target_variance):
    return losses[-1] < target_variance < losses[0]


@checks.after("concat_only", "multi_head_attention: the model without $W_O$ learns about as well")
def model_without_w_o_learns_about_as_well(held_out_mse, target_variance):
    # learns: under 2 % of the target's variance left; about as well: within a factor of 2 of the model with W_O
    without_w_o_mse, with_w_o_mse = held_out_mse["heads only concatenated"], held_out_mse["with W_O"]
    return without_w_o_mse < 0.02 * target_variance and without_w_o_mse < 2 * with_w_o_mse


def reads_every_head(share: list[list[float]]) -> bool:
    """Whether every output feature (row) reads every head with a share of at least 10 %."""
    return all(all(value > 0.10 for value in row) for row in share)


def distance_from_even(share: list[list[float]]) -> float:
    """The mean distance of the shares from an even 1/h."""
    values = [value for row in share for value in row]
    return sum(abs(value - 1 / len(share[0])) for value in values) / len(values)


@checks.after("w_o_blocks", "multi_head_attention: A randomly initialised $W_O$ already draws on every head")
def randomly_initialised_w_o_already_draws(shares):
    # every output feature reads every head with at least 10 %, each share close to an even quarter
    before = shares["before training"]
    return reads_every_head(before) and 0 <= distance_from_even(before) < 0.05


@checks.after(
    "w_o_blocks", "multi_head_attention: training leaves the shares about as even as the initialisation made them"
)
def training_leaves_shares_about_even_initialisation(shares):
    before, after = shares["before training"], shares["after training"]
    return reads_every_head(after) and abs(distance_from_even(after) - distance_from_even(before)) < 0.01


def matched_pairs(same_top: dict, num_queries: int) -> list[str]:
    """The pairs of heads whose largest weight falls on the same key for every query."""
    return [pair for pair, agreeing in same_top.items() if agreeing == num_queries]


@checks.after("sum_model_heads", "multi_head_attention: The four heads come in two pairs")
def four_heads_in_two_pairs(same_top, correlation, num_queries):
    pairs = matched_pairs(same_top, num_queries)
    heads = sorted(head for pair in pairs for head in pair.split("-"))
    return (
        len(pairs) == 2
        and heads == ["0", "1", "2", "3"]  # every head in exactly one pair
        and all(correlation[pair] > 0.8 for pair in pairs)
        and all(same_top[pair] == 0 and correlation[pair] < 0 for pair in same_top if pair not in pairs)
    )


@checks.after(
    "sum_model_heads",
    "multi_head_attention: heads 0 and 3 look at the small digits, the two 1s, heads 1 and 2 at the 9",
)
def which_digits_the_pairs_look_at(top_key, labels):
    top_digit = [[labels[key] for key in keys] for keys in top_key]  # the digit each query weighs most, per head
    return all(digit == "1" for head in (0, 3) for digit in top_digit[head]) and all(
        digit == "9" for head in (1, 2) for digit in top_digit[head]
    )


@checks.after("sum_model_heads", "multi_head_attention: one head of each pair is clearly sharper than the other")
def one_head_of_each_pair_is_sharper(same_top, num_queries, sharpness):
    pairs = [tuple(int(head) for head in pair.split("-")) for pair in matched_pairs(same_top, num_queries)]
    return len(pairs) == 2 and all(
        max(sharpness[i], sharpness[j]) > 1.5 * min(sharpness[i], sharpness[j]) for i, j in pairs
    )


@checks.after(
    "sum_model_heads", "multi_head_attention: Within each head, every query puts its largest weight on the same key"
)
def every_query_of_a_head_picks_the_same_key(top_key):
    return all(len(set(keys)) == 1 for keys in top_key)


@checks.after("heads_loop", "multi_head_attention: The loop gives the same heads, to float rounding")
def loop_gives_the_same_heads(loop_difference):
    return loop_difference < 1e-6
