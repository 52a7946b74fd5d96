/**
 * The chat's kept/dropped marker (issue 28 item 19): `GET <prefix>/rounds?session=` answers one session's verdicts by
 * turn from the real ledger (rounds captured through the real capture path), and the page finds a message's turn in
 * a session snapshot's `nodes`.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { describe, expect, it } from 'vitest'
import { captureRound } from '../../src/capture/keep-round.js'
import { createHandler } from '../../src/http/routes.js'
import type { SessionRounds } from '../../src/wire.js'
import { turnOfMessage } from '../../client/RoundMarker.js'
import { storeFixture } from '../harness/stores.js'

const stores = storeFixture('session-rounds')
const SESSION = 'session-5e551011-0000-4000-8000-000000000000'
const at = (turn: number, question: string, answer: string, session = SESSION) => ({
  session,
  turn,
  cwd: '/ws',
  created: new Date().toISOString(),
  outcome: 'completed' as const,
  tools: [],
  question,
  answer,
})

describe("a session's rounds, by turn", () => {
  it('kept with its document id, dropped with its reasons; other sessions left out', async () => {
    const store = stores.open(stores.tmpRoot())
    await store.start()
    const kept = await captureRound(
      store,
      at(1, 'Why does the deploy fail?', 'The cause was a stale `DATABASE_URL` in `.env.production`; the fix is to update it and redeploy, because the migration reads it first.'),
      { minScore: 2 },
    )
    expect(kept.kept).toBe(true)
    expect((await captureRound(store, at(2, 'run the tests', 'All 12 tests passed.'), { minScore: 2 })).kept).toBe(false)
    await captureRound(store, at(1, 'Why does the deploy fail?', 'The cause was a stale `DATABASE_URL`; update it, because the migration reads it.', 'session-0ther000-0000-4000-8000-000000000000'), {
      minScore: 2,
    })
    const server = createServer(createHandler(store, { path: '/knowledge', trustedHosts: [], pageSize: 50 }))
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/knowledge/rounds?session=${encodeURIComponent(SESSION)}`
      const answer = (await (await fetch(url)).json()) as SessionRounds
      expect(answer.session).toBe(SESSION)
      expect(Object.keys(answer.turns)).toEqual(['1', '2'])
      expect(answer.turns[1]).toMatchObject({ kept: true, id: '5e551011-t1' })
      expect(answer.turns[2].kept).toBe(false)
      expect(answer.turns[2].reasons?.length).toBeGreaterThan(0)
      expect(answer.turns[2].reasons?.every((r) => /^[-+][a-z-]+$/.test(r))).toBe(true)
    } finally {
      await new Promise((r) => server.close(r))
    }
  })

  it("finds a message's turn among the snapshot's nodes (assistant nodes only)", () => {
    const snapshot = {
      nodes: [
        { kind: 'user', messageId: 'm1', turn: 1 },
        { kind: 'assistant', messageId: 'm2', turn: 1 },
        { kind: 'assistant', messageId: 'm3', turn: 2 },
      ],
    }
    expect(turnOfMessage(snapshot, 'm3')).toBe(2)
    expect(turnOfMessage(snapshot, 'm2')).toBe(1)
    expect(turnOfMessage(snapshot, 'm1')).toBeUndefined()
    expect(turnOfMessage(undefined, 'm2')).toBeUndefined()
  })
})
