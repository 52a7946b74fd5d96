#!/usr/bin/env bash
# Set-up and demo on a fresh machine: installs Node 22, pnpm, dsh 0.1.0-rc.8 and the project's dependencies from the
# npm registry (idempotent), builds and packs the bundle, then runs the demo against a real dsh.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$KS_ROOT"
bash scripts/bootstrap.sh
node scripts/demo.ts
