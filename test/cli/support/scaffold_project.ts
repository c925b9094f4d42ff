// The scaffold's tests share these: the CLI run in-process, child processes outside the test
// runner, and the project with two kinds, admission webhooks and a conversion webhook
// (written into the repository's git-ignored .tmp/, so it resolves the repository's
// node_modules and maps its imports of the kit to the sources: tsconfig.kit.json).
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runScaffoldCli } from '../../../src/cli/scaffold/commands.js';

export const root = fileURLToPath(new URL('../../../', import.meta.url));
export const minutes = (n: number) => n * 60_000;

/** Runs `kube-controller-kit <args>` (init, create) in-process in `cwd`. */
export async function scaffold(cwd: string, ...args: string[]) {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const code = await runScaffoldCli(args, {
    cwd,
    stdout: (t) => stdout.push(t),
    stderr: (t) => stderr.push(t),
  });
  return { code, stdout: stdout.join(''), stderr: stderr.join('') };
}

/** Runs a child process to its end (5 minutes at most); stdout and stderr as one output. */
export function run(
  cmd: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv = childEnv,
): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(
      cmd,
      args,
      { cwd, env, timeout: minutes(5), maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => {
        const code = err === null ? 0 : typeof err.code === 'number' ? err.code : 1;
        resolve({ code, output: `${stdout}${stderr}` });
      },
    );
  });
}

/** The environment of a child process: outside the test runner of this file. */
export const childEnv = Object.fromEntries(
  Object.entries(process.env).filter(([k]) => k !== 'NODE_TEST_CONTEXT'),
);

/** Every file under `dir`, relative, sorted. */
export async function files(dir: string): Promise<string[]> {
  if (!existsSync(dir)) return [];
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1))
    .sort();
}

/**
 * A scratch directory inside the repository (git-ignored .tmp/): a project written there
 * resolves the repository's node_modules. The caller removes it.
 */
export async function scratchDirectory(): Promise<string> {
  await mkdir(join(root, '.tmp'), { recursive: true });
  return mkdtemp(join(root, '.tmp', 'scaffold-'));
}

/** Maps the kit's packages to this repository's sources (tsc, tsx and eslint use it). */
const kitTsconfig = () =>
  JSON.stringify({
    extends: './tsconfig.json',
    compilerOptions: {
      paths: {
        'kube-controller-kit': [join(root, 'src/index.ts')],
        'kube-controller-kit/metrics': [join(root, 'src/metrics/index.ts')],
        '@kube-controller-kit/testing': [join(root, 'packages/testing/src/index.ts')],
      },
    },
  });

/**
 * Writes \`guestbook-operator\` under \`work\`: Guestbook v1 with defaulting and validating
 * webhooks, v2 without a controller and a conversion webhook (v1 the hub), the
 * cluster-scoped Policy v1alpha1 with a validating webhook; then tsconfig.kit.json and
 * eslint.kit.config.js, which map the kit to the sources (.kitignore lists them for
 * prettier). Returns the project's directory.
 */
export async function writeTwoKindProject(work: string): Promise<string> {
  const dir = join(work, 'guestbook-operator');
  const steps = [
    [
      'init',
      dir,
      '--skip-install',
      '--domain',
      'example.com',
      '--group',
      'webapp',
      '--version',
      'v1',
      '--kind',
      'Guestbook',
      '--defaulting',
      '--programmatic-validation',
    ],
    [
      'create',
      'api',
      '--group',
      'webapp',
      '--version',
      'v2',
      '--kind',
      'Guestbook',
      '--controller=false',
    ],
    [
      'create',
      'webhook',
      '--group',
      'webapp',
      '--version',
      'v1',
      '--kind',
      'Guestbook',
      '--conversion',
      '--spoke',
      'v2',
    ],
    [
      'create',
      'api',
      '--group',
      'policy',
      '--version',
      'v1alpha1',
      '--kind',
      'Policy',
      '--namespaced=false',
    ],
    [
      'create',
      'webhook',
      '--group',
      'policy',
      '--version',
      'v1alpha1',
      '--kind',
      'Policy',
      '--programmatic-validation',
    ],
  ];
  for (const [i, args] of steps.entries()) {
    const r = await scaffold(i === 0 ? work : dir, ...args);
    if (r.code !== 0) throw new Error(`${args.join(' ')} exited ${r.code}\n${r.stdout}${r.stderr}`);
  }
  await writeFile(join(dir, 'tsconfig.kit.json'), kitTsconfig());
  await writeFile(
    join(dir, 'eslint.kit.config.js'),
    "import base from './eslint.config.js';\nexport default [...base, { ignores: ['eslint.kit.config.js'] }, { files: ['**/*.ts'], languageOptions: { parserOptions: { projectService: false, project: './tsconfig.kit.json', tsconfigRootDir: import.meta.dirname } } }];\n",
  );
  await writeFile(join(dir, '.kitignore'), 'tsconfig.kit.json\neslint.kit.config.js\n');
  return dir;
}
