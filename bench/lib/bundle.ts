// Bundles a bench's child into one plain JavaScript file (esbuild, which tsx brings), so the
// measured process is what a deployed controller runs: plain node, no TypeScript loader.
// Under tsx every function gets its `name` set at run time (esbuild's keepNames), which gives
// each closure a property array (about 250 bytes) and a call per closure created, and the
// loader's own code sits in the heap and RSS: memory and CPU figures of a child run through
// tsx are inflated by both, the more so the more closures a code path creates.
import { mkdirSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Plugin } from 'esbuild';

const checkout = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * An esbuild plugin that takes every module the bench imports from this checkout's `src/`
 * from `srcDir` instead (the same relative path): a bundle of another revision's library
 * (e.g. a `git archive` of the base) beside the bench's own code, for a before/after.
 */
function srcFrom(srcDir: string): Plugin {
  const ours = join(checkout, 'src') + sep;
  const theirs = resolve(srcDir);
  return {
    name: 'src-from',
    setup(build) {
      build.onResolve({ filter: /^\.\.?\// }, async (args) => {
        if (args.pluginData === 'src-from' || args.importer === '') return undefined;
        const target = resolve(args.resolveDir, args.path);
        if (!target.startsWith(ours)) return undefined;
        const moved = join(theirs, relative(ours, target));
        const r = await build.resolve(`./${relative(dirname(moved), moved)}`, {
          kind: args.kind,
          resolveDir: dirname(moved),
          pluginData: 'src-from',
        });
        return r.errors.length > 0 ? { errors: r.errors } : { path: r.path };
      });
    },
  };
}

/**
 * Bundles `entry` to .tmp/<name>.mjs in the checkout and returns the file's path. With
 * `srcDir`, the library's modules come from that directory instead of this checkout's src/.
 */
export async function bundleForNode(
  entry: string,
  name: string,
  options: { srcDir?: string } = {},
): Promise<string> {
  const { build } = await import('esbuild');
  const dir = join(checkout, '.tmp');
  mkdirSync(dir, { recursive: true });
  const outfile = join(dir, `${name}.mjs`);
  await build({
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile,
    logLevel: 'error',
    // The benches bundle themselves, and bench/lib/bundle.ts imports esbuild: never run there.
    external: ['esbuild'],
    plugins: options.srcDir === undefined ? [] : [srcFrom(options.srcDir)],
    // Another revision's src/ has no node_modules beside it: its packages come from here.
    nodePaths: [join(checkout, 'node_modules')],
    // CommonJS dependencies call require(); an ES module bundle has none of its own.
    banner: {
      js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
    },
  });
  return outfile;
}
