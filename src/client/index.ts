/**
 * Talking to the API server: the transport, typed resource clients, discovery and errors.
 *
 * @module
 */
export * from './types.js';
export * from './errors.js';
