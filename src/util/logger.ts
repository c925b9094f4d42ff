/**
 * Logging. The library never writes to the console directly: every component takes a
 * {@link Logger} in its options, and the default writes warnings and errors to stderr.
 * Log lines never contain credentials.
 *
 * Errors are passed as field values (`{ error: err }`) and keep their stack: the console
 * logger prints it under the line, and the pino and winston adapters turn each `Error` into
 * a plain object (`type`, `message`, `stack`, `code`/`reason` when present, `cause`) that a
 * JSON log keeps.
 *
 * **An error is said once in a line.** The message says what happened (`reconcile of
 * default/web failed`), not why: the error's text goes in the `error` field only. Every
 * adapter writes that text once: the console logger on the line (`error=…`) with the stack
 * frames under it; {@link serializeError} as `message`, with a `stack` of frames only (V8's
 * `Name: message` header taken off) and without an `ApiError`'s `summary` (the
 * message without its request). A call that puts the error's text in its message passes no
 * `Error` field.
 *
 * pino and winston order their arguments differently — pino takes `(fields, message)`,
 * winston `(message, fields)` like {@link Logger} — and neither serializes an `Error` inside
 * the fields by itself. Wrap them with {@link pinoLogger}, {@link winstonLogger}, or
 * {@link toLogger}, which recognizes either (and passes a {@link Logger} through).
 *
 * @module
 */

/** Structured fields attached to a log line. */
export type LogFields = Readonly<Record<string, unknown>>;

/** A minimal structured logger, `(message, fields)`: see {@link toLogger} for pino and winston. */
export interface Logger {
  /** Detail useful when debugging the library. */
  debug(message: string, fields?: LogFields): void;
  /** Normal progress worth noting. */
  info(message: string, fields?: LogFields): void;
  /** Something went wrong and the library recovered. */
  warn(message: string, fields?: LogFields): void;
  /** Something went wrong that a user should look at. */
  error(message: string, fields?: LogFields): void;
}

/** Log levels, least to most severe. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';

/** The levels a line can be written at. */
type LineLevel = Exclude<LogLevel, 'silent'>;

const order: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3, silent: 4 };

/** An `Error` as plain data, for JSON logs. */
export interface SerializedError {
  /** The error's class name (`ApiError`, `TypeError`, …). */
  type: string;
  /** Its message. */
  message: string;
  /** Its stack frames (`    at …` lines), when it has a stack; the message is not repeated. */
  stack?: string;
  /** Other own fields with primitive values (`code`, `reason`, `retryAfterSeconds`, …). */
  [field: string]: unknown;
}

const MAX_CAUSE_DEPTH = 5;

/** A non-Error cause as text: a string as it is, anything else as JSON when it can be. */
function describe(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value) ?? typeof value;
  } catch {
    return typeof value;
  }
}

/**
 * The frames of `err.stack` without V8's `Name: message` header (which may span several
 * lines), so that the message is written once; the whole stack when it has no header with
 * the message (a stack set by hand), undefined without a stack.
 */
function stackFrames(err: Error): string | undefined {
  const stack = err.stack;
  if (typeof stack !== 'string') return undefined;
  const frame = /^\s+at /m.exec(stack);
  if (frame === null) return stack.includes(err.message) ? undefined : stack;
  const header = stack.slice(0, frame.index);
  return header.includes(err.message) ? stack.slice(frame.index).trimEnd() : stack;
}

/**
 * An `Error` as a plain object a JSON logger keeps: type, message, stack frames, its own
 * primitive fields (an ApiError's `code` and `reason`, a Node.js error's `code`), and its
 * `cause` chain (at most 5 deep). The message is written once: the stack loses its
 * `Name: message` header, and an ApiError's `summary` (its message without the request) is
 * left out.
 */
export function serializeError(err: Error, depth = 0): SerializedError {
  const out: SerializedError = { type: err.name, message: err.message };
  const frames = stackFrames(err);
  if (frames !== undefined) out.stack = frames;
  for (const [key, value] of Object.entries(err)) {
    if (key === 'cause' || key in out) continue;
    if (key === 'summary' && typeof value === 'string' && err.message.includes(value)) continue;
    if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) out[key] = value;
  }
  const cause: unknown = err.cause;
  if (cause !== undefined && depth < MAX_CAUSE_DEPTH) {
    out.cause = cause instanceof Error ? serializeError(cause, depth + 1) : describe(cause);
  }
  return out;
}

/** The fields with every `Error` value replaced by {@link serializeError}'s plain object. */
export function serializeFields(fields: LogFields | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (fields === undefined) return out;
  for (const [k, v] of Object.entries(fields)) out[k] = v instanceof Error ? serializeError(v) : v;
  return out;
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((l) => `    ${l.trimStart()}`)
    .join('\n');
}

/**
 * The error's type and stack frames (its message is on the line already), then each cause
 * as `caused by: Name: message` and its frames.
 */
function renderStack(err: Error): string {
  const parts: string[] = [];
  let current: unknown = err;
  for (let depth = 0; current instanceof Error && depth <= MAX_CAUSE_DEPTH; depth++) {
    const frames = stackFrames(current);
    const head = depth === 0 ? current.name : `  caused by: ${current.name}: ${current.message}`;
    parts.push(frames === undefined ? head : `${head}\n${indent(frames)}`);
    current = current.cause;
  }
  return parts.join('\n');
}

