"""Chapter scripts: the code each chapter page runs and shows, in page order.

Each module is a plain script and a jupytext percent notebook. Its named sections are
included in the chapter page and executed at build time, so the output on the page is
what this code printed; the build also executes it as the chapter's notebook. Run one
with `transformer-tutorial <chapter>` (options: `--help`) or
`python -m tutorial_code.chapters.<name>`.
"""
