/**
 * Rounds in which the person stated how they want work done (capture tags them `preference-stated`): the next
 * request of that session carries, in the runtime context (never the system prompt), one short suggestion to record
 * a lasting preference with knowledge_note in the person's own words. The agent decides; nothing is noted for it.
 * Per session, bounded, in memory: a restarted process suggests nothing for rounds it did not see captured.
 * @module dsh-knowledge-sync/recall/stated
 */
import type { KnowledgeStore } from '../knowledge/store.js'
import { PREFERENCE_STATED_TAG } from '../knowledge/store-types.js'
import { promptSafe } from './pointer.js'

/** How many stated rounds the context names per session (the newest). */
export const STATED_MAX = 3

export class StatedRounds {
  private readonly sessions = new Map<string, Array<{ id: string; title: string }>>()
  constructor(private readonly maxSessions = 2000) {}

  /** Follows the store: a captured round tagged {@link PREFERENCE_STATED_TAG} is remembered for its session. Returns the disposer. */
  follow(store: KnowledgeStore): () => void {
    return store.onChange((change) => {
      if (change.type !== 'written' || change.kind !== 'raw') return
      const meta = store.get(change.id)
      if (!meta?.session || !meta.tags.includes(PREFERENCE_STATED_TAG)) return
      this.add(meta.session, change.id, meta.title)
    })
  }

  add(session: string, id: string, title: string): void {
    const list = this.sessions.get(session) ?? []
    this.sessions.delete(session)
    if (this.sessions.size >= this.maxSessions) this.sessions.delete(this.sessions.keys().next().value as string)
    if (!list.some((r) => r.id === id)) list.push({ id, title })
    this.sessions.set(session, list.slice(-STATED_MAX))
  }

  /** The runtime-context text for a session ('' when none): byte-stable until another stated round is captured. */
  contextText(session: string | undefined): string {
    const list = session ? this.sessions.get(session) : undefined
    if (!list?.length) return ''
    return [
      'Earlier in this session the person stated how they want work done (captured rounds):',
      ...list.map((r) => `- ${r.id} "${promptSafe(r.title).slice(0, 100)}"`),
      'If one is a lasting preference, record it with knowledge_note(kind: "preference", quote: <the person\'s exact words>); if it was meant for this task only, do nothing.',
    ].join('\n')
  }
}
