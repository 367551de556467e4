"""Chapter scripts: the code each chapter page runs and shows, in page order.

Each module is a plain script. Its named sections are included in the chapter page
and executed at build time, so the output on the page is what this code printed.
Run one yourself with `python -m tutorial_code.chapters.<name>`.
"""
