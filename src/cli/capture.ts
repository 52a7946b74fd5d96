/**
 * `dsh-knowledge capture`: one round from standard input, written exactly as the plugin would write it (or, with
 * `--dry-run`, shown without writing). The supported way to preview and to import.
 * @module dsh-knowledge-sync/cli/capture
 */
import { captureRound } from '../capture/keep-round.js'
import { parseRound } from '../capture/round-json.js'
import { DEFAULT_MIN_SCORE } from '../capture/salience.js'
import { type Command, openStore, print, printJson, readStdin, UsageError } from './common.js'

export const capture: Command = async (invocation) => {
  const { values } = invocation
  const minScore = values['min-score'] === undefined ? DEFAULT_MIN_SCORE : Number(values['min-score'])
  if (!Number.isFinite(minScore) || minScore < 0) throw new UsageError('--min-score must be a number >= 0')
  let input: unknown
  const text = await readStdin()
  try {
    input = JSON.parse(text)
  } catch (error) {
    throw new UsageError(`round.json is not valid JSON: ${(error as Error).message}`)
  }
  const round = parseRound(input)
  const store = await openStore(invocation, { index: !values['dry-run'], create: true, trustWatcher: true })
  try {
    const result = await captureRound(store, round, { minScore, dryRun: values['dry-run'] })
    if (values['dry-run']) {
      printJson({ kept: result.kept, score: result.score, reasons: result.reasons, path: result.path ?? null, document: result.document ?? null })
      return 0
    }
    if (values.json)
      printJson({ kept: result.kept, score: result.score, reasons: result.reasons, id: result.id ?? null, path: result.path ?? null, redacted: result.redacted ?? 0, error: result.error ?? null })
    else if (result.error) print(`not written: ${result.error}`)
    else if (result.kept) print(`kept ${result.id} (score ${result.score}): ${store.root}/${result.path}`)
    else print(`not kept (score ${result.score}): ${result.reasons.join(' ')}`)
    return result.error ? 1 : 0
  } finally {
    await store.close()
  }
}
