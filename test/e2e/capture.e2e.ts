/**
 * Capture with the real `dsh --profile headless` CLI, the packed bundle installed by `dsh plugin add`, and the
 * scripted model server on 127.0.0.1.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseDocument } from '../../src/knowledge/documents/document.js'
import { createDshHome, type DshHome } from '../harness/dsh.ts'
import { allDocuments, allFiles, ledgerEntries } from '../harness/files.ts'
import { byPrompt, startModelServer, type ModelServer } from '../harness/model-server.ts'

// Fake credentials of real shapes, assembled so no scanner flags this file itself.
const AWS_ID = 'AKIA' + 'QYLPMN5HFIQR7XZT'
const AWS_SECRET = 'wJalrXUtnFEMI/K7MDENG/' + 'bPxRfiCYzQ8Tn3Lk9V'
const GH_TOKEN = 'ghp_' + 'R8k2LmN4pQ6sT8vX0zA2bC4dE6fG8hJ0kL2m'
const DB_PASSWORD = 'S3cr3t-Pa55w0rd-x9Q'
const DB_URL = `postgres://app_user:${DB_PASSWORD}@db.internal:5432/orders`
const PEM_BODY =
  'MIIEowIBAAKCAQEA' +
  'v3mT9qXy2Lk8Pn4Rs6Tu8Vw0Xy2Za4Bc6De8Fg0Hi2Jk4Lm6No8Pq0Rs2Tu4Vw6Xy8Za0Bc2De4Fg6Hi8Jk0Lm2No4Pq6Rs8Tu0Vw2Xy4Za6Bc8De0Fg2Hi4Jk6Lm8No0Pq2Rs4Tu6Vw8Xy0Za2Bc4De6Fg8Hi0Jk2Lm4No6Pq8Rs0Tu2Vw4Xy6Za8Bc0De2Fg4Hi6Jk8Lm0No2Pq4Rs6Tu8Vw0Xy2Za4Bc6De8Fg0Hi2Jk4'
const PEM = `-----BEGIN RSA PRIVATE KEY-----\n${PEM_BODY.match(/.{1,64}/g)!.join('\n')}\n-----END RSA PRIVATE KEY-----`
const REASONING = 'HIDDEN-REASONING-b71f0c'

const DIAGNOSIS =
  'The deploy failed because the database URL pointed at the old host; I updated DATABASE_URL in the deploy config and rotated the key. Root cause: the migration script read `.env.production` before the override.'

let server: ModelServer
let home: DshHome

beforeAll(async () => {
  server = await startModelServer(
    byPrompt(
      {
        'Deploy the orders service': [
          {
            reasoning: `${REASONING} thinking about ${AWS_SECRET}`,
            toolCalls: [
              {
                name: 'bash',
                arguments: {
                  command: `AWS_ACCESS_KEY_ID=${AWS_ID} AWS_SECRET_ACCESS_KEY=${AWS_SECRET} GITHUB_TOKEN=${GH_TOKEN} ./deploy.sh --db '${DB_URL}'`,
                  description: `deploy with key:\n${PEM}`,
                },
              },
            ],
          },
          { reasoning: REASONING, text: DIAGNOSIS },
        ],
        'run the tests': [{ reasoning: REASONING, text: '12 passed' }],
        'break the model': [{ status: 400 }],
        'slow question': [{ reasoning: REASONING, text: 'The cause is slow.', delayMs: 8000 }],
        为什么构建失败: [
          {
            text: '原因是 node_modules 里的 esbuild 二进制与 Node 22 不匹配，导致构建失败；解决办法：删除 node_modules 并用 pnpm@10 重新安装，因为 pnpm 10 默认跳过构建脚本，需要在 package.json 里设置 onlyBuiltDependencies。',
          },
        ],
      },
      { title: 'Scripted title' },
    ),
  )
  home = await createDshHome({ profile: 'headless', modelUrl: server.url })
}, 180_000)

afterAll(async () => {
  await server?.close()
})

describe('capture with the real dsh CLI', () => {
  it('writes a round whose tool arguments held an AWS key pair, a GitHub token, a DB password and a PEM key, with none of them', async () => {
    const run = await home.run('Deploy the orders service to staging', { cwd: home.home })
    expect(run.code, `${run.stderr}\n${run.log}`).toBe(0)
    const docs = allDocuments(home.knowledgeRoot)
    expect(docs).toHaveLength(1)
    const text = docs[0].text
    for (const secret of [AWS_ID, AWS_SECRET, GH_TOKEN, DB_PASSWORD, PEM_BODY.slice(0, 40), PEM_BODY.slice(-40)]) expect(text).not.toContain(secret)
    const { meta, body } = parseDocument(text, docs[0].path, 'x', 0)
    expect(meta.redacted).toBeGreaterThanOrEqual(4)
    expect(meta.tools).toEqual(['bash'])
    expect(body).toContain('postgres://app_user:[REDACTED]@db.internal:5432/orders')
    expect(body).toContain(DIAGNOSIS)
    expect(body).not.toContain('Current runtime context')
    expect(meta.title).toBe('Deploy the orders service to staging')
  }, 180_000)

  it('writes nothing for a "12 passed" round', async () => {
    const before = allDocuments(home.knowledgeRoot).length
    const run = await home.run('run the tests')
    expect(run.code, run.log).toBe(0)
    expect(run.stdout).toContain('12 passed')
    expect(allDocuments(home.knowledgeRoot)).toHaveLength(before)
    expect(ledgerEntries(home.knowledgeRoot).some((e) => e.type === 'dropped')).toBe(true)
  }, 180_000)

  it('writes nothing for an errored round', async () => {
    const before = allDocuments(home.knowledgeRoot).length
    const run = await home.run('break the model please')
    expect(run.code).toBe(1)
    expect(allDocuments(home.knowledgeRoot)).toHaveLength(before)
    expect(ledgerEntries(home.knowledgeRoot).some((e) => e.type === 'unanswered' && e.outcome === 'errored')).toBe(true)
  }, 180_000)

  it('writes nothing for a round aborted by SIGINT, and the process exits cleanly', async () => {
    const before = allDocuments(home.knowledgeRoot).length
    const run = await home.run('slow question', { signalAfterMs: 2500, signal: 'SIGINT' })
    expect(run.code === null || run.code !== 0 || run.signal !== null).toBe(true)
    expect(allDocuments(home.knowledgeRoot)).toHaveLength(before)
  }, 180_000)

  it('writes a valid document for a Chinese round', async () => {
    const run = await home.run('为什么构建失败？')
    expect(run.code, run.log).toBe(0)
    const doc = allDocuments(home.knowledgeRoot).find((d) => d.text.includes('esbuild 二进制'))
    expect(doc).toBeDefined()
    expect(doc!.path).toMatch(/\/[a-z0-9]{8}-t1-round-[a-f0-9]{8}\.md$/)
    const { meta } = parseDocument(doc!.text, doc!.path, 'x', 0)
    expect(meta.title).toBe('为什么构建失败？')
  }, 180_000)

  it('never writes reasoning text anywhere under the root', () => {
    const files = allFiles(home.knowledgeRoot)
    expect(files.length).toBeGreaterThan(1)
    for (const file of files) expect(file.text, file.path).not.toContain(REASONING)
    // The conversation model really did send reasoning, so the check above can fail.
    expect(server.requests.length).toBeGreaterThan(3)
  })
})
