/**
 * Room `originals` of the store: the folder of files a knowledge base is built from and its manifest.
 * @module dsh-knowledge-sync/knowledge/originals
 */
export { OriginalsFolder, type Added, type OriginalsLogger, type OriginalsOptions } from './folder.js'
export type { ListedOriginal, OriginalStatus, PageCounter } from './listing.js'
export { type OriginalEntry, type Provenance, type RetireWhy, RETIRE_WHYS } from './manifest.js'
export { DEFAULT_ORIGINALS_DIR, MANIFEST_DIR, OriginalsError, RETIRED_DIR, originalPath, typeOf, type OriginalType } from './names.js'
export { openOriginal } from './files.js'
