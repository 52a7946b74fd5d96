/**
 * `dsh-knowledge redact`: the redactor every document passes through, on standard input.
 * @module dsh-knowledge-sync/cli/redact
 */
import { createRedactor, DEFAULT_MASK } from '../redact/redactor.js'
import { type Command, printJson, readStdin } from './common.js'

export const redact: Command = async ({ values }) => {
  const redactor = createRedactor({ enabled: true, mask: values.mask ?? DEFAULT_MASK, patterns: values.pattern ?? [] })
  const result = await redactor.redact(await readStdin())
  if (values.json) printJson({ text: result.text, count: result.count, families: result.families })
  else process.stdout.write(result.text)
  return 0
}
