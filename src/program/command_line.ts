/**
 * The command line of a small controller program (the examples, a local tool): declared
 * flags with a generated usage text, `--help`, an error with the usage for an unknown flag
 * or a missing value, and {@link runProgram} to run a `main` with a logger at info, an
 * AbortSignal wired to Ctrl-C / SIGTERM, and every failure logged with its causes.
 *
 * @module
 */
import { KubeControllerKitError, errorMessage, isAbortError } from '../util/errors.js';
import { consoleLogger } from '../util/logger.js';
import type { LogLevel, Logger } from '../util/logger.js';

/** One flag: `--name` (boolean) or `--name VALUE` / `--name=VALUE`. */
export interface FlagSpec {
  /** One line for the usage text. */
  description: string;
  /** The value's placeholder, e.g. `PATH`; absent for a boolean flag. */
  value?: string;
  /** The value may be left out (`--kubeconfig` alone); the flag then reads as `''`. */
  optionalValue?: boolean;
  /** The value when the flag is not given (shown in the usage). */
  default?: string;
}

/** A program's name, one-line summary and flags. */
export interface CommandSpec<F extends FlagSpecs = FlagSpecs> {
  /** The program's name, as typed (`npm start --`, `application-operator`). */
  name: string;
  /** What it does, for the usage text. */
  summary: string;
  /** Flags by name, without the leading `--`. */
  flags: F;
}

/** Flags by name, without the leading `--`. */
export type FlagSpecs = Readonly<Record<string, FlagSpec>>;

/**
 * Parsed flags: a string for valued flags, `true` for boolean flags, absent when not given
 * (and without a default).
 */
export type ParsedFlags<F extends FlagSpecs = FlagSpecs> = {
  readonly [K in keyof F]?: F[K] extends ValuedFlag ? string : true;
};

/** A flag that takes a value. */
export interface ValuedFlag {
  /** The value's placeholder, e.g. `PATH`. */
  readonly value: string;
}

/** The type of {@link clusterFlags}. */
export type ClusterFlagSpecs = {
  /** `--kubeconfig[=PATH]`: a real cluster instead of the in-memory server. */
  readonly kubeconfig: FlagSpec & ValuedFlag;
  /** `--log-level LEVEL` (default info). */
  readonly 'log-level': FlagSpec & ValuedFlag;
};

/** What {@link parseCommandLine} returns. */
export interface ParsedCommandLine<F extends FlagSpecs> {
  /** `--help` or `-h` was given: print the usage and stop. */
  help: boolean;
  /** The flags, with defaults filled in. */
  flags: ParsedFlags<F>;
}

/** The command line was wrong: an unknown flag, a missing value, a stray argument. */
export class UsageError extends KubeControllerKitError {
  /** The usage text to print with the message. */
  readonly usage: string;

  /**
   * @param message - what was wrong.
   * @param usage - the program's usage text.
   */
  constructor(message: string, usage: string) {
    super(message);
    this.usage = usage;
  }
}

/**
 * The flags every example shares: where to run and how much to log. `--kubeconfig` alone
 * follows the default chain (`$KUBECONFIG`, the Pod's service account, `~/.kube/config`).
 */
export const clusterFlags: ClusterFlagSpecs = {
  kubeconfig: {
    value: 'PATH',
    optionalValue: true,
    description:
      'run against a real cluster (PATH, else $KUBECONFIG, the Pod service account, ~/.kube/config); default: the in-memory API server',
  },
  'log-level': {
    value: 'LEVEL',
    default: 'info',
    description: 'debug, info, warn, error or silent',
  },
};

/** The usage text of a program: name, summary, flags with their values and defaults. */
export function usage(spec: CommandSpec<FlagSpecs>): string {
  const rows = Object.entries({ ...spec.flags, help: { description: 'print this help' } }).map(
    ([name, f]: [string, FlagSpec]) => {
      const value =
        f.value === undefined ? '' : f.optionalValue === true ? `[=${f.value}]` : ` ${f.value}`;
      const def = f.default === undefined ? '' : ` (default ${f.default})`;
      return [`--${name}${value}`, `${f.description}${def}`] as const;
    },
  );
  const width = Math.max(...rows.map(([left]) => left.length)) + 2;
  return [
    `Usage: ${spec.name} [flags]`,
    '',
    spec.summary,
    '',
    'Flags:',
    ...rows.map(([left, right]) => `  ${left.padEnd(width)}${right}`),
    '',
  ].join('\n');
}

/**
 * Parses `argv` (without node and the script). `--help`/`-h` yields `{ help: true }`.
 *
 * @throws UsageError for an unknown flag, a missing value, a value given to a boolean
 *   flag, or a positional argument.
 */
