/**
 * The ledger: what happened to every round, including the ones that were not written (dropped by the salience bar,
 * unanswered, failed to write), and what distillation cost. Append-only JSON lines in `<root>/.knowledge/ledger.jsonl`;
 * each line is one small `O_APPEND` write, so several dsh processes can share one root. Stats are folded from it.
 * @module dsh-knowledge-sync/knowledge/logs/ledger
 */
import { constants } from 'node:fs'
import { appendFile, lstat, mkdir, open, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { RoundStats } from '../../wire.js'

export const LEDGER_DIR = '.knowledge'
const NOFOLLOW = constants.O_NOFOLLOW ?? 0

export type LedgerEntry =
  | { type: 'kept'; session: string; turn: number; id: string; score: number; redacted: number }
  | { type: 'dropped'; session: string; turn: number; score: number; reasons: string[]; title?: string }
  | { type: 'unanswered'; session: string; turn: number; outcome: string }
  | { type: 'failed'; session?: string; turn?: number; path?: string; error: string }
  | { type: 'note'; session?: string; id: string; redacted: number }
  | { type: 'distilled'; id: string; provider: string; model: string; tokensIn: number; tokensOut: number }
  | { type: 'distill-failed'; id: string; error: string }
  | { type: 'distill-skipped'; id: string; reason: string }
  /** A status change (supersede, retire, restore) and who asked: `tool`, `cli` or `page`. */
  | { type: 'status'; id: string; status: string; by?: string; reason?: string; actor: string }
  | { type: 'synced'; id: string; path: string; source: string; redacted: number }

/** Aggregates shown by `stats` (CLI, routes, page). */
/** What the ledger folds to (the wire shape of `rounds` in stats). */
export type LedgerStats = RoundStats

function emptyStats(): LedgerStats {
  return { kept: 0, dropped: 0, dropReasons: [], unanswered: {}, failed: 0, notes: 0, redacted: 0, distill: { calls: 0, failed: 0, skipped: {}, tokensIn: 0, tokensOut: 0, perDay: {} } }
}

/** The key of one round in {@link Ledger.roundsSeen}. */
export const roundKey = (session: string, turn: number): string => `${session}#${turn}`

const bump = (map: Record<string, number>, key: string, by = 1) => {
  map[key] = (map[key] ?? 0) + by
}

/** Append-only ledger with incremental folding (only new bytes are read on each `stats()`). */
export class Ledger {
  readonly path: string
  private offset = 0
  private carry = ''
  private folded = emptyStats()
  private reasons: Record<string, number> = {}
  /** Entries whose append failed (full disk): still counted, so nothing is silently lost from the numbers. */
  private unwritten: Array<LedgerEntry & { t: string }> = []

  constructor(root: string) {
    this.path = join(root, LEDGER_DIR, 'ledger.jsonl')
  }

  /** Appends one entry. Never throws: a failed append is kept in memory and still counted. */
  async record(entry: LedgerEntry): Promise<void> {
    const line = { t: new Date().toISOString(), ...entry }
    try {
      await mkdir(join(this.path, '..'), { recursive: true })
      // Never through a link (a linked ledger would append to whatever file it names, outside the root).
      if ((await lstat(join(this.path, '..'))).isSymbolicLink()) throw new Error('the ledger folder is a symbolic link')
      await appendFile(this.path, JSON.stringify(line) + '\n', { flag: constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | NOFOLLOW })
    } catch {
      this.unwritten.push(line)
    }
  }

  /** Every entry on disk (and any whose append failed), oldest first. A torn or hand-edited line is skipped. */
  async entries(): Promise<Array<LedgerEntry & { t?: string }>> {
    let text = ''
    try {
      text = await readFile(this.path, 'utf8')
    } catch {
      /* no ledger yet */
    }
    const out: Array<LedgerEntry & { t?: string }> = []
    for (const line of text.split('\n')) {
      if (!line.trim()) continue
      try {
        out.push(JSON.parse(line))
      } catch {
        /* skip */
      }
    }
    return [...out, ...this.unwritten]
  }

  /** `session#turn` of every round the ledger has an outcome for (kept, dropped, unanswered, failed). */
  async roundsSeen(): Promise<Set<string>> {
    const seen = new Set<string>()
    for (const entry of await this.entries()) {
      if ((entry.type === 'kept' || entry.type === 'dropped' || entry.type === 'unanswered' || entry.type === 'failed') && entry.session && entry.turn !== undefined) {
        seen.add(roundKey(entry.session, entry.turn))
      }
    }
    return seen
  }

  /** Distill calls made today (UTC), successful or failed, for the daily budget. */
  async distillCallsToday(): Promise<number> {
    const stats = await this.stats()
    return stats.distill.perDay[new Date().toISOString().slice(0, 10)] ?? 0
  }

  async stats(): Promise<LedgerStats> {
    await this.catchUp()
    const result = structuredClone(this.folded)
    const reasons = { ...this.reasons }
    for (const entry of this.unwritten) this.fold(result, reasons, entry)
    result.dropReasons = Object.entries(reasons)
      .map(([reason, count]) => ({ reason, count }))
      .sort((a, b) => b.count - a.count || a.reason.localeCompare(b.reason))
      .slice(0, 10)
    return result
  }

  private async catchUp(): Promise<void> {
    let handle
    try {
      handle = await open(this.path, constants.O_RDONLY | NOFOLLOW)
    } catch {
      return
    }
    try {
      const size = (await handle.stat()).size
      if (size < this.offset) {
        this.offset = 0
        this.carry = ''
        this.folded = emptyStats()
        this.reasons = {}
      }
      if (size === this.offset) return
      const buffer = Buffer.alloc(size - this.offset)
      await handle.read(buffer, 0, buffer.length, this.offset)
      this.offset = size
      const text = this.carry + buffer.toString('utf8')
      const lines = text.split('\n')
      this.carry = lines.pop() ?? ''
      for (const line of lines) {
        if (!line.trim()) continue
        try {
          this.fold(this.folded, this.reasons, JSON.parse(line))
        } catch {
          /* a torn or hand-edited line: skip it */
        }
      }
    } finally {
      await handle.close()
    }
  }

  private fold(stats: LedgerStats, reasons: Record<string, number>, entry: LedgerEntry & { t?: string }): void {
    switch (entry.type) {
      case 'kept':
        stats.kept++
        stats.redacted += entry.redacted ?? 0
        break
      case 'dropped':
        stats.dropped++
        if (entry.reasons?.[0]) bump(reasons, entry.reasons[0])
        break
      case 'unanswered':
        bump(stats.unanswered, entry.outcome ?? 'unknown')
        break
      case 'failed':
        stats.failed++
        stats.lastFailure = entry.error
        break
      case 'note':
        stats.notes++
        stats.redacted += entry.redacted ?? 0
        break
      case 'distilled':
        stats.distill.calls++
        stats.distill.tokensIn += entry.tokensIn ?? 0
        stats.distill.tokensOut += entry.tokensOut ?? 0
        bump(stats.distill.perDay, (entry.t ?? new Date().toISOString()).slice(0, 10))
        break
      // A failed call may still have cost tokens, so it counts against the daily budget too.
      case 'distill-failed':
        stats.distill.failed++
        bump(stats.distill.perDay, (entry.t ?? new Date().toISOString()).slice(0, 10))
        break
      case 'distill-skipped':
        bump(stats.distill.skipped, entry.reason)
        break
      case 'synced':
        stats.redacted += entry.redacted ?? 0
        break
    }
  }
}
