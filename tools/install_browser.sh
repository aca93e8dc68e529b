#!/usr/bin/env bash
# Install what tests/test_browser.py needs, quietly and only what is missing:
#   * Debian's headless Chromium (apt; Playwright never downloads a browser here: the tests drive
#     /usr/bin/chromium through executable_path),
#   * Playwright's Python package (pip, into the given Python),
#   * the two JavaScript files a static widget page loads from a CDN (require.js and
#     @jupyter-widgets/html-manager's embed-amd.js), from the npm registry into $ODTLAB_JS_CACHE
#     (default ~/.cache/odtlab/js), so the static-export test runs offline.
#   usage: tools/install_browser.sh [PYTHON]     (default: .venv/bin/python of this repository)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
py="${1:-$here/.venv/bin/python}"
[ -x "$py" ] || py="$(command -v python3)"
js="${ODTLAB_JS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/odtlab/js}"

if ! command -v chromium >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq >/dev/null
        apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null
    else
        echo "install_browser.sh: chromium is missing and cannot be installed here (need root and apt-get)" >&2
        exit 1
    fi
fi

if ! "$py" -c "import playwright" >/dev/null 2>&1; then
    "$py" -m pip install --quiet "playwright>=1.40"
fi

if [ ! -f "$js/require.js" ] || [ ! -f "$js/html-manager/embed-amd.js" ]; then
    if ! command -v npm >/dev/null 2>&1; then
        echo "install_browser.sh: npm is missing: cannot fetch require.js and html-manager for the static test" >&2
        exit 1
    fi
    tmp="$(mktemp -d)"
    (cd "$tmp" && npm pack --silent requirejs@2.3.8 @jupyter-widgets/html-manager@1.0.15 >/dev/null)
    mkdir -p "$js/html-manager"
    tar -xzf "$tmp"/requirejs-2.3.8.tgz -C "$tmp" package/require.js
    cp "$tmp/package/require.js" "$js/require.js"
    rm -rf "$tmp/package"
    tar -xzf "$tmp"/jupyter-widgets-html-manager-1.0.15.tgz -C "$tmp" package/dist
    cp "$tmp"/package/dist/*.js "$js/html-manager/"
    rm -rf "$tmp"
fi
