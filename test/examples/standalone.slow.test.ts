// `npm run test:examples` (CI runs it after `npm test`; minutes, and it needs the npm
// registry or a warm npm cache). Every example is a starting point: each folder, copied
// ALONE into an empty directory, installs the packed packages (`npm pack` of the runtime and of
// packages/testing, freshly built) plus the dependencies its own package.json declares, type-checks with its
// own tsconfig.json, and runs against the in-memory API server to its expected output. An
// import of a file outside the folder, an undeclared dependency, a line strict mode
// rejects, or an asset looked up relative to the wrong directory fails here.
//
// Every example, and every project of `consumerProjects` below, is compiled by each of
// `compilers`: its own TypeScript 5 and TypeScript 7 (the native compiler, which users
// compile their operators with too), against the declarations the package publishes.
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';

const root = fileURLToPath(new URL('../../', import.meta.url));
const minutes = (n: number) => n * 60_000;

/**
 * The environment of every command: the parent npm's settings (npm test) left out, and the
 * test runner's mark (with it a project's `node --test` reports to this runner, not to stdout).
 */
const env = Object.fromEntries(
  Object.entries(process.env).filter(
    ([k]) => !k.toLowerCase().startsWith('npm_') && k !== 'NODE_TEST_CONTEXT',
  ),
);
env.KUBECONFIG = '/nonexistent-an-example-must-not-read-it';

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

