/**
 * Why an informer cannot sync, said once and clearly (issue #37: an operator that does
 * nothing because one RBAC rule or one CRD is missing must say so).
 *
 * - {@link describeSyncFailure} classifies a failed list or watch (`forbidden`,
 *   `unauthorized`, `notFound`, `badRequest`, `connectionRefused`, `gone`, `transient`) and
 *   says what would fix it: for a 403 the RBAC rule that allows it, in manifest words
 *   ({@link rbacRuleFor}); for a 404 the CustomResourceDefinition to install.
 * - {@link SyncFailureReporter} is an informer's watch error handler (client-go's
 *   `SetWatchErrorHandler`) that logs each failure once per episode: the first failure of a
 *   cause at error level (warn for a transient one), the retries at debug, a reminder at
 *   warn every {@link syncFailureReminderMs} while it lasts, and one info line when a list
 *   or watch succeeds again. The factory installs one on every informer it makes (unless
 *   `informerOptions.watchErrorHandler` is given) and tells it about successes by wrapping
 *   the informer's list and watch, so nothing polls and no timer is left.
 *
 * @module
 */
import { ApiError, formatGroupResource, isPermanentError } from '../client/errors.js';
import type { Clock } from '../util/clock.js';
import { errorMessage } from '../util/errors.js';
import type { Logger } from '../util/logger.js';

/** What an informer lists and watches: the words its failure and its RBAC rule are said in. */
export interface SyncTarget {
  /** API group (`''` for the core group). */
  readonly group: string;
  /** API version. */
  readonly version: string;
  /** Plural resource name (`secrets`). */
  readonly resource: string;
  /** The namespace it watches; undefined (or `''`) for all namespaces or a cluster-scoped resource. */
  readonly namespace?: string | undefined;
}

/** The kinds of failure {@link describeSyncFailure} tells apart. */
export type SyncFailureCause =
  | 'forbidden'
  | 'unauthorized'
  | 'notFound'
  | 'badRequest'
  | 'connectionRefused'
  | 'gone'
  | 'transient';

/** A failed list or watch, in words. */
export interface SyncFailure {
  /** What kind of failure. */
  readonly cause: SyncFailureCause;
  /**
   * True when retrying cannot succeed until something outside the process changes (an RBAC
   * rule, a CRD, credentials, a selector): the informer is stuck, though it keeps retrying.
   */
  readonly stuck: boolean;
  /** The failure in the server's words (an `ApiError`'s summary, without the request). */
  readonly summary: string;
  /** What would fix it (the RBAC rule, the CRD to install), or undefined. */
  readonly remedy: string | undefined;
  /** The HTTP status, when the server answered (0 otherwise). */
  readonly code: number;
}

/** How often a failure that lasts is said again, at warn: every 5 minutes. */
export const syncFailureReminderMs = 5 * 60_000;

/** Find the first error in a cause chain carrying a Node network `code`. */
function networkCode(err: unknown): string | undefined {
  for (let e: unknown = err, depth = 0; e !== undefined && e !== null && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * The RBAC rule that lets an informer of `target` list and watch, as a Role's or
 * ClusterRole's rule is written: `apiGroups: [""], resources: ["secrets"], verbs:
 * ["list","watch"]`.
 */
export function rbacRuleFor(target: SyncTarget): string {
  return `apiGroups: [${JSON.stringify(target.group)}], resources: [${JSON.stringify(target.resource)}], verbs: ["list","watch"]`;
}

/** Where the rule must be granted: in the namespace (a Role there), or cluster-wide. */
function ruleScope(target: SyncTarget): string {
  return target.namespace !== undefined && target.namespace !== ''
    ? `in namespaces: [${JSON.stringify(target.namespace)}] (a Role there, or a ClusterRole bound by a RoleBinding there)`
    : 'cluster-wide (a ClusterRole bound by a ClusterRoleBinding)';
}

/**
 * Classify a failed list or watch of `target` and say what would fix it. Pure: the table of
 * causes is tested on its own.
 */
export function describeSyncFailure(err: unknown, target: SyncTarget): SyncFailure {
  const code = err instanceof ApiError ? err.code : 0;
  const summary = err instanceof ApiError ? err.summary : errorMessage(err);
  const stuck = isPermanentError(err);
  const what = `${formatGroupResource(target)}/${target.version}`;
  if (code === 403) {
    return {
      cause: 'forbidden',
      stuck,
      summary,
      code,
      remedy: `Grant the operator's ServiceAccount this RBAC rule ${ruleScope(target)}: ${rbacRuleFor(target)}`,
    };
  }
  if (code === 401) {
    return {
      cause: 'unauthorized',
      stuck,
      summary,
      code,
      remedy: 'Give the process working credentials (a valid ServiceAccount token or certificate)',
    };
  }
  if (code === 404) {
    return {
      cause: 'notFound',
      stuck,
      summary,
      code,
      remedy:
        target.group === ''
          ? `This API server does not serve ${what}`
          : `Install the CustomResourceDefinition ${formatGroupResource(target)} serving version ${target.version}: the informer lists it as soon as it is served, without a restart`,
    };
  }
  if (code === 400) return { cause: 'badRequest', stuck, summary, code, remedy: undefined };
  if (code === 410) return { cause: 'gone', stuck: false, summary, code, remedy: undefined };
  if (networkCode(err) === 'ECONNREFUSED') {
    return {
      cause: 'connectionRefused',
      stuck,
      summary,
      code,
      remedy: 'The API server refuses connections: it is down, restarting, or the address is wrong',
    };
  }
  return { cause: 'transient', stuck, summary, code, remedy: undefined };
}

