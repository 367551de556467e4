"""Graded exercises: write a piece of the Transformer yourself, and let the site's own checks grade it.

    transformer-tutorial exercise --list          every exercise, and whether your file passes
    transformer-tutorial exercise causal-mask     write the starter file causal_mask.py here
    transformer-tutorial check causal-mask        grade it

The reference of each exercise is the `tutorial_code` section its chapter page shows; the checks
compare your code with it (and with PyTorch where PyTorch has the same function), and name the
mistake when your output matches a known one.
"""

from tutorial_tools.exercises.catalogue import EXERCISES, Exercise

__all__ = ["EXERCISES", "Exercise"]
