/**
 * Plain TypeScript that Node 22 runs with type stripping (the benchmarks import it): no parameter properties, no enums.
 *
 * In-process test bed: the real AgentLoop, SessionStore, SystemPrompt, ToolRuntime and LLM runtime from dsh
 * 0.1.0-rc.8, with a scripted LlmAdapter, plus the rows under test. Every model call (conversation and distill)
 * is answered by the script and logged.
 */
import { Context } from '@deepseek-ai/cordis'
import LlmRuntime, { LlmAdapter, createUserMessage, type GenerateOptions, type StreamChunk, type LlmProviderInfo } from '@deepseek-ai/dsh-llm'
import SessionStore, { SessionId } from '@deepseek-ai/dsh-session'
import SystemPrompt from '@deepseek-ai/dsh-system-prompt'
import ToolRuntime from '@deepseek-ai/dsh-tools'
import AgentRegistry from '@deepseek-ai/dsh-agent'
import AgentLoop from '@deepseek-ai/dsh-agent-loop'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Reply } from './model-server.ts'

export type { Reply }

/** What the script sees of one model call. */
export interface LoopRequest {
  options: GenerateOptions
  system: string
  /** The last user message's text (the prompt or a tool result's turn). */
  prompt: string
  /** Assistant messages since the last human prompt: the step within the turn. */
  step: number
}

export type LoopScript = (request: LoopRequest) => Reply | Promise<Reply>

const textOf = (content: unknown): string => (Array.isArray(content) ? content.map((b: { type?: string; text?: string }) => (b.type === 'text' ? (b.text ?? '') : '')).join('') : String(content ?? ''))

/** A scripted provider: every call is answered from the script, in the chunk protocol of dsh-llm. */
export class ScriptedAdapter extends LlmAdapter {
  readonly requests: LoopRequest[] = []
  private script: LoopScript
  constructor(script: LoopScript) {
    super()
    this.script = script
  }

  setScript(script: LoopScript): void {
    this.script = script
  }

  override providerInfo(provider: string): LlmProviderInfo {
    return { id: provider, name: 'Scripted' } as LlmProviderInfo
  }

  async *stream(options: GenerateOptions): AsyncIterable<StreamChunk> {
    const messages = options.messages as Array<{ role: string; content: unknown; source?: { kind?: string } }>
    const human = messages.map((m) => m.role === 'user' && m.source?.kind === 'user').lastIndexOf(true)
    const request: LoopRequest = {
      options,
      system: options.system ?? '',
      prompt: human >= 0 ? textOf(messages[human].content) : textOf(messages[messages.length - 1]?.content),
      step: human >= 0 ? messages.slice(human + 1).filter((m) => m.role === 'assistant').length : 0,
    }
    this.requests.push(request)
    const reply = await this.script(request)
    if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs))
    if (reply.status && reply.status >= 400) {
      yield { type: 'finish', reason: { kind: 'error', failure: { code: 'scripted', message: `scripted failure ${reply.status}`, status: reply.status } } } as unknown as StreamChunk
      return
    }
    let index = 0
    if (reply.reasoning) {
      yield { type: 'block-start', index, blockType: 'reasoning' }
      yield { type: 'reasoning-delta', index, text: reply.reasoning }
      yield { type: 'block-end', index, block: { type: 'reasoning', text: reply.reasoning } }
      index++
    }
    if (reply.text) {
      yield { type: 'block-start', index, blockType: 'text' }
      yield { type: 'text-delta', index, text: reply.text }
      yield { type: 'block-end', index, block: { type: 'text', text: reply.text } }
      index++
    }
    for (const call of reply.toolCalls ?? []) {
      const id = (call.id ?? `call_${this.requests.length}_${index}`) as never
      const args = typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments)
      yield { type: 'block-start', index, blockType: 'tool-call' }
      yield { type: 'tool-call-delta', index, id, name: call.name, argumentsDelta: args }
      yield { type: 'block-end', index, block: { type: 'tool-call', id, name: call.name, arguments: args } }
      index++
    }
    const usage = reply.usage ?? { prompt_tokens: 100, completion_tokens: 20 }
    yield { type: 'usage', usage: { inputTokens: usage.prompt_tokens, outputTokens: usage.completion_tokens } }
    yield { type: 'finish', reason: { kind: reply.toolCalls?.length ? 'tool-calls' : reply.finish === 'length' ? 'max-tokens' : 'stop' } } as StreamChunk
  }
}

