"""What the troubleshooting table's Cause and Fix columns say a run showed, checked on this build's run of every
broken variant and its fix (`sitebuild.in_chapter.claims`). The symptoms themselves are printed, not typed: these checks
hold the prose beside them to what the runs printed."""

import re

from sitebuild.in_chapter.claims import Checks

checks = Checks()


def number(text: str) -> float:
    """The first measured number of a symptom, the one with a decimal point: the MSE in "held-out MSE after 60
    steps: 0.512", the change in "logits move by up to 0.271 with 8 more padding tokens"."""
    found = re.findall(r"-?\d+\.\d+(?:e-?\d+)?", text)
    if not found:
        raise ValueError(f"no measured number in the symptom {text!r}")
    return float(found[0])


def raised(text: str) -> bool:
    return bool(re.match(r"\w+Error: ", text))


@checks.after(
    "table",
    "troubleshooting: Each row was run, a minimal broken version of the code and the fixed version next to it",
)
def every_broken_variant_shows_its_symptom_and_its_fix_removes_it(reproduced):
    return all(reproduced.values())


@checks.after(
    "table",
    "troubleshooting: Nothing fails: the matrix products and the combine's reshape fit these shapes",
)
def view_without_transpose_raises_nothing(symptoms):
    # no error, and the weights are (B, T, h, h): each token attends over its own heads
    return (
        re.match(
            r"no error; weights of shape \(\d+, \d+, (\d+), \1\)",
            symptoms["view_no_transpose"],
        )
        is not None
    )


@checks.after(
    "table",
    "troubleshooting: Nothing raises an error; only inputs with more padding than usual show it",
)
def classifier_padding_raises_nothing(symptoms, after_fix):
    broken, fixed = (
        symptoms["classifier_padding"],
        after_fix["classifier_padding"],
    )
    return not raised(broken) and number(broken) > 1e-3 and number(fixed) < 1e-5


@checks.after(
    "table",
    "troubleshooting: where the post-norm stack ends far above the pre-norm one",
)
def six_post_norm_layers_end_far_above_pre_norm(symptoms, after_fix):
    return number(symptoms["deep_post_norm"]) > 5 * number(
        after_fix["deep_post_norm"]
    )


@checks.after(
    "table",
    "troubleshooting: The learning rate is far too high for Adam on this model",
)
def learning_rate_far_too_high(symptoms, after_fix):
    return number(symptoms["learning_rate"]) > 10 * number(
        after_fix["learning_rate"]
    )
