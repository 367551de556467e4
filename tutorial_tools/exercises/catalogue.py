"""Every exercise: where it appears, what the learner writes or repairs, and the grader that checks it."""

from __future__ import annotations

import importlib
from dataclasses import dataclass


@dataclass(frozen=True)
class Exercise:
    """One graded exercise.

    Attributes:
        name: The command's name, `transformer-tutorial exercise NAME`.
        chapter: The page it ends, `docs/<chapter>.md`.
        title: What to do, in a few words.
        task: The task in one or two sentences, for the starter's header.
        module: The `tutorial_code` module that holds the reference.
        sections: The named sections of `module` that make the starter and the page's solution.
        grader: The name of its checks in `graders`, imported only to grade
            (so that writing a starter does not import torch).
        write: The functions or methods ("Class.method") whose bodies the learner writes.
        bug: For a find-the-bug exercise, `(correct text, planted text)`.
        imports: The starter's imports, when the module's `imports` section holds more than it needs.
    """

    name: str
    chapter: str
    title: str
    task: str
    module: str
    sections: tuple[str, ...]
    grader: str
    write: tuple[str, ...] = ()
    bug: tuple[str, str] | None = None
    imports: str | None = None

    @property
    def file_name(self) -> str:
        """The learner's file, in the current directory."""
        return self.name.replace("-", "_") + ".py"

    @property
    def checks(self) -> list:
        """The `(name, check)` pairs that grade it."""
        return getattr(importlib.import_module("tutorial_tools.exercises.graders"), self.grader)

    @property
    def kind(self) -> str:
        return "find the bug" if self.bug else "implement"


KV_IMPORTS = (
    "from dataclasses import dataclass, field\n\nimport torch\n\n"
    "from tutorial_code.language_model import CharTransformer\nfrom tutorial_code.masks import causal_mask\n"
    "from tutorial_code.multi_head import combine_heads, split_heads\n"
    "from tutorial_code.validation import check_cache_step\n"
)

LOCAL_IMPORTS = "import torch\n\nfrom tutorial_code.validation import check_counts\n"

