// A typedoc plugin (typedoc.json "plugin") that makes the API reference one offline site with
// the guides and the examples inside it:
//
// - The guides: docs/README.md (a project document, typedoc.json "projectDocuments") is the
//   table of contents. Every guide it links (`[Title](name.md)`, in that order) becomes a
//   child page named by the link's text, so a guide needs no front matter and the index is
//   the one list to edit when a guide is added.
// - The examples: examples/README.md (a project document too) links each example's
//   README.md; each becomes a child page, with one page per file of the example (sources,
//   manifests, package.json …) as a code block, and a list of those files appended to the
//   example's page. Each page is registered under its file's path, so a relative link to
//   `examples/x/src/main.ts` or `examples/x/` (from a guide, the README or a doc comment)
//   resolves to it. Nothing is copied raw: a `.ts` file served raw is not text to a browser.
// - The README, the site's front page, links the guides, the examples and the API's areas
//   absolutely (it is also the npm registry's page, where relative links are dead); in the
//   site each such link to a page the site holds is made relative, so the site works offline
//   from node_modules.
// - Anchors: a link to a heading is written for GitHub's anchors (`a / b` → `a--b`); the
//   site's slugger joins the first run of dashes (`a-b`), so links are adjusted to it.
// - API names: in the guides, the examples' pages and the front page, an inline code span
//   that is exactly the name of a documented export (`Manager`, `SharedIndexInformer`,
//   `watcher()`) links to its page: the guides name the API in backticks and stay plain
//   Markdown on GitHub, and inside the site every such name is one click from its reference.
//
// What a change adds so the site holds it (the tests named fail until it does):
// - A guide: docs/<name>.md, and a link `[Title](<name>.md) — what it covers` in the list of
//   docs/README.md (test/scripts/package.test.ts; the page is "Title"). Its TypeScript blocks
//   are type-checked by `npm run typecheck:docs`; link other guides as `x.md`, examples as
//   `../examples/…`, code as `../src/…`.
// - An area of the runtime (src/<area>/): its src/<area>/index.ts opens with a `@module <area>`
//   comment (what the area is for, `Imported from …`, a link to its guide, then exactly one
//   runnable ```ts example that prints what it shows); the entry point in typedoc.json
//   "entryPoints" (its place there is its place in the site); `export * from
//   './<area>/index.js'` in src/index.ts (test/docs/reference_areas.test.ts: every export of
//   kube-controller-kit is in an area or `@internal`); a row in docs/README.md's table of
//   areas, in the entry points' order (same test); and what its example prints in `expected`
//   of test/docs/module_examples.test.ts (which runs it).
// - An export of the test server (packages/testing/src): a `@group` tag naming one of the
//   groups in typedoc.json "groupOrder" (Start here, Server, Faults, …).
// - An example: examples/<name>/ with a README.md, linked from examples/README.md's table.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import {
  Converter,
  DocumentReflection,
  MarkdownEvent,
  MinimalSourceFile,
  ReflectionKind,
  RendererEvent,
  normalizePath,
} from 'typedoc';

const root = resolve(dirname(new URL(import.meta.url).pathname), '..');

/** `https://github.com/OWNER/NAME` from package.json's repository.url. */
export function repositoryUrl() {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const url = String(pkg.repository?.url ?? '');
  return url.replace(/^git\+/, '').replace(/\.git$/, '');
}

/**
 * The README's text with every link to the repository's web page of a file the site holds
 * (`REPO/blob/main/PATH` or `REPO/tree/main/PATH`, PATH under docs/ or examples/, or an
 * entry point of the API reference) made relative to the repository's root, where the
 * README is; other links (the repository itself, its issues) are left as they are.
 */
