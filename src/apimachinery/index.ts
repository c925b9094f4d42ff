/**
 * What the client, the cache and the test API server all speak: label and field
 * selectors, `Status` objects and their reasons, object meta helpers and the types of
 * server-side apply's `managedFields`. It depends on nothing but `util`.
 *
 * @module
 */
export { SelectorParseError } from './selector_error.js';
export {
  parseLabelSelector,
  labelSelectorFromSet,
  labelSelectorFromLabelSelector,
  labelSelectorFromRequirements,
  labelRequirement,
  validateLabelKey,
  validateLabelValue,
  everything,
  nothing,
} from './labels.js';
export type {
  LabelSelector,
  LabelRequirement,
  LabelOperator,
  LabelSelectorSpec,
  LabelSelectorRequirementSpec,
} from './labels.js';
export {
  parseFieldSelector,
  fieldSelectorFromSet,
  everythingFields,
  escapeFieldValue,
} from './fields.js';
export type { FieldSelector, FieldRequirement } from './fields.js';
export { failureStatus } from './status.js';
export type { Status, StatusCause, StatusDetails, StatusReason } from './status.js';
export { apiVersionOf, groupResourceKey, objectKey, parseApiVersion } from './meta.js';
export type { ListMeta, ShardInfo } from './meta.js';
export type { FieldsV1, ManagedFieldsEntry, ManagedFieldsOperationType } from './managed_fields.js';
export {
  fnv1a64,
  formatShardBound,
  formatShardSelector,
  hashSpaceSize,
  matchesShardRanges,
  parseShardSelector,
  shardFields,
  shardFieldValue,
  shardSelectorMatcher,
  ShardSelectorParseError,
} from './shard_selector.js';
export type { ShardField, ShardRange } from './shard_selector.js';
