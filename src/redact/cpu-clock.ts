/**
 * The clock of redaction's budgets: this process's CPU time (user + system), in ms. A budget guards against work that
 * runs away (a slow user pattern, a hostile paste), and work is what CPU time measures: on a busy machine the
 * scheduler stretches wall time for every process alike, and a wall-clock budget would refuse a pattern or drop a
 * round there that an idle machine accepts. Chunk sizes that keep the event loop responsive still use wall time.
 * @module dsh-knowledge-sync/redact/cpu-clock
 */
export function cpuMs(): number {
  const { user, system } = process.cpuUsage()
  return (user + system) / 1000
}
