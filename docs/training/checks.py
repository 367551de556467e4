"""What the page of the chapter `training` says it measured, checked after the section that measures it
(`sitebuild.in_chapter.claims`)."""

from sitebuild.in_chapter.claims import Checks

checks = Checks()


@checks.after(
    "encoder_steps",
    "training: the module computes exactly what the steps computed",
)
def module_computes_exactly_the_steps(same_as_module):
    return same_as_module is True


@checks.after(
    "encoder_steps",
    "training: The padding gets no attention weight at all: 0.0 on the last line",
)
def padding_gets_no_weight(on_padding):
    return on_padding == 0


@checks.after(
    "sum_task",
    "training: the untrained model's predictions are close to 0 (first line)",
)
def untrained_predictions_close_to_0(average_guess, mean_target):
    return abs(average_guess) < 0.1 * mean_target


@checks.after(
    "sum_task",
    "training: within a fifth of it, the scatter of one batch of 64 sequences",
)
def first_loss_near_mean_square(mean_square, losses):
    # the first batch holds 64 sequences: its MSE scatters around the mean square (seed 100: 11.5 % below it)
    first_loss = losses[0]
    return abs(first_loss - mean_square) < 0.2 * mean_square


@checks.after(
    "sum_task",
    "training: with targets of mean 3.6, a model that starts near 0 cannot start that low",
)
def cannot_start_at_5_62(mean_target, losses, mean_square):
    first_loss = losses[0]
    return (
        round(mean_target, 1) == 3.6
        and first_loss > 2 * 5.62
        and mean_square > 2 * 5.62
    )


@checks.after("sum_task", "training: falling from above ten to below one tenth")
def falling_from_above_ten_below_one(losses):
    return losses[0] > 10 and max(losses[-50:]) < 0.1


@checks.after(
    "predict", "training: the same input gives a different answer on every call"
)
def same_input_gives_different_answer_every(noisy):
    return len({round(p, 4) for p in noisy}) == len(noisy)


@checks.after(
    "argmax",
    "training: One head of the first layer learns to put more than twice an even share of its weight",
)
def one_head_first_layer_learns_put(sharpest_per_query):
    # "from every query position": the sharpest head's weight on the largest digit, at each query; even: 1/8
    return min(sharpest_per_query) > 2 / len(sharpest_per_query)
