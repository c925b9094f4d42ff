/**
 * Errors of server-side apply's field management.
 *
 * @module
 */
import { KubeControllerKitError } from 'kube-controller-kit';

/** Malformed field-management input: a bad `FieldsV1` key, a typed-value error, … */
export class FieldManagerError extends KubeControllerKitError {}