/** A script keyed by a substring of the user's prompt; each entry lists the replies of the turn's steps. */
export function byPrompt(turns: Record<string, Reply[]>, fallback: Reply = { text: 'unscripted' }): LoopScript {
  return (request) => {
    for (const [needle, steps] of Object.entries(turns)) if (request.prompt.includes(needle)) return steps[Math.min(request.step, steps.length - 1)]
    return fallback
  }
}

/** A Cordis plugin and its config. */
export type Row = [plugin: any, config?: unknown]

export interface Loop {
  ctx: Context
  adapter: ScriptedAdapter
  /** A scratch folder to use as the knowledge root or a workspace. */
  dir: string
  /** Runs one prompt as a turn of `sessionId` (created on first use in `cwd`) and waits until the agent is idle. */
  ask(prompt: string, options?: { session?: string; cwd?: string; subagentOf?: string }): Promise<void>
  /** Disposes the whole context (rows' disposers run, pending capture work is awaited). */
  dispose(): Promise<void>
  /** The agent of a session `ask` created (its `session` holds the event log and the surface). */
  agent(session?: string): any
  /** Ends a session as dsh does when its tab closes: the agent stops and its session leaves the store. */
  close(session: string): Promise<void>
}

/** Boots the real harness core with the scripted adapter, then the given rows in order. */
export async function createLoop(script: LoopScript, rows: Row[]): Promise<Loop> {
  const ctx = new Context()
  const fibers: Array<{ dispose(): Promise<void> }> = []
  const load = async (plugin: any, config?: unknown) => {
    const fiber = ctx.plugin(plugin, config) as any
    await fiber
    fibers.push(fiber)
  }
  await load(LlmRuntime)
  await load(SessionStore)
  await load(SystemPrompt, {})
  await load(ToolRuntime, {})
  await load(AgentRegistry)
  const adapter = new ScriptedAdapter(script)
  ;(ctx as any).llm.registerAdapter(['scripted'], adapter)
  await load(AgentLoop, { agents: [] })
  for (const [plugin, config] of rows) await load(plugin, config ?? {})
  const agents = new Map<string, any>()
  const handles = new Map<string, { dispose(): Promise<void> }>()
  return {
    ctx,
    adapter,
    dir: mkdtempSync(join(tmpdir(), 'dsh-ks-loop-')),
    async ask(prompt, options = {}) {
      const session = options.session ?? 'session-00000000-0000-4000-8000-000000000001'
      let agent = agents.get(session)
      if (!agent) {
        const meta = { cwd: options.cwd ?? '/workspace', ...(options.subagentOf ? { origin: 'subagent', parentSession: SessionId(options.subagentOf), delegationDepth: 1 } : {}) }
        const created = await (ctx as any).agents.create({ sessionId: SessionId(session), meta, agentOptions: { provider: 'scripted', model: 'scripted-model' } })
        agent = created.agent
        agents.set(session, agent)
        handles.set(session, created)
      }
      agent.followup(createUserMessage({ content: [{ type: 'text', text: prompt }], source: { kind: 'user' } }))
      await agent.whenIdle()
    },
    async dispose() {
      while (fibers.length) await fibers.pop()!.dispose()
    },
    agent(session = 'session-00000000-0000-4000-8000-000000000001') {
      return agents.get(session)
    },
    async close(session) {
      const handle = handles.get(session)
      handles.delete(session)
      agents.delete(session)
      await handle?.dispose()
    },
  }
}
