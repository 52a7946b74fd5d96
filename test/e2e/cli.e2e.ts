/**
 * The `dsh-knowledge` CLI as a user runs it: the built `lib/cli/bin.js` in a subprocess, with stdin, flags, the
 * environment and the working directory it would really have. Build first (`node scripts/build.mjs`).
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as knowledge from '../../src/knowledge/index.js'
import * as capture from '../../src/capture/index.js'
import { createRedactor } from '../../src/redact/redactor.js'
import { parseDocument } from '../../src/knowledge/documents/document.js'
import { foldRound, type TurnEvent } from '../../src/capture/round.js'
import { PROJECT_ROOT } from '../harness/dsh.ts'
import { allDocuments, allFiles } from '../harness/files.ts'
import { byPrompt, createLoop } from '../harness/loop.ts'
import { spawnCollect } from '../harness/spawn.ts'

const BIN = join(PROJECT_ROOT, 'lib/cli/bin.js')
// Fake credentials of real shapes, assembled so no scanner flags this file itself.
const GH_TOKEN = 'ghp_' + 'R8k2LmN4pQ6sT8vX0zA2bC4dE6fG8hJ0kL2m'
const AWS_ID = 'AKIA' + 'QYLPMN5HFIQR7XZT'

interface CliResult {
  code: number | null
  stdout: string
  stderr: string
}

/** Runs `node lib/cli/bin.js …args` with `input` on stdin; DSH_KNOWLEDGE_ROOT only when `env` sets it. */
function cli(args: string[], options: { input?: string; cwd?: string; env?: Record<string, string> } = {}): Promise<CliResult> {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', ...options.env }
  if (!options.env?.DSH_KNOWLEDGE_ROOT) delete env.DSH_KNOWLEDGE_ROOT
  return spawnCollect(process.execPath, [BIN, ...args], { cwd: options.cwd ?? scratch, env }, options.input ?? '')
}
const json = (r: CliResult) => {
  expect(r.code, r.stderr).toBe(0)
  return JSON.parse(r.stdout)
}
const tmp = (name: string) => mkdtempSync(join(tmpdir(), `dsh-ks-cli-${name}-`))

let scratch = ''
let base = '',
  ws = '',
  sub = '',
  other = '',
  root = ''

const ANSWER =
  'The cause was the pnpm store path: `pnpm install` failed with ERR_PNPM_EACCES because /root/.local/share/pnpm was owned by another user. Fixed by setting `store-dir=/tmp/pnpm-store` in .npmrc; chose that over chown because CI images are read-only.'
const round = (over: Record<string, unknown> = {}) => ({
  session: 'session-3f2a9c1e-1111-4222-8333-444455556666',
  turn: 2,
  cwd: '/work/proj',
  created: '2025-01-02T03:04:05.000Z',
  question: 'Why does pnpm install fail on the CI runner?',
  answer: ANSWER,
  outcome: 'completed',
  tools: [{ name: 'bash', arguments: '{"command":"pnpm install --reporter=ndjson"}' }],
  ...over,
})
const TERSE = { session: 'session-7e5e7e5e-0000-4000-8000-000000000000', turn: 1, cwd: '/work/proj', question: 'run the tests', answer: '12 passed', outcome: 'completed', tools: [] }

// The shared search fixture: a git project /a/b with a subdirectory c, and an unrelated workspace /x.
let idWs = '',
  idOther = '',
  idManual = ''

