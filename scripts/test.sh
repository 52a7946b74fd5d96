#!/usr/bin/env bash
# The whole test suite on a fresh machine: set-up (idempotent, includes Debian's chromium for the page tests),
# build + pack, then every spec. Ends with a plain "N passed, N failed" line.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$KS_ROOT"
bash scripts/bootstrap.sh --browser
mkdir -p test/artifacts
set +e
node node_modules/vitest/vitest.mjs run --reporter=default --reporter=json --outputFile.json=test/artifacts/vitest.json "$@"
rc=$?
set -e
node -e '
const r = JSON.parse(require("fs").readFileSync("test/artifacts/vitest.json", "utf8"));
console.log(`tests: ${r.numPassedTests} passed, ${r.numFailedTests} failed` + (r.numPendingTests ? `, ${r.numPendingTests} skipped` : ""));
' || true
exit $rc
