/**
 * Logging. The library never writes to the console directly: every component takes a
 * {@link Logger} in its options, and the default writes warnings and errors to stderr.
 * Log lines never contain credentials.
 *
 * @module
 */

/** Structured fields attached to a log line. */
export type LogFields = Readonly<Record<string, unknown>>;

/** A minimal structured logger (compatible with pino, winston and console-like loggers). */
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

const order: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3, silent: 4 };

function render(fields: LogFields | undefined): string {
  if (fields === undefined) return '';
  const parts: string[] = [];
  for (const [k, v] of Object.entries(fields)) {
    const value = v instanceof Error ? v.message : typeof v === 'string' ? v : JSON.stringify(v);
    parts.push(`${k}=${value}`);
  }
  return parts.length > 0 ? ' ' + parts.join(' ') : '';
}

/** A logger that writes lines at or above `level` to stderr. */
export function consoleLogger(level: LogLevel = 'info', prefix = 'kube-controller-kit'): Logger {
  const min = order[level];
  const write =
    (lvl: Exclude<LogLevel, 'silent'>) =>
    (message: string, fields?: LogFields): void => {
      if (order[lvl] < min) return;
      process.stderr.write(`${lvl.toUpperCase()} [${prefix}] ${message}${render(fields)}\n`);
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