beforeAll(async () => {
  expect(existsSync(BIN), 'build first: node scripts/build.mjs').toBe(true)
  scratch = tmp('scratch')
  base = tmp('tree')
  ws = join(base, 'a/b')
  sub = join(ws, 'c')
  other = join(base, 'x')
  mkdirSync(join(ws, '.git'), { recursive: true })
  mkdirSync(sub)
  mkdirSync(other)
  root = join(tmp('root'), 'kb')
  const inWs = json(await cli(['capture', '--root', root, '--json'], { input: JSON.stringify(round({ cwd: ws })) }))
  const inOther = json(
    await cli(['capture', '--root', root, '--json'], {
      input: JSON.stringify(
        round({
          session: 'session-b0b0b0b0-0000-4000-8000-000000000000',
          turn: 1,
          cwd: other,
          question: 'Why does pnpm report a lockfile conflict in the monorepo?',
          answer:
            'The lockfile conflict came from two pnpm versions: CI used pnpm 8 and developers pnpm 10. Fixed by pinning packageManager to pnpm@10.4.1 in package.json, because corepack then selects the same version everywhere.',
          tools: [{ name: 'git', arguments: '{"args":["diff","pnpm-lock.yaml"]}' }],
        }),
      ),
    }),
  )
  idWs = inWs.id
  idOther = inOther.id
  // A hand-written document of the project (kind manual), as a user would drop it in.
  idManual = 'release-checklist'
  mkdirSync(join(root, 'manual'), { recursive: true })
  writeFileSync(
    join(root, 'manual/release-checklist.md'),
    `---\nid: ${idManual}\ntitle: Release checklist\ncwd: ${ws}\ntags: [release]\n---\n\n# Release checklist\n\nRun pnpm publish only after the changelog is merged.\n`,
  )
}, 180_000)

