/**
 * What every area shares: the {@link Clock} that times everything (a {@link FakeClock}
 * drives queues, backoff, resync and leader election in tests without sleeping), the
 * {@link Logger} interface with pino and winston adapters, {@link Backoff}, and the base
 * class of the library's errors, {@link KubeControllerKitError}, and the guarded HTTP server
 * every server of the kit runs on (request-targets, bounded bodies, bounded JSON).
 *
 * Imported from `kube-controller-kit`. Guide: [logging](../../docs/logging.md).
 *
 * ```ts
 * import { Backoff, FakeClock, consoleLogger } from 'kube-controller-kit';
 *
 * const logger = consoleLogger('info', 'example'); // or pinoLogger(pino()), winstonLogger(…)
 * const clock = new FakeClock(); // a test's time; the library's default is the real clock
 * const backoff = new Backoff({ durationMs: 800, factor: 2, jitter: 0, steps: 10, capMs: 30_000 });
 *
 * for (let attempt = 1; attempt <= 3; attempt++) {
 *   const delayMs = backoff.step(); // 800, 1600, 3200
 *   const slept = clock.sleep(delayMs);
 *   await clock.advance(delayMs); // no real waiting
 *   await slept;
 *   logger.info('retrying', { attempt, delayMs, at: new Date(clock.now()).toISOString() });
 * }
 * ```
 *
 * @module util
 */
export { FakeClock, RealClock, realClock, flushAsync } from './clock.js';
export type { Clock, Timer } from './clock.js';
export {
  consoleLogger,
  defaultLogger,
  isPinoLogger,
  isWinstonLogger,
  noopLogger,
  pinoLogger,
  serializeError,
  serializeFields,
  toLogger,
  winstonLogger,
} from './logger.js';
export type {
  Logger,
  LogFields,
  LogLevel,
  PinoLevels,
  PinoLike,
  PinoLogFn,
  SerializedError,
  WinstonLike,
} from './logger.js';
export { KubeControllerKitError, errorMessage, isAbortError } from './errors.js';
export {
  Backoff,
  DelayWithReset,
  jitter,
  defaultReflectorBackoff,
  defaultBackoffResetMs,
} from './backoff.js';
export type { BackoffOptions, DelayWithResetOptions } from './backoff.js';
export { Deque } from './deque.js';
export {
  DEFAULT_HTTP_SERVER_LIMITS,
  GuardedHttpServer,
  InvalidServerLimitsError,
  resolveHttpServerLimits,
} from './http_server.js';
export type {
  GuardedHandler,
  GuardedHttpServerOptions,
  NodeServer,
  GuardedRequest,
  GuardedResponse,
  Http1GuardedServerOptions,
  Http2GuardedServerOptions,
  HttpServerLimits,
} from './http_server.js';
export { isRequestTargetError, parseRequestTarget } from './request_target.js';
export type { RequestTarget, RequestTargetError } from './request_target.js';
export { RequestBodyError, readRequestBody } from './request_body.js';
export type { BodyRequest, RequestBody } from './request_body.js';
export { JsonDecodeError, MAX_JSON_DEPTH, parseJson } from './json.js';
export type { ParseJsonOptions } from './json.js';