EXERCISES: dict[str, Exercise] = {
    exercise.name: exercise
    for exercise in [
        # 1. Why attention
        Exercise(
            "recurrent-by-hand",
            "why_attention",
            "Implement a recurrent layer step by step",
            "Compute every hidden state of a one-layer nn.RNN with a loop over the positions, as its equation "
            "reads, and see why the steps cannot run in parallel.",
            "tutorial_code.why_attention",
            ("recurrent_by_hand",),
            "RECURRENT",
            write=("recurrent_by_hand",),
            imports="import torch\nfrom torch import nn\n",
        ),
        Exercise(
            "recurrent-time-axis",
            "why_attention",
            "Find the bug: states stacked on the wrong axis",
            "This recurrent layer computes the right numbers and returns them in a shape nn.RNN(batch_first=True) "
            "would not.",
            "tutorial_code.why_attention",
            ("recurrent_by_hand",),
            "RECURRENT",
            bug=("return torch.stack(states, dim=1)", "return torch.stack(states)"),
            imports="import torch\nfrom torch import nn\n",
        ),
        # 2. Scaled dot-product attention
        Exercise(
            "scaled-dot-product-attention",
            "scaled_dot_product_attention",
            "Implement scaled dot-product attention",
            "Return (output, weights) for queries, keys and values, with an optional boolean or float mask; a query "
            "whose keys are all masked gets zero weights, not NaN.",
            "tutorial_code.attention",
            ("checks", "scaled_dot_product_attention"),
            "ATTENTION",
            write=("scaled_dot_product_attention",),
        ),
        Exercise(
            "attention-too-sharp",
            "scaled_dot_product_attention",
            "Find the bug: attention that is too sharp",
            "This attention runs, and its weights sum to 1, but they are far too peaked.",
            "tutorial_code.attention",
            ("checks", "scaled_dot_product_attention"),
            "ATTENTION",
            bug=("scores = query @ key.transpose(-2, -1) / math.sqrt(d_k)", "scores = query @ key.transpose(-2, -1)"),
        ),
        Exercise(
            "attention-wrong-axis",
            "scaled_dot_product_attention",
            "Find the bug: weights that do not sum to 1",
            "This attention returns weights of the right shape whose rows do not sum to 1.",
            "tutorial_code.attention",
            ("checks", "scaled_dot_product_attention"),
            "ATTENTION",
            bug=("weights = torch.softmax(scores, dim=-1)", "weights = torch.softmax(scores, dim=-2)"),
        ),
        # 3. Masks
        Exercise(
            "causal-mask",
            "masks",
            "Implement the causal mask",
            "Return the (T, T) boolean mask that lets position t attend to positions 0..t.",
            "tutorial_code.masks",
            ("causal_mask",),
            "CAUSAL_MASK",
            write=("causal_mask",),
            imports="import torch\n",
        ),
        Exercise(
            "padding-mask",
            "masks",
            "Implement the padding mask",
            "Return the (B, 1, 1, T) mask that hides the padding after each sequence's real tokens.",
            "tutorial_code.masks",
            ("describe", "padding_mask"),
            "PADDING_MASK",
            write=("padding_mask",),
        ),
        Exercise(
            "flipped-mask",
            "masks",
            "Find the bug: a mask read backwards",
            "This attention applies the mask, and yet each query attends to exactly the keys it should not see.",
            "tutorial_code.attention",
            ("checks", "scaled_dot_product_attention"),
            "ATTENTION",
            bug=('scores.masked_fill(~mask, float("-inf"))', 'scores.masked_fill(mask, float("-inf"))'),
        ),
        # 4. Multi-head attention
        Exercise(
            "split-and-combine-heads",
            "multi_head_attention",
            "Implement split_heads and combine_heads",
            "Cut (B, T, d_model) into h heads of (B, h, T, d_k), and join them back.",
            "tutorial_code.multi_head",
            ("split_heads", "combine_heads"),
            "HEADS",
            write=("split_heads", "combine_heads"),
            imports="import torch\n",
        ),
        Exercise(
            "heads-without-transpose",
            "multi_head_attention",
            "Find the bug: heads that mix positions",
            "The shapes are right, and yet each head sees a jumble of positions and features.",
            "tutorial_code.multi_head",
            ("split_heads", "combine_heads"),
            "HEADS",
            bug=("x.view(B, T, num_heads, d_k).transpose(1, 2)", "x.view(B, num_heads, T, d_k)"),
            imports="import torch\n",
        ),
        Exercise(
            "multi-head-forward",
            "multi_head_attention",
            "Implement MultiHeadAttention.forward",
            "Project queries, keys and values, attend in every head at once, and mix the heads with W_O.",
            "tutorial_code.multi_head",
            ("multi_head_attention",),
            "MULTI_HEAD",
            write=("MultiHeadAttention.forward",),
            imports="import torch\nfrom torch import nn\n\n"
            "from tutorial_code.attention import scaled_dot_product_attention\n"
            "from tutorial_code.masks import merge_masks\n"
            "from tutorial_code.multi_head import combine_heads, split_heads\n",
        ),
        # 5. Dynamic weights
        Exercise(
            "self-attention",
            "dynamic_weights",
            "Implement SelfAttention.forward",
            "Project the token vectors to queries, keys and values and attend: the weights come from the input.",
            "tutorial_code.attention",
            ("checks", "scaled_dot_product_attention", "self_attention"),
            "SELF_ATTENTION",
            write=("SelfAttention.forward",),
        ),
        Exercise(
            "shared-projection",
            "dynamic_weights",
            "Find the bug: scores that are always symmetric",
            "This self-attention runs, and its weights depend on the input, but the score of token t for token s "
            "always equals the score of s for t.",
            "tutorial_code.attention",
            ("checks", "scaled_dot_product_attention", "self_attention"),
            "SELF_ATTENTION",
            bug=("self.W_K(x), self.W_V(x), mask)", "self.W_Q(x), self.W_V(x), mask)"),
        ),
        # 6. Positional encoding
        Exercise(
            "sinusoidal-table",
            "positional_encoding",
            "Implement the sinusoidal table",
            "Return the (max_len, d_model) table of sines (even features) and cosines (odd features).",
            "tutorial_code.positional",
            ("sinusoidal_table",),
            "SINUSOIDAL_TABLE",
            write=("sinusoidal_table",),
            imports="import math\n\nimport torch\n",
        ),
        Exercise(
            "shift-rotation",
            "positional_encoding",
            "Implement the shift rotation R_k",
            "Return the matrix that moves every sinusoidal position vector k positions on.",
            "tutorial_code.positional",
            ("shift_rotation",),
            "SHIFT_ROTATION",
            write=("shift_rotation",),
            imports="import math\n\nimport torch\n",
        ),
        # 7. Feed-forward, residuals and LayerNorm
        Exercise(
            "feed-forward",
            "feed_forward_and_norm",
            "Implement FeedForward.forward",
            "Two linear layers with a ReLU between them, applied to each position on its own.",
            "tutorial_code.feed_forward",
            ("feed_forward",),
            "FEED_FORWARD",
            write=("FeedForward.forward",),
        ),
        Exercise(
            "encoder-layer",
            "feed_forward_and_norm",
            "Implement EncoderLayer.forward, post-norm and pre-norm",
            "Self-attention and the feed-forward network, each in a residual connection with LayerNorm, in the "
            "order `norm_first` asks for (write both).",
            "tutorial_code.encoder",
            ("encoder_layer",),
            "ENCODER_LAYER",
            write=("EncoderLayer.forward",),
            imports="import torch\nfrom torch import nn\n\nfrom tutorial_code.feed_forward import FeedForward\n"
            "from tutorial_code.masks import merge_masks\n"
            "from tutorial_code.multi_head import MultiHeadAttention\n",
        ),
        Exercise(
            "dropout-on-the-residual",
            "feed_forward_and_norm",
            "Find the bug: dropout in the wrong place",
            "This layer equals the reference at inference, and yet it trains worse: look at what dropout touches.",
            "tutorial_code.encoder",
            ("encoder_layer",),
            "ENCODER_LAYER",
            bug=(
                "x = x + self.dropout1(attended)\n            x = x + self.dropout2(",
                "x = self.dropout1(x) + attended\n            x = x + self.dropout2(",
            ),
            imports="import torch\nfrom torch import nn\n\nfrom tutorial_code.feed_forward import FeedForward\n"
            "from tutorial_code.masks import merge_masks\n"
            "from tutorial_code.multi_head import MultiHeadAttention\n",
        ),  # fmt: skip
        # 8. The complete model, trained
        Exercise(
            "learning-rate-schedule",
            "training",
            "Implement the learning-rate schedules",
            "Return the factor of the base learning rate at a step: linear warm-up, then constant, inverse square "
            "root or cosine.",
            "tutorial_code.digit_model",
            ("schedule",),
            "SCHEDULE",
            write=("learning_rate_factor",),
            imports="import math\n",
        ),
        Exercise(
            "classifier-pooling",
            "training",
            "Implement EncoderClassifier.forward",
            "Encode the tokens, average each sequence's vectors over its real tokens only, and map the mean to logits.",
            "tutorial_code.encoder",
            ("classifier",),
            "CLASSIFIER",
            write=("EncoderClassifier.forward",),
            imports="import torch\nfrom torch import nn\n\nfrom tutorial_code.encoder import Encoder\n",
        ),
        # 9. Checking against PyTorch
        Exercise(
            "copy-attention-weights",
            "checking_against_pytorch",
            "Copy nn.MultiheadAttention's weights",
            "Fill W_Q, W_K, W_V and W_O of the site's module from a PyTorch module, so both give the same output.",
            "tutorial_code.from_torch",
            ("multi_head_attention_from_torch",),
            "COPY_WEIGHTS",
            write=("copy_multi_head_attention_weights",),
            imports="import torch\nfrom torch import nn\n\nfrom tutorial_code.multi_head import MultiHeadAttention\n",
        ),
        Exercise(
            "mask-for-pytorch",
            "checking_against_pytorch",
            "Convert a mask for nn.MultiheadAttention",
            "Turn a mask of this site's convention (True = may attend) into the one nn.MultiheadAttention reads.",
            "tutorial_code.masks",
            ("to_torch_multihead_mask",),
            "TO_TORCH_MASK",
            write=("to_torch_multihead_mask",),
            imports="import torch\n",
        ),
        # 10. Cross-attention and the encoder-decoder
        Exercise(
            "shift-right",
            "encoder_decoder",
            "Implement shift_right for teacher forcing",
            "Build the decoder's input: the start token, then the target without its last token.",
            "tutorial_code.reverse_task",
            ("data",),
            "SHIFT_RIGHT",
            write=("shift_right",),
            imports="import torch\n",
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
        ),
        Exercise(
            "decoder-sees-the-future",
            "encoder_decoder",
            "Find the bug: a decoder that reads ahead",
            "This model learns to reverse digits in a few steps, and fails completely when it generates.",
            "tutorial_code.reverse_task",
            ("data", "model"),
            "SEQ2SEQ",
            bug=(
                "target_mask = causal_mask(T, device=target_input.device) if causal else None",
                "target_mask = None",
            ),
        ),  # fmt: skip
        Exercise(
            "beam-search",
            "encoder_decoder",
            "Implement beam search",
            "Write length tokens for each source, keeping at every step the beam_width drafts with the highest "
            "total log-probability, and return the best one.",
            "tutorial_code.reverse_task",
            ("beam_search",),
            "BEAM_SEARCH",
            write=("beam_search",),
            imports="import torch\n\nfrom tutorial_code.reverse_task import BOS, Seq2SeqModel\n"
            "from tutorial_code.validation import check_count\n",
        ),
        # 11. A language model that writes
        Exercise(
            "unigram-bpc",
            "language_model",
            "Implement the unigram baseline",
            "Return the bits per character of a model that predicts each character from its training frequency.",
            "tutorial_code.language_model",
            ("baselines",),
            "UNIGRAM",
            write=("unigram_bpc", "bigram_bpc"),
            imports="import torch\n",
        ),
        Exercise(
            "bigram-bpc",
            "language_model",
            "Implement the bigram baseline",
            "Return the bits per character of a model that predicts each character from the one before it.",
            "tutorial_code.language_model",
            ("baselines",),
            "BIGRAM",
            write=("unigram_bpc", "bigram_bpc"),
            imports="import torch\n",
        ),
        Exercise(
            "top-p-filter",
            "language_model",
            "Implement the top-p filter",
            "Keep the smallest set of tokens whose probabilities reach top_p, and set every other logit to -inf.",
            "tutorial_code.language_model",
            ("top_p",),
            "TOP_P",
            write=("top_p_filter",),
            imports="import torch\n",
        ),
        # 12. Generating fast, with a KV cache
        Exercise(
            "kv-cache",
            "kv_cache",
            "Implement forward_with_cache",
            "Compute the logits of new tokens from their own queries, keys and values and the cached ones, and "
            "add the new keys and values to the cache.",
            "tutorial_code.language_model",
            ("kv_cache",),
            "KV_CACHE",
            write=("forward_with_cache",),
            imports=KV_IMPORTS,
        ),
        Exercise(
            "cache-offset",
            "kv_cache",
            "Find the bug: a cache that forgets where it is",
            "Generation with this cache starts well and turns to nonsense after the first token.",
            "tutorial_code.language_model",
            ("kv_cache",),
            "KV_CACHE",
            bug=("offset = cache.length if position_offset is None", "offset = 0 if position_offset is None"),
            imports=KV_IMPORTS,
        ),
        # 13. Local attention
        Exercise(
            "band-mask",
            "local_attention",
            "Implement the band mask",
            "Return the (T, T) boolean mask that lets query t attend to itself and the window - 1 keys before it, "
            "or, when not causal, to the keys less than window positions away on either side.",
            "tutorial_code.local_attention",
            ("band_mask",),
            "BAND_MASK",
            write=("band_mask",),
            imports=LOCAL_IMPORTS,
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
        ),
        # 15. From 2017 to today's models
        Exercise(
            "rms-norm",
            "todays_models",
            "Implement RMSNorm",
            "Write RMSNorm.forward: divide each token vector by its root mean square (plus eps, under the root) "
            "and multiply by the learned scale; refuse an input of the wrong width.",
            "tutorial_code.rms_norm",
            ("rms_norm",),
            "RMS_NORM",
            write=("RMSNorm.forward",),
        ),
        Exercise(
            "apply-rotary",
            "todays_models",
            "Implement the rotary position embedding",
            "Write apply_rotary: turn feature pair i of the row at position offset + t by its angle from "
            "rotary_angles, with either pairing.",
            "tutorial_code.rotary",
            ("rotary_angles", "apply_rotary"),
            "APPLY_ROTARY",
            write=("apply_rotary",),
        ),
        Exercise(
            "swiglu",
            "todays_models",
            "Implement SwiGLU",
            "Write SwiGLU.forward: the down projection of SiLU(gate(x)) times up(x), feature by feature.",
            "tutorial_code.swiglu",
            ("swiglu",),
            "SWIGLU",
            write=("SwiGLU.forward",),
        ),
        Exercise(
            "grouped-attention",
            "todays_models",
            "Implement grouped-query attention",
            "Write grouped_attention: repeat each key/value head for the query heads of its group, then attend "
            "with chapter 2's scaled_dot_product_attention.",
            "tutorial_code.grouped_query",
            ("grouped_attention",),
            "GROUPED_ATTENTION",
            write=("grouped_attention",),
            imports="import torch\n\nfrom tutorial_code.attention import scaled_dot_product_attention\n",
        ),
    ]
}
"""Every exercise by name, in the order of the chapters."""