describe('dsh-knowledge capture', () => {
  it('writes the document exactly as the capture row writes the same round', async () => {
    // The plugin side: the real capture row in the real agent loop, with a failed tool call in the round.
    const pluginRoot = join(tmp('plugin'), 'kb')
    const loop = await createLoop(
      byPrompt({
        'Why does pnpm install fail': [{ toolCalls: [{ name: 'missing_tool', arguments: { command: 'pnpm install --reporter=ndjson', token: GH_TOKEN } }] }, { text: ANSWER }],
      }),
      [
        [knowledge, { root: pluginRoot }],
        [capture, {}],
      ],
    )
    const events: TurnEvent[] = []
    ;(loop.ctx as any).on('session/event', (_session: unknown, event: TurnEvent) => {
      events.push(event)
    })
    const session = 'session-3f2a9c1e-1111-4222-8333-444455556666'
    await loop.ask('Why does pnpm install fail on the CI runner?', { session, cwd: '/work/proj' })
    await loop.dispose()
    const [pluginDoc] = allDocuments(pluginRoot)
    expect(pluginDoc).toBeDefined()

    // The same round as round.json (tool results included, as the fold saw them) through the CLI.
    const folded = foldRound(events, { session, cwd: '/work/proj' })
    expect(folded.tools[0].isError).toBe(true)
    const cliRoot = join(tmp('cli'), 'kb')
    const written = await cli(['capture', '--root', cliRoot], { input: JSON.stringify(folded) })
    expect(written.code, written.stderr).toBe(0)
    const [cliDoc] = allDocuments(cliRoot)
    expect(written.stdout.trim()).toBe(`kept 3f2a9c1e-t1 (score ${parseDocument(cliDoc.text, cliDoc.path, 'x', 0).meta.salience!.score}): ${cliRoot}/${cliDoc.path}`)
    expect(cliDoc.path).toBe(pluginDoc.path)
    expect(cliDoc.path).toBe(`${session}/3f2a9c1e-t1-why-does-pnpm-install-fail-on-the-ci-runner.md`)
    expect(cliDoc.text).toBe(pluginDoc.text)
    expect(cliDoc.text).not.toContain(GH_TOKEN)
  })

  it('lays the document out as <root>/<session>/<id>-<slug>.md with the documented front matter', async () => {
    const dir = join(tmp('layout'), 'kb')
    const out = json(await cli(['capture', '--root', dir, '--json'], { input: JSON.stringify(round()) }))
    expect(Object.keys(out)).toEqual(['kept', 'score', 'reasons', 'id', 'path', 'redacted', 'error'])
    expect(out).toMatchObject({
      kept: true,
      id: '3f2a9c1e-t2',
      path: 'session-3f2a9c1e-1111-4222-8333-444455556666/3f2a9c1e-t2-why-does-pnpm-install-fail-on-the-ci-runner.md',
      redacted: 0,
      error: null,
    })
    const text = readFileSync(join(dir, out.path), 'utf8')
    const keys = /^---\n([\s\S]*?)\n---\n/
      .exec(text)![1]
      .split('\n')
      .filter((l) => /^\w/.test(l))
      .map((l) => l.split(':')[0])
    expect(keys).toEqual(['id', 'title', 'kind', 'session', 'turn', 'created', 'outcome', 'cwd', 'tools', 'tags', 'salience', 'redacted'])
    const { meta, body } = parseDocument(text, out.path, 'x', 0)
    expect(meta).toMatchObject({ id: '3f2a9c1e-t2', kind: 'raw', turn: 2, created: '2025-01-02T03:04:05.000Z', outcome: 'completed', cwd: '/work/proj', tools: ['bash'] })
    expect(meta.salience).toEqual({ score: out.score, reasons: out.reasons })
    expect(body).toBe(
      `# Why does pnpm install fail on the CI runner?\n\n## Question\n\nWhy does pnpm install fail on the CI runner?\n\n## Answer\n\n${ANSWER}\n\n## Tools\n\n- \`bash\` — {"command":"pnpm install --reporter=ndjson"}\n`,
    )
  })

  it('with --dry-run prints kept, score, reasons, path and the document, and writes nothing at all', async () => {
    const dir = join(tmp('dry'), 'kb')
    const input = JSON.stringify(round({ answer: `${ANSWER} The token was ${GH_TOKEN}.` }))
    const dry = json(await cli(['capture', '--root', dir, '--dry-run'], { input }))
    expect(Object.keys(dry)).toEqual(['kept', 'score', 'reasons', 'path', 'document'])
    expect(dry.kept).toBe(true)
    expect(dry.document).not.toContain(GH_TOKEN)
    expect(dry.document).toContain('The token was [REDACTED].')
    expect(existsSync(dir)).toBe(false)
    // What it showed is what a real capture then writes, byte for byte.
    expect(json(await cli(['capture', '--root', dir, '--json'], { input })).path).toBe(dry.path)
    expect(readFileSync(join(dir, dry.path), 'utf8')).toBe(dry.document)
  })

  it('with --dry-run shows a round it would not keep, and writes nothing', async () => {
    const dir = join(tmp('dry2'), 'kb')
    const dry = json(await cli(['capture', '--root', dir, '--dry-run'], { input: JSON.stringify(TERSE) }))
    expect(dry).toEqual({ kept: false, score: dry.score, reasons: dry.reasons, path: null, document: null })
    expect(dry.reasons).toContain('-terse-status')
    expect(existsSync(dir)).toBe(false)
  })

  it.each([
    [
      'a missing answer',
      (() => {
        const r: Record<string, unknown> = round()
        delete r.answer
        return JSON.stringify(r)
      })(),
      'round.answer must be a string (missing)',
    ],
    ['turn as a string', JSON.stringify(round({ turn: '2' })), 'round.turn must be a number (got string)'],
    ['a tool without a name', JSON.stringify(round({ tools: [{ arguments: '{}' }] })), 'round.tools[0].name must be a string (missing)'],
    ['an unknown outcome', JSON.stringify(round({ outcome: 'done' })), 'round.outcome must be one of completed'],
    ['an array instead of an object', '[]', 'round must be a JSON object'],
    ['text that is not JSON', 'question: why?', 'round.json is not valid JSON'],
  ])('refuses %s with a message naming the field, a non-zero exit and nothing written', async (_name, input, message) => {
    const dir = join(tmp('bad'), 'kb')
    const r = await cli(['capture', '--root', dir], { input })
    expect(r.code).not.toBe(0)
    expect(r.stderr).toContain(`dsh-knowledge: ${message}`)
    expect(r.stdout).toBe('')
    expect(existsSync(dir)).toBe(false)
  })

  it('refuses a --min-score that is not a number >= 0', async () => {
    const r = await cli(['capture', '--root', join(tmp('ms'), 'kb'), '--min-score', 'lots'], { input: JSON.stringify(round()) })
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('--min-score must be a number >= 0')
  })

  it('does not keep a "12 passed" round (counted as dropped), and keeps it with --min-score 0', async () => {
    const dir = join(tmp('terse'), 'kb')
    const dropped = await cli(['capture', '--root', dir], { input: JSON.stringify(TERSE) })
    expect(dropped.code, dropped.stderr).toBe(0)
    expect(dropped.stdout).toMatch(/^not kept \(score -?\d+(\.\d+)?\): .*-terse-status/)
    expect(allDocuments(dir)).toHaveLength(0)
    const stats = await cli(['stats', '--root', dir])
    expect(stats.stdout).toContain('rounds: kept 0, dropped 1,')
    expect(stats.stdout).toContain('top drop reasons: -terse-status ×1')
    const kept = json(await cli(['capture', '--root', dir, '--min-score', '0', '--json'], { input: JSON.stringify(TERSE) }))
    expect(kept.kept).toBe(true)
    expect(allDocuments(dir).map((d) => d.path)).toEqual([kept.path])
    const after = json(await cli(['stats', '--root', dir, '--json']))
    expect(after.rounds).toMatchObject({ kept: 1, dropped: 1, dropReasons: [{ reason: '-terse-status', count: 1 }] })
  })
})

