/**
 * What every template of a project is written from: its names and the versions of what it
 * depends on (read from this package's own manifest, so a project starts on the versions the
 * kit is tested with).
 *
 * @module
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { VERSION } from '../../client/version.js';
import { ScaffoldError } from './names.js';

/** The names of a project. */
export interface ProjectContext {
  /** The npm package name (`--project-name`), maybe scoped. */
  packageName: string;
  /** The name of its Kubernetes objects: the package name without its scope. */
  name: string;
  /** The domain of its API groups. */
  domain: string;
  /** The repository (`--repo`), if given. */
  repo: string | undefined;
  /** `<name>-system`: the Namespace it is deployed to. */
  namespace: string;
  /** `<name>-controller-manager`: its ServiceAccount and Deployment. */
  manager: string;
  /** `<name>-webhook-service`: the Service kube-apiserver calls its webhooks through. */
  webhookService: string;
  /** `<name>-serving-cert`: the cert-manager Certificate of its webhook server. */
  certificate: string;
  /** `<name>-webhook-server-cert`: the Secret cert-manager writes that certificate into. */
  certificateSecret: string;
}

/** The names of a project called `packageName` (already checked). */
export function projectContext(
  packageName: string,
  name: string,
  domain: string,
  repo: string | undefined,
): ProjectContext {
  return {
    packageName,
    name,
    domain,
    repo,
    namespace: `${name}-system`,
    manager: `${name}-controller-manager`,
    webhookService: `${name}-webhook-service`,
    certificate: `${name}-serving-cert`,
    certificateSecret: `${name}-webhook-server-cert`,
  };
}

/** The version ranges a new project depends on. */
export interface DependencyVersions {
  /** `kube-controller-kit` and `@kube-controller-kit/testing` (released together). */
  kit: string;
  /** Other packages by name. */
  packages: Record<string, string>;
}

/** What a project needs besides the kit, in `dependencies` and `devDependencies`. */
export const PROJECT_DEPENDENCIES = ['@kubernetes/client-node', 'prom-client', 'yaml'] as const;
/** ... and in `devDependencies`. */
export const PROJECT_DEV_DEPENDENCIES = [
  '@eslint/js',
  '@types/node',
  'eslint',
  'globals',
  'json-schema-to-typescript',
  'prettier',
  'tsx',
  'typescript',
  'typescript-eslint',
] as const;

/**
 * The versions a new project starts on: this kit's own version, and for every other package
 * the range this kit is developed and tested with (its `devDependencies`).
 *
 * @throws {@link ScaffoldError} when this package's manifest cannot be read or lacks one.
 */
export async function dependencyVersions(): Promise<DependencyVersions> {
  // This package's manifest, found upwards from this module (src/ or dist/). Not through
  // the program helpers: they load @kubernetes/client-node, which the scaffold never needs
  // (and which npx may have installed in a major this Node.js cannot load).
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  const path = join(dir, 'package.json');
  let manifest: { devDependencies?: Record<string, string> };
  try {
    manifest = JSON.parse(await readFile(path, 'utf8')) as typeof manifest;
  } catch (err) {
    throw new ScaffoldError(`cannot read this package's manifest ${path}`, { cause: err });
  }
  const packages: Record<string, string> = {};
  for (const name of [...PROJECT_DEPENDENCIES, ...PROJECT_DEV_DEPENDENCIES]) {
    const range = manifest.devDependencies?.[name];
    if (range === undefined) {
      throw new ScaffoldError(`${path} names no version of ${name} to start a project with`);
    }
    packages[name] = range;
  }
  return { kit: `^${VERSION}`, packages };
}
