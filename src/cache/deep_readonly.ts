/**
 * The read-only view of cached objects, and its inverse for copies (defined in `util`, since
 * modules below the cache use them too).
 *
 * @module
 */
export type { DeepMutable, DeepReadonly } from '../util/deep_readonly.js';
