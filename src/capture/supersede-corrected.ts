/**
 * The write side of {@link SessionFacts}: a kept round that corrects an earlier kept round of its session supersedes
 * it through the store's one correction path (status, notice and `supersedes`, recorded in the ledger with the actor
 * `capture`), and says so in the log. A refusal (the earlier document was retired, edited away, or would make a
 * cycle) is logged and leaves both documents as they are.
 * @module dsh-knowledge-sync/capture/supersede-corrected
 */
import type { Context } from '@deepseek-ai/cordis'
import { supersede } from '../knowledge/corrections/correct.js'
import type { KnowledgeStore } from '../knowledge/store.js'
import type { Round } from '../types.js'
import type { CorrectionTarget, SessionFacts } from './corrected.js'

type Logger = ReturnType<Context['logger']>

/**
 * Supersedes what the kept round `id` corrects (`targets`, from {@link SessionFacts.corrects} before it was scored),
 * then remembers its facts. Returns the targets it superseded.
 */
export async function supersedeCorrected(store: KnowledgeStore, facts: SessionFacts, round: Round, id: string, targets: readonly CorrectionTarget[], logger: Logger): Promise<CorrectionTarget[]> {
  const done: CorrectionTarget[] = []
  for (const target of targets) {
    const earlier = store.get(target.id)
    // Never across sessions, never onto a document that is no longer an active round of this session.
    if (!earlier || earlier.session !== round.session || (earlier.status ?? 'active') !== 'active') continue
    try {
      await supersede(store, { id: target.id, by: id, reason: `corrected later in the same session: ${target.key} ${target.from} → ${target.to}` }, undefined, 'capture')
      logger.info('%s supersedes %s: %s corrected from %s to %s', id, target.id, target.key, target.from, target.to)
      done.push(target)
    } catch (error) {
      logger.warn('%s corrects %s but could not supersede it: %s', id, target.id, (error as Error).message)
    }
  }
  facts.remember(round.session, id, [round.asked, round.question, round.answer].filter(Boolean).join('\n'), done)
  return done
}
