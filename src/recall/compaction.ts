/**
 * Compaction keeps the tag. dsh rc.8 has no per-tool hook in compaction: `dsh-compaction-basic` summarizes a surface
 * range through one model call and, when pressure qualifies, first asks the optional `ctx.toolResultPruner` to cut
 * long tool results to head + tail. So this module works beside it, with the same durable mechanism the pruner
 * uses: once a compaction has ended (the `compaction/end` session event, without error), at the next step boundary
 * (`agent/pre-step`, before the request is built) every `knowledge_read` result of an earlier turn still on the
 * surface is replaced by a stub `{id, title, version, note}` (about 30 tokens) — a `compaction/prune` shadow-price
 * event, then a `tool/result` with `surfaceOp: replace`, so the full result stays in the session log. Reads the
 * summary swallowed are named in the runtime context with their versions (see {@link ReadState.contextText}).
 * Cache: compaction has already changed the prefix before these results, so replacing them costs no extra reuse.
 * @module dsh-knowledge-sync/recall/compaction
 */
import type { Context } from '@deepseek-ai/cordis'
import { freezeMessage, type Message } from '@deepseek-ai/dsh-llm'
import type { Session, ToolResultMessage } from '@deepseek-ai/dsh-session'
import type {} from '@deepseek-ai/dsh-agent'
import type {} from '@deepseek-ai/dsh-compaction'
import type {} from '@deepseek-ai/dsh-token-meter'
import { compactedRead } from './read-output.js'
import { isCompactedRead, readMetaOf } from './presentation.js'
import type { ReadState } from './read-state.js'

interface Meter {
  estimateMessage(message: Message): number
}

/**
 * Replaces the `knowledge_read` results of turns before `beforeTurn` on the session's surface with stubs; returns
 * the ids stubbed.
 */
export function shrinkReads(session: Session, beforeTurn: number, meter?: Meter): string[] {
  const shrunk: string[] = []
  for (const seq of [...session.surface.nodes]) {
    const event = session.events[seq]
    if (event?.type !== 'tool/result') continue
    const meta = readMetaOf(event.data.meta)
    if (!meta) continue
    const result = event.data.message.content[0]
    if (result.isError || event.data.turn >= beforeTurn || isCompactedRead(result.content)) continue
    const stub = JSON.stringify(compactedRead(meta.id, meta.title, meta.version))
    const message = freezeMessage<ToolResultMessage>({ ...event.data.message, content: [{ ...result, content: [{ type: 'text', text: stub }] }] as [typeof result] })
    // The shadow-price protocol of dsh's compaction seam: the price of the replaced node, right before the replacement.
    if (meter) session.append('compaction/prune', { shadowedRange: { start: seq, end: seq }, shadowedSeqs: [seq], shadowedTokenCount: meter.estimateMessage(event.data.message) })
    // Only the content may change (dsh refuses any other difference); the stub itself says it was compacted.
    session.append('tool/result', { ...event.data, message }, { surfaceOp: { op: 'replace', start: seq, end: seq }, sourceEventSeqs: [seq] })
    shrunk.push(meta.id)
  }
  return shrunk
}

/** The ids of `knowledge_read` results on the session's surface (full or stubbed). */
function readsOnSurface(session: Session): Set<string> {
  const ids = new Set<string>()
  for (const seq of session.surface.nodes) {
    const event = session.events[seq]
    const meta = event?.type === 'tool/result' ? readMetaOf(event.data.meta) : undefined
    if (meta) ids.add(meta.id)
  }
  return ids
}

/** Wires {@link shrinkReads} to dsh's compaction events; a no-op where no compaction backend runs. */
export function installCompactionStubs(ctx: Context, reads: ReadState): void {
  const compacted = new WeakSet<Session>()
  ctx.on('session/event', (session, event) => {
    if (event.type !== 'compaction/end' || (event.data as { error?: string }).error) return
    compacted.add(session)
    // The summary has replaced its range by now: reads it swallowed are named in the runtime context, which the
    // next step's snapshot carries (read-only here; the stubs are appended at the step boundary).
    const on = readsOnSurface(session)
    const id = String(session.id)
    reads.markDropped(
      id,
      reads
        .reads(id)
        .map((r) => r.id)
        .filter((doc) => !on.has(doc)),
    )
  })
  const settle = (session: Session, turn: number) => {
    if (!compacted.has(session)) return
    compacted.delete(session)
    shrinkReads(session, turn, ctx.get('tokenMeter') as Meter | undefined)
  }
  ctx.on('agent/pre-step', async (payload, next) => {
    const { agent, turn } = payload
    // A manual compaction between turns ended before this step; an automatic one may run inside next().
    settle(agent.session, turn)
    const decision = await next()
    settle(agent.session, turn)
    return decision
  })
}
