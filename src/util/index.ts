/**
 * Clock, logging and error helpers shared by every module, and the guarded HTTP server
 * every server of the kit runs on (request-targets, bounded bodies, bounded JSON).
 *
 * @module
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
