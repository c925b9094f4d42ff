// The documentation site (`npm run docs` → docs/api: the API reference with the guides and
// the examples as pages, shipped in the package) works in a browser, offline: served from
// 127.0.0.1, pages render in headless Chromium without a console error or a failed request
// (one page of every kind typedoc renders, areas' pages, the guides' and examples' indexes
// and pages with images: rendering one takes seconds on a loaded machine, and the site has
// ~900; every page is checked for a main heading and its links without a browser);
// every link inside the site points at a file that exists and, with an anchor, at an
// element of that page with that id (the sidebar's links too); the README,
// its front page, links the guides and examples it holds relatively, not the repository's
// web pages; the site's search finds `Manager`, `SharedIndexInformer` and
// `startTestApiServer` and leads to their pages; and opened from the file system, as a
// reader opens node_modules/kube-controller-kit/docs/api/index.html, it works as well.
//
// It drives Debian's chromium (/usr/bin/chromium, `apt-get install chromium`; .ci/run
// installs it) through playwright-core, which downloads no browser. It reads the built site
// (`npm run docs`; .ci/run builds it before `npm test`). Outside CI, a missing chromium or a
// missing or stale site (older than one of its sources) skips the suite with a loud line
// saying what to run; in CI (`CI` set: .ci/run sets it for `npm test`) each is a failure,
// so the site is never left unchecked there.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { pathToFileURL } from 'node:url';
import { extname, join, relative, resolve, sep } from 'node:path';
import { chromium } from 'playwright-core';
import type { BrowserContext, Page } from 'playwright-core';

const root = resolve('.');
const site = join(root, 'docs', 'api');
const CHROMIUM = '/usr/bin/chromium';
const REPO = 'https://github.com/kube-controller-kit/kube-controller-kit';

/** Every file under `dir`, relative to it, with `/` separators. */
function filesUnder(dir: string, out: string[] = [], base = dir): string[] {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules') continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) filesUnder(path, out, base);
    else out.push(relative(base, path).split(sep).join('/'));
  }
  return out;
}

/** The newest source of the site (README, guides, examples, the API's sources, the config). */
function newestSource(): { path: string; mtimeMs: number } {
  const candidates = [
    'README.md',
    'typedoc.json',
    'tsconfig.docs.json',
    'scripts/typedoc-site.mjs',
    ...filesUnder(join(root, 'docs'))
      .filter((f) => !f.startsWith('api/'))
      .map((f) => `docs/${f}`),
    ...filesUnder(join(root, 'examples')).map((f) => `examples/${f}`),
    ...filesUnder(join(root, 'src')).map((f) => `src/${f}`),
    ...filesUnder(join(root, 'packages/testing/src')).map((f) => `packages/testing/src/${f}`),
  ];
  let newest = { path: '', mtimeMs: 0 };
  for (const path of candidates) {
    const { mtimeMs } = statSync(join(root, path));
    if (mtimeMs > newest.mtimeMs) newest = { path, mtimeMs };
  }
  return newest;
}

/** Why the test cannot run here, or undefined when it can. */
function skipReason(): string | undefined {
  const inCi = Boolean(process.env.CI);
  if (!existsSync(CHROMIUM)) {
    if (inCi) {
      throw new Error(
        `${CHROMIUM} is not installed, and CI must check the documentation site: .ci/run installs Debian's chromium (apt-get install chromium) before \`npm test\``,
      );
    }
    return `${CHROMIUM} is not installed (apt-get install chromium; .ci/run installs it): the documentation site is NOT checked in a browser`;
  }
  const index = join(site, 'index.html');
  const built = existsSync(index) ? statSync(index).mtimeMs : 0;
  const newest = newestSource();
  if (built >= newest.mtimeMs) return undefined;
  const why = built === 0 ? 'docs/api is not built' : `docs/api is older than ${newest.path}`;
  if (inCi) throw new Error(`${why}: .ci/run must run \`npm run docs\` before \`npm test\``);
  return `${why}: run \`npm run docs\`, then this test`;
}

const contentTypes: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json',
  '.ico': 'image/x-icon',
};

