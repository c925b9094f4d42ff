// `kube-controller-kit init`, `create api` and `create webhook` (kubebuilder's scaffold):
// names are checked with Kubernetes' rules before anything is written; a command writes all
// of its files or none (a non-empty directory, an existing file, a removed marker); and the
// project it writes, with two kinds, admission webhooks and a conversion webhook, holds
// kubebuilder's files and PROJECT records it. That project's prettier check, type check,
// lint, tests, `npm start` and kustomize render are test/cli/scaffold_project.slow.test.ts
// (minutes); the same project from the packed tarballs, installed by npm, is
// test/examples/standalone.slow.test.ts.
import assert from 'node:assert/strict';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { pluralize } from '../../src/cli/scaffold/names.js';
import { runGenCli } from '../../src/codegen/cli.js';
import {
  files,
  minutes,
  scaffold,
  scratchDirectory,
  writeTwoKindProject,
} from './support/scaffold_project.js';

let work: string;
before(async () => {
  work = await scratchDirectory();
});
after(() => rm(work, { recursive: true, force: true }));

describe('names, checked with Kubernetes rules before anything is written', () => {
  for (const [flags, why] of [
    [['--kind', 'guestbook'], /--kind "guestbook" must be PascalCase: .*\(e\.g\. Guestbook\)/],
    [['--kind', 'guest-book'], /\(e\.g\. GuestBook\)/],
    [['--kind', 'Guest_Book'], /must be PascalCase/],
    [
      ['--version', 'V1'],
      /--version "V1" is not a Kubernetes API version: .*\(v1, v2, v1beta1, v1alpha2\)/,
    ],
    [['--version', 'v1beta'], /is not a Kubernetes API version/],
    [['--version', 'v0'], /is not a Kubernetes API version/],
    [['--group', 'Web_App'], /--group "Web_App" is not a valid API group: .*DNS-1123 subdomain/],
    [['--domain', 'example..com'], /--domain "example\.\.com" is not a valid domain/],
    [['--plural', 'Guestbooks'], /--plural "Guestbooks" is not a valid resource name: .*DNS-1035/],
    [['--project-name', 'My_Op'], /"My_Op" also names the operator's Namespace and ServiceAccount/],
  ] as const) {
    test(`init ${flags.join(' ')} is refused: ${String(why)}`, async () => {
      const dir = join(work, `bad-${flags.join('-').replace(/\W+/g, '_')}`);
      const api = { group: 'webapp', version: 'v1', kind: 'Guestbook' } as Record<string, string>;
      const args = ['init', dir, '--skip-install'];
      if (!flags.includes('--project-name' as never)) args.push('--project-name', 'bad');
      for (const key of ['group', 'version', 'kind']) {
        if (!flags.includes(`--${key}` as never)) args.push(`--${key}`, api[key]!);
      }
      const r = await scaffold(work, ...args, ...flags);
      assert.equal(r.code, 1, r.stdout + r.stderr);
      assert.match(r.stderr, why);
      assert.deepEqual(await files(dir), [], 'nothing is written');
    });
  }

  test("the plural is the kind's English plural, in lower case", () => {
    assert.deepEqual(
      ['Guestbook', 'Policy', 'Key', 'Box', 'Class', 'Match', 'Wish', 'Quiz'].map(pluralize),
      ['guestbooks', 'policies', 'keys', 'boxes', 'classes', 'matches', 'wishes', 'quizes'],
    );
  });

  test('usage errors exit 2 with the usage; --help exits 0', async () => {
    for (const args of [
      ['init', '--bogus'],
      ['init', 'a', 'b'],
      ['init', '--force=maybe'],
      ['create'],
      ['create', 'thing'],
      ['create', 'api', '--group'],
    ]) {
      const r = await scaffold(work, ...args);
      assert.equal(r.code, 2, args.join(' '));
      assert.match(r.stderr, /^error: .*\n\nUsage:/s);
    }
    assert.equal((await scaffold(work, 'init', '--help')).code, 0);
    assert.equal((await scaffold(work, 'create', 'webhook', '-h')).code, 0);
  });
});

describe('the state of the project, checked before anything is written', () => {
  test('init refuses a non-empty directory without --force, and writes into it with --force', async () => {
    const dir = join(work, 'not-empty');
    await mkdir(join(dir, '.git'), { recursive: true });
    await writeFile(join(dir, 'notes.txt'), 'mine');
    const refused = await scaffold(work, 'init', dir, '--skip-install');
    assert.equal(refused.code, 1);
    assert.match(
      refused.stderr,
      /not-empty is not empty \(notes\.txt\): .*--force writes into it anyway/,
    );
    assert.deepEqual(await files(dir), ['notes.txt']);
    const forced = await scaffold(work, 'init', dir, '--skip-install', '--force');
    assert.equal(forced.code, 0, forced.stderr);
    assert.ok((await files(dir)).includes('src/operator.ts'));
    assert.equal(await readFile(join(dir, 'notes.txt'), 'utf8'), 'mine');
  });

  test('init: a conversion webhook needs a second version; webhooks need a kind', async () => {
    const conversion = await scaffold(
      work,
      'init',
      join(work, 'c'),
      '--skip-install',
      '--group',
      'a',
      '--version',
      'v1',
      '--kind',
      'A',
      '--conversion',
    );
    assert.equal(conversion.code, 1);
    assert.match(
      conversion.stderr,
      /needs two versions of a kind: after init, create api for the second version/,
    );
    const kindless = await scaffold(
      work,
      'init',
      join(work, 'd'),
      '--skip-install',
      '--defaulting',
    );
    assert.equal(kindless.code, 1);
    assert.match(kindless.stderr, /webhooks need a kind/);
  });

  test('create needs a project; what exists, is missing or contradicts is refused by name; a removed marker stops everything', async () => {
    const outside = await scaffold(
      work,
      'create',
      'api',
      '--group',
      'a',
      '--version',
      'v1',
      '--kind',
      'A',
    );
    assert.equal(outside.code, 1);
    assert.match(
      outside.stderr,
      /PROJECT not found: run this in a project made by kube-controller-kit init/,
    );

    const dir = join(work, 'states');
    assert.equal((await scaffold(work, 'init', dir, '--skip-install')).code, 0);
    const api = ['--group', 'webapp', '--version', 'v1', '--kind', 'Guestbook'];
    // A marker removed from src/operator.ts: nothing at all is written, and the message
    // says what to add by hand.
    const operator = await readFile(join(dir, 'src/operator.ts'), 'utf8');
    await writeFile(
      join(dir, 'src/operator.ts'),
      operator.replace('  // +kube-controller-kit:scaffold:controllers\n', ''),
    );
    const before = await files(dir);
    const noMarker = await scaffold(dir, 'create', 'api', ...api);
    assert.equal(noMarker.code, 1);
    assert.match(
      noMarker.stderr,
      /nothing was written:\n- src\/operator\.ts has no line with the marker \+kube-controller-kit:scaffold:controllers .*add this by hand:\naddGuestbookController,/s,
    );
    assert.deepEqual(await files(dir), before);
    await writeFile(join(dir, 'src/operator.ts'), operator);

    assert.equal((await scaffold(dir, 'create', 'api', ...api)).code, 0);
    const twice = await scaffold(dir, 'create', 'api', ...api);
    assert.equal(twice.code, 1);
    assert.match(
      twice.stderr,
      /Guestbook webapp\.my\.domain\/v1 exists already \(PROJECT\); --force writes its files again/,
    );
    const second = await scaffold(
      dir,
      'create',
      'api',
      '--group',
      'webapp',
      '--version',
      'v2',
      '--kind',
      'Guestbook',
    );
    assert.equal(second.code, 1);
    assert.match(
      second.stderr,
      /Guestbook has a controller already \(at v1\): one controller per kind; pass --controller=false/,
    );
    const scope = await scaffold(
      dir,
      'create',
      'api',
      '--group',
      'webapp',
      '--version',
      'v2',
      '--kind',
      'Guestbook',
      '--controller=false',
      '--namespaced=false',
    );
    assert.equal(scope.code, 1);
    assert.match(scope.stderr, /Guestbook is namespaced at v1; every version has one scope/);
    const nothing = await scaffold(dir, 'create', 'webhook', ...api);
    assert.equal(nothing.code, 1);
    assert.match(
      nothing.stderr,
      /which webhook\? give --defaulting, --programmatic-validation or --conversion --spoke <version>/,
    );
    const missing = await scaffold(
      dir,
      'create',
      'webhook',
      '--group',
      'webapp',
      '--version',
      'v3',
      '--kind',
      'Guestbook',
      '--defaulting',
    );
    assert.equal(missing.code, 1);
    assert.match(
      missing.stderr,
      /Guestbook webapp\.my\.domain\/v3 is not in PROJECT: create api --group webapp --version v3 --kind Guestbook first/,
    );
    const noSpoke = await scaffold(dir, 'create', 'webhook', ...api, '--conversion');
    assert.equal(noSpoke.code, 1);
    assert.match(noSpoke.stderr, /--conversion needs --spoke <version>/);
    const badSpoke = await scaffold(
      dir,
      'create',
      'webhook',
      ...api,
      '--conversion',
      '--spoke',
      'v9',
    );
    assert.equal(badSpoke.code, 1);
    assert.match(
      badSpoke.stderr,
      /--spoke v9: Guestbook webapp\.my\.domain\/v9 is not in PROJECT; create api .* --controller=false first/,
    );
    const selfSpoke = await scaffold(
      dir,
      'create',
      'webhook',
      ...api,
      '--conversion',
      '--spoke',
      'v1',
    );
    assert.equal(selfSpoke.code, 1);
    assert.match(selfSpoke.stderr, /--spoke v1 is the hub itself/);
  });
});

describe('a project with two kinds, admission webhooks and a conversion webhook', () => {
  let dir: string;
  before(
    async () => {
      dir = await writeTwoKindProject(work);
    },
    { timeout: minutes(2) },
  );

  test('it holds what kubebuilder scaffolds, in TypeScript, and PROJECT records it', async () => {
    const all = await files(dir);
    for (const f of [
      'PROJECT',
      'README.md',
      'Dockerfile',
      'package.json',
      'tsconfig.json',
      'eslint.config.js',
      '.prettierrc.json',
      'src/main.ts',
      'src/operator.ts',
      'src/webhook_server.ts',
      'src/api/guestbook_v1.ts',
      'src/api/guestbook_v2.ts',
      'src/api/policy_v1alpha1.ts',
      'src/controllers/guestbook_controller.ts',
      'src/controllers/policy_controller.ts',
      'src/webhooks/guestbook_v1_webhook.ts',
      'src/webhooks/guestbook_conversion.ts',
      'src/webhooks/policy_v1alpha1_webhook.ts',
      'test/operator.test.ts',
      'test/guestbook_controller.test.ts',
      'test/guestbook_v1_webhook.test.ts',
      'test/guestbook_conversion.test.ts',
      'test/policy_controller.test.ts',
      'test/webhook_manifests.test.ts',
      'config/crd/bases/webapp.example.com_guestbooks.yaml',
      'config/crd/bases/policy.example.com_policies.yaml',
      'config/crd/patches/webhook_in_guestbooks.yaml',
      'config/rbac/role.yaml',
      'config/manager/manager.yaml',
      'config/webhook/manifests.yaml',
      'config/certmanager/certificate.yaml',
      'config/default/kustomization.yaml',
      'config/samples/webapp_v1_guestbook.yaml',
      'config/samples/webapp_v2_guestbook.yaml',
      'config/samples/policy_v1alpha1_policy.yaml',
    ]) {
      assert.ok(all.includes(f), `${f} is missing from ${all.join(', ')}`);
    }
    const manifest = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')) as {
      name: string;
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
      scripts: Record<string, string>;
    };
    assert.equal(manifest.name, 'guestbook-operator');
    assert.ok(manifest.dependencies['kube-controller-kit']?.startsWith('^'));
    assert.equal(
      manifest.dependencies['@kube-controller-kit/testing'],
      undefined,
      'the test server is a devDependency',
    );
    assert.ok(manifest.devDependencies['@kube-controller-kit/testing']?.startsWith('^'));
    assert.match(manifest.scripts.test ?? '', /node --import tsx --test/);
    const readme = await readFile(join(dir, 'README.md'), 'utf8');
    assert.match(readme, /^# guestbook-operator\n\n```sh\nnpm start .*\nnpm test .*\n```/);
    const project = parseAllDocuments(await readFile(join(dir, 'PROJECT'), 'utf8'))[0]?.toJS() as {
      resources: {
        kind: string;
        version: string;
        controller: boolean;
        webhooks?: Record<string, unknown>;
      }[];
    };
    assert.deepEqual(
      project.resources.map((r) => [r.kind, r.version, r.controller, r.webhooks ?? null]),
      [
        [
          'Guestbook',
          'v1',
          true,
          {
            conversion: true,
            defaulting: true,
            spoke: ['v2'],
            validation: true,
            webhookVersion: 'v1',
          },
        ],
        ['Guestbook', 'v2', false, null],
        ['Policy', 'v1alpha1', true, { validation: true, webhookVersion: 'v1' }],
      ],
    );
    // The CRD holds both versions of Guestbook, v1 stored, v2 with v1's schema.
    const crd = parseAllDocuments(
      await readFile(join(dir, 'config/crd/bases/webapp.example.com_guestbooks.yaml'), 'utf8'),
    )[0]?.toJS() as {
      spec: { versions: { name: string; storage: boolean; served: boolean; schema: unknown }[] };
    };
    assert.deepEqual(
      crd.spec.versions.map((v) => [v.name, v.served, v.storage]),
      [
        ['v1', true, true],
        ['v2', true, false],
      ],
    );
    assert.deepEqual(crd.spec.versions[1]?.schema, crd.spec.versions[0]?.schema);
  });

  test('its types are what npm run generate writes (gen types --check agrees)', async () => {
    const lines: string[] = [];
    const code = await runGenCli(['types', 'config/crd/bases', '-o', 'src/api', '--check'], {
      cwd: dir,
      stdout: (t) => lines.push(t),
      stderr: (t) => lines.push(t),
    });
    assert.equal(code, 0, lines.join(''));
    assert.match(
      await readFile(join(dir, 'src/api/guestbook_v2.ts'), 'utf8'),
      /^\/\/ Command: kube-controller-kit gen types config\/crd\/bases -o src\/api$/m,
    );
  });
});
