#!/usr/bin/env bash
# Create .venv and install Kifu into it. Idempotent: reinstalls only when a requirements
# file or pyproject.toml changed.  `scripts/setup.sh dev` adds the test dependencies and
# Debian's chromium for the browser tests (when running as root with apt-get available).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
mode=${1:-run}
reqs=requirements.txt
[ "$mode" = dev ] && reqs=requirements-dev.txt

if [ ! -x .venv/bin/python ]; then
  echo "== creating .venv with $($PYTHON --version)"
  "$PYTHON" -m venv .venv
fi
stamp=".venv/.kifu-$mode-$(cat requirements.txt requirements-dev.txt pyproject.toml | sha256sum | cut -c1-16)"
if [ ! -f "$stamp" ]; then
  echo "== installing $reqs into .venv"
  .venv/bin/python -m pip install -q --disable-pip-version-check --upgrade pip
  .venv/bin/python -m pip install -q --disable-pip-version-check -r "$reqs"
  # -qq: setuptools prints a generic notice for every editable install of a flat layout
  .venv/bin/python -m pip install -qq --disable-pip-version-check --no-deps -e .
  touch "$stamp"
fi

# The browser tests need Debian's chromium; the README screenshots (Japanese pages) need a Japanese font:
# fonts-noto-cjk (Noto Sans CJK JP), the font the screenshots in docs/screenshots/ are made with.
CJK_FONT=/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc
if [ "$mode" = dev ] && { [ ! -x /usr/bin/chromium ] || [ ! -e "$CJK_FONT" ]; }; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "== installing Debian's chromium and a Japanese font (fonts-noto-cjk) for the browser tests and screenshots"
    # wait for a package manager that is already running (unattended upgrades, another set-up) instead of
    # failing; if it stays busy (or apt fails), the other tests run and the browser tests are skipped
    . scripts/apt_wait.sh
    if ! { apt_wait update -qq && DEBIAN_FRONTEND=noninteractive apt_wait install -y -qq chromium fonts-ipafont-gothic >/dev/null; }; then
      echo "== chromium could not be installed (above): the browser tests will be skipped"
    elif ! DEBIAN_FRONTEND=noninteractive apt_wait install -y -qq --no-install-recommends fonts-noto-cjk >/dev/null; then
      echo "== fonts-noto-cjk could not be installed (above): Japanese screenshots will show empty boxes for"
      echo "   Japanese text; everything else works"
    fi
  else
    [ -x /usr/bin/chromium ] || echo "== /usr/bin/chromium missing and not root: browser tests will be skipped"
    [ -e "$CJK_FONT" ] || echo "== fonts-noto-cjk missing and not root (apt-get install fonts-noto-cjk): Japanese screenshots skipped"
  fi
fi
