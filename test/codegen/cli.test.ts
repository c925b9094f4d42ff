import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { GEN_USAGE, generateTypes, runGenCli } from '../../src/codegen/index.js';
import { crdJson, fixture } from './helpers.js';

let cwd = '';

async function run(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runGenCli(argv, {
    cwd,
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
  });
  return { code, stdout, stderr };
}

describe('runGenCli', () => {
  before(async () => {
    cwd = await mkdtemp(join(tmpdir(), 'kck-codegen-'));
    await writeFile(join(cwd, 'widgets.yaml'), fixture('widgets.yaml'));
  });
  after(async () => {
    await rm(cwd, { recursive: true, force: true });
  });

  it('writes one file per served version into a new output directory and exits 0', async () => {
    const r = await run('gen', 'types', 'widgets.yaml', '-o', 'src/apis');
    assert.equal(r.code, 0, r.stderr);
    assert.equal(
      r.stdout,
      [
        'wrote src/apis/widget_v1beta1.ts (Widget v1beta1 from widgets.example.com)',
        'wrote src/apis/widget_v1.ts (Widget v1 from widgets.example.com)',
        'wrote src/apis/gadget_v2.ts (Gadget v2 from gadgets.example.org)',
        '',
      ].join('\n'),
    );
    const expected = await generateTypes(
      [{ file: 'widgets.yaml', text: fixture('widgets.yaml') }],
      {
        command: 'kube-controller-kit gen types widgets.yaml -o src/apis',
      },
    );
    for (const f of expected) {
      assert.equal(await readFile(join(cwd, 'src/apis', f.fileName), 'utf8'), f.contents);
    }
  });

  it('accepts the arguments without the leading gen, and --out=dir', async () => {
    const r = await run('types', 'widgets.yaml', '--out=out2', '--import-from', '../lib.js');
    assert.equal(r.code, 0, r.stderr);
    const text = await readFile(join(cwd, 'out2', 'gadget_v2.ts'), 'utf8');
    assert.match(
      text,
      /^\/\/ Command: kube-controller-kit gen types widgets\.yaml -o out2 --import-from \.\.\/lib\.js$/m,
    );
    assert.match(text, /from '\.\.\/lib\.js';/);
  });

  it('with --check, exits 0 when files are current and 1 naming a stale or missing file', async () => {
    assert.equal((await run('gen', 'types', 'widgets.yaml', '-o', 'checked')).code, 0);
    const current = await run('gen', 'types', 'widgets.yaml', '-o', 'checked', '--check');
    assert.equal(current.code, 0, current.stderr);
    await writeFile(join(cwd, 'checked', 'widget_v1.ts'), '// edited by hand\n');
    await rm(join(cwd, 'checked', 'gadget_v2.ts'));
    const stale = await run('gen', 'types', 'widgets.yaml', '-o', 'checked', '--check');
    assert.equal(stale.code, 1);
    assert.match(stale.stderr, /checked\/widget_v1\.ts is out of date/);
    assert.match(stale.stderr, /checked\/gadget_v2\.ts is missing/);
    assert.equal(
      await readFile(join(cwd, 'checked', 'widget_v1.ts'), 'utf8'),
      '// edited by hand\n',
    );
  });

  it('exits 2 with the usage on a usage error', async () => {
    for (const argv of [
      [],
      ['gen', 'schemas'],
      ['gen', 'types', '-o', 'x'],
      ['gen', 'types', 'widgets.yaml'],
      ['gen', 'types', 'widgets.yaml', '-o'],
      ['gen', 'types', 'widgets.yaml', '-o', 'x', '--frobnicate'],
    ]) {
      const r = await run(...argv);
      assert.equal(r.code, 2, argv.join(' '));
      assert.match(r.stderr, /^error: .+\n\nUsage: kube-controller-kit gen types/, argv.join(' '));
    }
  });

  it('prints the usage and exits 0 for --help', async () => {
    const r = await run('gen', 'types', '--help');
    assert.deepEqual([r.code, r.stdout], [0, GEN_USAGE]);
  });

  it('exits 1 naming the file when a manifest cannot be read or is not a CRD', async () => {
    const missing = await run('gen', 'types', 'nope.yaml', '-o', 'x');
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /^error: nope\.yaml: cannot read the file: ENOENT/);
    await writeFile(join(cwd, 'cm.yaml'), 'apiVersion: v1\nkind: ConfigMap\n');
    const notCrd = await run('gen', 'types', 'cm.yaml', '-o', 'x');
    assert.equal(notCrd.code, 1);
    assert.match(
      notCrd.stderr,
      /^error: cm\.yaml, document 1 \(line 1\): expected an apiextensions/,
    );
  });

  it('takes a directory for its manifests (name order, not recursive) and records the directory in the header', async () => {
    await mkdir(join(cwd, 'crds', 'nested'), { recursive: true });
    await writeFile(join(cwd, 'crds', 'widgets.yaml'), fixture('widgets.yaml'));
    await writeFile(join(cwd, 'crds', 'notes.txt'), 'not a manifest');
    await writeFile(join(cwd, 'crds', 'nested', 'ignored.yaml'), 'not: read');
    const r = await run('gen', 'types', 'crds', '-o', 'out');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /wrote out\/widget_v1\.ts \(Widget v1 from widgets\.example\.com\)/);
    const text = await readFile(join(cwd, 'out', 'widget_v1.ts'), 'utf8');
    assert.match(text, /^\/\/ Command: kube-controller-kit gen types crds -o out$/m);
    assert.match(
      text,
      /^\/\/ Source: crds\/widgets\.yaml, CustomResourceDefinition widgets\.example\.com, version v1\.$/m,
    );
    assert.equal((await run('gen', 'types', 'crds', '-o', 'out', '--check')).code, 0);
    await mkdir(join(cwd, 'empty'));
    const empty = await run('gen', 'types', 'empty', '-o', 'out');
    assert.equal(empty.code, 1);
    assert.match(empty.stderr, /empty.*the directory holds no \.yaml, \.yml or \.json manifest/);
  });

  it('exits 1 when there is no served version to generate', async () => {
    await writeFile(join(cwd, 'cm.yaml'), 'apiVersion: v1\nkind: ConfigMap\n');
    const r = await run('gen', 'types', 'cm.yaml', '-o', 'x', '--ignore-other-kinds');
    assert.equal(r.code, 1);
    assert.match(r.stderr, /no served CRD version; nothing to generate/);
    const unserved = crdJson(undefined, {
      versions: [{ name: 'v1', served: false, storage: true }],
    });
    await writeFile(join(cwd, 'unserved.json'), unserved);
    assert.equal((await run('gen', 'types', 'unserved.json', '-o', 'x')).code, 1);
  });
});