export function parseCommandLine<F extends FlagSpecs>(
  argv: readonly string[],
  spec: CommandSpec<F>,
): ParsedCommandLine<F> {
  const text = usage(spec);
  const flags: Record<string, string | true | undefined> = {};
  for (const [name, f] of Object.entries(spec.flags)) {
    if (f.default !== undefined) flags[name] = f.default;
  }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (arg === '--help' || arg === '-h') return { help: true, flags: flags as ParsedFlags<F> };
    if (!arg.startsWith('--')) {
      throw new UsageError(`unexpected argument "${arg}"`, text);
    }
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq < 0 ? undefined : eq);
    const f: FlagSpec | undefined = spec.flags[name];
    if (f === undefined) throw new UsageError(`unknown flag --${name}`, text);
    if (f.value === undefined) {
      if (eq >= 0) throw new UsageError(`--${name} takes no value`, text);
      flags[name] = true;
      continue;
    }
    if (eq >= 0) {
      flags[name] = arg.slice(eq + 1);
      continue;
    }
    const next = argv[i + 1];
    if (next !== undefined && !next.startsWith('--')) {
      flags[name] = next;
      i++;
    } else if (f.optionalValue === true) {
      flags[name] = '';
    } else {
      throw new UsageError(`--${name} needs a value (${f.value})`, text);
    }
  }
  return { help: false, flags: flags as ParsedFlags<F> };
}

/** An error's message followed by its causes: `a: caused by: b: caused by: c`. */
export function describeError(err: unknown): string {
  const parts: string[] = [];
  const seen = new Set<unknown>();
  let current: unknown = err;
  while (current !== undefined && current !== null && !seen.has(current) && parts.length < 8) {
    seen.add(current);
    const message = errorMessage(current);
    if (!parts.some((p) => p.includes(message))) parts.push(message);
    current = current instanceof Error ? current.cause : undefined;
  }
  return parts.join(': caused by: ');
}

/** What {@link runProgram} hands to `main`. */
export interface ProgramContext<F extends FlagSpecs = FlagSpecs> {
  /** The parsed flags. */
  flags: ParsedFlags<F>;
  /** Aborted by the first Ctrl-C (SIGINT) or SIGTERM. */
  signal: AbortSignal;
  /** Logger at `--log-level` (default info), writing to stderr. */
  logger: Logger;
}

const levels: readonly LogLevel[] = ['debug', 'info', 'warn', 'error', 'silent'];

/**
 * Runs a program's `main` with its command line: `--help` prints the usage and exits 0; a
 * usage error prints the message and the usage to stderr and exits 2; a failure of `main`
 * is logged with every cause and exits 1. The first Ctrl-C / SIGTERM aborts the signal
 * `main` gets, so it can clean up; `main` resolving then exits 0, rejecting exits 130. A
 * second Ctrl-C exits at once (status 130).
 *
 * @returns the exit code, also set as `process.exitCode`.
 */
export async function runProgram<F extends FlagSpecs>(
  spec: CommandSpec<F>,
  main: (context: ProgramContext<F>) => Promise<void>,
  argv: readonly string[] = process.argv.slice(2),
): Promise<number> {
  const finish = (code: number): number => {
    process.exitCode = code;
    return code;
  };
  let parsed: ParsedCommandLine<F>;
  try {
    parsed = parseCommandLine(argv, spec);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`error: ${err.message}\n\n${err.usage}`);
    return finish(2);
  }
  if (parsed.help) {
    process.stdout.write(usage(spec));
    return finish(0);
  }
  const level =
    (parsed.flags as Readonly<Record<string, string | true | undefined>>)['log-level'] ?? 'info';
  if (typeof level !== 'string' || !levels.includes(level as LogLevel)) {
    process.stderr.write(
      `error: --log-level must be one of ${levels.join(', ')}\n\n${usage(spec)}`,
    );
    return finish(2);
  }
  const logger = consoleLogger(level as LogLevel, spec.name);
  const controller = new AbortController();
  const onSignal = (sig: NodeJS.Signals) => {
    if (controller.signal.aborted) {
      logger.warn(`second ${sig}: exiting without cleaning up`);
      process.exit(130);
    }
    logger.info(`${sig}: stopping (again to exit at once)`);
    controller.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    await main({ flags: parsed.flags, signal: controller.signal, logger });
    return finish(0);
  } catch (err) {
    if (controller.signal.aborted) {
      // Interrupted: the abort's own rejection is expected; anything else is worth saying.
      if (!isAbortError(err, controller.signal)) logger.error(`stopped: ${describeError(err)}`);
      return finish(130);
    }
    logger.error(`failed: ${describeError(err)}`);
    return finish(1);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
