/**
 * Clock, logging and error helpers shared by every module.
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