export function relativizeRepoLinks(markdown, repo, entryPoints = []) {
  const escaped = repo.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const re = new RegExp(`\\]\\(${escaped}/(?:blob|tree)/main/([^)\\s]+)\\)`, 'g');
  return markdown.replace(re, (m, path) => {
    const file = path.replace(/#.*$/, '');
    const held = /^(docs|examples)\//.test(file) || entryPoints.includes(file);
    return held ? `](${path})` : m;
  });
}

/**
 * A guide's text with each anchor of a relative link (`](page.md#a--b)`, `](#a--b)`) turned
 * from GitHub's slug into typedoc's: typedoc's slugger joins the first run of dashes.
 */
export function siteAnchors(markdown) {
  return markdown.replace(
    /\]\(([^)\s#:]*)#([^)\s]+)\)/g,
    (_m, page, anchor) => `](${page}#${anchor.replace(/--+/, '-')})`,
  );
}

/**
 * `html` (rendered Markdown) with each `<code>NAME</code>` or `<code>NAME()</code>` outside
 * links, headings and code blocks made a link to `urlOf(NAME)` when it returns one.
 */
export function linkApiNames(html, urlOf) {
  const protectedParts =
    /(<pre[\s>][\s\S]*?<\/pre>|<a[\s>][\s\S]*?<\/a>|<h[1-6][\s>][\s\S]*?<\/h[1-6]>)/;
  return html
    .split(protectedParts)
    .map((part, i) =>
      i % 2 === 1
        ? part
        : part.replace(/<code>([A-Za-z_$][\w$]*)(\(\))?<\/code>/g, (m, name, call) => {
            const url = urlOf(name, call !== undefined);
            return url === undefined ? m : `<a href="${url}">${m}</a>`;
          }),
    )
    .join('');
}

/** The `[text](target)` links of a Markdown text whose target is a relative `.md` file. */
export function markdownFileLinks(markdown) {
  const links = [];
  for (const m of markdown.matchAll(/\[([^\]]+)\]\(([^)\s#]+\.md)(#[^)\s]*)?\)/g)) {
    if (/^[a-z]+:/i.test(m[2])) continue;
    links.push({ text: m[1].replace(/`/g, ''), target: m[2] });
  }
  return links;
}

const fenceLanguage = {
  '.ts': 'ts',
  '.mjs': 'js',
  '.js': 'js',
  '.json': 'json',
  '.yaml': 'yaml',
  '.yml': 'yaml',
  '.sh': 'bash',
};

/** The fence language of an example's file by its name. */
function languageOf(name) {
  if (name === 'Dockerfile') return 'dockerfile';
  const dot = name.lastIndexOf('.');
  return (dot > 0 && fenceLanguage[name.slice(dot)]) || 'text';
}

/** The files of one example folder, sorted, without what is built or installed there. */
export function exampleFiles(dir) {
  const skip = new Set(['node_modules', 'dist', 'package-lock.json', 'README.md']);
  const out = [];
  const walk = (d) => {
    for (const name of readdirSync(d).sort()) {
      if (skip.has(name)) continue;
      const path = join(d, name);
      if (statSync(path).isDirectory()) walk(path);
      else out.push(relative(dir, path));
    }
  };
  walk(dir);
  return out;
}

/** One file shown as a page: its path as the heading, its text as a fenced code block. */
export function codePage(title, text, language) {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return `# ${title}\n\n${fence}${language}\n${text.replace(/\n$/, '')}\n${fence}\n`;
}

/** @param {import('typedoc').Application} app */
export function load(app) {
  const repo = repositoryUrl();
  const docsIndex = normalizePath(join(root, 'docs', 'README.md'));
  const examplesIndex = normalizePath(join(root, 'examples', 'README.md'));

  /** Parses Markdown `text` of the file at `path` as the site shows it. */
  function parse(project, path, text) {
    return app.converter.parseRawComment(
      new MinimalSourceFile(siteAnchors(text), normalizePath(path)),
      project.files,
    );
  }

  /** A document parsed from `text` (read from `path`), added under `parent` and registered at `path`. */
  function addDocument(parent, name, path, text) {
    const project = parent.project;
    const { content, frontmatter } = parse(project, path, text);
    const doc = new DocumentReflection(name, parent, content, frontmatter);
    parent.addChild(doc);
    project.registerReflection(doc, undefined, normalizePath(path));
    return doc;
  }

  app.converter.on(Converter.EVENT_CREATE_DOCUMENT, (_context, doc) => {
    const path = doc.project.files.getReflectionPath(doc);
    if (path === docsIndex || path === examplesIndex) {
      doc.name = path === docsIndex ? 'Guides' : 'Examples';
      doc.content = parse(doc.project, path, readFileSync(path, 'utf8')).content;
    }
    if (path === docsIndex) {
      const seen = new Set();
      for (const { text, target } of markdownFileLinks(readFileSync(path, 'utf8'))) {
        const file = resolve(dirname(path), target);
        if (dirname(file) !== dirname(path) || seen.has(file)) continue;
        seen.add(file);
        addDocument(doc, text, file, readFileSync(file, 'utf8'));
      }
    } else if (path === examplesIndex) {
      const seen = new Set();
      for (const { text, target } of markdownFileLinks(readFileSync(path, 'utf8'))) {
        const readme = resolve(dirname(path), target);
        const dir = dirname(readme);
        if (!target.endsWith('/README.md') || seen.has(dir)) continue;
        seen.add(dir);
        const files = exampleFiles(dir);
        const list = files.map((f) => `- [${f}](${f})`).join('\n');
        const page = addDocument(
          doc,
          text,
          readme,
          `${readFileSync(readme, 'utf8')}\n## Files\n\n${list}\n`,
        );
        doc.project.files.registerReflectionPath(normalizePath(dir), page);
        for (const f of files) {
          const text = readFileSync(join(dir, f), 'utf8');
          const title = `${relative(root, dir)}/${f}`;
          addDocument(page, f, join(dir, f), codePage(title, text, languageOf(f)));
        }
      }
    }
  });

  // After typedoc's PackagePlugin has parsed the README (priority 0), parse it again with the
  // repository links it can serve made relative.
  app.converter.on(
    Converter.EVENT_RESOLVE_BEGIN,
    (context) => {
      const readme = join(root, 'README.md');
      const entryPoints = app.options
        .getValue('entryPoints')
        .map((e) => relative(root, resolve(root, e)));
      const text = relativizeRepoLinks(readFileSync(readme, 'utf8'), repo, entryPoints);
      context.project.readme = parse(context.project, readme, text).content;
    },
    -100,
  );

  // The documented exports by name (a name two modules declare apart links nowhere).
  let exportsByName = new Map();
  app.renderer.on(RendererEvent.BEGIN, (event) => {
    exportsByName = new Map();
    for (const mod of event.project.children ?? []) {
      if (!mod.kindOf(ReflectionKind.Module)) continue;
      for (const child of mod.children ?? []) {
        if (child.isReference()) continue;
        const had = exportsByName.get(child.name);
        exportsByName.set(child.name, had === undefined || had === child ? child : null);
      }
    }
  });
  app.renderer.on(MarkdownEvent.PARSE, (event) => {
    const page = event.page;
    const model = page.model;
    const isGuide = model.isDocument?.() || (model.isProject?.() && page.pageKind === 'index');
    if (!isGuide) return;
    const router = app.renderer.router;
    event.parsedText = linkApiNames(event.parsedText, (name, called) => {
      const target = exportsByName.get(name);
      if (!target || !router.hasUrl(target)) return undefined;
      const callable = target.kindOf(ReflectionKind.Function);
      // A lowercase name (`pods`, `watcher`) is often a word or a resource: linked only as `name()`.
      if (!/[A-Z]/.test(name) && !(callable && called)) return undefined;
      if (called && !callable) return undefined;
      return router.relativeUrl(model, target);
    });
  });
}
