"""The part of the build that runs inside MkDocs: the plugin (`plugin.py`), the chapters' notebooks and their
cache keys, the pages filled with outputs, both editions, search. It starts the chapters' processes
(`sitebuild.in_chapter`) and never imports `tutorial_code`."""