function run(cmd: string, args: string[], cwd: string, timeoutMs = minutes(3)): Promise<Result> {
  return new Promise((resolve) => {
    execFile(
      cmd,
      args,
      { cwd, env, timeout: timeoutMs, maxBuffer: 32 * 1024 * 1024 },
      (err, stdout, stderr) => {
        const code = err === null ? 0 : typeof err.code === 'number' ? err.code : 1;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

async function ok(
  cmd: string,
  args: string[],
  cwd: string,
  timeoutMs = minutes(3),
): Promise<Result> {
  const r = await run(cmd, args, cwd, timeoutMs);
  assert.equal(
    r.code,
    0,
    `${cmd} ${args.join(' ')} (in ${cwd}) exited ${r.code}\n${r.stdout}\n${r.stderr}`,
  );
  return r;
}

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** TypeScript 7, the native compiler (npm package `typescript`, major 7). */
const typescript7 = 'typescript@^7.0.2';

/**
 * The compilers every project is built with: the TypeScript 5 its package.json installs,
 * and TypeScript 7 (installed once, in `before`). `tsc` is the JavaScript entry point.
 */
interface Compiler {
  label: string;
  tsc(project: string): string;
}
let compilers: Compiler[];

/** The packed packages and the scratch directory, as `before` made them. */
interface Packed {
  /** The runtime package, kube-controller-kit. */
  tarball: string;
  /** The in-memory API server, @kube-controller-kit/testing. */
  testingTarball: string;
  /** The test's scratch directory (removed after). */
  work: string;
}

/**
 * A consumer's project, type-checked by each of `compilers` against the packed library (the
 * examples are checked in their own tests). The project `kube-controller-kit init` writes
 * (issue #36's scaffold) is one: its `create` runs the packed CLI in `dir`.
 */
interface ConsumerProject {
  name: string;
  /** What `verify` checks besides the type check, for the test's title. */
  also?: string;
  /** Packages `npm install` adds beside the packed library (the project's own are kept). */
  install: string[];
  /** Fills the empty directory `dir` before the install. */
  create(dir: string, packed: Packed): Promise<void> | void;
  /** Runs after the install, before the type checks (generated code, more scaffolding). */
  prepare?(dir: string): Promise<void>;
  /** Type-checks the installed project in `dir` with the compiler entry point `tsc`. */
  check(dir: string, tsc: string): Promise<Result>;
  /** Runs after the type checks: the project's own tests, lint, build. */
  verify?(dir: string): Promise<void>;
  /** Default 12 minutes. */
  timeoutMs?: number;
}

const consumerProjects: ConsumerProject[] = [
  {
    // Every TypeScript block of the README and the guides (scripts/check-doc-snippets.mjs)
    // under the strictest flags, with the library's own declarations checked too.
    name: 'the README and guides, as a consumer compiles them',
    install: [
      '@kubernetes/client-node@~1.4.0',
      'prom-client@^15',
      'yaml@^2',
      'json-schema-to-typescript@^15',
      'pino@^10',
      'winston@^3',
      '@types/node@^20',
      'typescript@^5.9.3',
    ],
    create: (dir) =>
      writeFileSync(
        join(dir, 'package.json'),
        '{"name":"docs-consumer","private":true,"type":"module"}',
      ),
    check: (dir, tsc) =>
      run(
        process.execPath,
        [join(root, 'scripts/check-doc-snippets.mjs'), '--consumer', dir, '--tsc', tsc],
        dir,
        minutes(5),
      ),
  },
  {
    // Issue #36's scaffold, from the packed packages: init as npx runs it, then the steps
    // the project's README gives, then its own checks.
    name: 'the project kube-controller-kit init writes',
    also: 'with a second version and a conversion webhook added by its own kit, passes its own npm test, runs with npm start, lints, and builds a production image without the test server',
    install: [],
    create: async (dir, { tarball, work }) => {
      // The kit as npx installs it: the runtime package alone, none of its optional peers
      // (so gen types and prettier are not at hand, and init says what to run next).
      const tools = join(work, 'scaffold-tools');
      mkdirSync(tools);
      writeFileSync(join(tools, 'package.json'), '{"name":"tools","private":true}');
      await ok(
        npm,
        ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', tarball],
        tools,
      );
      const init = await ok(
        process.execPath,
        [
          join(tools, 'node_modules/kube-controller-kit/dist/cli/main.js'),
          'init',
          '--skip-install',
          '--project-name',
          'guestbook-operator',
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
        dir,
      );
      assert.match(init.stdout, /next:\n {2}npm install\n {2}npm run generate && npm run format\n/);
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
        dependencies: Record<string, string>;
        devDependencies: Record<string, string>;
      };
      // The test server is for the tests and npm start: a development dependency only.
      assert.ok(manifest.dependencies['kube-controller-kit']);
      assert.equal(manifest.dependencies['@kube-controller-kit/testing'], undefined);
      assert.ok(manifest.devDependencies['@kube-controller-kit/testing']);
    },
    prepare: async (dir) => {
      // The rest of what init's "next:" says, then a second version and its conversion,
      // added by the project's own kit (the packed one npm installed).
      await ok(npm, ['run', '--silent', 'generate'], dir);
      await ok(npm, ['run', '--silent', 'format'], dir);
      const kit = (...args: string[]) =>
        ok(npm, ['exec', '--', 'kube-controller-kit', ...args], dir);
      await kit(
        'create',
        'api',
        '--group',
        'webapp',
        '--version',
        'v2',
        '--kind',
        'Guestbook',
        '--controller=false',
      );
      await kit(
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
      );
    },
    check: (dir, tsc) => run(process.execPath, [tsc, '-p', 'tsconfig.json', '--noEmit'], dir),
    verify: async (dir) => {
      const tests = await ok(npm, ['test'], dir, minutes(6));
      const [, passed] = /^# pass (\d+)\n# fail 0$/m.exec(tests.stdout) ?? [];
      // At least one test a file: operator, controller, webhooks, conversion, manifests.
      const files = readdirSync(join(dir, 'test')).filter((f) => f.endsWith('.test.ts'));
      assert.ok(files.length >= 5 && Number(passed) >= files.length, tests.stdout);
      await ok(npm, ['run', '--silent', 'lint'], dir);
      await ok(npm, ['run', '--silent', 'generate', '--', '--check'], dir);
      await startsAndStops(dir);
      // The production build the Dockerfile makes: dist/ runs without the test server.
      await ok(npm, ['run', '--silent', 'build'], dir);
      await ok(npm, ['prune', '--omit=dev', '--no-audit', '--no-fund', '--loglevel=error'], dir);
      assert.throws(() => readdirSync(join(dir, 'node_modules/@kube-controller-kit/testing')));
      const help = await ok(process.execPath, ['dist/main.js', '--help'], dir);
      assert.match(help.stdout, /^Usage: /);
      const real = await run(
        process.execPath,
        ['dist/main.js', '--kubeconfig', join(dir, 'none')],
        dir,
      );
      assert.notEqual(real.code, 0);
      assert.match(real.stderr, /kubeconfig \S+none does not exist/);
    },
    timeoutMs: minutes(20),
  },
];

/**
 * The scaffolded project's \`npm start\` (the README's first command): on the in-memory API
 * server from the installed @kube-controller-kit/testing, with its CRD, sample and webhooks,
 * until Ctrl-C, which stops it with exit 0.
 */
async function startsAndStops(dir: string): Promise<void> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'src/main.ts',
      '--health-probe-bind-address=127.0.0.1:0',
      '--metrics-bind-address=0',
      '--webhook-port=0',
    ],
    { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let log = '';
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  let timer: NodeJS.Timeout | undefined;
  try {
    await new Promise<void>((resolve, reject) => {
      const onData = (chunk: Buffer) => {
        log += chunk.toString();
        if (/webhooks installed/.test(log) && /manager: starting controller\/guestbook/.test(log))
          resolve();
      };
      child.stdout.on('data', onData);
      child.stderr.on('data', onData);
      void exited.then((code) => reject(new Error(`npm start exited ${code}:\n${log}`)));
      timer = setTimeout(
        () => reject(new Error(`npm start did not start in 3 minutes:\n${log}`)),
        minutes(3),
      );
    });
  } finally {
    clearTimeout(timer);
    child.kill('SIGINT');
  }
  assert.equal(await exited, 0, log);
  assert.match(log, /started the in-memory API server/);
  assert.match(log, /applied object=guestbooks\.webapp\.example\.com\/guestbook-sample/);
  assert.match(log, /manager: stopped/);
}

/** What each example must print (stdout) when run on the in-memory server. */
const expectations: Record<string, { script: string; stdout: RegExp[] }[]> = {
  quickstart: [
    {
      script: 'start',
      stdout: [/default\/a: Pending/, /default\/b: Pending/, /default\/c: Pending/],
    },
  ],
  'pod-watcher': [
    {
      script: 'start',
      stdout: [
        /✓ cache synced/,
        /pod default\/web-1 phase=Running node=node-a podsOnNode=2/,
        /pod default\/db-1 phase=Running node=node-b podsOnNode=1/,
        /pod default\/web-2 phase=Terminating/,
      ],
    },
  ],
  'dynamic-watcher': [
    {
      script: 'start',
      stdout: [
        /✓ applied 2 CRDs of example\.com/,
        /gadgets\.example\.com\/v1 +added +blue/,
        /widgets\.example\.com\/v1 +added +default\/small/,
        /widgets\.example\.com\/v1 +deleted +default\/large/,
      ],
    },
  ],
  'leader-elected': [
    {
      script: 'start',
      stdout: [
        /★ replica-\w is the leader/,
        /✋ stopping replica-\w/,
        /✓ replica-\w took over from replica-\w/,
      ],
    },
  ],
  'sharded-operator': [
    {
      script: 'start',
      stdout: [
        /^\{"shard":"replica-0","key":"default\/widget-\d+","start":\d+,"end":\d+\}$/m,
        /^\{"shard":"replica-3","key":"default\/widget-\d+"/m,
      ],
    },
  ],
  audit: [
    {
      script: 'start',
      stdout: [
        /violation required-labels configmaps\/v1 default\/unlabelled/,
        /violation latest-image pods\/v1 default\/web/,
        /violation cross-namespace-secret backups\.example\.com\/v1 default\/nightly/,
        /✓ stopped following backups\.example\.com\/v1 after its CRD was deleted/,
        /events: \d+ AuditViolation event\(s\) in default/,
      ],
    },
  ],
  gateway: [
    {
      script: 'start',
      stdout: [
        /add route \/api -> a +GET \/api\/users +-> 200 upstream-a/,
        /change upstream \/api -> b +GET \/api\/users +-> 200 upstream-b/,
        /add AuthPolicy \+ \/admin route +GET \/admin +-> 401/,
        /with x-api-key +GET \/admin +-> 200 upstream-a/,
        /again +GET \/api\/3 +-> 429/,
        /bad upstream on \/admin +GET \/admin +-> 200 upstream-a/,
        /ApiRoute default\/admin Accepted=False reason=InvalidUpstream/,
        /delete route \/api +GET \/api\/users +-> 404/,
        /event Warning InvalidUpstream ApiRoute\/admin/,
      ],
    },
  ],
  'fleet-sync': [
    {
      script: 'start',
      stdout: [
        /✓ default\/settings copied to member-a, member-b; apps\/feature-flags to member-a only/,
        /✓ member-c joined at runtime: default\/settings copied to it/,
        /✓ default\/settings changed on the hub: every member’s copy updated/,
        /✓ member-b left at runtime: fleet\.example\.com\/synced-to of default\/settings is now member-a,member-c/,
        /✓ apps\/feature-flags lost its label: its copy deleted from member-a, its status annotation removed/,
        /✓ default\/settings deleted on the hub: its copies deleted from member-a and member-c/,
        /done: default\/local-only \(not labelled\) was never copied: true/,
      ],
    },
  ],
  'application-operator': [
    {
      script: 'demo',
      stdout: [
        /✓ all Applications Ready/,
        /cleanup +default\/worker/,
        /done in \d+ ms: .*everything stopped/,
      ],
    },
  ],
};

describe('examples stand alone: copied, installed from the packed packages, type-checked, run', () => {
  let work: string;
  /** The runtime package, kube-controller-kit. */
  let tarball: string;
  /** The in-memory API server, @kube-controller-kit/testing. */
  let testingTarball: string;

  before(
    async () => {
      work = mkdtempSync(join(tmpdir(), 'kck-standalone-'));
      // The packages as npm publishes them: build both, then `npm pack` each (the API
      // reference, which `prepack` also builds, is not needed here).
      await ok(npm, ['run', '--silent', 'build'], root, minutes(10));
      const packed = await ok(
        process.execPath,
        [join(root, 'scripts/pack.mjs'), work, '--ignore-scripts'],
        root,
        minutes(6),
      );
      [tarball, testingTarball] = packed.stdout.trim().split('\n') as [string, string];
      const ts7 = join(work, 'typescript-7');
      mkdirSync(ts7);
      writeFileSync(join(ts7, 'package.json'), '{"name":"typescript-7","private":true}');
      await ok(
        npm,
        ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', typescript7],
        ts7,
      );
      const version = await ok(
        process.execPath,
        [join(ts7, 'node_modules/typescript/bin/tsc'), '--version'],
        ts7,
      );
      assert.match(version.stdout, /^Version 7\./);
      compilers = [
        {
          label: "TypeScript 5 (the project's own)",
          tsc: (project) => join(project, 'node_modules/typescript/bin/tsc'),
        },
        { label: 'TypeScript 7', tsc: () => join(ts7, 'node_modules/typescript/bin/tsc') },
      ];
    },
    { timeout: minutes(20) },
  );
  after(() => rmSync(work, { recursive: true, force: true }));

  test('every example folder has a test here', () => {
    const folders = readdirSync(join(root, 'examples'), { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name)
      .sort();
    assert.deepEqual(folders, Object.keys(expectations).sort());
  });

  for (const [name, runs] of Object.entries(expectations)) {
    test(
      `${name}: installs with only its declared dependencies, type-checks with its own strict tsconfig, and prints what it should`,
      { timeout: minutes(5) },
      async () => {
        const dir = join(work, name);
        cpSync(join(root, 'examples', name), dir, {
          recursive: true,
          filter: (src) => !/[/\\](node_modules|dist)$/.test(src),
        });
        await ok(
          npm,
          [
            'install',
            '--no-audit',
            '--no-fund',
            '--prefer-offline',
            '--loglevel=error',
            tarball,
            testingTarball,
          ],
          dir,
        );
        const tsc = join(dir, 'node_modules/typescript/bin/tsc');
        // `build` writes dist/: the compiled program must find its assets too.
        await ok(process.execPath, [tsc, '-p', 'tsconfig.json'], dir);
        const v5 = await ok(process.execPath, [tsc, '--version'], dir);
        assert.match(v5.stdout, /^Version 5\./, 'the example installs TypeScript 5');
        // TypeScript 7 builds it as well (into its own directory; dist/ is run below).
        for (const c of compilers.slice(1))
          await ok(
            process.execPath,
            [c.tsc(dir), '-p', 'tsconfig.json', '--outDir', 'dist-ts7'],
            dir,
          );
        for (const { script, stdout } of runs) {
          const r = await ok(npm, ['run', '--silent', script], dir);
          for (const re of stdout)
            assert.match(r.stdout, re, `${name}: npm run ${script}\n${r.stdout}\n${r.stderr}`);
          assert.match(r.stderr, /INFO \[[\w-]+\] started the in-memory API server/, r.stderr);
        }
        if (name === 'application-operator') {
          const compiled = await ok(process.execPath, ['dist/demo.js'], dir);
          assert.match(compiled.stdout, /done in \d+ ms: .*everything stopped/);
        }
        const help = await ok(npm, ['run', '--silent', 'start', '--', '--help'], dir);
        assert.match(help.stdout, /^Usage: /);
      },
    );
  }

  for (const project of consumerProjects) {
    test(
      `${project.name}: type-checks against the packed declarations with TypeScript 5 and 7${project.also !== undefined ? `, and ${project.also}` : ''}`,
      { timeout: project.timeoutMs ?? minutes(12) },
      async () => {
        const dir = join(work, `consumer-${project.name.replace(/\W+/g, '-')}`);
        mkdirSync(dir);
        await project.create(dir, { tarball, testingTarball, work });
        await ok(
          npm,
          [
            'install',
            '--no-audit',
            '--no-fund',
            '--prefer-offline',
            '--loglevel=error',
            tarball,
            testingTarball,
            ...project.install,
          ],
          dir,
        );
        await project.prepare?.(dir);
        for (const c of compilers) {
          const r = await project.check(dir, c.tsc(dir));
          assert.equal(r.code, 0, `${project.name} with ${c.label}\n${r.stdout}\n${r.stderr}`);
        }
        await project.verify?.(dir);
      },
    );
  }

  test(
    'the runtime package holds the runtime only: no test server, no sources, no maps, no protobuf or CEL',
    { timeout: minutes(2) },
    async () => {
      const listing = await ok('tar', ['-tzf', tarball], work);
      const files = listing.stdout.split('\n').filter((f) => f !== '');
      assert.deepEqual(
        files.filter((f) => /^package\/(src|dist\/testing)\/|\.map$/.test(f)).slice(0, 5),
        [],
      );
      const manifest = JSON.parse(
        (await ok('tar', ['-xzOf', tarball, 'package/package.json'], work)).stdout,
      ) as { dependencies: Record<string, string>; exports: Record<string, unknown> };
      assert.deepEqual(Object.keys(manifest.dependencies).sort(), ['eventemitter3', 'p-limit']);
      assert.equal(manifest.exports['./testing'], undefined);
      const testing = await ok('tar', ['-tzf', testingTarball], work);
      assert.ok(testing.stdout.includes('package/dist/apiserver.js'), testing.stdout);
    },
  );

  test(
    'a production install (npm prune --omit=dev) holds no test server, takes --kubeconfig, and says what to install without it',
    { timeout: minutes(3) },
    async () => {
      const dir = join(work, 'production');
      cpSync(join(root, 'examples', 'pod-watcher'), dir, {
        recursive: true,
        filter: (src) => !/[/\\](node_modules|dist)$/.test(src),
      });
      // As the example's Dockerfile does: install everything, compile, then drop the
      // development dependencies (tsx, TypeScript, the test server).
      await ok(
        npm,
        [
          'install',
          '--no-audit',
          '--no-fund',
          '--prefer-offline',
          '--loglevel=error',
          tarball,
          testingTarball,
        ],
        dir,
      );
      await ok(
        process.execPath,
        [join(dir, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'],
        dir,
      );
      await ok(npm, ['prune', '--omit=dev', '--no-audit', '--no-fund', '--loglevel=error'], dir);
      assert.throws(() => readdirSync(join(dir, 'node_modules/@kube-controller-kit/testing')));
      assert.throws(() => readdirSync(join(dir, 'node_modules/protobufjs')));
      assert.match(readFileSync(join(dir, 'src/main.ts'), 'utf8'), /@kube-controller-kit\/testing/);
      const r = await run(process.execPath, ['dist/main.js'], dir);
      assert.notEqual(r.code, 0);
      assert.match(
        r.stderr,
        /the in-memory API server is not installed: npm install --save-dev @kube-controller-kit\/testing, or pass --kubeconfig PATH/,
      );
      const help = await ok(process.execPath, ['dist/main.js', '--help'], dir);
      assert.match(help.stdout, /^Usage: /);
      // With --kubeconfig the program goes for the real cluster and never asks for the
      // test server (here the file is missing, which it says).
      const real = await run(
        process.execPath,
        ['dist/main.js', '--kubeconfig', join(dir, 'none')],
        dir,
      );
      assert.notEqual(real.code, 0);
      assert.match(real.stderr, /kubeconfig \S+none does not exist/);
      assert.doesNotMatch(real.stderr, /kube-controller-kit\/testing/);
    },
  );

  // require(esm): Node 20.19+ and 22.12+ load an ES module graph synchronously when it has
  // no top-level await; a `require` export condition lets CommonJS code in.
  for (const [label, extra, nodeBin] of [
    ['Node 20 with client-node 1.x', ['@kubernetes/client-node@~1.4.0'], undefined],
    [
      'Node 22 with client-node 2.x',
      ['@kubernetes/client-node@2', 'node@22'],
      'node_modules/node/bin/node',
    ],
  ] as const) {
    test(
      `require() of every entry point works from CommonJS on ${label}, and TypeScript types it (module nodenext)`,
      { timeout: minutes(5) },
      async () => {
        const dir = join(work, `cjs-${label.replace(/\W+/g, '-')}`);
        mkdirSync(dir);
        writeFileSync(
          join(dir, 'package.json'),
          '{"name":"cjs-consumer","private":true,"type":"commonjs"}',
        );
        await ok(
          npm,
          [
            'install',
            '--no-audit',
            '--no-fund',
            '--prefer-offline',
            '--loglevel=error',
            tarball,
            testingTarball,
            ...extra,
            'prom-client@^15',
            'yaml@^2',
            'json-schema-to-typescript@^15',
            'typescript@^5.9.3',
            '@types/node@^20',
          ],
          dir,
        );
        writeFileSync(
          join(dir, 'main.cjs'),
          [
            "const kit = require('kube-controller-kit');",
            "const testing = require('@kube-controller-kit/testing');",
            "const metrics = require('kube-controller-kit/metrics');",
            "const codegen = require('kube-controller-kit/codegen');",
            'console.log(process.versions.node.split(".")[0], kit.VERSION, typeof kit.SharedInformerFactory, typeof testing.startTestApiServer, typeof metrics.PrometheusMetricsProvider, typeof codegen.generateTypes);',
            'testing.startTestApiServer().then(async (s) => { const pods = await new kit.ResourceClient(s.kubeConfig(), kit.podsResource).list(); console.log("pods", pods.items.length); await s.close(); });',
          ].join('\n'),
        );
        const node = nodeBin === undefined ? process.execPath : join(dir, nodeBin);
        const r = await ok(node, ['main.cjs'], dir);
        const major = nodeBin === undefined ? process.versions.node.split('.')[0] : '22';
        assert.match(
          r.stdout,
          new RegExp(
            `^${major} \\d+\\.\\d+\\.\\d+ function function function function\\npods 0\\n$`,
          ),
        );
        assert.doesNotMatch(r.stderr, /ERR_REQUIRE|top-level await/);
        writeFileSync(
          join(dir, 'main.cts'),
          "import kit = require('kube-controller-kit');\nimport testing = require('@kube-controller-kit/testing');\nconst v: string = kit.VERSION;\nexport const start: typeof testing.startTestApiServer = testing.startTestApiServer;\nconsole.log(v);\n",
        );
        writeFileSync(
          join(dir, 'tsconfig.json'),
          JSON.stringify({
            compilerOptions: {
              skipLibCheck: true,
              module: 'nodenext',
              moduleResolution: 'nodenext',
              strict: true,
              noEmit: true,
              types: ['node'],
            },
            files: ['main.cts'],
          }),
        );
        for (const c of compilers)
          await ok(process.execPath, [c.tsc(dir), '-p', 'tsconfig.json'], dir);
      },
    );
  }
});
