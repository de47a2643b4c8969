#!/usr/bin/env bash
# Installs the pinned Ray (from PyPI) into a virtual environment at /opt/kestrel-ray, for
# proving on many hosts (`scripts/kestrel_ray.py`) and for the Ray tests
# (`tests/tests/dist_ray.rs`). Run it on every host of the cluster (the same prefix and
# the same Ray version everywhere: Ray refuses to join nodes of different versions).
#
# Idempotent: does nothing when the pinned version is installed and imports.
# Prints the venv's python on its last line of stdout:
#
#   bash scripts/install-ray.sh && /opt/kestrel-ray/bin/python scripts/kestrel_ray.py --help
#
# Environment: KESTREL_RAY_PREFIX overrides the prefix (default /opt/kestrel-ray);
# PYTHON the interpreter the venv is made from (default python3).
set -euo pipefail

PREFIX="${KESTREL_RAY_PREFIX:-/opt/kestrel-ray}"
PYTHON="${PYTHON:-python3}"
# Pinned: the driver, the tests and the README's figures were checked with this version.
RAY_VERSION=2.40.0
WANT="ray==$RAY_VERSION"
STAMP="$PREFIX/.kestrel-ray-installed"

log() { echo "install-ray: $*" >&2; }

installed() {
    [[ -f "$STAMP" && "$(cat "$STAMP")" == "$WANT" && -x "$PREFIX/bin/python" ]] &&
        "$PREFIX/bin/python" -c "import ray, sys; sys.exit(ray.__version__ != '$RAY_VERSION')" \
            >/dev/null 2>&1
}

if installed; then
    log "already installed in $PREFIX ($WANT)"
else
    if ! "$PYTHON" -c 'import ensurepip, venv' >/dev/null 2>&1; then
        log "$PYTHON cannot make a virtual environment (no ensurepip/venv module)."
        log "On Debian or Ubuntu: apt-get install -y python3-venv"
        exit 1
    fi
    log "installing $WANT into $PREFIX"
    if [[ ! -x "$PREFIX/bin/python" ]]; then
        "$PYTHON" -m venv "$PREFIX"
    fi
    "$PREFIX/bin/pip" install --quiet --disable-pip-version-check "$WANT"
    "$PREFIX/bin/python" -c "import ray; assert ray.__version__ == '$RAY_VERSION', ray.__version__"
    echo "$WANT" >"$STAMP"
fi

"$PREFIX/bin/python" -c "import ray; print('install-ray: ray', ray.__version__)" >&2
echo "$PREFIX/bin/python"
