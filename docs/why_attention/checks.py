"""What the page of the chapter `why_attention` says it measured, checked after the section that measures it
(`sitebuild.in_chapter.claims`). The timing table is shown, never checked: time changes with the machine's load."""

from sitebuild.in_chapter.claims import Checks

checks = Checks()


@checks.after("gradient_reach", "why_attention: shrinks geometrically")
def shrinks_geometrically(recurrent):
    # every 8 steps further back, the gradient is more than 100 times smaller
    return all(recurrent[t] < 0.01 * recurrent[t + 8] for t in range(0, 56, 8))


@checks.after(
    "gradient_reach",
    "why_attention: inputs a few dozen steps back receive almost nothing",
)
def inputs_few_dozen_steps_back_receive(recurrent):
    # 24 steps back or more: under a millionth of what the last input receives
    return max(recurrent[:40]) < 1e-06 * recurrent[63]


@checks.after(
    "gradient_reach",
    "why_attention: about the same size at every earlier position",
)
def about_same_size_every_earlier_position(attention):
    earlier = attention[
        :63
    ]  # every position but the last, whose input is also the query
    return max(earlier) < 2 * min(earlier)


@checks.after(
    "gradient_reach",
    "why_attention: the last position, whose input also forms the query, gets several",
)
def last_position_whose_input_also_forms(attention):
    return attention[63] > 3 * max(attention[:63])


@checks.after("work", "why_attention: attention's work grows faster")
def attention_s_work_grows_faster(growth, rnn_growth):
    # rnn_growth: the RNN's work at T = 1024 over its work at T = 512 (the same at every T)
    return (
        rnn_growth == 2
        and all(g > rnn_growth for g in growth)
        and growth[-1] > 1.5 * rnn_growth
    )


@checks.after(
    "work",
    "why_attention: doubling $T$ comes closer and closer to quadrupling the work",
)
def doubling_t_comes_closer_to_quadrupling(growth):
    return (
        all(a < b < 4 for a, b in zip(growth, growth[1:], strict=False))
        and growth[-1] > 3.5
    )


checks.not_a_result(
    "Where the last column of the timing table is above 1, attention is the slower of the two on this machine",
    "a reading of the live timing table, conditional on what it shows: no check reads a live timing",
)
checks.not_a_result(
    "where the last column is below 1, attention did more work in less time",
    "a reading of the live timing table, conditional on what it shows: no check reads a live timing",
)
