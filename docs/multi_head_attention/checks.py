"""What the page of the chapter `multi_head_attention` says it measured, checked after the section that measures it
(`sitebuild.in_chapter.claims`)."""

from sitebuild.in_chapter.claims import Checks

checks = Checks()


@checks.after(
    "lesson_module_check",
    "multi_head_attention: gives the same output as the complete module",
)
def lesson_module_gives_the_same_output(lesson_difference):
    return 0 <= lesson_difference < 1e-6


@checks.after(
    "hand_loop",
    "multi_head_attention: the loss falls below that of always answering the mean target",
)
def hand_loop_beats_the_mean(losses, target_variance):
    return losses[-1] < target_variance < losses[0]


@checks.after(
    "concat_only",
    "multi_head_attention: its held-out error ends below a tenth of the target's variance",
)
def model_without_w_o_still_learns(held_out_mse, target_variance):
    return 0 <= held_out_mse["heads only concatenated"] < 0.1 * target_variance


def reads_every_head(share: list[list[float]]) -> bool:
    """Whether every output feature (row) reads every head with a share of at least 10 %."""
    return all(all(value > 0.10 for value in row) for row in share)


def distance_from_even(share: list[list[float]]) -> float:
    """The mean distance of the shares from an even 1/h."""
    values = [value for row in share for value in row]
    return sum(abs(value - 1 / len(share[0])) for value in values) / len(values)


@checks.after(
    "w_o_blocks",
    "multi_head_attention: A randomly initialised $W_O$ already draws on every head",
)
def randomly_initialised_w_o_already_draws(shares):
    # every output feature reads every head with at least 10 %, each share close to an even quarter
    before = shares["before training"]
    return reads_every_head(before) and 0 <= distance_from_even(before) < 0.05


@checks.after(
    "w_o_blocks",
    "multi_head_attention: training leaves the shares about as even as the initialisation made them",
)
def training_leaves_shares_about_even_initialisation(shares):
    before, after = shares["before training"], shares["after training"]
    return (
        reads_every_head(after)
        and abs(distance_from_even(after) - distance_from_even(before)) < 0.01
    )


def heads_on(
    digit: str, top_key: list[list[int]], labels: list[str]
) -> list[int]:
    """The heads whose every query puts its largest weight on a key holding `digit`."""
    return [
        head
        for head, keys in enumerate(top_key)
        if all(labels[key] == digit for key in keys)
    ]


@checks.after(
    "sum_model_heads",
    "multi_head_attention: At least one head looks at the 9 from every query, and another at the small digits, "
    "the two 1s",
)
def a_head_on_the_nine_and_another_on_the_ones(top_key, labels):
    return bool(heads_on("9", top_key, labels)) and bool(
        heads_on("1", top_key, labels)
    )


@checks.after(
    "sum_model_heads",
    "multi_head_attention: Two heads whose queries all pick the same key have strongly correlated maps; two that "
    "never pick the same key do not",
)
def heads_picking_the_same_keys_correlate(same_top, correlation, num_queries):
    agreeing = [
        pair for pair, count in same_top.items() if count == num_queries
    ]
    never = [pair for pair, count in same_top.items() if count == 0]
    strongly = 0.8  # a correlation of the two maps above this is strong
    return (
        len(agreeing) >= 1
        and all(correlation[pair] > strongly for pair in agreeing)
        and all(correlation[pair] <= strongly for pair in never)
    )


@checks.after(
    "heads_loop",
    "multi_head_attention: The loop gives the same heads, to float rounding",
)
def loop_gives_the_same_heads(loop_difference):
    return loop_difference < 1e-6
