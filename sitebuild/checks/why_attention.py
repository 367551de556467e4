"""What the page of the chapter `why_attention` says it measured, checked after the section that measures it
(`sitebuild.claims`)."""

from sitebuild.claims import Checks

checks = Checks()


@checks.after("timing", "why_attention: attention's work grows faster")
def attention_s_work_grows_faster(attention_work, recurrent_work):
    return attention_work > 1.5 * recurrent_work


@checks.after("gradient_reach", "why_attention: inputs a few dozen steps back receive almost nothing")
def inputs_few_dozen_steps_back_receive(recurrent):
    return recurrent[31] < 1e-06 * recurrent[63]


@checks.after("gradient_reach", "why_attention: about the same size at every earlier position")
def about_same_size_every_earlier_position(earlier):
    return max(earlier) < 2 * min(earlier)


@checks.after("gradient_reach", "why_attention: the last position, whose input also forms the query")
def last_position_whose_input_also_forms(attention, earlier):
    return attention[63] > 2 * max(earlier)
