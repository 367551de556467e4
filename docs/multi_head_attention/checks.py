"""What the page of the chapter `multi_head_attention` says it measured, checked after the section that measures it
(`sitebuild.in_chapter.claims`)."""

from sitebuild.in_chapter.claims import Checks

checks = Checks()


@checks.after(
    "lesson_module_check",
    "multi_head_attention: gives the same output as the complete module",
)
def lesson_module_gives_the_same_output(lesson_difference):
    return 0 <= lesson_difference < 1e-6


@checks.after(
    "heads_loop",
    "multi_head_attention: The loop gives the same heads, to float rounding",
)
def loop_gives_the_same_heads(loop_difference):
    return loop_difference < 1e-6
