#!/usr/bin/env bash
# `make setup`: the project's venv (.venv) with the pinned dependencies of pyproject.toml.
#   bash .ci/setup.sh [EXTRAS]        e.g. "dev" or "dev,instructor" (default: none)
#   bash .ci/setup.sh --bytecode      only write the children's bytecode (.ci/warm_bytecode.py;
#                                     --bytecode --instructor: the instructor processes')
# Installs with uv (pinned below; pip installs it once from PyPI into SETUP_UV_HOME, default
# ~/.cache/training-systems-setup/uv-VERSION, so a fresh clone reuses it), handing it
# pip's own configuration (find-links, indexes, constraints: `pip config list`, PIP_* variables)
# so it picks the very wheels pip would (this machine's local CPU torch wheel, never a CUDA
# download). No bytecode is compiled at install time; .ci/warm_bytecode.py then writes the
# .pyc files the sandboxed children read (they run with -B and never write any).
# pip is the fallback when uv cannot be installed or run; SETUP_INSTALLER=pip forces it.
# Needs python3 (PYTHON) with the venv module.
set -euo pipefail
cd "$(dirname "$0")/.."
UV_VERSION=0.13.9
PYTHON=${PYTHON:-python3}
PY=.venv/bin/python
# uv itself (pip install --target: outside the venv, so the venv needs no pip for it)
BOOT=${SETUP_UV_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/training-systems-setup}/uv-$UV_VERSION
UV=$BOOT/bin/uv
spec="."
[ -n "${1:-}" ] && spec=".[$1]"

uv_ready() { [[ "$("$UV" --version 2>/dev/null)" == "uv $UV_VERSION "* ]]; }

pip_install() {
    "$PY" -m pip --version >/dev/null 2>&1 || "$PY" -m ensurepip --default-pip >/dev/null
    "$PY" -m pip install --quiet --disable-pip-version-check --no-compile "$@"
}

# pip's certificate file (or an empty line), then uv's flags for what pip is configured with
# (the last value of each option wins, as in pip).
uv_flags() {
    "$PYTHON" -m pip config list 2>/dev/null | "$PYTHON" -c '
import shlex, sys
opts = {}
for line in sys.stdin:
    key, _, value = line.strip().partition("=")
    section, _, name = key.rpartition(".")
    if section in ("global", "install", ":env:") and value:
        opts[name] = (shlex.split(value) or [""])[0]
print(opts.get("cert", ""))
flags = {"index-url": "--index-url", "extra-index-url": "--extra-index-url",
         "find-links": "--find-links", "constraint": "--constraint"}
for name, flag in flags.items():
    for item in opts.get(name, "").split():
        print(flag)
        print(item)
if opts.get("no-index", "").lower() in ("1", "true", "yes", "on"):
    print("--no-index")
'
}

uv_install() {
    local flags cert pip_pin
    mapfile -t flags < <(uv_flags)
    cert=${SSL_CERT_FILE:-${flags[0]:-}}
    flags=("${flags[@]:1}")
    [ -n "$cert" ] && export SSL_CERT_FILE="$cert"
    # the pip that `python -m venv` would have put there (the fallback, `make gpu-wheels`)
    pip_pin=$("$PY" -c "import ensurepip; print(ensurepip.version())")
    # --index-strategy unsafe-best-match: pip's rule (the best version over all indexes).
    # Offline first: with every package cached, nothing is asked of the indexes.
    local cmd=("$UV" pip install --quiet --python "$PY" --index-strategy unsafe-best-match
               "${flags[@]}" "pip==$pip_pin" -e "$spec")
    "${cmd[@]}" --offline >/dev/null 2>&1 || "${cmd[@]}"
}

# one line of what setup is doing (never silent for long), on stdout
say() { echo "setup: $*"; }

# the .pyc files the sandboxed children (python -I -B) read but never write: .ci/warm_bytecode.py,
# its two parts side by side (one core each), then the views that pair with them
# (env -u: a PYTHONDONTWRITEBYTECODE or PYTHONPYCACHEPREFIX of the caller must not stop it)
# (SETUP_BYTECODE=0: skip it, e.g. for an extra whose packages no child imports)
bytecode_part() {
    env -u PYTHONDONTWRITEBYTECODE -u PYTHONPYCACHEPREFIX "$PY" .ci/warm_bytecode.py "$@" \
        >/dev/null 2>&1 || true
}
warm_bytecode() {
    [ "${SETUP_BYTECODE:-1}" = 0 ] && return 0
    local started=$SECONDS
    if [ "${1:-}" = --instructor ]; then
        say "writing the instructor tools' bytecode (about 5 s)..."
        bytecode_part --instructor
    else
        say "writing the bytecode the sandboxed children read (about 10 s on 2 cores)..."
        bytecode_part --part torch & bytecode_part --part rest; wait
        bytecode_part --part views
    fi
    say "bytecode written ($((SECONDS - started)) s)"
}

if [ "${1:-}" = --bytecode ]; then  # only the bytecode (make's stamp for it)
    warm_bytecode "${@:2}"  # --instructor: the instructor's own processes' (warm_bytecode.py)
    exit 0
fi

started=$SECONDS
if [ "${SETUP_INSTALLER:-uv}" = uv ]; then
    test -x "$PY" || "$PYTHON" -m venv --without-pip .venv
    if ! uv_ready; then
        say "fetching uv $UV_VERSION (once per machine)..."
        "$PYTHON" -m pip install --quiet --disable-pip-version-check --no-compile --no-deps \
            --upgrade --target "$BOOT" "uv==$UV_VERSION" >/dev/null 2>&1 || true
    fi
    if uv_ready; then
        say "installing the pinned packages ($spec) into .venv with uv (about 30 s with warm" \
            "caches, 2 min with empty ones)..."
        uv_install && { say "packages installed ($((SECONDS - started)) s)"; warm_bytecode; exit 0; }
        echo "note: uv could not install the dependencies; falling back to pip" >&2
    else
        echo "note: uv $UV_VERSION is unavailable; installing with pip" >&2
    fi
fi
say "installing the pinned packages ($spec) into .venv with pip (about 3 min with warm caches," \
    "5 min with empty ones)..."
test -x "$PY" || "$PYTHON" -m venv .venv
pip_install -e "$spec"
say "packages installed ($((SECONDS - started)) s)"
warm_bytecode
