"""The tools around the tutorial's code: the list of chapters, the `transformer-tutorial` command, the exercises.

`tutorial_code` holds what readers copy and run; this package holds what runs it for them.
"""
