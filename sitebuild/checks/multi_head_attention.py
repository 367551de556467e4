"""What the page of the chapter `multi_head_attention` says it measured, checked after the section that measures it
(`sitebuild.claims`)."""

from sitebuild.claims import Checks

checks = Checks()


@checks.after("w_o_blocks", "multi_head_attention: A randomly initialised $W_O$ already draws on every head")
def randomly_initialised_w_o_already_draws(untrained_every_head, output_features, distance_before):
    return untrained_every_head == output_features and distance_before < 0.1


@checks.after(
    "w_o_blocks", "multi_head_attention: training leaves the shares about as even as the initialisation made them"
)
def training_leaves_shares_about_even_initialisation(distance_after, distance_before):
    return abs(distance_after - distance_before) < 0.01


@checks.after("concat_only", "multi_head_attention: the model without $W_O$ still learns")
def model_without_w_o_still_learns(without_w_o_mse, target_variance):
    return without_w_o_mse < 0.1 * target_variance


@checks.after("sum_model_heads", "multi_head_attention: The heads distribute their weights differently")
def heads_distribute_their_weights_differently(closest_pair):
    return closest_pair > 0.05
