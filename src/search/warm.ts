/**
 * Searches a long-lived store runs once in the background after its start, so that the first real searches do not
 * pay for compiling the search path and preparing its statements (one per query shape: the number of terms, kind of
 * term, filters). Measured at 10k documents (`bench/start.bench.mjs --tails`, five runs each): idle p99 5.6 ms and max
 * 8–11 ms without them, 4.6 ms and 4.7–6.7 ms with them. No side effects: a search only reads.
 * @module dsh-knowledge-sync/search/warm
 */
import type { SearchFilter } from '../types.js'

const TEXTS = [
  'error',
  'build fails',
  'why does the test fail',
  'how to configure the proxy for npm install behind a corporate firewall',
  'ERR_SOME_CODE_1',
  'user_id column',
  'config.yaml',
  'useEffectHook',
  '构建失败',
  '数据库 连接 超时',
  'docker compose up fails with permission denied',
]
const FILTERS: SearchFilter[] = [{}, { kind: 'raw' }, { tag: 'fix' }, { scope: '/' }]

/** The warm-up searches: every text with every filter. */
export const WARM_SEARCHES: ReadonlyArray<{ text: string; filter: SearchFilter }> = TEXTS.flatMap((text) => FILTERS.map((filter) => ({ text, filter: { ...filter, limit: 10 } })))
