"""What the page of the chapter `encoder_decoder` says it measured, checked after the section that measures it
(`sitebuild.claims`)."""

from sitebuild.claims import Checks

checks = Checks()


@checks.after("decoder_layer_by_hand", "encoder_decoder: give exactly the output of the package's DecoderLayer")
def by_hand_equals_package_layer(by_hand_difference):
    return by_hand_difference == 0


@checks.after("masks_together", "encoder_decoder: the two masks work together")
def two_masks_work_together(weight_on_source_padding, weight_on_future):
    return weight_on_source_padding == 0 and weight_on_future == 0


@checks.after("train", "encoder_decoder: Greedy decoding reverses every one of the held-out sequences")
def reverses_every_held_out_sequence(accuracy):
    return accuracy == 1.0


@checks.after("cross_attention_map", "encoder_decoder: output position t looks at source position 7 - t")
def output_position_t_looks_source_position(looks_at):
    return looks_at == list(range(7, -1, -1))


@checks.after("check_torch", "encoder_decoder: agrees with nn.Transformer to float32 rounding")
def agrees_with_nn_transformer_float32_rounding(largest_difference):
    return largest_difference < 4e-6
