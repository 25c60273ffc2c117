#!/usr/bin/env bash
# The whole test suite on a fresh Debian or Ubuntu machine: installs what the tests need and is
# missing, then runs `cargo test --no-fail-fast` (arguments go to cargo test).
#
# Debian packages: fairy-stockfish (the referee's tests play it), parallel (GNU parallel: the
# book's shard tests), chromium and chromium-driver (the browser tests of `vier gui` and of
# the page without a server), nodejs (tests/web.rs runs the engine's WebAssembly module in
# node), and python3-venv where python3 lacks ensurepip (the suite's Python packages go into virtual
# environments of its own: tests/python_package.rs builds the Python package into one, with
# maturin, pytest and pettingzoo from PyPI).
# Python packages: selenium (browser tests) and matplotlib (the study's plots), from PyPI into
# the suite's own virtual environment target/test-venv (made from the first python3 on PATH,
# kept between runs), never into that python3 itself; the tests run with the environment's bin/
# first on PATH.
# The Rust target wasm32-unknown-unknown (the page's engine, tests/web.rs) is added with rustup.
#
# Installing needs root or sudo; without either, or with --check, it says exactly what is
# missing and the commands that install it, and stops (exit status 1). `--quick` runs the fast
# tier instead (see below), which needs none of these.
set -euo pipefail
cd "$(dirname "$0")/.."

check_only=false
if [ "${1:-}" = "--check" ]; then
    check_only=true
    shift
fi

say() { printf 'tools/test.sh: %s\n' "$*" >&2; }

if ! command -v cargo >/dev/null; then
    say "cargo is missing: install Rust with https://rustup.rs (then open a new shell)"
    exit 1
fi

# The fast tier: what tells a contributor in a few minutes whether a change broke the engine
# (the unit tests, the rules, the solver on samples of Pons' sets, the book, the protocol and
# its sessions, the layers, and every proven value of the protocol, vier serve and vier play
# checked against the solver). It needs cargo and python3 only; the full suite stays for CI.
if [ "${1:-}" = "--quick" ]; then
    shift
    command -v python3 >/dev/null || { say "python3 is missing"; exit 1; }
    say "cargo test (the fast tier) $*"
    exec cargo test --no-fail-fast --lib --test board --test solver --test book \
        --test protocol --test layers --test proven "$@" -- --skip python_and_the_page
fi

apt_missing=()
command -v python3 >/dev/null || apt_missing+=(python3)
command -v fairy-stockfish >/dev/null || [ -x /usr/games/fairy-stockfish ] || apt_missing+=(fairy-stockfish)
# moreutils has another program called parallel: only GNU parallel will do
parallel --version 2>/dev/null | grep -q 'GNU parallel' || apt_missing+=(parallel)
# Debian's names; Ubuntu ships Chromium as a snap behind chromium-browser and
# chromium-chromedriver (untested here: snaps do not run in most containers)
browser_pkgs=(chromium chromium-driver)
if ! apt-cache show chromium >/dev/null 2>&1 && apt-cache show chromium-browser >/dev/null 2>&1; then
    browser_pkgs=(chromium-browser chromium-chromedriver)
fi
{ command -v chromium >/dev/null || command -v chromium-browser >/dev/null; } || apt_missing+=("${browser_pkgs[0]}")
command -v chromedriver >/dev/null || apt_missing+=("${browser_pkgs[1]}")
command -v node >/dev/null || apt_missing+=(nodejs)
wasm_missing=false
if ! rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
    wasm_missing=true
fi

# the suite's own Python environment: selenium and matplotlib go there, not into python3
venv=target/test-venv
py_missing=()
if command -v python3 >/dev/null; then
    # Debian's python3 makes no virtual environment without python3-venv (no ensurepip)
    python3 -c 'import ensurepip' 2>/dev/null || apt_missing+=(python3-venv)
fi
for m in selenium matplotlib; do
    "$venv/bin/python" -c "import $m" 2>/dev/null || py_missing+=("$m")
done

sudo=()
[ "$(id -u)" = 0 ] || sudo=(sudo)
can_root=true
if [ ${#sudo[@]} -gt 0 ] && ! sudo -n true 2>/dev/null; then
    can_root=false
fi

if $wasm_missing; then
    say "missing for the tests: the Rust target wasm32-unknown-unknown"
    ! $check_only || say "install with: rustup target add wasm32-unknown-unknown"
fi
if [ ${#apt_missing[@]} -gt 0 ] || [ ${#py_missing[@]} -gt 0 ]; then
    say "missing for the tests:" "${apt_missing[@]}" "${py_missing[@]/%/ (in $venv)}"
    if $check_only || { [ ${#apt_missing[@]} -gt 0 ] && ! $can_root; }; then
        [ ${#apt_missing[@]} -eq 0 ] ||
            say "install with: sudo apt-get install ${apt_missing[*]}"
        [ ${#py_missing[@]} -eq 0 ] ||
            say "install with: python3 -m venv $venv && $venv/bin/python -m pip install ${py_missing[*]}"
        exit 1
    fi
fi

if $check_only; then
    ! $wasm_missing || exit 1
    say "nothing is missing"
    exit 0
fi

if [ ${#apt_missing[@]} -gt 0 ]; then
    say "installing Debian packages: ${apt_missing[*]}"
    # other package managers may hold the lock for a while: wait for it
    "${sudo[@]}" apt-get -o DPkg::Lock::Timeout=600 update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get -o DPkg::Lock::Timeout=600 \
        install -y -qq "${apt_missing[@]}" >/dev/null
fi
if $wasm_missing; then
    say "adding the Rust target wasm32-unknown-unknown"
    rustup target add wasm32-unknown-unknown
fi
if [ ${#py_missing[@]} -gt 0 ]; then
    say "installing into $venv: ${py_missing[*]}"
    [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet "${py_missing[@]}"
fi
for m in selenium matplotlib; do
    "$venv/bin/python" -c "import $m" || { say "$venv still cannot import $m"; exit 1; }
done
# the tests start `python3`: the environment's
PATH="$PWD/$venv/bin:$PATH"
export PATH

say "cargo test --no-fail-fast $*"
exec cargo test --no-fail-fast "$@"
