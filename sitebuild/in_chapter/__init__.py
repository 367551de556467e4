"""The part of the build that runs in a chapter's own process: the runner (`execute.py`, `kernel.py`), the
checked sentences (`claims.py`), the shared trainings and the recorded runs. It never imports
`sitebuild.in_mkdocs`; a chapter's cache key covers every module here, by following its imports."""
