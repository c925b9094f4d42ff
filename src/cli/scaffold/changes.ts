/**
 * The changes a scaffold command makes to a project, planned in memory and written only once
 * every one of them is known to apply: new files, files regenerated whole, and fragments
 * inserted at markers (kubebuilder's `+kubebuilder:scaffold:<name>` comments, here
 * `+kube-controller-kit:scaffold:<name>`). A file that exists is not overwritten without
 * `--force`, a marker that was removed is reported with the fragment to add by hand, and
 * nothing is written when any of that fails.
 *
 * @module
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { ScaffoldError } from './names.js';

/** The text of a marker: `+kube-controller-kit:scaffold:<name>`, inside a comment. */
export function marker(name: string): string {
  return `+kube-controller-kit:scaffold:${name}`;
}

/** A TypeScript line that holds a marker. */
export function tsMarker(name: string): string {
  return `// ${marker(name)}`;
}

/** A YAML line that holds a marker. */
export function yamlMarker(name: string): string {
  return `# ${marker(name)}`;
}

interface Insertion {
  marker: string;
  fragment: string;
}

/** One command's changes to the files of `dir`. */
export class ProjectChanges {
  readonly #dir: string;
  readonly #force: boolean;
  /** Files written whole, by path relative to the project. */
  readonly #files = new Map<string, { contents: string; overwrite: boolean }>();
  /** Insertions, by path relative to the project, in order. */
  readonly #insertions = new Map<string, Insertion[]>();

  /**
   * @param dir - the project's directory.
   * @param force - overwrite files that exist (`--force`).
   */
  constructor(dir: string, force: boolean) {
    this.#dir = dir;
    this.#force = force;
  }

  /** A new file; one that exists is an error without `--force`. */
  create(path: string, contents: string): this {
    this.#files.set(path, { contents, overwrite: false });
    return this;
  }

  /** A file written whole every time (PROJECT, generated manifests), existing or not. */
  regenerate(path: string, contents: string): this {
    this.#files.set(path, { contents, overwrite: true });
    return this;
  }

  /** Whether this command writes `path` whole. */
  writes(path: string): boolean {
    return this.#files.has(path);
  }

  /**
   * Inserts `fragment` (lines, no trailing newline) before the line that holds
   * `marker(name)` in `path`, each line indented as the marker's line is. A fragment the
   * file already holds (the command run again) is not inserted twice.
   */
  insert(path: string, name: string, fragment: string): this {
    const list = this.#insertions.get(path) ?? [];
    list.push({ marker: marker(name), fragment });
    this.#insertions.set(path, list);
    return this;
  }

  /**
   * Checks every change, then writes them all. Returns the paths written, relative to the
   * project, in order.
   *
   * @throws {@link ScaffoldError} naming every file that exists (without `--force`), every
   *   file or marker that is missing (with the fragment to add by hand); nothing is
   *   written then.
   */
  async apply(): Promise<string[]> {
    const problems: string[] = [];
    const out = new Map<string, string>();
    for (const [path, { contents, overwrite }] of this.#files) {
      const current = await readFile(join(this.#dir, path), 'utf8').catch(() => undefined);
      if (current !== undefined && !overwrite && !this.#force && current !== contents) {
        problems.push(`${path} exists; --force overwrites it (your changes to it are lost)`);
      }
      out.set(path, contents);
    }
    for (const [path, insertions] of this.#insertions) {
      const found =
        out.get(path) ?? (await readFile(join(this.#dir, path), 'utf8').catch(() => undefined));
      if (found === undefined) {
        problems.push(
          `${path} is missing: it should hold the marker ${insertions[0]?.marker ?? ''}; ` +
            `add by hand what it would have received:\n${insertions.map((i) => i.fragment).join('\n')}`,
        );
        continue;
      }
      let text: string = found;
      let changed = false;
      for (const { marker: m, fragment } of insertions) {
        const lines: string[] = text.split('\n');
        const at = lines.findIndex((l) => l.includes(m));
        if (at < 0) {
          problems.push(
            `${path} has no line with the marker ${m} (was it removed?); put it back where ` +
              `new entries go, or add this by hand:\n${fragment}`,
          );
          continue;
        }
        const indent = /^\s*/.exec(lines[at]!)![0];
        const block = fragment.split('\n').map((l) => (l === '' ? '' : indent + l));
        if (containsBlock(lines, block)) continue;
        lines.splice(at, 0, ...block);
        text = lines.join('\n');
        changed = true;
      }
      if (changed || out.has(path)) out.set(path, text);
    }
    if (problems.length > 0) {
      throw new ScaffoldError(`nothing was written:\n${problems.map((p) => `- ${p}`).join('\n')}`);
    }
    const written: string[] = [];
    for (const [path, contents] of out) {
      const full = join(this.#dir, path);
      const current = await readFile(full, 'utf8').catch(() => undefined);
      if (current === contents) continue;
      await mkdir(dirname(full), { recursive: true });
      await writeFile(full, contents, 'utf8');
      written.push(path);
    }
    return written;
  }
}

/** Whether `block` appears in `lines` as consecutive lines (ignoring trailing spaces). */
function containsBlock(lines: readonly string[], block: readonly string[]): boolean {
  const norm = (l: string) => l.trimEnd();
  outer: for (let i = 0; i + block.length <= lines.length; i++) {
    for (let j = 0; j < block.length; j++) {
      if (norm(lines[i + j]!) !== norm(block[j]!)) continue outer;
    }
    return true;
  }
  return false;
}
