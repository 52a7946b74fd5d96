/**
 * What each session has read: the revision of every document it read, so a later search hit or read can say
 * "changed since you read it: v:3 → v:4", and the runtime context can tell the agent once per change. In memory
 * per process, bounded; a restarted dsh starts with nothing read (the old conversation's results carry their own
 * `v:N` tags).
 * @module dsh-knowledge-sync/recall/read-state
 */
import { promptSafe } from './pointer.js'

/** A change the agent has been (or is about to be) told about: it read `from`, the store now has `to`. */
export interface Change {
  from: number
  to: number
}

interface ReadEntry {
  /** The latest revision this session read. */
  read: number
  title: string
  /** The change the runtime context names (with the title then); fixed until a newer revision appears, so the snapshot stays put. */
  told?: Change & { title: string }
  /** Compaction summarized the read's result away; stays set (the line is history, and the snapshot stays put). */
  dropped?: { version: number; title: string }
}

/** How many changed documents the runtime context names; the rest are counted. */
export const CONTEXT_MAX_CHANGES = 10

export class ReadState {
  private readonly sessions = new Map<string, Map<string, ReadEntry>>()
  constructor(
    private readonly maxSessions = 2000,
    private readonly maxDocs = 500,
  ) {}

  private docs(session: string, create: boolean): Map<string, ReadEntry> | undefined {
    let docs = this.sessions.get(session)
    if (docs) {
      this.sessions.delete(session)
      this.sessions.set(session, docs)
    } // most recently used last
    else if (create) {
      if (this.sessions.size >= this.maxSessions) this.sessions.delete(this.sessions.keys().next().value as string)
      docs = new Map()
      this.sessions.set(session, docs)
    }
    return docs
  }

  /**
   * Seeds a session this process has not seen yet from what its log says it read (a resumed session, a reloaded
   * row); a no-op for a known session.
   */
  ensure(session: string, seed: () => Array<{ id: string; version: number; title: string }>): void {
    if (this.sessions.has(session)) return
    const docs = this.docs(session, true)!
    for (const read of seed().slice(-this.maxDocs)) docs.set(read.id, { read: read.version, title: read.title })
  }

  /** Records that `session` read revision `version` of `id`; returns the revision it had read before, if older. */
  record(session: string, id: string, version: number, title: string): number | undefined {
    const docs = this.docs(session, true)!
    const entry = docs.get(id)
    const before = entry && entry.read < version ? entry.read : undefined
    if (entry) {
      entry.read = Math.max(entry.read, version)
      entry.title = title
    } else {
      if (docs.size >= this.maxDocs) docs.delete(docs.keys().next().value as string)
      docs.set(id, { read: version, title })
    }
    return before
  }

  /** The newer revision of a document this session read earlier, or undefined when it has not changed (or was never read). */
  changed(session: string | undefined, id: string, current: number | undefined): Change | undefined {
    if (!session || current === undefined) return undefined
    const entry = this.docs(session, false)?.get(id)
    return entry && current > entry.read ? { from: entry.read, to: current } : undefined
  }

  /** The documents this session read, with the revision read (for compaction stubs and tests). */
  reads(session: string): Array<{ id: string; version: number; title: string }> {
    return [...(this.docs(session, false)?.entries() ?? [])].map(([id, e]) => ({ id, version: e.read, title: e.title }))
  }

  /** Marks reads whose full text compaction dropped from the conversation. */
  markDropped(session: string, ids: Iterable<string>): void {
    const docs = this.docs(session, false)
    for (const id of ids) {
      const entry = docs?.get(id)
      if (entry && !entry.dropped) entry.dropped = { version: entry.read, title: entry.title }
    }
  }

  /**
   * The session's runtime-context text: documents that changed after it read them. Each change is named once and
   * the text stays byte-identical until another revision appears (re-reading does not remove the line, so the
   * snapshot is not re-sent just because the agent followed the advice). '' when nothing changed.
   */
  contextText(session: string | undefined, currentOf: (id: string) => number | undefined): string {
    if (!session) return ''
    const docs = this.docs(session, false)
    if (!docs) return ''
    const lines: string[] = []
    let more = 0
    for (const [id, entry] of docs) {
      const current = currentOf(id)
      if (current !== undefined && current > entry.read && (!entry.told || entry.told.to < current)) entry.told = { from: entry.read, to: current, title: entry.title }
      if (!entry.told) continue
      if (lines.length >= CONTEXT_MAX_CHANGES) {
        more++
        continue
      }
      lines.push(`- ${id} "${promptSafe(entry.told.title).slice(0, 80)}": v:${entry.told.from} → v:${entry.told.to}`)
    }
    if (more) lines.push(`- and ${more} more`)
    const dropped = [...docs]
      .filter(([, e]) => e.dropped)
      .slice(-CONTEXT_MAX_CHANGES)
      .map(([id, e]) => `- ${id} "${promptSafe(e.dropped!.title).slice(0, 80)}" (v:${e.dropped!.version})`)
    const blocks: string[] = []
    if (lines.length)
      blocks.push(['Knowledge documents changed after you read them in this session (what you read earlier may be stale; ' + 'call knowledge_read again before relying on them):', ...lines].join('\n'))
    if (dropped.length) blocks.push(['Knowledge documents you read before this conversation was compacted (their text is no longer in it; ' + 'knowledge_read reloads one):', ...dropped].join('\n'))
    return blocks.join('\n\n')
  }
}