describe('dsh-knowledge redact', () => {
  const input = `export AWS_ACCESS_KEY_ID=${AWS_ID}\ncurl -H "Authorization: token ${GH_TOKEN}" https://api.github.com/user\n`

  it('prints the redacted text and nothing else', async () => {
    const r = await cli(['redact'], { input })
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toBe('export AWS_ACCESS_KEY_ID=[REDACTED]\ncurl -H "Authorization: token [REDACTED]" https://api.github.com/user\n')
  })

  it('with --json prints exactly text, count and families', async () => {
    const out = json(await cli(['redact', '--json'], { input }))
    expect(Object.keys(out)).toEqual(['text', 'count', 'families'])
    expect(out.count).toBe(2)
    expect(out.families).toEqual({ aws: 1, github: 1 })
    expect(out.text).not.toContain(GH_TOKEN)
    expect(out.text).not.toContain(AWS_ID)
  })

  it('leaves text without credentials unchanged', async () => {
    const out = json(await cli(['redact', '--json'], { input: 'pnpm install --frozen-lockfile\n' }))
    expect(out).toEqual({ text: 'pnpm install --frozen-lockfile\n', count: 0, families: {} })
  })
})

describe('root resolution', () => {
  it('capture writes to --root, else $DSH_KNOWLEDGE_ROOT, else ./knowledge of the working directory', async () => {
    const cwd = tmp('cwd'),
      envRoot = join(tmp('env'), 'kb'),
      flagRoot = join(tmp('flag'), 'kb')
    const input = JSON.stringify(round())
    const rel = json(await cli(['capture', '--dry-run'], { input })).path as string
    await cli(['capture', '--root', flagRoot], { input, cwd, env: { DSH_KNOWLEDGE_ROOT: envRoot } })
    expect(allDocuments(flagRoot).map((d) => d.path)).toEqual([rel])
    expect(existsSync(envRoot)).toBe(false)
    await cli(['capture'], { input, cwd, env: { DSH_KNOWLEDGE_ROOT: envRoot } })
    expect(allDocuments(envRoot).map((d) => d.path)).toEqual([rel])
    expect(existsSync(join(cwd, 'knowledge'))).toBe(false)
    await cli(['capture'], { input, cwd })
    expect(allDocuments(join(cwd, 'knowledge')).map((d) => d.path)).toEqual([rel])
  })

  it('search, read, list and stats read the same way', async () => {
    const cwd = tmp('cwd2')
    mkdirSync(join(cwd, 'knowledge'))
    const inDefault = json(await cli(['capture', '--json'], { input: JSON.stringify(round({ session: 'session-d0d0d0d0-0000-4000-8000-000000000000' })), cwd })).id
    const envRoot = join(tmp('env2'), 'kb')
    const inEnv = json(await cli(['capture', '--json'], { input: JSON.stringify(round({ session: 'session-e0e0e0e0-0000-4000-8000-000000000000' })), cwd, env: { DSH_KNOWLEDGE_ROOT: envRoot } })).id
    const ids = async (env?: Record<string, string>, extra: string[] = []) => ({
      search: json(await cli(['search', 'pnpm', '--json', ...extra], { cwd, env })).map((h: any) => h.id),
      list: json(await cli(['list', '--json', ...extra], { cwd, env })).map((m: any) => m.id),
      stats: json(await cli(['stats', '--json', ...extra], { cwd, env })).root,
      read: (await cli(['read', inEnv, ...extra], { cwd, env })).code,
    })
    expect(await ids()).toEqual({ search: [inDefault], list: [inDefault], stats: join(cwd, 'knowledge'), read: 1 })
    expect(await ids({ DSH_KNOWLEDGE_ROOT: envRoot })).toEqual({ search: [inEnv], list: [inEnv], stats: envRoot, read: 0 })
    expect(await ids({ DSH_KNOWLEDGE_ROOT: join(cwd, 'knowledge') }, ['--root', envRoot])).toEqual({ search: [inEnv], list: [inEnv], stats: envRoot, read: 0 })
  })
})

