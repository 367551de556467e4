#!/usr/bin/env bash
# One entry point for contributors and CI.
#   bash scripts/dev.sh serve   install everything into .venv, then serve the site on http://127.0.0.1:8000/attention-by-hand/
#   bash scripts/dev.sh test    install everything into .venv, then run the whole test suite
#                               (unit tests, docstring examples, chapter scripts, strict site build)
#   bash scripts/dev.sh build   install everything into .venv, then build the site into site/
set -euo pipefail
cd "$(dirname "$0")/.."

export DISABLE_MKDOCS_2_WARNING=true NO_MKDOCS_2_WARNING=1
VENV=${VENV:-.venv}
PYTHON=${PYTHON:-python3}

install() {
  if [[ ! -x "$VENV/bin/python" ]]; then
    "$PYTHON" -m venv "$VENV"
  fi
  local stamp="$VENV/.installed" wanted
  wanted=$(cat requirements.txt pyproject.toml | sha256sum | cut -d' ' -f1)
  if [[ ! -f "$stamp" || "$(cat "$stamp")" != "$wanted" ]]; then
    "$VENV/bin/python" -m pip install --quiet --upgrade pip
    # torch first and pinned, so nothing later pulls a multi-GB CUDA build.
    "$VENV/bin/python" -m pip install --quiet "$(grep -E '^torch==' requirements.txt)"
    "$VENV/bin/python" -m pip install --quiet -r requirements.txt
    "$VENV/bin/python" -m pip install --quiet --no-deps -e .
    echo "$wanted" > "$stamp"
  fi
}

case "${1:-}" in
  # --dirty: render again only the pages an edit touched (the site's plugin adds those whose code or outputs
  # changed); --no-strict: a dirty build always warns that its navigation may be stale. CI builds strictly.
  serve) install; exec "$VENV/bin/mkdocs" serve --dirty --no-strict --dev-addr 127.0.0.1:8000 ;;
  build) install; exec "$VENV/bin/mkdocs" build --strict ;;
  # Two workers (pytest-xdist), each running whole test files in the order tests/conftest.py sets: the first
  # that needs the site builds it, the other runs the unit tier meanwhile. TEST_WORKERS=0: one process.
  test) install; shift
        exec "$VENV/bin/python" -m pytest -n "${TEST_WORKERS:-2}" --dist loadfile --no-loadscope-reorder "$@" ;;
  *) echo "usage: bash scripts/dev.sh serve|build|test [pytest options]" >&2; exit 2 ;;
esac
