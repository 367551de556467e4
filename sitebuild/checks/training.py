"""What the page of the chapter `training` says it measured, checked after the section that measures it
(`sitebuild.claims`)."""

from sitebuild.claims import Checks

checks = Checks()


@checks.after("encoder_run", "training: With pad_id set it builds the padding mask itself")
def with_pad_id_set_builds_padding(on_padding):
    return on_padding == 0


@checks.after("sum_task", "training: an untrained model predicts about 0")
def untrained_model_predicts_about_0(mean_square, first_loss):
    return abs(first_loss - mean_square) < 0.2 * mean_square


@checks.after("sum_task", "training: falling from above ten to below one tenth")
def falling_from_above_ten_below_one(first_loss, final_loss):
    return first_loss > 10 and final_loss < 0.1


@checks.after("predict", "training: the same input gives a different answer on every call")
def same_input_gives_different_answer_every(noisy):
    return len({round(p, 4) for p in noisy}) == len(noisy)


@checks.after("argmax", "training: One head of the first layer learns to put nearly all of its weight")
def one_head_first_layer_learns_put(sharpest_first_layer_head):
    return sharpest_first_layer_head > 0.9
