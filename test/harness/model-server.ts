/**
 * A scripted OpenAI/DeepSeek-compatible streaming chat server on 127.0.0.1, for the real `dsh` CLI
 * (`DEEPSEEK_BASE_URL=<url>`). Replies are chosen by the request's content, never by arrival order, because every
 * prompt also sends a session-title request and retries may repeat a request.
 *
 * Plain TypeScript that Node 22 runs with type stripping (the demo imports it), so: no enums, no parameter properties.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool'
  content?: string | Array<{ type: string; text?: string }> | null
  reasoning_content?: string
  tool_calls?: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }>
  tool_call_id?: string
}

export interface ChatRequest {
  model: string
  messages: ChatMessage[]
  stream?: boolean
  thinking?: { type: string }
  max_tokens?: number
  tools?: Array<{ type: 'function'; function: { name: string; description?: string; parameters?: unknown } }>
  [key: string]: unknown
}

/** What the scripted model answers. */
export interface Reply {
  text?: string
  reasoning?: string
  toolCalls?: Array<{ name: string; arguments: unknown; id?: string }>
  finish?: 'stop' | 'tool_calls' | 'length'
  usage?: { prompt_tokens: number; completion_tokens: number }
  /** Answer with this HTTP status and a JSON error body instead of a stream (400 is terminal; 5xx/429 get retried). */
  status?: number
  /** Close the connection mid-stream after the first chunk. */
  dropAfterFirstChunk?: boolean
  delayMs?: number
  /** Answer only once this settles (a test holds a reply on a condition, not a duration); nothing if the client left. */
  until?: Promise<unknown>
}

/** A classified request: the session-title request, a distill request of this bundle, or a conversation step. */
export type RequestKind = 'title' | 'distill' | 'chat'

export interface LoggedRequest {
  kind: RequestKind
  body: ChatRequest
  /** The last user message's text. */
  prompt: string
  /** Tool-result messages after the last user message: the step within the current turn. */
  step: number
}

export type Script = (request: LoggedRequest) => Reply | Promise<Reply>

export function messageText(message: ChatMessage | undefined): string {
  if (!message?.content) return ''
  if (typeof message.content === 'string') return message.content
  return message.content.map((part) => part.text ?? '').join('')
}

/** The system prompt text of a request. */
export function systemText(body: ChatRequest): string {
  return body.messages
    .filter((m) => m.role === 'system')
    .map(messageText)
    .join('\n')
}

export function classify(body: ChatRequest): LoggedRequest {
  const system = systemText(body)
  // dsh appends a runtime-context snapshot as a user message in every run, and the skill catalogue as a
  // `<system-reminder>` user message where skills are registered (the wiki row's): the prompt is the last *real* one.
  const isPrompt = (m: ChatMessage) => m.role === 'user' && !/^(Current runtime context\.|<system-reminder>)/.test(messageText(m))
  const users = body.messages.filter(isPrompt)
  const lastUserIndex = body.messages.findLastIndex(isPrompt)
  const after = lastUserIndex < 0 ? [] : body.messages.slice(lastUserIndex + 1)
  let kind: RequestKind = 'chat'
  if (/create a concise title/i.test(system) && !body.tools?.length) kind = 'title'
  else if (/dsh-knowledge-sync distiller/i.test(system)) kind = 'distill'
  return {
    kind,
    body,
    prompt: messageText(users[users.length - 1]),
    step: after.filter((m) => m.role === 'assistant').length,
  }
}

/**
 * A script keyed by a substring of the user's prompt: each entry lists the replies of the turn's steps in order
 * (step 0 = first model call of the turn). Title requests get `title`; unmatched chat requests get a plain answer.
 */
export function byPrompt(turns: Record<string, Reply[]>, options: { title?: string; fallback?: Script } = {}): Script {
  return (request) => {
    if (request.kind === 'title') return { text: options.title ?? 'Scripted session' }
    for (const [needle, steps] of Object.entries(turns)) {
      if (request.prompt.includes(needle)) return steps[Math.min(request.step, steps.length - 1)]
    }
    if (options.fallback) return options.fallback(request)
    return { text: `scripted: no reply for ${JSON.stringify(request.prompt.slice(0, 60))}` }
  }
}

export interface ModelServer {
  url: string
  port: number
  requests: LoggedRequest[]
  setScript(script: Script): void
  close(): Promise<void>
}

function chunk(delta: Record<string, unknown>, finish: string | null = null, extra: Record<string, unknown> = {}): string {
  return `data: ${JSON.stringify({ id: 'chatcmpl-scripted', object: 'chat.completion.chunk', created: 0, model: 'scripted', choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`
}

async function readBody(req: IncomingMessage): Promise<string> {
  const parts: Buffer[] = []
  for await (const part of req) parts.push(part as Buffer)
  return Buffer.concat(parts).toString('utf8')
}

async function respond(res: ServerResponse, reply: Reply): Promise<void> {
  if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs))
  if (reply.until) {
    await reply.until
    if (res.destroyed || !res.socket || res.socket.destroyed) return
  }
  if (reply.status && reply.status >= 400) {
    res.writeHead(reply.status, { 'content-type': 'application/json' })
    res.end(JSON.stringify({ error: { message: `scripted failure ${reply.status}`, type: 'invalid_request_error', code: 'scripted' } }))
    return
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' })
  res.write(chunk({ role: 'assistant', content: '' }))
  if (reply.dropAfterFirstChunk) {
    res.destroy()
    return
  }
  if (reply.reasoning) res.write(chunk({ reasoning_content: reply.reasoning }))
  if (reply.text) {
    // Two fragments, so the client really assembles a stream.
    const cut = Math.ceil(reply.text.length / 2)
    res.write(chunk({ content: reply.text.slice(0, cut) }))
    if (reply.text.length > cut) res.write(chunk({ content: reply.text.slice(cut) }))
  }
  const calls = reply.toolCalls ?? []
  calls.forEach((call, index) => {
    const args = typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments)
    const id = call.id ?? `call_${index}_${Math.random().toString(36).slice(2, 10)}`
    res.write(chunk({ tool_calls: [{ index, id, type: 'function', function: { name: call.name, arguments: '' } }] }))
    res.write(chunk({ tool_calls: [{ index, function: { arguments: args } }] }))
  })
  const finish = reply.finish ?? (calls.length ? 'tool_calls' : 'stop')
  const usage = reply.usage ?? { prompt_tokens: 100, completion_tokens: 20 }
  res.write(chunk({}, finish, { usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } }))
  res.write('data: [DONE]\n\n')
  res.end()
}

/** Starts the server on 127.0.0.1 with an ephemeral port. */
export async function startModelServer(script: Script): Promise<ModelServer> {
  let current = script
  const requests: LoggedRequest[] = []
  const server: Server = createServer(async (req, res) => {
    try {
      if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not found"}}')
        return
      }
      const request = classify(JSON.parse(await readBody(req)) as ChatRequest)
      requests.push(request)
      await respond(res, await current(request))
    } catch (error) {
      res.writeHead(400, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ error: { message: `scripted server: ${(error as Error).message}` } }))
    }
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    setScript: (next) => {
      current = next
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
