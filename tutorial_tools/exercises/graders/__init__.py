"""The checks of every exercise, one module per chapter, named after the chapter's page.

A grader is a list of `(name, check)` pairs; each check takes the learner's module. The reference is this
package's own code, the same code the unit tests compare with PyTorch. Every check runs more than one size
(a batch of one, an odd length, a width other than the usual one), gives the learner copies of its inputs,
and compares the dtype and device of what comes back as well as its values. A hint names a mistake only when
the learner's output equals what that mistake gives, computed from the reference, or has a property that
only that mistake gives. Inputs are small and seeded, so a grade takes a fraction of a second.
"""

from tutorial_tools.exercises.graders.checking_against_pytorch import COPY_WEIGHTS, TO_TORCH_MASK
from tutorial_tools.exercises.graders.common import Grader
from tutorial_tools.exercises.graders.dynamic_weights import SELF_ATTENTION
from tutorial_tools.exercises.graders.encoder_decoder import BEAM_SEARCH, DECODER_LAYER, SEQ2SEQ, SHIFT_RIGHT
from tutorial_tools.exercises.graders.feed_forward_and_norm import ENCODER_LAYER, FEED_FORWARD
from tutorial_tools.exercises.graders.kv_cache import KV_CACHE
from tutorial_tools.exercises.graders.language_model import BIGRAM, TOP_P, UNIGRAM
from tutorial_tools.exercises.graders.local_attention import BAND_MASK, SLIDING_WINDOW_CACHE
from tutorial_tools.exercises.graders.masks import CAUSAL_MASK, PADDING_MASK
from tutorial_tools.exercises.graders.multi_head_attention import HEADS, MULTI_HEAD
from tutorial_tools.exercises.graders.positional_encoding import SHIFT_ROTATION, SINUSOIDAL_TABLE
from tutorial_tools.exercises.graders.scaled_dot_product_attention import ATTENTION
from tutorial_tools.exercises.graders.todays_models import APPLY_ROTARY, GROUPED_ATTENTION, RMS_NORM, SWIGLU
from tutorial_tools.exercises.graders.training import CLASSIFIER, SCHEDULE
from tutorial_tools.exercises.graders.why_attention import RECURRENT

__all__ = [
    "APPLY_ROTARY",
    "ATTENTION",
    "BAND_MASK",
    "BEAM_SEARCH",
    "BIGRAM",
    "CAUSAL_MASK",
    "CLASSIFIER",
    "COPY_WEIGHTS",
    "DECODER_LAYER",
    "ENCODER_LAYER",
    "FEED_FORWARD",
    "GROUPED_ATTENTION",
    "HEADS",
    "KV_CACHE",
    "MULTI_HEAD",
    "PADDING_MASK",
    "RECURRENT",
    "RMS_NORM",
    "SCHEDULE",
    "SELF_ATTENTION",
    "SEQ2SEQ",
    "SHIFT_RIGHT",
    "SHIFT_ROTATION",
    "SINUSOIDAL_TABLE",
    "SLIDING_WINDOW_CACHE",
    "SWIGLU",
    "TOP_P",
    "TO_TORCH_MASK",
    "UNIGRAM",
    "Grader",
]
