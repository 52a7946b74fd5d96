/**
 * The page's own failures in the page's language (issue 28 item 16, the client side): no answer at all, and an answer
 * that is not the routes' JSON (dsh web answers an unclaimed path with its index.html), against a real node:http
 * server on 127.0.0.1 and a closed port. Before, both showed English only ("network error", "… answered 200
 * text/html, not JSON") whatever the language.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type ApiError, KnowledgeApi } from '../../client/api.js'
import { translator } from '../../client/i18n.js'
import { errorText, ownErrorText } from '../../client/views-api.js'

let base = ''
const server = createServer((req, res) => {
  if (req.url?.startsWith('/knowledge/gone')) {
    res.writeHead(404, { 'content-type': 'application/json' })
    res.end(JSON.stringify({ error: 'no document "x-t1"', code: 'not-found' }))
    return
  }
  res.writeHead(200, { 'content-type': 'text/html' })
  res.end('<!doctype html><title>dsh</title>')
})
beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(() => new Promise((r) => server.close(r)))

async function failure(prefix: string, path: string): Promise<unknown> {
  try {
    await new KnowledgeApi(prefix).get(path)
  } catch (error) {
    return error
  }
  throw new Error('expected a failure')
}

describe('the page says its own failures in its language', () => {
  it('an answer that is not the routes: the routes are not served here', async () => {
    const error = await failure(`${base}/knowledge`, '/documents')
    expect((error as ApiError).code).toBe('not-mounted')
    expect(errorText(error, translator('zh'))).toBe('此处没有提供知识库路由（knowledge-http 行在运行吗？）。')
    expect(errorText(error, translator('en'))).toBe('The knowledge routes are not served here (is the knowledge-http row running?).')
    expect(ownErrorText(error, translator('zh'))).toMatch(/^此处没有提供/)
  })

  it('no answer at all: dsh web did not answer', async () => {
    const closed = createServer()
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r))
    const port = (closed.address() as AddressInfo).port
    await new Promise((r) => closed.close(r))
    const error = await failure(`http://127.0.0.1:${port}/knowledge`, '/documents')
    expect((error as ApiError).code).toBe('network')
    expect(errorText(error, translator('zh'))).toBe('dsh web 没有响应：它还在运行吗？')
  })

  it("the routes' refusal keeps its words after a lead in the page's language", async () => {
    const error = await failure(`${base}/knowledge`, '/gone')
    expect(errorText(error, translator('zh'))).toBe('未找到： no document "x-t1"')
    expect(ownErrorText(error, translator('zh'))).toBe('no document "x-t1"')
  })
})
