/**
 * The ledger: what happened to every round, including the ones that were not written (dropped by the salience bar,
 * unanswered, failed to write), and what distillation cost. Append-only JSON lines in `<root>/.knowledge/ledger.jsonl`;
 * each line is one small `O_APPEND` write, so several dsh processes can share one root. Stats are folded from it.
 * @module dsh-knowledge-sync/knowledge/logs/ledger
 */
import { closeSync, fstatSync, readSync } from 'node:fs'
import { join } from 'node:path'
import type { GrowthDay, RoundStats } from '../../wire.js'
import { appendRootStateFile, openRootStateFile, readRootStateFile } from '../disk/root-files.js'

export const LEDGER_DIR = '.knowledge'
const MAX_CARRY = 64 * 1024

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
  /** A wiki page created, edited or rewritten, and who asked: `tool`, `cli` or `page`. */
  | { type: 'page'; id: string; op: 'create' | 'edit' | 'rewrite'; version: number; redacted: number; actor: string }
  /** A note's text edited in place (the page's editor), and who asked. */
  | { type: 'edited'; id: string; version: number; redacted: number; actor: string }

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

/** Days the growth fold keeps, the newest (ten years): a hand-edited ledger could date every line differently. */
export const GROWTH_DAYS_MAX = 3660

/** Counts one entry into kept, dropped and notes per UTC day (by its first drop reason); other entries are ignored. */
function foldGrowth(days: Map<string, GrowthDay>, entry: LedgerEntry & { t?: string }): void {
  if (entry.type !== 'kept' && entry.type !== 'dropped' && entry.type !== 'note') return
  const day = typeof entry.t === 'string' ? entry.t.slice(0, 10) : ''
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) return
  let g = days.get(day)
  if (!g) {
    g = { day, kept: 0, dropped: 0, notes: 0, reasons: {} }
    days.set(day, g)
    if (days.size > GROWTH_DAYS_MAX) {
      let oldest = day
      for (const key of days.keys()) if (key < oldest) oldest = key
      days.delete(oldest)
      if (oldest === day) return
    }
  }
  if (entry.type === 'kept') g.kept++
  else if (entry.type === 'note') g.notes++
  else {
    g.dropped++
    bump(g.reasons, entry.reasons?.[0] ?? '-weak-signal')
  }
}

const byDay = (days: Map<string, GrowthDay>): GrowthDay[] => [...days.values()].sort((x, y) => x.day.localeCompare(y.day))

/** Kept and dropped rounds and notes per UTC day, with drop reasons, oldest day first. */
export function growthOf(entries: Iterable<LedgerEntry & { t?: string }>): GrowthDay[] {
  const days = new Map<string, GrowthDay>()
  for (const entry of entries) foldGrowth(days, entry)
  return byDay(days)
}

/** Failed appends kept as entries; older ones are only counted (a disk full for days must not fill the memory too). */
export const UNWRITTEN_MAX = 1000
const RECENT_CHUNK = 64 * 1024

/** Append-only ledger with incremental folding (only new bytes are read on each `stats()`). */
export class Ledger {
  readonly path: string
  private offset = 0
  private carry = ''
  private folded = emptyStats()
  private reasons: Record<string, number> = {}
  /** {@link growth} per day, folded with the stats (at most {@link GROWTH_DAYS_MAX} days). */
  private days = new Map<string, GrowthDay>()
  /** Bytes read from the file by {@link stats} and {@link growth} so far (tests: a summary reads only what is new). */
  foldedBytes = 0
  /** Entries whose append failed (full disk): still counted, so nothing is silently lost from the numbers. */
  private unwritten: Array<LedgerEntry & { t: string }> = []

  constructor(private readonly root: string) {
    this.path = join(root, LEDGER_DIR, 'ledger.jsonl')
  }

  /** Appends one entry. Never throws: a failed append is kept in memory and still counted. */
  async record(entry: LedgerEntry): Promise<void> {
    const line = { t: new Date().toISOString(), ...entry }
    try {
      // Never through a link (a linked ledger would append to whatever file it names, outside the root).
      appendRootStateFile(this.root, this.path, JSON.stringify(line) + '\n')
    } catch {
      this.unwritten.push(line)
      if (this.unwritten.length > UNWRITTEN_MAX) {
        const oldest = this.unwritten.shift()!
        this.fold(this.folded, this.reasons, oldest)
        foldGrowth(this.days, oldest)
      }
    }
  }

