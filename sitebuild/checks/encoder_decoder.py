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
