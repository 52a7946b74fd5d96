#!/usr/bin/env bash
# What of a Node process's native (non-V8) memory is free memory that glibc keeps, rather than memory in use
# (issue 24: the soak's floor held ~100 MB of native memory beyond a fresh process). Attach to an IDLE process only
# (bench/soak.bench.mjs --hold): gdb calls malloc_stats() and malloc_trim(0) inside it, and a thread stopped inside
# malloc would deadlock. Prints the anonymous memory before and after, by mapping group; malloc_stats goes to the
# process's own stderr (per arena: system bytes = held from the kernel, in use bytes = allocated).
#   bash bench/native-trim.sh <pid>
set -euo pipefail
pid=${1:?usage: native-trim.sh <pid>}
command -v gdb >/dev/null || { echo "needs gdb (apt-get install gdb)"; exit 1; }
anon() { awk '/^Anonymous:/ {print int($2/1024)}' "/proc/$pid/smaps_rollup"; }
heap() { awk '/\[heap\]/ {h=1; next} h && /^Anonymous:/ {print int($2/1024); exit}' "/proc/$pid/smaps"; }
echo "before: anonymous $(anon) MB, of it the main arena ([heap]) $(heap) MB; RSS $(awk '/VmRSS/ {print int($2/1024)}' /proc/$pid/status) MB"
gdb -p "$pid" -batch -nx -ex 'call (void) malloc_stats()' -ex 'call (int) malloc_trim(0)' -ex 'call (void) malloc_stats()' >/dev/null 2>&1
echo "after malloc_trim(0): anonymous $(anon) MB, of it the main arena ([heap]) $(heap) MB; RSS $(awk '/VmRSS/ {print int($2/1024)}' /proc/$pid/status) MB"
