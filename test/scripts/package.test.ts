// What a package reader gets: `npm pack` ships the guides and the API reference next to the
// README, the package metadata points at the repository, the README's links work from
// node_modules or the registry page (absolute, and each names a file that exists), and every
// runtime dependency is imported by the library (none downloaded for nothing). The runtime
// package holds the runtime only: the in-memory API server is @kube-controller-kit/testing
// (packages/testing), with the dependencies only it needs.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../', import.meta.url));
const REPO = 'https://github.com/kube-controller-kit/kube-controller-kit';

interface PackageJson {
  homepage?: string;
  repository?: { type?: string; url?: string };
  bugs?: { url?: string };
  files?: string[];
  scripts?: Record<string, string>;
  dependencies?: Record<string, string>;
}
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as PackageJson;

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) sourceFiles(path, out);
    else if (path.endsWith('.ts')) out.push(path);
  }
  return out;
}

describe('the package as published', () => {
  test('package.json names the repository, the homepage and where to report bugs', () => {
    assert.equal(pkg.repository?.type, 'git');
    assert.equal(pkg.repository?.url, `git+${REPO}.git`);
    assert.equal(pkg.homepage, `${REPO}#readme`);
    assert.equal(pkg.bugs?.url, `${REPO}/issues`);
  });

  test('npm pack ships the README, LICENSE, CHANGELOG, every guide under docs/ and the compiled runtime; no sources, maps, test server, tests or examples', async () => {
    const { stdout } = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
      cwd: root,
      maxBuffer: 64 * 1024 * 1024,
    });
    const [report] = JSON.parse(stdout) as { files: { path: string }[] }[];
    const files = new Set(report!.files.map((f) => f.path));
    for (const f of ['README.md', 'LICENSE', 'CHANGELOG.md', 'package.json']) {
      assert.ok(files.has(f), `${f} is in the package`);
    }
    assert.deepEqual(
      [...files].filter((f) => /^(src|packages)\/|^dist\/testing\/|\.map$/.test(f)),
      [],
      'sources, maps and the test server stay out of the runtime package',
    );
    const guides = readdirSync(join(root, 'docs')).filter((n) => n.endsWith('.md'));
    assert.ok(guides.length > 10);
    for (const g of guides) assert.ok(files.has(`docs/${g}`), `docs/${g} is in the package`);
    assert.deepEqual(
      [...files].filter((f) => f.startsWith('test/') || f.startsWith('examples/')),
      [],
    );
  });

  test('the typedoc API reference ships too: files lists docs/api and prepack (run by npm pack and npm publish alike) builds it', () => {
    assert.ok(pkg.files?.includes('docs/api'));
    assert.match(pkg.scripts?.prepack ?? '', /npm run build && npm run docs/);
    const typedoc = JSON.parse(readFileSync(join(root, 'typedoc.json'), 'utf8')) as {
      out?: string;
    };
    assert.equal(typedoc.out, 'docs/api');
  });

  test('every README link is absolute (it works in node_modules and on the registry page), and each into the repository names a file that exists', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const links = [...readme.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!);
    assert.ok(links.length > 10);
    const relative = links.filter((l) => !/^[a-z]+:\/\//.test(l) && !l.startsWith('#'));
    assert.deepEqual(relative, [], 'relative links are dead outside a checkout');
    for (const link of links.filter((l) => l.startsWith(`${REPO}/`))) {
      const m = /^https:\/\/github\.com\/[^/]+\/[^/]+\/(blob|tree)\/main\/([^#]+)/.exec(link);
      assert.ok(m, `${link} points at a file or folder on main`);
      assert.ok(existsSync(join(root, m[2]!)), `${m[2]} exists (linked from the README)`);
    }
  });

  test('the shipped guides link outside docs/ absolutely (examples/ is not in the package), and each link into the repository names a file that exists', () => {
    for (const name of readdirSync(join(root, 'docs')).filter((n) => n.endsWith('.md'))) {
      const text = readFileSync(join(root, 'docs', name), 'utf8');
      const links = [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!);
      const leaving = links.filter((l) => l.startsWith('../'));
      assert.deepEqual(
        leaving,
        [],
        `docs/${name}: relative links out of docs/ are dead in node_modules`,
      );
      for (const link of links.filter((l) => l.startsWith(`${REPO}/`))) {
        const m = /^https:\/\/github\.com\/[^/]+\/[^/]+\/(blob|tree)\/main\/([^#]+)/.exec(link);
        assert.ok(m, `docs/${name}: ${link} points at a file or folder on main`);
        assert.ok(existsSync(join(root, m[2]!)), `docs/${name}: ${m[2]} exists`);
      }
    }
  });

  test('every runtime dependency is imported by the library (none is installed for nothing)', () => {
    const sources = sourceFiles(join(root, 'src')).map((f) => readFileSync(f, 'utf8'));
    for (const dep of Object.keys(pkg.dependencies ?? {})) {
      const imported = sources.some(
        (s) => s.includes(`from '${dep}'`) || s.includes(`from '${dep}/`),
      );
      assert.ok(imported, `${dep} is a dependency but nothing in src/ imports it`);
    }
  });

  test('the test server is its own package: its dependencies are what only it imports, and it takes the runtime as a peer', () => {
    const testingPkg = JSON.parse(
      readFileSync(join(root, 'packages/testing/package.json'), 'utf8'),
    ) as PackageJson & {
      name: string;
      version: string;
      peerDependencies: Record<string, string>;
    };
    const rootPkg = pkg as PackageJson & {
      version: string;
      devDependencies: Record<string, string>;
    };
    assert.equal(testingPkg.name, '@kube-controller-kit/testing');
    assert.equal(testingPkg.version, rootPkg.version, 'the two packages are released together');
    assert.equal(testingPkg.peerDependencies['kube-controller-kit'], `^${rootPkg.version}`);
    const sources = sourceFiles(join(root, 'packages/testing/src')).map((f) =>
      readFileSync(f, 'utf8'),
    );
    for (const [dep, range] of Object.entries(testingPkg.dependencies ?? {})) {
      assert.ok(
        sources.some((s) => s.includes(`from '${dep}'`) || s.includes(`from '${dep}/`)),
        `${dep} is a dependency of the test server but nothing in it imports it`,
      );
      // Developed and tested here against the root's lockfile: the same range.
      assert.equal(
        rootPkg.devDependencies[dep],
        range,
        `${dep}: the root develops with the same range`,
      );
      assert.equal(pkg.dependencies?.[dep], undefined, `${dep} is not a runtime dependency`);
    }
  });
});
