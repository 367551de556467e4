#!/usr/bin/env bash
# One entry point for contributors and CI.
#   bash scripts/dev.sh serve   install everything into .venv, then serve the site on http://127.0.0.1:8000/attention-by-hand/
#   bash scripts/dev.sh test    install everything into .venv, then run the whole test suite
#                               (unit tests, docstring examples, chapter scripts, strict site build)
#   bash scripts/dev.sh build   install everything into .venv, then build the site into site/
# TORCH_INDEX chooses the build of torch (see install_torch): cpu, default, or an index URL.
set -euo pipefail
cd "$(dirname "$0")/.."

export DISABLE_MKDOCS_2_WARNING=true NO_MKDOCS_2_WARNING=1
VENV=${VENV:-.venv}
PYTHON=${PYTHON:-python3}

# Which build of torch: TORCH_INDEX=cpu, the default on a machine with no NVIDIA GPU, takes PyTorch's CPU wheels
# (a fraction of the CUDA build of several GB that the package index gives Linux); TORCH_INDEX=default takes the package
# index's own build; any other value is an index URL (PyTorch's cu128, rocm6.4, ...). Where the CPU index cannot be
# reached, the package index's build is installed instead, with a line that says so.
install_torch() {
  local torch index=${TORCH_INDEX:-}
  torch=$(grep -E '^torch==' requirements.txt | cut -d' ' -f1)
  if [[ -z "$index" ]]; then
    index=default
    if [[ "$(uname -s)" == Linux ]] && ! command -v nvidia-smi >/dev/null; then index=cpu; fi
  fi
  [[ "$index" == cpu ]] && index=https://download.pytorch.org/whl/cpu
  if [[ "$index" != default ]]; then
    if "$VENV/bin/python" -m pip install --quiet --no-compile --retries 1 --timeout 20 --index-url "$index" "$torch"; then
      return
    fi
    echo "dev.sh: $index could not be reached; installing $torch from the default package index" >&2
  fi
  "$VENV/bin/python" -m pip install --quiet --no-compile "$torch"
}

install() {
  if [[ ! -x "$VENV/bin/python" ]]; then
    "$PYTHON" -m venv "$VENV"
  fi
  local stamp="$VENV/.installed" wanted
  wanted=$(cat requirements.txt pyproject.toml | sha256sum | cut -d' ' -f1)
  if [[ ! -f "$stamp" || "$(cat "$stamp")" != "$wanted" ]]; then
    "$VENV/bin/python" -m pip install --quiet --upgrade pip
    install_torch  # first and pinned, so nothing later pulls another build
    # --no-compile: Python compiles a module when it is first imported, so the tens of thousands of files of
    # torch and transformers that nothing imports are never compiled (a fresh install takes half as long).
    "$VENV/bin/python" -m pip install --quiet --no-compile -r requirements.txt
    "$VENV/bin/python" -m pip install --quiet --no-compile --no-deps -e .
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
