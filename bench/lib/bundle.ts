// Bundles a bench's child into one plain JavaScript file (esbuild, which tsx brings), so the
// measured process is what a deployed controller runs: plain node, no TypeScript loader.
// Under tsx every function gets its `name` set at run time (esbuild's keepNames), which gives
// each closure a property array (about 250 bytes), and the loader's own code sits in the heap
// and RSS: memory figures of a child run through tsx are inflated by both.
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Bundles `entry` to .tmp/<name>.mjs in the checkout and returns the file's path. */
export async function bundleForNode(entry: string, name: string): Promise<string> {
  const { build } = await import('esbuild');
  const dir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '.tmp');
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
    // CommonJS dependencies call require(); an ES module bundle has none of its own.
    banner: {
      js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
    },
  });
  return outfile;
}
