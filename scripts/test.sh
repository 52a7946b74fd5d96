#!/usr/bin/env bash
# The whole test suite on a fresh machine: set-up (idempotent, includes Debian's chromium for the page tests),
# build + pack, then every spec. Ends with a plain "N passed, N failed" line.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$KS_ROOT"
bash scripts/bootstrap.sh --browser
mkdir -p test/artifacts
# The shape guards first: formatting and lint (Biome, under a second) and the type checker over src, client, test, bench.
node node_modules/@biomejs/biome/bin/biome ci --colors=off . || { echo "tests: 0 passed, 1 failed (biome: run \`pnpm run format\`)"; exit 1; }
pnpm run --silent typecheck || { echo "tests: 0 passed, 1 failed (typecheck)"; exit 1; }
set +e
node node_modules/vitest/vitest.mjs run --reporter=default --reporter=json --outputFile.json=test/artifacts/vitest.json "$@"
rc=$?
set -e
node -e '
const r = JSON.parse(require("fs").readFileSync("test/artifacts/vitest.json", "utf8"));
console.log(`tests: ${r.numPassedTests} passed, ${r.numFailedTests} failed` + (r.numPendingTests ? `, ${r.numPendingTests} skipped` : ""));
' || true
exit $rc
