/**
 * `dsh-knowledge restore <id>` (defined beside `retire`, its inverse).
 * @module dsh-knowledge-sync/cli/restore
 */
export { restore } from './retire.js'
