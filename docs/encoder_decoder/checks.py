"""What the page of the chapter `encoder_decoder` says it measured, checked after the section that measures it
(`sitebuild.in_chapter.claims`)."""

import math

from sitebuild.in_chapter.claims import Checks

checks = Checks()


@checks.after(
    "decoder_layer_by_hand",
    "encoder_decoder: give exactly the output of the package's DecoderLayer",
)
def by_hand_equals_package_layer(by_hand_difference):
    return by_hand_difference == 0


@checks.after(
    "masks_together",
    "encoder_decoder: the self-attention weights are zero above the diagonal, and the cross-attention weights are "
    "zero in the last three columns",
)
def two_masks_work_together(self_weights, cross_weights):
    # sequence 1 (4 real source tokens out of 7), every head: (h, T, T) and (h, T, S)
    self_rows = [row for head in self_weights[1] for row in head]
    cross_rows = [row for head in cross_weights[1] for row in head]
    causal = all(
        all(w == 0 for w in row[t + 1 :]) and all(w > 0 for w in row[: t + 1])
        for head in self_weights[1]
        for t, row in enumerate(head)
    )
    padding = all(
        all(w == 0 for w in row[4:]) and all(w > 0 for w in row[:4])
        for row in cross_rows
    )
    sums = all(abs(sum(row) - 1) < 1e-5 for row in self_rows + cross_rows)
    return len(cross_rows[0]) == 7 and causal and padding and sums


@checks.after(
    "train",
    "encoder_decoder: Greedy decoding reverses every one of the held-out sequences",
)
def reverses_every_held_out_sequence(accuracy):
    return accuracy == 1.0


@checks.after(
    "cross_attention_map",
    "encoder_decoder: output position t looks at source position 7 - t",
)
def output_position_t_looks_source_position(weights):
    # weights: (h, T, S), the last decoder layer's cross-attention; the mean of the heads, row by row
    mean = [
        [sum(column) / len(weights) for column in zip(*rows, strict=True)]
        for rows in zip(*weights, strict=True)
    ]
    looks_at = [row.index(max(row)) for row in mean]
    return looks_at == list(range(7, -1, -1))


@checks.after(
    "check_torch",
    "encoder_decoder: agrees with nn.Transformer to float32 rounding",
)
def agrees_with_nn_transformer_float32_rounding(largest_difference):
    return largest_difference < 4e-6


@checks.after(
    "embedding_scale",
    "encoder_decoder: unscaled, an embedding and a position vector have norms of the same size; scaled by the square "
    "root of 32, the embedding is more than five times longer than the position added to it",
)
def scaling_drowns_the_positions(embedding_norm, position_norm, scale):
    return (
        embedding_norm / position_norm < 2
        and scale * embedding_norm / position_norm > 5
    )


@checks.after(
    "label_smoothing_target",
    "encoder_decoder: The option gives exactly the cross-entropy to that smoothed target",
)
def label_smoothing_is_the_smoothed_target(
    by_hand, builtin, smoothed, vocab_size, smoothing
):
    target_right = (
        abs(smoothed[3] - (1 - smoothing + smoothing / vocab_size)) < 1e-6
        and abs(sum(smoothed) - 1) < 1e-6
    )
    return target_right and abs(by_hand - builtin) < 1e-5


@checks.after(
    "beam_trained",
    "encoder_decoder: On the trained model, beam search writes exactly what greedy decoding writes, for every "
    "held-out source",
)
def beam_equals_greedy_on_the_trained_model(same_as_greedy):
    return same_as_greedy == 1.0


@checks.after(
    "beam_tree",
    "encoder_decoder: The source reversed starts with the four digits of the likeliest draft",
)
def likeliest_draft_starts_the_reversal(source, drafts):
    return drafts[0][1:] == source[0][::-1][:4]


@checks.after(
    "beam_tree",
    "encoder_decoder: That draft keeps a log-probability of about 0 at every step",
)
def likeliest_draft_stays_near_zero(steps):
    return len(steps) == 4 and all(scores[0] > -0.01 for _, _, scores in steps)


@checks.after(
    "beam_tree",
    "encoder_decoder: the two other drafts sit more than 7 below it, so each is over a thousand times less likely",
)
def other_drafts_far_below(steps):
    # a gap above 7 in log-probability is a ratio above e^7, about 1,100
    gaps = [scores[0] - other for _, _, scores in steps for other in scores[1:]]
    return len(gaps) == 8 and min(gaps) > 7


@checks.after(
    "number_words_train",
    "encoder_decoder: The model writes more than nine in ten of the held-out numbers exactly right",
)
def numbers_in_words_generalize(share_right):
    return share_right > 0.9


