/**
 * A scripted OpenAI Responses API server on 127.0.0.1, for the real Codex CLI (a custom `model_providers` entry with
 * `wire_api = "responses"` and `base_url = <url>`). It answers `POST …/responses` with the Server-Sent Events Codex
 * parses (`response.created`, `response.output_item.done`, `response.completed`; the shapes of Codex's own test
 * helpers in codex-rs/core/tests/common/responses.rs), and logs every request it gets.
 *
 * The same port is also the proxy every proxy variable of the client points at: a `CONNECT host:443` or an
 * absolute-URI request is a try to reach somewhere else. It is logged in `escapes` and refused (403), so a test can
 * say what the client tried to reach instead of relying on the machine having no route out.
 *
 * Plain TypeScript that Node 22 runs with type stripping (scripts/codex-round.ts imports it).
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'

/** One item of a Responses request's `input`, loosely typed: messages, function calls and their outputs. */
export interface InputItem {
  type?: string
  role?: string
  name?: string
  namespace?: string
  call_id?: string
  arguments?: string
  output?: string | Array<{ type: string; text?: string }>
  content?: string | Array<{ type: string; text?: string }>
}

/** A tool as the request lists it: a function, or a namespace of functions (how Codex 0.171 groups an MCP server's). */
export interface ToolSpec {
  type: string
  name?: string
  description?: string
  tools?: ToolSpec[]
}

export interface ResponsesRequest {
  method: string
  path: string
  headers: IncomingHttpHeaders
  body: { model?: string; input?: InputItem[]; tools?: ToolSpec[]; [key: string]: unknown } | undefined
}

/** What the scripted model answers: a function call (in a namespace when the tool is in one), or text. */
export type ResponsesReply = { call: { namespace?: string; name: string; arguments: unknown } } | { text: string }

/** A try to go through the proxy: `CONNECT` target or absolute URL. */
export interface Escape {
  method: string
  target: string
}

export interface ResponsesServer {
  /** `http://127.0.0.1:<port>/v1`: the provider's `base_url`. */
  url: string
  /** `http://127.0.0.1:<port>`: what HTTP(S)_PROXY are set to. */
  proxy: string
  port: number
  requests: ResponsesRequest[]
  escapes: Escape[]
  close(): Promise<void>
}

/** The text of a function call output, or of a message's content: Codex sends MCP results as `input_text` parts. */
export function itemText(value: InputItem['output'] | InputItem['content']): string {
  if (value === undefined) return ''
  if (typeof value === 'string') return value
  return value.map((part) => part.text ?? '').join('\n')
}

/** Every function call output of a request's input. */
export function functionOutputs(request: ResponsesRequest): InputItem[] {
  return (request.body?.input ?? []).filter((item) => item.type === 'function_call_output')
}

/** The namespace that holds a function named `name`, if the request lists one; '' when it is a top-level function. */
export function namespaceOf(request: ResponsesRequest, name: string): string | undefined {
  for (const tool of request.body?.tools ?? []) {
    if (tool.type === 'function' && tool.name === name) return ''
    if (tool.type === 'namespace' && tool.tools?.some((t) => t.name === name)) return tool.name
  }
  return undefined
}

const sse = (events: Array<Record<string, unknown>>) => events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join('')

export async function startResponsesServer(script: (request: ResponsesRequest, index: number) => ResponsesReply): Promise<ResponsesServer> {
  const requests: ResponsesRequest[] = []
  const escapes: Escape[] = []
  const sockets = new Set<Socket>()
  let turns = 0
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const url = req.url ?? ''
      if (/^[a-z]+:\/\//i.test(url)) {
        escapes.push({ method: req.method ?? '', target: url })
        res.writeHead(403).end()
        return
      }
      const raw = Buffer.concat(chunks).toString('utf8')
      let body: ResponsesRequest['body']
      try {
        body = raw ? JSON.parse(raw) : undefined
      } catch {
        body = undefined
      }
      const request: ResponsesRequest = { method: req.method ?? '', path: url, headers: req.headers, body }
      requests.push(request)
      if (req.method !== 'POST' || !url.endsWith('/responses')) {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not served here"}}')
        return
      }
      const n = ++turns
      const reply = script(request, n - 1)
      const id = `resp_${n}`
      const item =
        'call' in reply
          ? {
              type: 'function_call',
              id: `fc_${n}`,
              call_id: `call_${n}`,
              ...(reply.call.namespace ? { namespace: reply.call.namespace } : {}),
              name: reply.call.name,
              arguments: JSON.stringify(reply.call.arguments),
            }
          : { type: 'message', role: 'assistant', id: `msg_${n}`, content: [{ type: 'output_text', text: reply.text }] }
      const usage = { input_tokens: 0, input_tokens_details: null, output_tokens: 0, output_tokens_details: null, total_tokens: 0 }
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.end(
        sse([
          { type: 'response.created', response: { id } },
          { type: 'response.output_item.done', item },
          { type: 'response.completed', response: { id, usage } },
        ]),
      )
    })
  })
  server.on('connect', (req, socket) => {
    escapes.push({ method: 'CONNECT', target: req.url ?? '' })
    socket.end('HTTP/1.1 403 Forbidden\r\n\r\n')
  })
  server.on('connection', (socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  return {
    url: `http://127.0.0.1:${port}/v1`,
    proxy: `http://127.0.0.1:${port}`,
    port,
    requests,
    escapes,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      }),
  }
}
