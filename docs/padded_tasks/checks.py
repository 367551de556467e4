"""What the page of the chapter `padded_tasks` says it measured, checked after the section that measures it
(`sitebuild.in_chapter.claims`)."""

from sitebuild.in_chapter.claims import Checks

checks = Checks()


@checks.after(
    "more_padding", "padded_tasks: more than nine in ten held-out sequences"
)
def classifier_learns_the_task(masked_accuracy):
    return masked_accuracy[0] > 0.9


@checks.after(
    "more_padding",
    "padded_tasks: The accuracy is the same with 8 and with 24 more padding tokens",
)
def accuracy_unchanged_by_padding(masked_accuracy):
    return (
        len(masked_accuracy) == 3
        and masked_accuracy[1] == masked_accuracy[0] == masked_accuracy[2]
    )


@checks.after(
    "more_padding",
    "padded_tasks: the logits move only in their last float32 digits",
)
def logits_move_by_rounding_only(logit_change):
    return 0 <= logit_change < 1e-5


@checks.after(
    "attention_heat_map",
    "padded_tasks: the three padding columns get no weight at all",
)
def padding_columns_get_no_weight(on_padding):
    return on_padding == 0


@checks.after(
    "without_mask",
    "padded_tasks: With the mask, every seed's accuracy is the same at every amount of padding",
)
def masked_curves_are_flat(masked_curves):
    return len(masked_curves) == 3 and all(
        len(set(curve)) == 1 for curve in masked_curves
    )


@checks.after(
    "without_mask",
    "padded_tasks: Without it, every seed's accuracy falls more than two points below its accuracy with no padding "
    "appended, at one or more of the amounts of padding tried",
)
def unmasked_curves_fall(unmasked_curves):
    # the lowest point, not the last: a curve need not fall at every step (seed 202 ends 1.9 points down, after 7)
    return len(unmasked_curves) == 3 and all(
        min(curve[1:]) < curve[0] - 0.02 for curve in unmasked_curves
    )


@checks.after(
    "tag_loss",
    "padded_tasks: the same loss as the mean over the real tokens alone",
)
def ignore_index_is_the_mean_over_real_tokens(loss, real_only):
    return abs(loss - real_only) < 1e-6 and loss > 0


@checks.after(
    "tagging",
    "padded_tasks: tags more than nine in ten of the real held-out tokens correctly",
)
def tagger_learns_the_task(tag_accuracy):
    return tag_accuracy > 0.9


@checks.after(
    "tagging", "padded_tasks: always answering the commoner tag gets about half"
)
def commoner_tag_is_about_half(commoner):
    return 0.5 <= commoner < 0.55


@checks.after(
    "tagging",
    "padded_tasks: 24 more padding tokens leave the tagger's accuracy as it was",
)
def tagger_unchanged_by_padding(tag_accuracy, padded_tag_accuracy):
    return padded_tag_accuracy == tag_accuracy


checks.not_a_result(
    "classification: 1 if the mean of the sequence's digits is above 4.5, else 0",
    "the definition of the two tasks' labels",
)
