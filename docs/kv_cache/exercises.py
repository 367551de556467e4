"""The exercises that end the chapter "Generating fast, with a KV cache": what the learner writes or repairs (graded by
`graders.py` beside this file), and mistakes planted in each reference, with the words of the hint the
grader must give (tests/unit/test_exercises.py)."""

# ruff: noqa: E501 - the planted mistakes read best one per line

from tutorial_tools.exercises.exercise import Exercise

KV_IMPORTS = (
    "from dataclasses import dataclass, field\n\nimport torch\n\n"
    "from tutorial_code.language_model import CharTransformer\nfrom tutorial_code.masks import causal_mask\n"
    "from tutorial_code.modes import in_eval_mode\n"
    "from tutorial_code.multi_head import combine_heads, split_heads\n"
    "from tutorial_code.validation import check_cache_step\n"
)

EXERCISES = [
    Exercise(
        "kv-cache",
        "kv_cache",
        "Implement forward_with_cache",
        "Compute the logits of new tokens from their own queries, keys and values and the cached ones, and "
        "add the new keys and values to the cache. "
        "The first new token's position is position_offset, or cache.length when it is None. "
        "Run the model in eval mode, and give the caller back its mode. "
        "Raise a ValueError past the model's context, for a token id outside the vocabulary, and for a batch of another size than the cache's.",
        "tutorial_code.language_model",
        ("kv_cache",),
        "KV_CACHE",
        write=("forward_with_cache",),
        imports=KV_IMPORTS,
        applies=("sizes", "arguments", "modes", "device", "in place"),
    ),
    Exercise(
        "cache-offset",
        "kv_cache",
        "Find the bug: a cache that forgets where it is",
        "Generation with this cache starts well and turns to nonsense after the first token. As in the exercise "
        "before it, the first new token's position is position_offset when it is given, else cache.length.",
        "tutorial_code.language_model",
        ("kv_cache",),
        "KV_CACHE",
        bug=(
            "offset = cache.length if position_offset is None",
            "offset = 0 if position_offset is None",
        ),
        imports=KV_IMPORTS,
    ),
]

PLANTED = [  # (exercise, text of the reference solution, planted mistake, words of the hint it must get)
    ("kv-cache", "allowed = None if n == 1 else", "allowed = None if True else", "given together"),
    ("kv-cache", "offset = cache.length if position_offset is None", "offset = 0 if position_offset is None", "cache.length"),
]  # fmt: skip
