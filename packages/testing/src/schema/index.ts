/**
 * Structural schemas of custom resources in the test API server: pruning, defaulting,
 * OpenAPI and CEL validation with ratcheting, `fieldValidation`, and the scale
 * subresource. Internal to `src/testing`.
 *
 * @module
 */
export {
  admitCustomResource,
  prepareCustomResource,
  validateCustomResource,
  customResourceSchema,
  CustomResourceSchemas,
  defaultOnRead,
  RULES_NOT_CHECKED,
  warningHeader,
} from './admission.js';
export type {
  Admission,
  AdmitOptions,
  CustomResourceSchema,
  FieldValidation,
} from './admission.js';
export {
  hasCelRules,
  isTransitionRule,
  joinFieldPath,
  ruleCompilationCauses,
  toCel,
  validateCelRules,
} from './cel.js';
export { applyDefaults, hasDefaults, needsDefaults } from './defaulting.js';
export { duplicateFields } from './duplicate_fields.js';
export { CHECKED_FORMATS, formatValid } from './formats.js';
export { OBJECT_META_FIELDS, pruneObject, unknownFields } from './prune.js';
export type { PruneResult } from './prune.js';
export { scaleOf, validateScaleSpec, validateScaleStatus, withReplicas } from './scale.js';
export type { Scale } from './scale.js';
export type { ScaleSubresource, StructuralSchema, ValidationRule } from './structural.js';
export { crdVersionScale, crdVersionSchema } from './structural.js';
export {
  BLOCKING_REASONS,
  mapListKey,
  validateEmbeddedResources,
  validateListTypes,
  validateSchema,
} from './validate.js';
export type { SchemaValidationOptions } from './validate.js';
