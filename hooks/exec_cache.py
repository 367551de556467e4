"""MkDocs hook: reuse the output of a markdown-exec Python block while the code behind it is unchanged.

markdown-exec runs every `exec="on"` block on every build, and `mkdocs serve` rebuilds
the whole site after any edit, so fixing a typo in a sentence would re-run every
chapter. This hook keeps each block's output in the result cache
(`tutorial_code.result_cache`, folder `TUTORIAL_CACHE_DIR`, set by `hooks/notebooks.py`)
under a key made of:

- the block's code and the code of every block before it in the same session (a block
  can use the names they define, and the state they leave);
- the source of every `tutorial_code` module that code imports, followed through imports;
- the benchmark results in `benchmarks/results-*.json`, which the best-practices page reads.

A prose edit changes none of these, so nothing runs again; an edit to `masks.py` re-runs
exactly the blocks whose session imports it, directly or not. When a block must run
after earlier blocks of its session were reused, those earlier blocks run first
(their output is dropped), so the session's names exist as on a cold build.

markdown-exec has no public hook for this: the hook wraps its private `_run_python`
(pinned markdown-exec 1.12.6); `tests/test_hooks.py` fails if that name moves.
"""

from __future__ import annotations

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import get_plugin_logger

log = get_plugin_logger(__name__)

_state: dict = {"histories": {}, "reused": 0, "ran": 0}


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    import markdown_exec._internal.formatters.python as python_formatter

    from tutorial_code.result_cache import data_fingerprint

    uncached = getattr(python_formatter, "_uncached_run_python", python_formatter._run_python)
    python_formatter._uncached_run_python = uncached
    _state.update(histories={}, reused=0, ran=0, data=data_fingerprint())
    # Sessions start empty on every build, as on a cold one: under `mkdocs serve` markdown-exec would
    # otherwise keep the names (and objects of old classes) that the previous build's blocks defined.
    python_formatter._sessions_globals.clear()

    def run_or_reuse(code: str, returncode: int | None = None, session: str | None = None, id=None, **extra):  # noqa: A002
        from tutorial_code.result_cache import cached, code_fingerprint

        history = _state["histories"].setdefault(session, []) if session else []
        earlier = "\n".join(block for block, _ in history)
        source = earlier + "\n" + code
        try:
            fingerprint = code_fingerprint(source=source)
        except SyntaxError:  # let markdown-exec report it, with its own message
            return uncached(code, returncode, session=session, id=id, **extra)
        key = f"markdown-exec {session!r}\n{source}\ndata {_state['data']}\ncode {fingerprint}"
        ran_now = False

        def run() -> str:
            nonlocal ran_now
            for index, (block, done) in enumerate(history):
                if not done:  # reused earlier: run it now, so this block finds the names it defines
                    uncached(block, returncode, session=session, **extra)
                    history[index] = (block, True)
            ran_now = True
            return uncached(code, returncode, session=session, id=id, **extra)

        output = cached(key, run)
        _state["ran" if ran_now else "reused"] += 1
        if session:
            history.append((code, ran_now))
        return output

    python_formatter._run_python = run_or_reuse
    return config


def on_post_build(config: MkDocsConfig) -> None:
    log.info(f"python blocks: {_state['reused']} outputs reused, {_state['ran']} run")
