"""A Transformer encoder written by hand in PyTorch, one concept per module."""
