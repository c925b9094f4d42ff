/**
 * The `gen types` command: `kube-controller-kit gen types <crd.yaml...> -o <dir>`.
 *
 * @module
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, readdir, stat, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { errorMessage } from '../util/errors.js';
import { CrdCodegenError, CrdSyntaxError } from './errors.js';
import { type CrdSource, defaultGenCommand, generateTypes } from './generate_types.js';

/** Where {@link runGenCli} writes and which directory relative paths start from. */
export interface GenCliIo {
  /** Receives normal output (one line per file written). Default: process.stdout. */
  stdout?: (text: string) => void;
  /** Receives errors and usage. Default: process.stderr. */
  stderr?: (text: string) => void;
  /** The directory relative paths are resolved against. Default: process.cwd(). */
  cwd?: string;
}

/** The usage text of the `gen types` command. */
export const GEN_USAGE = `Usage: kube-controller-kit gen types <crd.yaml|crd.json|dir>... -o <dir> [options]

Writes TypeScript types for every served version of every CustomResourceDefinition in the
given manifests (a directory stands for its .yaml, .yml and .json files): <dir>/<kind>_<version>.ts with the resource interface, its list type and
an ApiResource constant. Paths in the header are relative to the project (the nearest
directory with a package.json above <dir>), so --check answers the same from any directory.

Options:
  -o, --out <dir>          output directory (created if missing)
  --import-from <module>   module to import ApiResource, ObjectList and ObjectMeta from
                           (default: kube-controller-kit)
  --ignore-other-kinds     skip documents that are not CRDs instead of failing
  --check                  write nothing; exit 1 if a file is missing or differs
  -h, --help               show this help
`;

interface ParsedArgs {
  files: string[];
  out: string | undefined;
  importFrom: string | undefined;
  ignoreOtherKinds: boolean;
  check: boolean;
  help: boolean;
}

class UsageError extends Error {}

function parseArgs(argv: readonly string[]): ParsedArgs {
  const args = [...argv];
  if (args[0] === 'gen') args.shift();
  const command = args.shift();
  const parsed: ParsedArgs = {
    files: [],
    out: undefined,
    importFrom: undefined,
    ignoreOtherKinds: false,
    check: false,
    help: false,
  };
  if (command === '-h' || command === '--help') return { ...parsed, help: true };
  if (command !== 'types') {
    throw new UsageError(
      command === undefined ? 'missing command "types"' : `unknown command "${command}"`,
    );
  }
  const value = (flag: string): string => {
    const v = args.shift();
    if (v === undefined || v.startsWith('-')) throw new UsageError(`${flag} needs a value`);
    return v;
  };
  while (args.length > 0) {
    const arg = args.shift() ?? '';
    const eq = arg.indexOf('=');
    if (arg.startsWith('--') && eq > 0) {
      args.unshift(arg.slice(0, eq), arg.slice(eq + 1));
      continue;
    }
    switch (arg) {
      case '-o':
      case '--out':
        parsed.out = value(arg);
        break;
      case '--import-from':
        parsed.importFrom = value(arg);
        break;
      case '--ignore-other-kinds':
        parsed.ignoreOtherKinds = true;
        break;
      case '--check':
        parsed.check = true;
        break;
      case '-h':
      case '--help':
        parsed.help = true;
        break;
      default:
        if (arg.startsWith('-') && arg !== '-') throw new UsageError(`unknown option ${arg}`);
        parsed.files.push(arg);
    }
  }
  if (parsed.help) return parsed;
  if (parsed.files.length === 0) throw new UsageError('no CRD manifest given');
  if (parsed.out === undefined) throw new UsageError('no output directory given (-o <dir>)');
  return parsed;
}

/**
 * The directory recorded paths are relative to: the nearest one with a package.json above
 * the output directory (the project), else the working directory. Recording paths from the
 * project root, not from where the command ran, makes the headers, and so `--check`, the
 * same from any working directory.
 */
function projectRoot(outDir: string, cwd: string): string {
  for (let dir = outDir; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) return cwd;
  }
}

/** `path` (as given, relative to `cwd`) relative to `root`, when it lies inside `root`. */
function fromRoot(path: string, cwd: string, root: string): string {
  const rel = relative(root, resolve(cwd, path));
  return rel === '' ? '.' : rel.startsWith('..') || isAbsolute(rel) ? path : rel;
}

