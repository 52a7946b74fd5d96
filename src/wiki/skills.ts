/**
 * The wiki's three skills (`knowledge-ingest`, `knowledge-query`, `knowledge-lint`) as a skill provider on dsh's
 * `ctx.skills` registry, the way dsh rc.8 lets a plugin ship skills (its own `dsh-skill-badge` does the same). The
 * bodies are the Markdown files in the package's `skills/` folder. Model- and user-invocable: the model loads one
 * with the `skill` tool; the person types `/knowledge-ingest` (dsh's skill gesture) to run it. Ranked as `bundled`,
 * so a project's own `.dsh/skills/knowledge-ingest` overrides it.
 * @module dsh-knowledge-sync/wiki/skills
 */
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

/** The rank of bundled skills in dsh's local provider (lower ranks win a name): project and user skills win. */
export const BUNDLED_RANK = 600
export const SKILL_PROVIDER = 'dsh-knowledge-sync'
export const WIKI_SKILLS = ['knowledge-ingest', 'knowledge-query', 'knowledge-lint'] as const

const DIR = fileURLToPath(new URL('../../skills/', import.meta.url))
const INVOCATION = { modelInvocable: true, userInvocable: true } as const

/** The shapes of `@deepseek-ai/dsh-skill` this provider uses (types only: the row runs without skills too). */
interface Candidate {
  name: string
  description: string
  invocation: typeof INVOCATION
  provider: string
  source: 'bundled'
  resourceBase: { kind: 'directory'; path: string }
  rank: number
  locator: string
}

/** One skill file: its front matter's description and its body (front matter left out). */
export function readSkill(name: string): { description: string; content: string } {
  const text = readFileSync(`${DIR}${name}/SKILL.md`, 'utf8')
  const front = /^---\n([\s\S]*?)\n---\n/.exec(text)
  const description = /^description: (.+)$/m.exec(front?.[1] ?? '')?.[1]?.trim()
  if (!front || !description) throw new Error(`skills/${name}/SKILL.md has no front matter with a description`)
  return { description, content: text.slice(front[0].length).replace(/^\n+/, '') }
}

/** The provider object `ctx.skills.registerProvider` takes. */
export function wikiSkillProvider() {
  const candidates: Candidate[] = WIKI_SKILLS.map((name) => ({
    name,
    description: readSkill(name).description,
    invocation: INVOCATION,
    provider: SKILL_PROVIDER,
    source: 'bundled',
    resourceBase: { kind: 'directory', path: `${DIR}${name}` },
    rank: BUNDLED_RANK,
    locator: name,
  }))
  return {
    name: SKILL_PROVIDER,
    list: () => Promise.resolve(candidates),
    get: async (candidate: { locator: unknown }) => {
      const found = candidates.find((c) => c.locator === candidate.locator)
      if (!found) throw new Error(`no skill ${String(candidate.locator)} in ${SKILL_PROVIDER}`)
      const { locator: _locator, rank: _rank, ...summary } = found
      return { ...summary, content: readSkill(found.name).content }
    },
  }
}