/** A static server of docs/api on 127.0.0.1 (port 0); unknown paths are 404. */
async function serve(): Promise<{ server: Server; base: string }> {
  const server = createServer((req, res) => {
    void (async () => {
      const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
      const file = resolve(site, `.${path.endsWith('/') ? `${path}index.html` : path}`);
      if (!file.startsWith(site + sep)) {
        res.writeHead(403).end();
        return;
      }
      try {
        const body = await readFile(file);
        res.writeHead(200, {
          'content-type': contentTypes[extname(file)] ?? 'application/octet-stream',
        });
        res.end(body);
      } catch {
        res.writeHead(404).end();
      }
    })();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}/` };
}

/** The ids (and names) of the elements of an HTML page. */
function anchorsOf(html: string): Set<string> {
  return new Set([...html.matchAll(/\s(?:id|name)="([^"]+)"/g)].map((m) => decodeHtml(m[1]!)));
}

function decodeHtml(s: string): string {
  return s
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

const reason = skipReason();
if (reason !== undefined) {
  console.warn(`\n*** test/docs/site.test.ts SKIPPED: ${reason} ***\n`);
}

describe('the documentation site in headless Chromium', { skip: reason ?? false }, () => {
  let server: Server;
  let base: string;
  let context: BrowserContext;
  let userDataDir: string;
  const pages = filesUnder(site).filter((f) => f.endsWith('.html'));
  const html = new Map<string, string>();

  before(async () => {
    for (const p of pages) html.set(p, readFileSync(join(site, p), 'utf8'));
    ({ server, base } = await serve());
    userDataDir = mkdtempSync(join(tmpdir(), 'kck-chromium-'));
    // Chromium's background connections are refused here (closed network): turn them off.
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  });

  after(async () => {
    await context?.close();
    await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
    if (userDataDir) rmSync(userDataDir, { recursive: true, force: true });
  });

  test('it holds the reference by area, every guide docs/README.md lists and every example file', () => {
    assert.ok(pages.length > 300, `${pages.length} pages`);
    for (const area of ['client', 'cache', 'workqueue', 'controller', 'manager', 'webhook']) {
      assert.ok(html.has(`modules/${area}.html`), `the ${area} area has its page`);
    }
    assert.ok(html.has('modules/_kube-controller-kit_testing.html'));
    const guides = readdirSync(join(root, 'docs')).filter(
      (n) => n.endsWith('.md') && n !== 'README.md',
    );
    const documents = pages.filter(
      (p) => p.startsWith('documents/Guides.') && p !== 'documents/Guides.html',
    );
    assert.equal(documents.length, guides.length, 'one page per guide');
    for (const example of readdirSync(join(root, 'examples')).filter((n) =>
      existsSync(join(root, 'examples', n, 'README.md')),
    )) {
      assert.ok(html.has(`documents/Examples.${example}.html`), `examples/${example}`);
      assert.ok(
        pages.some((p) => p.startsWith(`documents/Examples.${example}.src_main.ts`)),
        `examples/${example}/src/main.ts has its page`,
      );
    }
  });

  test('every link inside the site points at a file that exists, and an anchor at an element of that page', () => {
    const broken: string[] = [];
    let checked = 0;
    for (const [page, text] of html) {
      for (const m of text.matchAll(/\s(?:href|src)="([^"]*)"/g)) {
        const href = decodeHtml(m[1]!);
        if (/^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith('//')) continue; // elsewhere
        checked++;
        const [path, anchor] = href.split('#') as [string, string | undefined];
        const target =
          path === ''
            ? page
            : relative(site, resolve(site, page, '..', path))
                .split(sep)
                .join('/');
        if (!existsSync(join(site, target))) {
          broken.push(`${page}: ${href} (no file ${target})`);
          continue;
        }
        // hierarchy.html's entries are written by its script (assets/hierarchy.js).
        if (anchor && target.endsWith('.html') && target !== 'hierarchy.html') {
          const ids = anchorsOf(html.get(target) ?? '');
          // typedoc's pages fill "#" targets of headings by script; real anchors are ids.
          if (!ids.has(decodeURIComponent(anchor)) && !ids.has(anchor)) {
            broken.push(`${page}: ${href} (no #${anchor} in ${target})`);
          }
        }
      }
    }
    assert.ok(checked > 5000, `${checked} links checked`);
    assert.deepEqual(broken.slice(0, 40), [], `${broken.length} broken links`);
  });

  test('the front page (the README) links the guides, the examples and the areas relatively, not on the repository web pages', () => {
    const index = html.get('index.html') ?? '';
    const online = [
      ...index.matchAll(new RegExp(`href="(${REPO}/(?:blob|tree)/main/[^"]+)"`, 'g')),
    ].map((m) => m[1]!);
    assert.deepEqual(
      online.filter((l) => /\/main\/(docs|examples)\/|\/index\.ts$/.test(l)),
      [],
      'each of these has its page in the site',
    );
    assert.match(index, /href="documents\/Guides\.Manager\.html"/);
    assert.match(index, /href="modules\/cache\.html"/);
    assert.match(index, /href="documents\/Examples\.quickstart\.html"/);
  });

  test('every page has a main heading', () => {
    const without = [...html].filter(([, text]) => !/<h1[\s>]/.test(text)).map(([p]) => p);
    assert.deepEqual(without, []);
  });

  test('pages of every kind render in Chromium: no console error, no failed request, a main heading', async () => {
    const sample = [
      'index.html',
      'hierarchy.html',
      ...['cache', 'manager', '_kube-controller-kit_testing', 'kube-controller-kit_codegen'].map(
        (area) => `modules/${area}.html`,
      ),
      'documents/Guides.html',
      'documents/Guides.Performance.html', // images
      'documents/Examples.html',
      'documents/Examples.quickstart.html',
      'documents/Examples.quickstart.src_main.ts.html',
      ...['classes/', 'interfaces/', 'functions/', 'types/', 'variables/'].map((kind) =>
        pages.find((p) => p.startsWith(kind))!,
      ),
    ];
    for (const p of sample) assert.ok(html.has(p), `${p} is a page of the site`);
    const problems: string[] = [];
    const tabs = await Promise.all([1, 2].map(() => context.newPage()));
    const queue = [...sample];
    const visit = async (tab: Page): Promise<void> => {
      for (let p = queue.shift(); p !== undefined; p = queue.shift()) {
        const page = p;
        const errors: string[] = [];
        // A failed load is reported by its response (below), with its URL; the browser's own
        // request for /favicon.ico (the site declares none) is not the page's.
        const onConsole = (msg: { type(): string; text(): string }): void => {
          if (msg.type() === 'error' && !msg.text().startsWith('Failed to load resource')) {
            errors.push(msg.text());
          }
        };
        const onError = (err: Error): void => void errors.push(err.message);
        const onFailed = (req: { url(): string }): void => void errors.push(`failed ${req.url()}`);
        const onResponse = (r: { status(): number; url(): string }): void => {
          if (r.status() >= 400 && new URL(r.url()).pathname !== '/favicon.ico') {
            errors.push(`HTTP ${r.status()} ${r.url()}`);
          }
        };
        tab.on('console', onConsole);
        tab.on('pageerror', onError);
        tab.on('requestfailed', onFailed);
        tab.on('response', onResponse);
        try {
          await tab.goto(base + page, { waitUntil: 'load' });
          const heading = await heading1(tab);
          if (!heading?.trim()) errors.push('no main heading');
        } catch (err) {
          errors.push(String(err));
        } finally {
          tab.off('console', onConsole);
          tab.off('pageerror', onError);
          tab.off('requestfailed', onFailed);
          tab.off('response', onResponse);
        }
        if (errors.length > 0) problems.push(`${page}: ${errors.join('; ')}`);
      }
    };
    await Promise.all(tabs.map(visit));
    await Promise.all(tabs.map((t) => t.close()));
    assert.deepEqual(problems.slice(0, 20), [], `${problems.length} pages with problems`);
  });

  test("the sidebar's links (built by script from navigation.js) point at pages that exist", async () => {
    const tab = await context.newPage();
    try {
      await tab.goto(`${base}index.html`, { waitUntil: 'load' });
      await tab.locator('#tsd-nav-container a').first().waitFor();
      // Evaluated in the page (this project's TypeScript has no DOM types).
      const hrefs = await tab.evaluate<string[]>(
        "[...document.querySelectorAll('#tsd-nav-container a')].map((a) => a.href)",
      );
      assert.ok(hrefs.length > 15, `${hrefs.length} sidebar links`);
      for (const href of hrefs) {
        const path = new URL(href).pathname.slice(1);
        assert.ok(existsSync(join(site, path)), `${path} exists`);
      }
    } finally {
      await tab.close();
    }
  });

  test('opened from the file system, as from node_modules (file://, no server): the sidebar fills, the search finds startTestApiServer, its page opens and every icon is drawn', async () => {
    const tab = await context.newPage();
    const errors: string[] = [];
    // Until typedoc's icons.js (async) inlines its sprite, Chromium refuses the pages'
    // `<use href="assets/icons.svg#…">` across file: origins; that script then points each
    // at the inlined sprite (checked below). Any other error is the site's.
    const sprite = /assets\/icons\.svg/;
    tab.on('console', (msg) => {
      if (msg.type() === 'error' && !sprite.test(msg.text())) errors.push(msg.text());
    });
    tab.on('pageerror', (err) => errors.push(err.message));
    tab.on('requestfailed', (req) => {
      if (!sprite.test(req.url())) errors.push(`failed ${req.url()}`);
    });
    try {
      const index = pathToFileURL(join(site, 'index.html')).href;
      await tab.goto(index, { waitUntil: 'load' });
      await tab.locator('#tsd-nav-container a').first().waitFor();
      await tab.click('#tsd-search-trigger');
      await tab.fill('#tsd-search-input', 'startTestApiServer');
      const page = 'functions/_kube-controller-kit_testing.startTestApiServer.html';
      const hit = tab.locator(`#tsd-search-results li a[href="./${page}"]`);
      await hit.waitFor({ timeout: 30_000 });
      await hit.click();
      await tab.waitForURL(pathToFileURL(join(site, page)).href);
      assert.match((await heading1(tab)) ?? '', /^Function startTestApiServer$/);
      await tab.waitForFunction(
        "document.getElementById('tsd-icons-script') && [...document.querySelectorAll('use')].every((u) => !(u.getAttribute('href') ?? '').includes('icons.svg#'))",
        undefined,
        { timeout: 30_000 },
      );
      assert.deepEqual(errors, []);
    } finally {
      await tab.close();
    }
  });

  for (const [query, page] of [
    ['Manager', 'classes/manager.Manager.html'],
    ['SharedIndexInformer', 'classes/cache.SharedIndexInformer.html'],
    ['startTestApiServer', 'functions/_kube-controller-kit_testing.startTestApiServer.html'],
  ] as const) {
    test(`the search finds ${query}, and its result opens ${page}`, async () => {
      const tab = await context.newPage();
      try {
        await tab.goto(`${base}index.html`, { waitUntil: 'load' });
        await tab.click('#tsd-search-trigger');
        await tab.fill('#tsd-search-input', query);
        // A result shows its parent too (`manager.Manager`): find it by the page it opens.
        const hit = tab.locator(`#tsd-search-results li a[href="./${page}"]`);
        await hit.waitFor({ timeout: 30_000 });
        await hit.click();
        await tab.waitForURL(`${base}${page}`);
        const heading = await heading1(tab);
        assert.match(heading ?? '', expectedHeading(page, query));
      } finally {
        await tab.close();
      }
    });
  }
});

/** The text of the page's first `h1`, evaluated in the page (no DOM types here). */
async function heading1(tab: Page): Promise<string | undefined> {
  return tab.evaluate<string | undefined>("document.querySelector('h1')?.textContent");
}

/** typedoc's heading of a reflection's page: its kind, then its name (and type parameters). */
function expectedHeading(page: string, name: string): RegExp {
  const kind = page.startsWith('classes/') ? 'Class' : 'Function';
  return new RegExp(`^${kind} ${name}(<.*>)?$`);
}
