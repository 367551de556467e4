"""What the page of the chapter `masks` says it measured, checked after the section that measures it
(`sitebuild.in_chapter.claims`)."""

import math

from sitebuild.in_chapter.claims import Checks

checks = Checks()

THIS_SITE = "scaled_dot_product_attention (this site)"
FUNCTIONAL = "F.scaled_dot_product_attention"
LAYER = (
    "nn.MultiheadAttention, need_weights=True",
    "nn.MultiheadAttention, need_weights=False",
)
FAST_PATH = "nn.MultiheadAttention, eval() fast path"


@checks.after(
    "padding",
    "masks: a blocked key gets exactly zero weight and the remaining weights still sum to 1",
)
def blocked_keys_zero_and_rows_sum_to_one(weights):
    rows = [
        (row, real)
        for sequence, real in zip(weights, (3, 2), strict=True)
        for row in sequence[0]
    ]
    return all(
        all(w == 0 for w in row[real:]) and abs(sum(row[:real]) - 1) < 1e-6
        for row, real in rows
    )


@checks.after(
    "padding", "masks: Every query of a sequence ignores the same padded keys"
)
def every_query_ignores_same_padded_keys(weights, from_lengths, mask):
    same_mask = mask == from_lengths
    return same_mask and all(
        row[2:] == [0.0, 0.0, 0.0] for row in weights[1][0]
    )


@checks.after(
    "padding",
    "masks: The padded queries (rows 2 to 4) still get an output: a weighted sum over the real",
)
def padded_queries_still_get_output(weights):
    return all(
        min(row[:2]) > 0 and abs(sum(row[:2]) - 1) < 1e-6
        for row in weights[1][0][2:]
    )


@checks.after(
    "merge_masks",
    "masks: The merged mask is the causal and padding mask built with & above",
)
def merged_mask_is_causal_and_padding(merged, combined):
    return merged == combined


@checks.after(
    "merge_masks",
    "masks: a padding mask passed as mask is refused with a message that says where it goes",
)
def padding_mask_as_mask_refused(refused):
    return "goes in key_is_real" in refused


@checks.after("minus_inf", "masks: With $-\\infty$ the row becomes NaN")
def minus_inf_row_becomes_nan(with_inf):
    return all(math.isnan(w) for w in with_inf[1]) and not any(
        math.isnan(w) for w in with_inf[0]
    )


@checks.after(
    "minus_inf",
    "masks: A large negative number such as $-10^4$ instead gives a uniform row",
)
def large_negative_gives_uniform_row(with_large):
    return all(abs(w - 1 / 3) < 1e-6 for w in with_large[1])


@checks.after("behaviour_table", "masks: returns a zero output for them")
def this_site_returns_zeros(results):
    return results[THIS_SITE] == "zeros"


@checks.after(
    "behaviour_table", "masks: PyTorch's own implementations do not agree on it"
)
def pytorch_implementations_disagree(results):
    return {
        results[FUNCTIONAL],
        results[LAYER[0]],
        results[LAYER[1]],
        results[FAST_PATH],
    } == {"NaN", "zeros"}


@checks.after(
    "behaviour_table",
    "masks: This site's attention returns a zero output for a query whose keys "
    "are all blocked",
)
def the_lesson_s_summary_of_this_site(results):
    return this_site_returns_zeros(results)


@checks.after("behaviour_table", "masks: runs them: they do not agree")
def the_lesson_s_summary_of_pytorch(results):
    return pytorch_implementations_disagree(results)


@checks.after("behaviour_table", "masks: and finds that they do not agree")
def the_lab_s_summary_of_pytorch(results):
    return pytorch_implementations_disagree(results)


@checks.after(
    "behaviour_table", "masks: PyTorch's function returns zeros as well"
)
def functional_returns_zeros(results):
    return results[FUNCTIONAL] == "zeros"


@checks.after("behaviour_table", "masks: one layer gives both answers")
def layer_gives_both_answers(results):
    return (
        results[LAYER[0]] == "NaN"
        and results[LAYER[1]] == "zeros"
        and results[FAST_PATH] == "NaN"
    )


checks.not_a_result(
    "position $s$ is a real token when $s$ is less than that length",
    "the definition of a padding mask, not a measurement",
)