describe('dsh-knowledge search', () => {
  it('prints JSON hits with exactly the documented fields', async () => {
    const hits = json(await cli(['search', 'pnpm', 'store', '--root', root, '--json']))
    expect(hits.length).toBeGreaterThan(0)
    for (const hit of hits) {
      expect(Object.keys(hit)).toEqual(['id', 'title', 'kind', 'score', 'snippet', 'path', 'cwd', 'tags', 'tools', 'created', 'version'])
      expect(existsSync(join(root, hit.path))).toBe(true)
    }
    const top = hits.find((h: any) => h.id === idWs)
    expect(top).toMatchObject({ title: 'Why does pnpm install fail on the CI runner?', kind: 'raw', cwd: ws, tools: ['bash'], created: '2025-01-02T03:04:05.000Z' })
    expect(top.tags).toContain('pnpm')
    expect(typeof top.score).toBe('number')
    expect(top.snippet).toMatch(/\*\*pnpm\*\*/i)
  })

  it('applies the workspace rule with --cwd: the git root and below see its documents, another workspace does not', async () => {
    const visible = async (cwdFlag?: string) =>
      json(await cli(['search', 'pnpm', '--root', root, '--json', ...(cwdFlag ? ['--cwd', cwdFlag] : [])]))
        .map((h: any) => h.id)
        .sort()
    expect(await visible(ws)).toEqual([idWs, idManual].sort())
    expect(await visible(sub)).toEqual([idWs, idManual].sort())
    expect(await visible(other)).toEqual([idOther])
    expect(await visible()).toEqual([idWs, idOther, idManual].sort())
  })

  it('filters by --kind, --tag, --tool and --limit', async () => {
    const ids = async (...flags: string[]) =>
      json(await cli(['search', 'pnpm', '--root', root, '--json', ...flags]))
        .map((h: any) => h.id)
        .sort()
    expect(await ids('--kind', 'manual')).toEqual([idManual])
    expect(await ids('--kind', 'raw')).toEqual([idWs, idOther].sort())
    expect(await ids('--tag', 'release')).toEqual([idManual])
    expect(await ids('--tool', 'ba*')).toEqual([idWs])
    expect(await ids('--tool', 'git')).toEqual([idOther])
    expect(await ids('--limit', '1')).toHaveLength(1)
  })

  it('renders readable hits without --json, and refuses a bad --kind or an empty query', async () => {
    const text = await cli(['search', 'lockfile', 'conflict', '--root', root])
    expect(text.code).toBe(0)
    expect(text.stdout).toMatch(new RegExp(`^1 document\\(s\\) match "lockfile conflict"\\. .*\\n\\n1\\. ${idOther} \\(v:1\\) — Why does pnpm report a lockfile conflict in the monorepo\\?`))
    // A well-formed word may name a wiki page type a profile declares, so only a malformed kind is refused here.
    const badKind = await cli(['search', 'pnpm', '--root', root, '--kind', 'Secret Stuff!'])
    expect(badKind.code).not.toBe(0)
    expect(badKind.stderr).toContain('"kind" must be one of raw, note, distilled, manual')
    const empty = await cli(['search', '--root', root])
    expect(empty.code).toBe(2)
    expect(empty.stderr).toContain('search needs a query')
  })
})

