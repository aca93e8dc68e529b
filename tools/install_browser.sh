#!/usr/bin/env bash
# Install what tests/test_browser.py and tests/test_book.py need, quietly and only what is missing:
#   * Debian's headless Chromium (apt; Playwright never downloads a browser here: the tests drive
#     /usr/bin/chromium through executable_path),
#   * Playwright's Python package (pip, into the given Python).
# The static pages (the book, SearchPlayer.to_html) carry their own JavaScript: nothing comes from npm.
#   usage: tools/install_browser.sh [PYTHON]     (default: .venv/bin/python of this repository)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
py="${1:-$here/.venv/bin/python}"
[ -x "$py" ] || py="$(command -v python3)"

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
