#!/usr/bin/env bash
# Makes the screenshots in docs/ anew from the page as it is now, with the browser tests that
# take them: docs/gui.png (README's: a game against the engine with the analysis shown),
# docs/gui-12x4-laptop.png and docs/gui-12x4-phone.png (tests/gui.rs), docs/web-*.png
# (tests/web.rs: the page without a server on a desktop and a phone, light and dark, a review,
# 12x4). Needs what tools/test.sh installs for them (Chromium, chromedriver, selenium, node and
# the wasm32 target); takes as long as those two tests.
#
#   tools/screenshots.sh
set -euo pipefail
cd "$(dirname "$0")/.."
VIER_GUI_SCREENSHOT="$PWD/docs/gui.png" tools/test.sh --test gui
VIER_WEB_SCREENSHOTS="$PWD/docs" tools/test.sh --test web
git status --short -- docs/*.png >&2