describe('dsh-knowledge read', () => {
  it('prints the document as it is on disk', async () => {
    const r = await cli(['read', idWs, '--root', root])
    expect(r.code, r.stderr).toBe(0)
    const [doc] = allDocuments(root).filter((d) => d.text.includes(`id: ${idWs}\n`))
    expect(r.stdout).toBe(doc.text)
  })

  it('reads a document visible under --cwd (a subdirectory of its git root)', async () => {
    const r = await cli(['read', idWs, '--root', root, '--cwd', sub, '--json'])
    expect(json(r)).toMatchObject({ id: idWs, meta: { cwd: ws } })
  })

  it.each([
    ['a relative path', '../x', /invalid id "\.\.\/x": ids are letters, digits/],
    ['a deeper relative path', '../../../etc/passwd', /invalid id/],
    ['an absolute path', '/etc/passwd', /invalid id "\/etc\/passwd"/],
    ['an unknown id', 'deadbeef-t9', /no document deadbeef-t9; find ids with `dsh-knowledge search <words>`/],
  ])('refuses %s with a clear message and a non-zero exit', async (_name, id, message) => {
    const r = await cli(['read', id, '--root', root])
    expect(r.code).not.toBe(0)
    expect(r.stdout).toBe('')
    expect(r.stderr).toMatch(message)
  })

  it('refuses an id that is not visible under --cwd', async () => {
    const r = await cli(['read', idWs, '--root', root, '--cwd', other])
    expect(r.code).not.toBe(0)
    expect(r.stdout).toBe('')
    expect(r.stderr).toContain(`no document ${idWs} is visible in ${other}`)
    expect(r.stderr).not.toContain('ERR_PNPM_EACCES')
  })
})

describe('dsh-knowledge list and stats', () => {
  it('lists the visible documents, and only those under --cwd', async () => {
    const all = json(await cli(['list', '--root', root, '--json']))
    expect(all.map((m: any) => m.id).sort()).toEqual([idWs, idOther, idManual].sort())
    const text = await cli(['list', '--root', root, '--cwd', other])
    expect(text.code).toBe(0)
    expect(text.stdout).toContain(`${idOther} (v:1)\traw\t2025-01-02\tWhy does pnpm report a lockfile conflict in the monorepo?`)
    expect(text.stdout).not.toContain(idWs)
    expect(text.stdout.trim().split('\n').at(-1)).toBe(`1 document(s) visible in ${other} under ${root}`)
    const kinds = json(await cli(['list', '--root', root, '--json', '--kind', 'manual']))
    expect(kinds.map((m: any) => m.id)).toEqual([idManual])
  })

  it('lists every document of a base larger than one list page (1,000), text and JSON', async () => {
    const big = tmp('list-big')
    const store = new knowledge.KnowledgeStore({ root: big, redactor: createRedactor({ enabled: true, mask: '[REDACTED]', patterns: [] }), watch: false })
    await store.start()
    const written = new Set<string>()
    for (let i = 0; i < 1203; i++)
      written.add(
        (await store.write({ kind: 'note', title: `Finding ${i}`, cwd: '/work/proj', session: 'list-big', turn: i + 1, sections: [{ heading: 'Finding', text: `Finding number ${i}.` }] })).id,
      )
    await store.close()
    const ids = json(await cli(['list', '--root', big, '--json'])).map((m: any) => m.id)
    expect(ids.length).toBe(1203)
    expect(new Set(ids)).toEqual(written)
    const lines = (await cli(['list', '--root', big])).stdout.trim().split('\n')
    expect(lines.length).toBe(1204)
    expect(lines.at(-1)).toBe(`1203 document(s) under ${big}`)
  })

  it('counts documents by kind and workspace, and kept rounds', async () => {
    const s = json(await cli(['stats', '--root', root, '--json']))
    expect(s).toMatchObject({ root, scope: null, documents: 3, byKind: { raw: 2, manual: 1 }, byWorkspace: { [ws]: 2, [other]: 1 }, redactionEnabled: true })
    expect(s.rounds).toMatchObject({ kept: 2, dropped: 0 })
    const scoped = json(await cli(['stats', '--root', root, '--json', '--cwd', sub]))
    expect(scoped).toMatchObject({ scope: ws, documents: 2 })
  })

  it('changes nothing on disk: the reading commands leave the root exactly as it was', async () => {
    const snapshot = () =>
      allFiles(root)
        .map((f) => `${f.path}\n${f.text}`)
        .sort()
    const before = snapshot()
    await cli(['search', 'pnpm', '--root', root])
    await cli(['list', '--root', root])
    await cli(['stats', '--root', root])
    await cli(['read', idWs, '--root', root])
    expect(snapshot()).toEqual(before)
  })
})