/** The header command recorded for these arguments (stable: no absolute paths, fixed order). */
function recordedCommand(args: ParsedArgs, files: readonly string[], out: string): string {
  let command = defaultGenCommand(files, out);
  if (args.importFrom !== undefined) command += ` --import-from ${args.importFrom}`;
  if (args.ignoreOtherKinds) command += ' --ignore-other-kinds';
  return command;
}

/** Manifest file extensions a directory argument contributes. */
const MANIFEST = /\.(ya?ml|json)$/;

/**
 * The inputs with every directory replaced by its manifests (`.yaml`, `.yml`, `.json`, in
 * name order, not recursive), so `gen types config/crd/bases -o src/api` needs no shell glob
 * and records the same command from any shell.
 */
async function expandDirectories(files: readonly string[], cwd: string): Promise<string[]> {
  const out: string[] = [];
  for (const file of files) {
    const info = await stat(resolve(cwd, file)).catch(() => undefined);
    if (info?.isDirectory() !== true) {
      out.push(file);
      continue;
    }
    const names = (await readdir(resolve(cwd, file))).filter((n) => MANIFEST.test(n)).sort();
    if (names.length === 0) {
      throw new CrdSyntaxError(
        { file, document: 0 },
        'the directory holds no .yaml, .yml or .json manifest',
      );
    }
    out.push(...names.map((n) => join(file, n)));
  }
  return out;
}

async function readSources(files: readonly string[], cwd: string): Promise<CrdSource[]> {
  return Promise.all(
    files.map(async (file) => {
      try {
        return { file, text: await readFile(resolve(cwd, file), 'utf8') };
      } catch (err) {
        throw new CrdSyntaxError(
          { file, document: 0 },
          `cannot read the file: ${errorMessage(err)}`,
          { cause: err },
        );
      }
    }),
  );
}

/**
 * Runs `gen types` with the given arguments (everything after the program name, e.g.
 * `['gen', 'types', 'crd.yaml', '-o', 'src/apis']`; the leading `gen` may be left out).
 *
 * @returns the exit code: 0 on success, 1 for bad input or (with `--check`) stale files, 2 for
 *   a usage error. It never throws for bad input and never calls `process.exit`.
 */
export async function runGenCli(argv: readonly string[], io: GenCliIo = {}): Promise<number> {
  const out = io.stdout ?? ((text: string) => void process.stdout.write(text));
  const err = io.stderr ?? ((text: string) => void process.stderr.write(text));
  const cwd = io.cwd ?? process.cwd();
  let args: ParsedArgs;
  try {
    args = parseArgs(argv);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    err(`error: ${e.message}\n\n${GEN_USAGE}`);
    return 2;
  }
  if (args.help) {
    out(GEN_USAGE);
    return 0;
  }
  const outDir = args.out ?? '.';
  const dir = resolve(cwd, outDir);
  const root = projectRoot(dir, cwd);
  const rootFiles = args.files.map((f) => fromRoot(f, cwd, root));
  try {
    const inputs = await expandDirectories(args.files, cwd);
    const sources = (await readSources(inputs, cwd)).map((s, i) => ({
      ...s,
      file: fromRoot(inputs[i] ?? s.file, cwd, root),
    }));
    const files = await generateTypes(sources, {
      command: recordedCommand(args, rootFiles, fromRoot(outDir, cwd, root)),
      ...(args.importFrom === undefined ? {} : { importFrom: args.importFrom }),
      ignoreOtherKinds: args.ignoreOtherKinds,
    });
    if (files.length === 0) {
      err('error: the manifests contain no served CRD version; nothing to generate\n');
      return 1;
    }
    if (args.check) {
      let stale = 0;
      for (const f of files) {
        const current = await readFile(resolve(dir, f.fileName), 'utf8').catch(() => undefined);
        if (current !== f.contents) {
          stale++;
          err(`${outDir}/${f.fileName} is ${current === undefined ? 'missing' : 'out of date'}\n`);
        }
      }
      if (stale > 0) {
        err(`${stale} generated file(s) differ; run the command without --check to update them\n`);
        return 1;
      }
      out(`${files.length} generated file(s) up to date\n`);
      return 0;
    }
    await mkdir(dir, { recursive: true });
    for (const f of files) {
      await writeFile(resolve(dir, f.fileName), f.contents, 'utf8');
      out(`wrote ${outDir}/${f.fileName} (${f.kind} ${f.version} from ${f.crd})\n`);
    }
    return 0;
  } catch (e) {
    if (e instanceof CrdCodegenError) {
      err(`error: ${e.message}\n`);
      return 1;
    }
    err(`error: ${errorMessage(e)}\n`);
    return 1;
  }
}
