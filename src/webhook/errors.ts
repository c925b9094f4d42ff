/**
 * The webhook module's errors.
 *
 * @module
 */
import { KubeControllerKitError } from '../util/errors.js';

/**
 * A webhook server, handler or helper was used wrongly or could not do its job: a path
 * registered twice, a missing certificate, an invalid option, a conversion that cannot be
 * made. The message says which and what to do.
 */
export class WebhookError extends KubeControllerKitError {}
