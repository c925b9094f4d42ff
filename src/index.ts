/**
 * kube-controller-kit: client-go's controller machinery for TypeScript.
 *
 * @packageDocumentation
 */
export * from './util/index.js';
export * from './client/index.js';
export * from './cache/index.js';
