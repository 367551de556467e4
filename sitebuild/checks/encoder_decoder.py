"""What the page of the chapter `encoder_decoder` says it measured, checked after the section that measures it
(`sitebuild.claims`)."""

from sitebuild.claims import Checks

checks = Checks()


@checks.after("decoder_layer_by_hand", "encoder_decoder: give exactly the output of the package's DecoderLayer")
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
    padding = all(all(w == 0 for w in row[4:]) and all(w > 0 for w in row[:4]) for row in cross_rows)
    sums = all(abs(sum(row) - 1) < 1e-5 for row in self_rows + cross_rows)
    return len(cross_rows[0]) == 7 and causal and padding and sums


@checks.after("train", "encoder_decoder: Greedy decoding reverses every one of the held-out sequences")
def reverses_every_held_out_sequence(accuracy):
    return accuracy == 1.0


@checks.after("cross_attention_map", "encoder_decoder: output position t looks at source position 7 - t")
def output_position_t_looks_source_position(weights):
    # weights: (h, T, S), the last decoder layer's cross-attention; the mean of the heads, row by row
    mean = [[sum(column) / len(weights) for column in zip(*rows, strict=True)] for rows in zip(*weights, strict=True)]
    looks_at = [row.index(max(row)) for row in mean]
    return looks_at == list(range(7, -1, -1))


@checks.after("check_torch", "encoder_decoder: agrees with nn.Transformer to float32 rounding")
def agrees_with_nn_transformer_float32_rounding(largest_difference):
    return largest_difference < 4e-6


@checks.after(
    "embedding_scale",
    "encoder_decoder: unscaled, an embedding and a position vector have norms of the same size; scaled by the square "
    "root of 32, the embedding is more than five times longer than the position added to it",
)
def scaling_drowns_the_positions(embedding_norm, position_norm, scale):
    return embedding_norm / position_norm < 2 and scale * embedding_norm / position_norm > 5


@checks.after(
    "embedding_scale",
    "encoder_decoder: Unscaled, every seed reverses all the held-out sequences; scaled, no seed reverses more than "
    "5 % of them",
)
def unscaled_reverses_all_and_scaled_almost_none(reversed_share):
    unscaled, scaled = reversed_share["unscaled"], reversed_share["scaled by sqrt(d_model)"]
    return len(unscaled) == len(scaled) >= 3 and min(unscaled) == 1.0 and max(scaled) <= 0.05


@checks.after(
    "label_smoothing_target", "encoder_decoder: The option gives exactly the cross-entropy to that smoothed target"
)
def label_smoothing_is_the_smoothed_target(by_hand, builtin, smoothed, V, smoothing):
    target_right = abs(smoothed[3] - (1 - smoothing + smoothing / V)) < 1e-6 and abs(sum(smoothed) - 1) < 1e-6
    return target_right and abs(by_hand - builtin) < 1e-5


@checks.after(
    "label_smoothing", "encoder_decoder: With label smoothing, every seed still reverses every held-out sequence"
)
def smoothing_still_reverses_everything(smoothing_scores):
    return len(smoothing_scores["0.1"]["reversed"]) >= 3 and min(smoothing_scores["0.1"]["reversed"]) == 1.0


@checks.after(
    "label_smoothing",
    "encoder_decoder: The confidence falls from 0.999 to 0.91 on every seed: the model learned the smoothed target "
    "itself, whose true token has 0.909",
)
def smoothing_confidence_is_the_target(smoothing_scores):
    plain, smoothed = smoothing_scores["0.0"]["confidence"], smoothing_scores["0.1"]["confidence"]
    return all(round(c, 3) == 0.999 for c in plain) and all(abs(c - (0.9 + 0.1 / 11)) < 0.002 for c in smoothed)


@checks.after(
    "label_smoothing",
    "encoder_decoder: The held-out cross-entropy of the true reversals rises from about 0.001 to about 0.1 nats per "
    "token",
)
def smoothing_raises_the_cross_entropy(smoothing_scores):
    plain, smoothed = smoothing_scores["0.0"]["cross_entropy"], smoothing_scores["0.1"]["cross_entropy"]
    return all(0.0005 <= c < 0.002 for c in plain) and all(0.08 <= c <= 0.12 for c in smoothed)


@checks.after(
    "beam_trained",
    "encoder_decoder: On the trained model, beam search writes exactly what greedy decoding writes, for every "
    "held-out source",
)
def beam_equals_greedy_on_the_trained_model(same_as_greedy):
    return same_as_greedy == 1.0


@checks.after(
    "beam_under_trained",
    "encoder_decoder: On every seed the beam finds a likelier sequence for a few sources, and a less likely one for "
    "none",
)
def beam_likelier_for_a_few(beam):
    higher, lower = beam["beam_higher"], beam["beam_lower"]
    return len(higher) >= 3 and all(0 < h <= 20 for h in higher) and all(low == 0 for low in lower)


@checks.after("beam_under_trained", "encoder_decoder: The share reversed moves by less than one percentage point")
def beam_barely_changes_the_share(beam):
    pairs = zip(beam["greedy_reversed"], beam["beam_reversed"], strict=True)
    mistakes = any(greedy < 0.99 for greedy in beam["greedy_reversed"])  # the model is under-trained
    return mistakes and all(abs(beam - greedy) < 0.01 for greedy, beam in pairs)


@checks.after(
    "label_smoothing",
    "encoder_decoder: every smoothed run measures about that value",
)
def smoothed_cross_entropy_is_the_target_s(smoothing_scores, reproduced):
    smoothed = smoothing_scores["0.1"]["cross_entropy"]
    return len(smoothed) >= 3 and all(abs(c - reproduced) < 0.002 for c in smoothed)


@checks.after("beam_tree", "encoder_decoder: The source reversed starts with the four digits of the likeliest draft")
def likeliest_draft_starts_the_reversal(source, drafts):
    return drafts[0][1:] == source[0][::-1][:4]


@checks.after("beam_tree", "encoder_decoder: That draft keeps a log-probability of about 0 at every step")
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
