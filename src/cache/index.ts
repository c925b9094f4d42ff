/**
 * The informer's cache: keys, the indexer, selectors, listers, DeltaFIFO, the reflector
 * and the shared informer.
 *
 * @module
 */
export type { ListerWatcher } from './listwatch.js';
