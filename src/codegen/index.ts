/**
 * TypeScript types from CustomResourceDefinitions: the generator behind
 * `kube-controller-kit gen types <crd.yaml...> -o <dir>`.
 *
 * @module
 */
export { generateTypes, defaultGenCommand } from './generate_types.js';
export type { CrdSource, GenerateTypesOptions, GeneratedFile } from './generate_types.js';
export { parseCrdManifests } from './crd_manifest.js';
export type { CrdManifest, CrdVersion, JsonSchemaProps, ParseCrdOptions } from './crd_manifest.js';
export {
  CrdCodegenError,
  CrdSyntaxError,
  NotACrdError,
  InvalidCrdError,
  formatCrdLocation,
} from './errors.js';
export type { CrdLocation } from './errors.js';
export { runGenCli, GEN_USAGE } from './cli.js';
export type { GenCliIo } from './cli.js';
