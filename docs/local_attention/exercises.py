"""The exercises that end the chapter "Local attention": what the learner writes or repairs (graded by
`graders.py` beside this file), and mistakes planted in each reference, with the words of the hint the
grader must give (tests/unit/test_exercises.py)."""

# ruff: noqa: E501 - the planted mistakes read best one per line

from tutorial_tools.exercises.exercise import Exercise

LOCAL_IMPORTS = "import torch\n\nfrom tutorial_code.validation import check_counts, check_flags\n"

EXERCISES = [
    Exercise(
        "band-mask",
        "local_attention",
        "Implement the band mask",
        "Return the (T, T) boolean mask that lets query t attend to itself and the window - 1 keys before it, "
        "or, when not causal, to the keys less than window positions away on either side. "
        "Raise a ValueError for a window or a length below 1, and a TypeError for a window that is not an int.",
        "tutorial_code.local_attention",
        ("band_mask",),
        "BAND_MASK",
        write=("band_mask",),
        imports=LOCAL_IMPORTS,
        applies=("sizes", "arguments", "device"),
    ),
    Exercise(
        "sliding-window-cache",
        "local_attention",
        "Implement the sliding-window cache",
        "Write SlidingWindowCache.append: add the keys and values of the new positions, keep only the last "
        "window, and return what the new queries attend over.",
        "tutorial_code.local_attention",
        ("sliding_window_cache",),
        "SLIDING_WINDOW_CACHE",
        write=("SlidingWindowCache.append",),
        imports=LOCAL_IMPORTS,
        applies=("sizes", "device", "in place"),
    ),
]

PLANTED = [  # (exercise, text of the reference solution, planted mistake, words of the hint it must get)
    ("band-mask", "return (distance >= 0) & (distance < window)", "return (distance >= 0) & (distance <= window)", "one key too many"),
    ("band-mask", "return (distance >= 0) & (distance < window)", "return (distance <= 0) & (distance > -window)", "wrong side"),
    ("band-mask", "return distance.abs() < window", "return distance.abs() <= window", "one key too many"),
    ("sliding-window-cache", "self.keys = key[..., -self.window :, :]", "self.keys = key[..., -self.window - 1 :, :]", "window + 1"),
    ("sliding-window-cache", "self.keys = key[..., -self.window :, :]", "self.keys = key[..., -self.window + 1 :, :]", "window - 1"),
    ("sliding-window-cache", "self.keys = key[..., -self.window :, :]", "self.keys = key[..., : self.window, :]", "oldest"),
]  # fmt: skip