  /** Every entry on disk (and the last {@link UNWRITTEN_MAX} whose append failed), oldest first. A torn or hand-edited line is skipped. */
  async entries(): Promise<Array<LedgerEntry & { t?: string }>> {
    let text = ''
    try {
      text = readRootStateFile(this.root, this.path) ?? ''
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

  /** Bytes read from the file by {@link recent} so far (tests: a poll must not read the whole history). */
  recentBytes = 0

  /**
   * The last `limit` entries `accept` takes, oldest first, read backwards from the file's end in 64 KB steps: the
   * page polls recent rounds, and after a year of rounds that must cost what it cost on the first day.
   */
  async recent(limit: number, accept: (entry: LedgerEntry & { t?: string }) => boolean): Promise<Array<LedgerEntry & { t?: string }>> {
    const newestFirst: Array<LedgerEntry & { t?: string }> = []
    const take = (line: string) => {
      if (!line.trim()) return
      try {
        const entry = JSON.parse(line)
        if (accept(entry)) newestFirst.push(entry)
      } catch {
        /* a torn or hand-edited line: skip it */
      }
    }
    for (let k = this.unwritten.length - 1; k >= 0 && newestFirst.length < limit; k--) if (accept(this.unwritten[k])) newestFirst.push(this.unwritten[k])
    // Opened like every file under .knowledge/ (no link, a regular file, inside the real root).
    let fd: number | undefined
    try {
      fd = openRootStateFile(this.root, this.path)
    } catch {
      return newestFirst.reverse()
    }
    if (fd === undefined) return newestFirst.reverse()
    try {
      let end = fstatSync(fd).size
      let carry = Buffer.alloc(0)
      while (end > 0 && newestFirst.length < limit) {
        const start = Math.max(0, end - RECENT_CHUNK)
        const chunk = Buffer.alloc(end - start)
        readSync(fd, chunk, 0, chunk.length, start)
        this.recentBytes += chunk.length
        end = start
        let data = Buffer.concat([chunk, carry])
        // Split on the newline byte, never inside a UTF-8 sequence; the piece before the first one may be partial.
        const first = start > 0 ? data.indexOf(10) : -1
        carry = first === -1 && start > 0 ? data : data.subarray(0, Math.max(first, 0))
        if (first === -1 && start > 0) continue
        data = start > 0 ? data.subarray(first + 1) : data
        const lines = data.toString('utf8').split('\n')
        for (let k = lines.length - 1; k >= 0 && newestFirst.length < limit; k--) take(lines[k])
        if (start === 0) break
      }
    } finally {
      closeSync(fd)
    }
    return newestFirst.slice(0, limit).reverse()
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

  /**
   * Kept, dropped and notes per UTC day, folded from the bytes appended since the last look, as {@link stats} is: the
   * page's health view asks on every visit, and reading the whole ledger each time grew with every round ever kept.
   */
  async growth(): Promise<GrowthDay[]> {
    await this.catchUp()
    if (!this.unwritten.length) return byDay(this.days).map((g) => ({ ...g, reasons: { ...g.reasons } }))
    const days = new Map([...this.days].map(([day, g]) => [day, { ...g, reasons: { ...g.reasons } }]))
    for (const entry of this.unwritten) foldGrowth(days, entry)
    return byDay(days)
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
    let fd: number | undefined
    try {
      fd = openRootStateFile(this.root, this.path)
    } catch {
      return
    }
    if (fd === undefined) return
    try {
      const size = fstatSync(fd).size
      if (size < this.offset) {
        this.offset = 0
        this.carry = ''
        this.folded = emptyStats()
        this.reasons = {}
        this.days = new Map()
      }
      if (size === this.offset) return
      const buffer = Buffer.alloc(size - this.offset)
      let read = 0
      while (read < buffer.length) {
        const n = readSync(fd, buffer, read, buffer.length - read, this.offset + read)
        if (n <= 0) break
        read += n
      }
      this.offset += read
      this.foldedBytes += read
      const text = this.carry + buffer.toString('utf8', 0, read)
      const lines = text.split('\n')
      // An unterminated tail is kept for the next look, but never grows without bound (a hostile file).
      this.carry = (lines.pop() ?? '').slice(0, MAX_CARRY)
      for (const line of lines) {
        if (!line.trim()) continue
        try {
          const entry = JSON.parse(line)
          this.fold(this.folded, this.reasons, entry)
          foldGrowth(this.days, entry)
        } catch {
          /* a torn or hand-edited line: skip it */
        }
      }
    } finally {
      closeSync(fd)
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
      case 'page':
        stats.redacted += entry.redacted ?? 0
        break
    }
  }
}
