"""The chapters, one folder each (`docs/<chapter>/`): the page and its Chinese
edition, the script that computes and prints what the page shows, the checks of
the sentences that state a result, the exercises.

Installed, this folder is the package `tutorial_chapters` (pyproject.toml),
which carries the scripts and the exercises: `transformer-tutorial <chapter>`
runs a script, `transformer-tutorial exercise` grades an exercise.
"""
