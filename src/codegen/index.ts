/**
 * TypeScript types from CustomResourceDefinitions: the generator behind
 * `npx kube-controller-kit gen types <crd.yaml…> -o <dir>`, one file per version with the
 * resource's interface (`spec` and `status` from its OpenAPI schema) and its `ApiResource`
 * for clients and informers.
 *
 * Imported from `kube-controller-kit/codegen` (its optional peers, json-schema-to-typescript
 * and yaml, are loaded only there). Guide: [code generation](../../docs/codegen.md).
 *
 * ```ts
 * import { generateTypes } from 'kube-controller-kit/codegen';
 *
 * const crd = `
 * apiVersion: apiextensions.k8s.io/v1
 * kind: CustomResourceDefinition
 * metadata: { name: widgets.example.com }
 * spec:
 *   group: example.com
 *   names: { kind: Widget, plural: widgets, singular: widget, listKind: WidgetList }
 *   scope: Namespaced
 *   versions:
 *     - name: v1
 *       served: true
 *       storage: true
 *       schema:
 *         openAPIV3Schema:
 *           type: object
 *           properties:
 *             spec:
 *               type: object
 *               properties: { size: { type: integer } }
 * `;
 * for (const file of await generateTypes([{ file: 'widgets.yaml', text: crd }])) {
 *   console.log(`// ${file.fileName}\n${file.contents}`); // widget_v1.ts: interface Widget, widgetsResource
 * }
 * ```
 *
 * @module kube-controller-kit/codegen
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
