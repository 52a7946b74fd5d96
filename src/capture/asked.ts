/**
 * Facts stated across turns: the agent asks ("Which package manager do you use?") and the person's next message
 * answers it ("pnpm, always"). The capture queue runs rounds of a session in order, so the question the previous
 * answer closed on is still at hand when the reply is scored: the reply is judged as an answer to it, and the kept
 * document carries the question (an `Asked` section) so the fact reads whole. Per session, bounded.
 * @module dsh-knowledge-sync/capture/asked
 */
import type { Round } from '../types.js'

/** A closing question longer than this is not a question for one fact. */
const MAX_QUESTION = 300
/** A reply longer than this is a new request, not an answer to the agent's question. */
const MAX_REPLY = 300

/** The last sentence of an answer when it is a question ("…Which package manager do you use?"), else undefined. */
export function closingQuestion(answer: string): string | undefined {
  const text = answer.trim()
  if (!/[?？]$/.test(text)) return undefined
  const start = Math.max(text.lastIndexOf('\n', text.length - 2), ...['. ', '! ', '。', '！', '？', '? '].map((s) => text.lastIndexOf(s, text.length - 2) + s.length - 1))
  const sentence = text.slice(start + 1).trim()
  return sentence.length > 0 && sentence.length <= MAX_QUESTION ? sentence : undefined
}

export class AskedQuestions {
  private readonly last = new Map<string, string>()
  constructor(private readonly maxSessions = 1000) {}

  /** The round with the question its message answers (if any); remembers the question this round's answer closes on. */
  attach(round: Round): Round {
    const asked = this.last.get(round.session)
    this.last.delete(round.session)
    const closing = closingQuestion(round.answer ?? '')
    if (closing) {
      if (this.last.size >= this.maxSessions) this.last.delete(this.last.keys().next().value as string)
      this.last.set(round.session, closing)
    }
    const reply = (round.question ?? '').trim()
    if (!asked || !reply || reply.length > MAX_REPLY || /[?？]\s*$/.test(reply)) return round
    return { ...round, asked }
  }
}