@checks.after(
    "number_words_train",
    "encoder_decoder: Numbers below 20 are rare in the training numbers, yet they make up a share of its mistakes "
    "more than five times their share of the training numbers",
)
def numbers_below_20_are_overrepresented_in_mistakes(wrong, below_20):
    below = [n for n in wrong if n < 20]
    return (
        len(wrong) > 0
        and below_20 < 0.05
        and len(below) / len(wrong) > 5 * below_20
    )


@checks.after(
    "number_words_attention",
    "encoder_decoder: a letter puts more than half of its weight on the digit it spells",
)
def letters_read_their_digit(mean_on_digit):
    return mean_on_digit > 0.5


@checks.after(
    "number_words_attention",
    'encoder_decoder: While it writes "three" the decoder reads the 3; "forty" reads the 4 and "seven" the 7',
)
def each_word_reads_its_digit(read_by):
    return read_by == {"three": "3", "forty": "4", "seven": "7"}


# The recorded runs of the page (benchmarks/recorded-runs.json): each sentence about one is checked on that record.

UNSMOOTHED, SMOOTHED = (
    "0.0",
    "0.1",
)  # the label smoothing of each recorded run, as the chapter's keys read


@checks.recorded(
    "embedding_scale",
    "encoder_decoder: In this recorded run, every seed reversed most of the held-out sequences unscaled, and almost "
    "none scaled",
)
def unscaled_reverses_scaled_does_not(reversed_share):
    unscaled, scaled = (
        reversed_share["unscaled"],
        reversed_share["scaled by sqrt(d_model)"],
    )
    return (
        len(unscaled) == len(scaled) == 3
        and all(u > 0.5 for u in unscaled)
        and all(s < 0.05 for s in scaled)
    )


@checks.recorded(
    "label_smoothing",
    "encoder_decoder: In this recorded run, with label smoothing every seed still reversed every held-out sequence",
)
def smoothed_reverses_everything(smoothing_scores):
    return all(share == 1.0 for share in smoothing_scores[SMOOTHED]["reversed"])


@checks.recorded(
    "label_smoothing",
    "encoder_decoder: the confidence fell to about the smoothed target's share for the true token",
)
def smoothed_confidence_is_the_target_share(smoothing_scores):
    share = (
        0.9 + 0.1 / 11
    )  # 1 - smoothing + smoothing / vocab_size: the smoothed target's share of the true token
    unsmoothed, smoothed = (
        smoothing_scores[UNSMOOTHED]["confidence"],
        smoothing_scores[SMOOTHED]["confidence"],
    )
    return all(abs(c - share) < 0.01 for c in smoothed) and all(
        s < u for s, u in zip(smoothed, unsmoothed, strict=True)
    )


@checks.recorded(
    "label_smoothing",
    "encoder_decoder: The held-out cross-entropy of the true reversals rose",
)
def smoothing_raises_the_cross_entropy(smoothing_scores):
    scores = (
        smoothing_scores[UNSMOOTHED]["cross_entropy"],
        smoothing_scores[SMOOTHED]["cross_entropy"],
    )
    pairs = zip(*scores, strict=True)
    return all(smoothed > unsmoothed for unsmoothed, smoothed in pairs)


@checks.recorded(
    "label_smoothing",
    "encoder_decoder: the smoothed runs of the table come out close to it",
)
def smoothed_cross_entropy_as_worked_out(smoothing_scores):
    worked_out = -math.log(0.9 + 0.1 / 11)
    return all(
        abs(value - worked_out) < 0.01
        for value in smoothing_scores[SMOOTHED]["cross_entropy"]
    )


@checks.recorded(
    "label_smoothing",
    "encoder_decoder: Smoothing cost no seed any reversals: on every seed the smoothed model reversed at least as "
    "many held-out sequences as the unsmoothed one",
)
def smoothing_costs_no_reversals(smoothing_scores):
    pairs = zip(
        smoothing_scores[UNSMOOTHED]["reversed"],
        smoothing_scores[SMOOTHED]["reversed"],
        strict=True,
    )
    return all(smoothed >= unsmoothed for unsmoothed, smoothed in pairs)


@checks.recorded(
    "beam_under_trained",
    "encoder_decoder: In this recorded run the beam never found a less likely sequence than greedy decoding, and found "
    "a likelier one for at most a few sources per seed",
)
def beam_never_less_likely(beam):
    return all(higher < 10 for higher in beam["beam_higher"]) and all(
        lower == 0 for lower in beam["beam_lower"]
    )


@checks.recorded(
    "beam_under_trained", "encoder_decoder: The share reversed barely moved"
)
def beam_barely_moves_the_share(beam):
    pairs = zip(beam["greedy_reversed"], beam["beam_reversed"], strict=True)
    return all(abs(b - g) < 0.02 for g, b in pairs)