/** `3m20s`, `45s`, `800ms`. @internal */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))}ms`;
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${s % 60 === 0 ? '' : `${s % 60}s`}`;
  const h = Math.floor(m / 60);
  return `${h}h${m % 60 === 0 ? '' : `${m % 60}m`}`;
}

/** Options of a {@link SyncFailureReporter}. */
export interface SyncFailureReporterOptions {
  /** The informer's name in the log (the factory's key, `secrets/v1`). */
  readonly name: string;
  /** What it lists and watches. */
  readonly target: SyncTarget;
  /** Where it logs. */
  readonly logger: Logger;
  /** Source of time (how long a failure has lasted, when to remind). */
  readonly clock: Clock;
  /** How often a lasting failure is said again at warn (default {@link syncFailureReminderMs}). */
  readonly reminderMs?: number;
}

/** The failure being reported, from its first occurrence. */
interface Episode {
  /** What makes two failures the same: cause and status. */
  readonly key: string;
  readonly failure: SyncFailure;
  readonly since: number;
  attempts: number;
  lastSaidAt: number;
  /** Said at warn or error (so its recovery is said too). */
  readonly loud: boolean;
}

/**
 * Logs an informer's failed lists and watches once per episode (see the module
 * documentation). Call {@link SyncFailureReporter.failed} with each error (it is an
 * informer's `watchErrorHandler`) and {@link SyncFailureReporter.succeeded} when a list
 * or a watch is accepted.
 */
export class SyncFailureReporter {
  readonly #options: SyncFailureReporterOptions;
  readonly #reminderMs: number;
  #episode: Episode | undefined;

  /** @param options - the informer, its target, the logger and the clock. */
  constructor(options: SyncFailureReporterOptions) {
    this.#options = options;
    this.#reminderMs = options.reminderMs ?? syncFailureReminderMs;
  }

  /** The failure being reported and since when (clock ms), or undefined while healthy. */
  current():
    | {
        /** The failure, in words. */
        readonly failure: SyncFailure;
        /** Clock time (ms) of its first occurrence in this episode. */
        readonly sinceMs: number;
      }
    | undefined {
    const e = this.#episode;
    return e === undefined ? undefined : { failure: e.failure, sinceMs: e.since };
  }

  /** A list or watch failed with `err`: say it (once), or quietly count the retry. */
  failed(err: unknown): void {
    const { name, target, logger, clock } = this.#options;
    const failure = describeSyncFailure(err, target);
    const key = `${failure.cause} ${failure.code}`;
    const now = clock.now();
    const episode = this.#episode;
    if (episode !== undefined && episode.key === key) {
      episode.attempts++;
      const fields = this.#fields(failure, episode.attempts);
      if (episode.loud && now - episode.lastSaidAt >= this.#reminderMs) {
        episode.lastSaidAt = now;
        logger.warn(
          `informer ${name} still cannot list and watch after ${formatDuration(now - episode.since)} (${episode.attempts} attempts): ${failure.summary}${failure.remedy !== undefined ? `. ${failure.remedy}` : ''}; retrying with backoff`,
          fields,
        );
      } else {
        logger.debug(
          `informer ${name}: list and watch failed again (${failure.cause}, attempt ${episode.attempts}); retrying with backoff`,
          fields,
        );
      }
      return;
    }
    if (failure.cause === 'gone') {
      // A 410 is routine (the watch fell behind the server's history): relist, say nothing.
      logger.debug(`informer ${name}: ${failure.summary}; relisting`);
      return;
    }
    const level = failure.cause === 'transient' ? 'warn' : 'error';
    this.#episode = { key, failure, since: now, attempts: 1, lastSaidAt: now, loud: true };
    const consequence = failure.stuck
      ? 'it retries with backoff, and the controllers that use it wait until it syncs'
      : 'retrying with backoff';
    logger[level](
      `informer ${name} cannot list and watch ${formatGroupResource(target)}${target.namespace !== undefined && target.namespace !== '' ? ` in namespace ${target.namespace}` : ''}: ${failure.summary}${failure.remedy !== undefined ? `. ${failure.remedy}` : ''}; ${consequence}`,
      this.#fields(failure, 1),
    );
  }

  /** A list or watch was accepted: say the recovery (once) if a failure was said. */
  succeeded(): void {
    const episode = this.#episode;
    if (episode === undefined) return;
    this.#episode = undefined;
    const { name, logger, clock } = this.#options;
    if (!episode.loud) return;
    logger.info(
      `informer ${name} recovered: the API server accepted its list or watch after ${formatDuration(clock.now() - episode.since)} of ${episode.failure.cause} (${episode.attempts} failed attempts)`,
      { informer: name, cause: episode.failure.cause },
    );
  }

  #fields(failure: SyncFailure, attempts: number): Record<string, unknown> {
    const { name, target } = this.#options;
    return {
      informer: name,
      resource: formatGroupResource(target),
      ...(target.namespace !== undefined && target.namespace !== ''
        ? { namespace: target.namespace }
        : {}),
      cause: failure.cause,
      ...(failure.code !== 0 ? { code: failure.code } : {}),
      attempts,
    };
  }
}