describe('runGenCli --check from any working directory', () => {
  let project = '';
  before(async () => {
    project = await mkdtemp(join(tmpdir(), 'kck-codegen-project-'));
    await mkdir(join(project, 'src'), { recursive: true });
    await writeFile(join(project, 'package.json'), '{"name":"p"}');
    await writeFile(join(project, 'widgets.yaml'), fixture('widgets.yaml'));
  });
  after(async () => {
    await rm(project, { recursive: true, force: true });
  });

  const gen = async (dir: string, ...argv: string[]) => {
    let stderr = '';
    const code = await runGenCli(['gen', 'types', ...argv], {
      cwd: dir,
      stdout: () => {},
      stderr: (t) => (stderr += t),
    });
    return { code, stderr };
  };

  it('records paths from the project root (nearest package.json above the output), so files generated in one directory check clean from another', async () => {
    const written = await gen(project, 'widgets.yaml', '-o', 'src/apis');
    assert.equal(written.code, 0, written.stderr);
    const header = (await readFile(join(project, 'src/apis/widget_v1.ts'), 'utf8')).split('\n');
    assert.equal(header[1], '// Command: kube-controller-kit gen types widgets.yaml -o src/apis');
    // From the parent directory, with longer paths; and from inside src/.
    const parent = join(project, '..');
    const name = project.slice(parent.length + 1);
    const fromParent = await gen(
      parent,
      `${name}/widgets.yaml`,
      '-o',
      `${name}/src/apis`,
      '--check',
    );
    assert.equal(fromParent.code, 0, fromParent.stderr);
    const fromSrc = await gen(join(project, 'src'), '../widgets.yaml', '-o', 'apis', '--check');
    assert.equal(fromSrc.code, 0, fromSrc.stderr);
  });
});
