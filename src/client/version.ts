/**
 * The library's version, as sent in the User-Agent header.
 *
 * @module
 */

/** The version of kube-controller-kit (kept equal to package.json's by a test). */
export const VERSION = '0.1.0';
