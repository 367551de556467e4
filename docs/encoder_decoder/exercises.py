"""The exercises that end the chapter "Cross-attention and the encoder-decoder": what the learner writes or repairs (graded by
`graders.py` beside this file), and mistakes planted in each reference, with the words of the hint the
grader must give (tests/unit/test_exercises.py)."""

# ruff: noqa: E501 - the planted mistakes read best one per line

from tutorial_tools.exercises.exercise import KINDS, Exercise

EXERCISES = [
    Exercise(
        "shift-right",
        "encoder_decoder",
        "Implement shift_right for teacher forcing",
        "Build the decoder's input: the start token, then the target without its last token.",
        "tutorial_code.reverse_task",
        ("data",),
        "SHIFT_RIGHT",
        write=("shift_right",),
        imports="import torch\n"
        "from tutorial_code.validation import check_counts\n",
        applies=("sizes", "device", "in place"),
    ),
    Exercise(
        "decoder-layer",
        "encoder_decoder",
        "Implement DecoderLayer.forward",
        "Masked self-attention, cross-attention to the encoder's output, and the feed-forward network, each in "
        "a residual connection, post-norm or pre-norm.",
        "tutorial_code.decoder",
        ("decoder_layer",),
        "DECODER_LAYER",
        write=("DecoderLayer.forward",),
        applies=KINDS,
    ),
    Exercise(
        "decoder-sees-the-future",
        "encoder_decoder",
        "Find the bug: a decoder that reads ahead",
        "This model learns to reverse digits in a few steps, and fails completely when it generates.",
        "tutorial_code.reverse_task",
        ("data", "model"),
        "SEQ2SEQ",
        bug=("if causal else None", "if not causal else None"),
        applies=("sizes", "device"),
    ),
    Exercise(
        "beam-search",
        "encoder_decoder",
        "Implement beam search",
        "Write length tokens for each source, keeping at every step the beam_width drafts with the highest "
        "total log-probability, and return the best one. Decode in eval mode, and give the model back in the mode "
        "it came in.",
        "tutorial_code.reverse_task",
        ("beam_search",),
        "BEAM_SEARCH",
        write=("beam_search",),
        imports="import torch\n"
        "\n"
        "from tutorial_code.reverse_task import BOS, Seq2SeqModel\n"
        "from tutorial_code.validation import check_count\n"
        "from tutorial_code.modes import in_eval_mode\n",
        applies=("sizes", "modes", "device", "in place"),
    ),
]

PLANTED = [  # (exercise, text of the reference solution, planted mistake, words of the hint it must get)
    ("shift-right", "return torch.cat([start, target[:, :-1]], dim=1)", "return target", "not shifted"),
    ("decoder-layer", "self.self_attention(x, mask=target_mask)", "self.self_attention(x)", "future"),
    ("decoder-layer", "self.cross_attention(x, memory, memory, mask=memory_mask)", "self.cross_attention(x, memory, memory)", "memory_mask"),
    ("beam-search", "candidates = (scores.unsqueeze(-1) + log_p).flatten(1)", "candidates = log_p.flatten(1)", "total so far"),
    ("beam-search", "logits[:, -1].log_softmax(dim=-1)", "logits[:, -1].softmax(dim=-1)", "log_softmax"),
    ("beam-search", "source.repeat_interleave(beams, dim=0)", "source.repeat(beams, 1)", "repeat_interleave"),
    ("beam-search", "return drafts[:, 0, 1:]", "return drafts[:, -1, 1:]", "drafts[:, 0]"),
    ("beam-search", "candidates.topk(min(beam_width, beams * V), dim=-1)", "candidates.topk(1, dim=-1)", "greedy decoding"),
]  # fmt: skip
