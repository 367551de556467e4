"""What the page of the chapter `language_model` says it measured, checked after the section that measures it
(`sitebuild.claims`)."""

from sitebuild.claims import Checks

checks = Checks()


@checks.after("train", "language_model: beats the bigram model by a clear margin")
def beats_bigram_model_clear_margin(held_out_bpc, bigram):
    return held_out_bpc < bigram - 0.3


@checks.after("samples", "language_model: at least 60 % of its words are words of the training text")
def least_60_words_are_words_training(careful_share):
    return careful_share >= 0.6


@checks.after("sentence_heads", "language_model: several times the even share on the previous character")
def several_times_even_share_previous_character(previous, uniform):
    return max(previous) > 3 * uniform


@checks.after(
    "sentence_heads",
    "language_model: gives the first character of the current word several times the weight of even attention",
)
def gives_first_character_current_word_several(word_start, uniform):
    return max(word_start) > 3 * uniform