function render(fields: LogFields | undefined): { inline: string; stacks: string } {
  if (fields === undefined) return { inline: '', stacks: '' };
  const parts: string[] = [];
  const stacks: string[] = [];
  for (const [k, v] of Object.entries(fields)) {
    if (v instanceof Error) {
      parts.push(`${k}=${v.message}`);
      stacks.push(`  ${k}: ${renderStack(v)}`);
      continue;
    }
    parts.push(`${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`);
  }
  return {
    inline: parts.length > 0 ? ' ' + parts.join(' ') : '',
    stacks: stacks.length > 0 ? '\n' + stacks.join('\n') : '',
  };
}

/**
 * A logger that writes lines at or above `level` to stderr: `LEVEL [prefix] message k=v …`.
 * An `Error` field shows its message on the line (`error=…`) and, below it, its type and
 * stack frames, then each cause (`caused by: Name: message` and its frames).
 */
export function consoleLogger(level: LogLevel = 'info', prefix = 'kube-controller-kit'): Logger {
  const min = order[level];
  const write =
    (lvl: LineLevel) =>
    (message: string, fields?: LogFields): void => {
      if (order[lvl] < min) return;
      const { inline, stacks } = render(fields);
      process.stderr.write(`${lvl.toUpperCase()} [${prefix}] ${message}${inline}${stacks}\n`);
    };
  return { debug: write('debug'), info: write('info'), warn: write('warn'), error: write('error') };
}

/** A logger that discards everything. */
export const noopLogger: Logger = {
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
};

/** The logger components use when none is given: warnings and errors to stderr. */
export const defaultLogger: Logger = consoleLogger('warn');

/** One pino log method: `(fields, message)`. */
export type PinoLogFn = (fields: object, message?: string) => void;

/** pino's `levels` table. */
export interface PinoLevels {
  /** Level name → number (`info` → 30). */
  values: Readonly<Record<string, number>>;
}

/** The part of a pino logger the adapter uses (any pino 7–10 logger fits). */
export interface PinoLike {
  /** `logger.debug(fields, message)`. */
  debug: PinoLogFn;
  /** `logger.info(fields, message)`. */
  info: PinoLogFn;
  /** `logger.warn(fields, message)`. */
  warn: PinoLogFn;
  /** `logger.error(fields, message)`. */
  error: PinoLogFn;
  /** The child bindings; present on every pino logger, used to recognize one. */
  bindings(): object;
  /** pino's level table; used to recognize one. */
  levels: PinoLevels;
}

/** The part of a winston logger the adapter uses (any winston 3 logger fits). */
export interface WinstonLike {
  /** `logger.log(level, message, meta)`. */
  log(level: string, message: string, meta: object): unknown;
  /** The logger's transports; used to recognize one. */
  transports: unknown;
}

/**
 * A {@link Logger} over a pino logger: calls `pino.<level>(fields, message)`, with every
 * `Error` field serialized (stack included) whatever serializers the pino logger has.
 */
export function pinoLogger(pino: PinoLike): Logger {
  const write =
    (lvl: LineLevel) =>
    (message: string, fields?: LogFields): void => {
      pino[lvl](serializeFields(fields), message);
    };
  return { debug: write('debug'), info: write('info'), warn: write('warn'), error: write('error') };
}

/**
 * A {@link Logger} over a winston logger: calls `winston.log(level, message, fields)`, with
 * every `Error` field serialized (stack included), since winston's JSON format would
 * write an `Error` nested in the metadata as `{}`.
 */
export function winstonLogger(winston: WinstonLike): Logger {
  const write =
    (lvl: LineLevel) =>
    (message: string, fields?: LogFields): void => {
      winston.log(lvl, message, serializeFields(fields));
    };
  return { debug: write('debug'), info: write('info'), warn: write('warn'), error: write('error') };
}

function isObject(x: unknown): x is Record<string, unknown> {
  return (typeof x === 'object' || typeof x === 'function') && x !== null;
}

/** True for a pino logger: it has `bindings()` and a `levels.values` table. */
export function isPinoLogger(x: unknown): x is PinoLike {
  return (
    isObject(x) &&
    typeof x.bindings === 'function' &&
    isObject(x.levels) &&
    isObject(x.levels.values) &&
    typeof x.info === 'function'
  );
}

/** True for a winston logger: it has `log(level, …)`, `transports` and `add()`. */
export function isWinstonLogger(x: unknown): x is WinstonLike {
  return (
    isObject(x) && typeof x.log === 'function' && 'transports' in x && typeof x.add === 'function'
  );
}

/**
 * Any supported logger as a {@link Logger}: a pino logger through {@link pinoLogger}, a
 * winston logger through {@link winstonLogger}, anything else (a `Logger`, `console`) as
 * it is. Components of this library apply it to their `logger` option, so a pino or
 * winston logger can be passed directly.
 *
 * @example
 * ```ts
 * import pino from 'pino';
 * const logger = toLogger(pino({ level: 'debug' }));
 * logger.warn('watch failed', { resource: 'pods', error: err }); // err's stack is kept
 * ```
 */
export function toLogger(logger: Logger | PinoLike | WinstonLike): Logger {
  if (isPinoLogger(logger)) return pinoLogger(logger);
  if (isWinstonLogger(logger)) return winstonLogger(logger);
  return logger;
}
