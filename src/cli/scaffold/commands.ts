/**
 * `kube-controller-kit init`, `create api` and `create webhook`: kubebuilder's scaffold for a
 * TypeScript operator. Each command checks every name and the project's state first, plans
 * its files in memory, and writes them only when all of them apply; then it writes the
 * TypeScript types of the CRDs (`gen types`) and formats what it wrote with the project's
 * prettier.
 *
 * @module
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import type * as YamlTypes from 'yaml';
import { errorMessage } from '../../util/errors.js';
import { ProjectChanges } from './changes.js';
import { dependencyVersions, projectContext } from './context.js';
import type { ProjectContext } from './context.js';
import type { ApiNames } from './names.js';
import { ScaffoldError, apiNames, checkDomain, checkProjectName } from './names.js';
import { formatProject, readProject } from './project.js';
import type { Project, ProjectResource } from './project.js';
import {
  controllerFunction,
  controllerTestTs,
  controllerTs,
  crdVersion,
  crdYaml,
  rbacRules,
  sampleFile,
  sampleYaml,
} from './templates_api.js';
import { initFiles } from './templates_init.js';
import {
  admissionModule,
  admissionSetupFunction,
  admissionWebhookTestTs,
  admissionWebhookTs,
  conversionModule,
  conversionSetupFunction,
  conversionTestTs,
  conversionTs,
  crdConversionPatch,
  spokeConverter,
  spokeEntry,
  spokeImport,
  toYaml,
  webhookInfraFiles,
} from './templates_webhook.js';

/** Where the scaffold commands write, and the directory they work in. */
export interface ScaffoldIo {
  /** Progress and next steps. Default: process.stdout. */
  stdout?: (text: string) => void;
  /** Errors and usage. Default: process.stderr. */
  stderr?: (text: string) => void;
  /** The working directory (the project, for `create`). Default: process.cwd(). */
  cwd?: string;
}

/** The usage of `init`, `create api` and `create webhook`. */
export const SCAFFOLD_USAGE = `Usage:
  kube-controller-kit init [DIR] [--domain D] [--project-name N] [--repo R] [--force] [--skip-install]
                           [--group G --version V --kind K [create api and create webhook options]]
  kube-controller-kit create api --group G --version V --kind K [options]
  kube-controller-kit create webhook --group G --version V --kind K
                           [--defaulting] [--programmatic-validation] [--conversion --spoke V2] [--force]

init writes a new operator project into DIR (default: the current directory), which must be
empty (or --force): a Manager with its probes, metrics, leader election and webhook server,
RBAC and deploy manifests (config/), a Dockerfile, eslint, prettier, a strict tsconfig and
tests against the in-memory API server; then npm install (unless --skip-install). With
--kind it also runs create api (and create webhook with its webhook options).
create api and create webhook run in the project (they read its PROJECT file) and add a
kind, a version, a controller or webhooks at the project's +kube-controller-kit:scaffold
markers. Names follow kubebuilder and Kubernetes: the group qualified by the domain is a
DNS-1123 subdomain, the version is v1, v2beta1, v1alpha1…, the kind is PascalCase.

init options:
  --domain <domain>           the domain of the API groups (default my.domain)
  --project-name <name>       the npm package name (default: the directory's name); without
                              its @scope it names the Namespace (<name>-system) and objects
  --repo <repo>               the repository, e.g. github.com/me/my-operator (package.json)
  --skip-install              do not run npm install
create api options:
  --group <group>             the API group, qualified by the domain (webapp → webapp.my.domain)
  --version <version>         the API version (v1, v1beta1, v1alpha1, …)
  --kind <Kind>               the kind, PascalCase
  --plural <plural>           the resource name (default: the kind's English plural, lower case)
  --namespaced[=false]        namespaced (default) or cluster-scoped
  --resource[=false]          write the CRD, its version and its types (default true)
  --controller[=false]        write a controller (default true)
create webhook options:
  --defaulting                a defaulting (mutating) webhook for this version
  --programmatic-validation   a validating webhook for this version
  --conversion                a conversion webhook, this version the hub
  --spoke <version>           a spoke version of the conversion (repeatable, or comma-separated)
common:
  --force                     overwrite files that exist
  -h, --help                  show this help
`;

class UsageError extends Error {}

interface Flags {
  positionals: string[];
  values: Map<string, string[]>;
}

const BOOLEAN_FLAGS = new Set([
  'force',
  'skip-install',
  'namespaced',
  'resource',
  'controller',
  'defaulting',
  'programmatic-validation',
  'conversion',
  'help',
]);

function parseFlags(argv: readonly string[], allowed: ReadonlySet<string>): Flags {
  const args = [...argv];
  const flags: Flags = { positionals: [], values: new Map() };
  while (args.length > 0) {
    const arg = args.shift() ?? '';
    if (arg === '-h') {
      flags.values.set('help', ['true']);
      continue;
    }
    if (!arg.startsWith('--')) {
      if (arg.startsWith('-') && arg !== '-') throw new UsageError(`unknown option ${arg}`);
      flags.positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq < 0 ? undefined : eq);
    if (!allowed.has(name)) throw new UsageError(`unknown option --${name}`);
    let value: string;
    if (BOOLEAN_FLAGS.has(name)) {
      value = eq < 0 ? 'true' : arg.slice(eq + 1);
      if (value !== 'true' && value !== 'false') {
        throw new UsageError(`--${name} takes true or false, got "${value}"`);
      }
    } else if (eq >= 0) {
      value = arg.slice(eq + 1);
    } else {
      const next = args.shift();
      if (next === undefined || next.startsWith('--')) {
        throw new UsageError(`--${name} needs a value`);
      }
      value = next;
    }
    flags.values.set(name, [...(flags.values.get(name) ?? []), value]);
  }
  return flags;
}

const one = (f: Flags, name: string): string | undefined => f.values.get(name)?.at(-1);
const bool = (f: Flags, name: string, fallback: boolean): boolean => {
  const v = one(f, name);
  return v === undefined ? fallback : v === 'true';
};

const API_FLAGS = ['group', 'version', 'kind', 'plural', 'namespaced', 'resource', 'controller'];
const WEBHOOK_FLAGS = ['defaulting', 'programmatic-validation', 'conversion', 'spoke'];
const INIT_FLAGS = new Set([
  'domain',
  'project-name',
  'repo',
  'force',
  'skip-install',
  'help',
  ...API_FLAGS,
  'defaulting',
  'programmatic-validation',
  'conversion',
]);
const CREATE_API_FLAGS = new Set([...API_FLAGS, 'force', 'help']);
const CREATE_WEBHOOK_FLAGS = new Set([
  'group',
  'version',
  'kind',
  ...WEBHOOK_FLAGS,
  'force',
  'help',
]);

/** What a command asks of `create api`. */
interface ApiRequest {
  group: string;
  version: string;
  kind: string;
  plural: string | undefined;
  namespaced: boolean;
  resource: boolean;
  controller: boolean;
}

function apiRequest(f: Flags): ApiRequest {
  return {
    group: one(f, 'group') ?? '',
    version: one(f, 'version') ?? '',
    kind: one(f, 'kind') ?? '',
    plural: one(f, 'plural'),
    namespaced: bool(f, 'namespaced', true),
    resource: bool(f, 'resource', true),
    controller: bool(f, 'controller', true),
  };
}

/** What a command asks of `create webhook`. */
interface WebhookRequest {
  defaulting: boolean;
  validation: boolean;
  conversion: boolean;
  spokes: string[];
}

function webhookRequest(f: Flags): WebhookRequest {
  return {
    defaulting: bool(f, 'defaulting', false),
    validation: bool(f, 'programmatic-validation', false),
    conversion: bool(f, 'conversion', false),
    spokes: (f.values.get('spoke') ?? []).flatMap((s) => s.split(',')).filter((s) => s !== ''),
  };
}

/**
 * Runs `init`, `create api` or `create webhook` (`argv` starts with the command's words).
 *
 * @returns the exit code: 0 done, 1 a name or the project's state refused (nothing written),
 *   2 a usage error. It never throws for bad input and never calls `process.exit`.
 */
export async function runScaffoldCli(
  argv: readonly string[],
  io: ScaffoldIo = {},
): Promise<number> {
  const out = io.stdout ?? ((text: string) => void process.stdout.write(text));
  const err = io.stderr ?? ((text: string) => void process.stderr.write(text));
  const cwd = io.cwd ?? process.cwd();
  const [command, ...rest] = argv;
  try {
    if (command === 'init') {
      const flags = parseFlags(rest, INIT_FLAGS);
      if (bool(flags, 'help', false)) return help(out);
      return await init(flags, cwd, out, err);
    }
    if (command === 'create') {
      const [what, ...more] = rest;
      if (what === '-h' || what === '--help') return help(out);
      if (what === 'api') {
        const flags = parseFlags(more, CREATE_API_FLAGS);
        if (bool(flags, 'help', false)) return help(out);
        noPositionals(flags);
        const project = await readProject(cwd);
        const changes = new ProjectChanges(cwd, bool(flags, 'force', false));
        const names = await createApi(
          cwd,
          project,
          changes,
          apiRequest(flags),
          bool(flags, 'force', false),
        );
        changes.regenerate('PROJECT', formatProject(project));
        const written = await changes.apply();
        const done = await finish(cwd, written, { generate: true, installed: true }, out, err);
        out(`${names.kind} ${names.apiVersion}: wrote ${done.files.join(', ')}\n`);
        if (!done.ready) out('then: npm install && npm run generate && npm run format\n');
        return 0;
      }
      if (what === 'webhook') {
        const flags = parseFlags(more, CREATE_WEBHOOK_FLAGS);
        if (bool(flags, 'help', false)) return help(out);
        noPositionals(flags);
        const project = await readProject(cwd);
        const changes = new ProjectChanges(cwd, bool(flags, 'force', false));
        const names = createWebhook(project, changes, apiRequest(flags), webhookRequest(flags));
        changes.regenerate('PROJECT', formatProject(project));
        const written = await changes.apply();
        const done = await finish(cwd, written, { generate: false, installed: true }, out, err);
        out(`${names.kind} ${names.apiVersion} webhooks: wrote ${done.files.join(', ')}\n`);
        if (!done.ready) out('then: npm install && npm run format\n');
        return 0;
      }
      throw new UsageError(
        what === undefined ? 'create what? api or webhook' : `unknown command "create ${what}"`,
      );
    }
    throw new UsageError(`unknown command "${command ?? ''}"`);
  } catch (e) {
    if (e instanceof UsageError) {
      err(`error: ${e.message}\n\n${SCAFFOLD_USAGE}`);
      return 2;
    }
    if (e instanceof ScaffoldError) {
      err(`error: ${e.message}\n`);
      return 1;
    }
    err(`error: ${errorMessage(e)}\n`);
    return 1;
  }
}

function help(out: (text: string) => void): number {
  out(SCAFFOLD_USAGE);
  return 0;
}

function noPositionals(flags: Flags): void {
  if (flags.positionals.length > 0) {
    throw new UsageError(`unexpected argument ${flags.positionals.join(' ')}`);
  }
}

async function init(
  flags: Flags,
  cwd: string,
  out: (text: string) => void,
  err: (text: string) => void,
): Promise<number> {
  if (flags.positionals.length > 1) {
    throw new UsageError(`one directory, got ${flags.positionals.join(' ')}`);
  }
  const dir = resolve(cwd, flags.positionals[0] ?? '.');
  const force = bool(flags, 'force', false);
  const packageName = one(flags, 'project-name') ?? basename(dir);
  const name = checkProjectName(packageName);
  const domain = checkDomain(one(flags, 'domain') ?? 'my.domain');
  const api = apiRequest(flags);
  const hooks = webhookRequest(flags);
  const wantsApi = api.kind !== '' || api.group !== '' || api.version !== '';
  if (!wantsApi && (hooks.defaulting || hooks.validation)) {
    throw new ScaffoldError('webhooks need a kind: give --group, --version and --kind too');
  }
  if (hooks.conversion) {
    throw new ScaffoldError(
      'a conversion webhook needs two versions of a kind: after init, create api for the second ' +
        'version, then create webhook --conversion --spoke <version>',
    );
  }
  if (existsSync(dir)) {
    const entries = (await readdir(dir)).filter((e) => e !== '.git');
    if (entries.length > 0 && !force) {
      const shown = entries.slice(0, 5).join(', ') + (entries.length > 5 ? ', …' : '');
      throw new ScaffoldError(
        `${dir} is not empty (${shown}): init writes a new project into an empty directory; ` +
          '--force writes into it anyway, overwriting files of the same names',
      );
    }
  }
  const context = projectContext(packageName, name, domain, one(flags, 'repo'));
  const project: Project = { domain, projectName: packageName, repo: context.repo, resources: [] };
  const changes = new ProjectChanges(dir, force);
  for (const [path, contents] of initFiles(context, await dependencyVersions())) {
    changes.create(path, contents);
  }
  let names: ApiNames | undefined;
  if (wantsApi) {
    names = await createApi(dir, project, changes, api, force, context);
    if (hooks.defaulting || hooks.validation) createWebhook(project, changes, api, hooks, context);
  }
  changes.regenerate('PROJECT', formatProject(project));
  const written = await changes.apply();
  const install = !bool(flags, 'skip-install', false);
  if (install) await npm(['install', '--no-audit', '--no-fund'], dir, out);
  const { ready, files } = await finish(
    dir,
    written,
    { generate: names !== undefined, installed: install },
    out,
    err,
  );
  const rel = dir === cwd ? '.' : (flags.positionals[0] ?? dir);
  out(`wrote ${files.length} files of the ${name} operator in ${rel}\n`);
  const steps = [
    ...(rel === '.' ? [] : [`cd ${rel}`]),
    ...(install ? [] : ['npm install']),
    ...(ready
      ? []
      : [names === undefined ? 'npm run format' : 'npm run generate && npm run format']),
    'npm start   # the operator against the in-memory API server',
    'npm test    # its tests',
    ...(names === undefined
      ? ['npx kube-controller-kit create api --group webapp --version v1 --kind Guestbook']
      : []),
  ];
  out(`next:\n${steps.map((s) => `  ${s}`).join('\n')}\n`);
  return 0;
}

/** The project context of a project read from its PROJECT file. */
function contextOf(project: Project): ProjectContext {
  return projectContext(
    project.projectName,
    checkProjectName(project.projectName),
    project.domain,
    project.repo,
  );
}

function namesOf(project: Project, r: ProjectResource): ApiNames {
  return apiNames({
    group: r.group,
    domain: r.domain,
    version: r.version,
    kind: r.kind,
    plural: r.plural,
    namespaced: r.namespaced,
  });
}

function sameKind(a: { group: string; kind: string }, b: { group: string; kind: string }): boolean {
  return a.group === b.group && a.kind === b.kind;
}

/**
 * Plans `create api` into `changes` and records it in `project`; returns the names. A new
 * version of a kind that exists is added to its CRD file (read and written with `yaml`).
 */
async function createApi(
  dir: string,
  project: Project,
  changes: ProjectChanges,
  request: ApiRequest,
  force: boolean,
  context: ProjectContext = contextOf(project),
): Promise<ApiNames> {
  const versions = project.resources.filter((r) => sameKind(r, request));
  const existing = versions.find((r) => r.version === request.version);
  if (!request.resource && !request.controller) {
    throw new ScaffoldError('--resource=false and --controller=false: nothing to create');
  }
  const first = versions[0];
  if (first !== undefined && request.plural !== undefined && request.plural !== first.plural) {
    throw new ScaffoldError(
      `--plural ${request.plural}: ${request.kind} is ${first.plural} at ${first.version}; every version has one resource name`,
    );
  }
  if (first !== undefined && request.namespaced !== first.namespaced) {
    throw new ScaffoldError(
      `${request.kind} is ${first.namespaced ? 'namespaced' : 'cluster-scoped'} at ${first.version}; ` +
        `every version has one scope (leave out --namespaced=${String(request.namespaced)})`,
    );
  }
  const names = apiNames({
    ...request,
    plural: first?.plural ?? request.plural,
    domain: project.domain,
  });
  if (request.resource && existing !== undefined && !force) {
    throw new ScaffoldError(
      `${names.kind} ${names.apiVersion} exists already (PROJECT); --force writes its files again`,
    );
  }
  if (!request.resource && existing === undefined) {
    throw new ScaffoldError(
      `${names.kind} ${names.apiVersion} is not in PROJECT: --resource=false adds a controller ` +
        'to an API that exists; create the API first',
    );
  }
  const controllerAt = versions.find((r) => r.controller && r.version !== names.version);
  if (request.controller && controllerAt !== undefined) {
    throw new ScaffoldError(
      `${names.kind} has a controller already (at ${controllerAt.version}): one controller per kind; ` +
        'pass --controller=false',
    );
  }
  if (request.resource) {
    const crd = `config/crd/bases/${names.crdFile}.yaml`;
    if (first === undefined) {
      changes.create(crd, crdYaml(names));
      changes.insert(
        'config/crd/kustomization.yaml',
        'crdkustomizeresource',
        `- bases/${names.crdFile}.yaml`,
      );
    } else {
      changes.regenerate(crd, await withVersion(dir, crd, names));
    }
    const sample = sampleFile(names);
    changes.create(
      `config/samples/${sample}`,
      sampleYaml(
        names,
        first === undefined || first.version === names.version
          ? `${names.lower}-sample`
          : `${names.lower}-sample-${names.version}`,
      ),
    );
    changes.insert('config/samples/kustomization.yaml', 'manifestskustomizesamples', `- ${sample}`);
  }
  if (request.controller) {
    changes.create(`src/controllers/${names.lower}_controller.ts`, controllerTs(names));
    changes.create(`test/${names.lower}_controller.test.ts`, controllerTestTs(names, context));
    changes.insert(
      'src/operator.ts',
      'imports',
      `import { ${controllerFunction(names)} } from './controllers/${names.lower}_controller.js';`,
    );
    changes.insert('src/operator.ts', 'controllers', `${controllerFunction(names)},`);
    changes.insert('config/rbac/role.yaml', 'rules', rbacRules(names));
  }
  const record: ProjectResource = existing ?? {
    group: request.group,
    domain: project.domain,
    version: names.version,
    kind: names.kind,
    plural: names.plural,
    namespaced: names.namespaced,
    controller: false,
  };
  record.controller ||= request.controller;
  if (existing === undefined) project.resources.push(record);
  return names;
}

/** Plans `create webhook` into `changes` and records it in `project`; returns the names. */
function createWebhook(
  project: Project,
  changes: ProjectChanges,
  request: ApiRequest,
  hooks: WebhookRequest,
  context: ProjectContext = contextOf(project),
): ApiNames {
  if (!hooks.defaulting && !hooks.validation && !hooks.conversion) {
    throw new ScaffoldError(
      'which webhook? give --defaulting, --programmatic-validation or --conversion --spoke <version>',
    );
  }
  const record = project.resources.find(
    (r) => sameKind(r, request) && r.version === request.version,
  );
  const names = apiNames({
    ...request,
    domain: project.domain,
    namespaced: record?.namespaced ?? true,
    plural: record?.plural,
  });
  if (record === undefined) {
    throw new ScaffoldError(
      `${names.kind} ${names.apiVersion} is not in PROJECT: create api --group ${request.group} ` +
        `--version ${names.version} --kind ${names.kind} first`,
    );
  }
  const hadWebhooks = project.resources.some(
    (r) => r.webhooks?.defaulting || r.webhooks?.validation || r.webhooks?.conversion,
  );
  const hadAdmission = project.resources.some(
    (r) => r.webhooks?.defaulting || r.webhooks?.validation,
  );
  const before = { ...record.webhooks };
  const webhooks = (record.webhooks ??= {});
  if (!hadWebhooks) {
    for (const [path, contents] of webhookInfraFiles(context)) changes.create(path, contents);
    changes.insert(
      'config/default/kustomization.yaml',
      'resources',
      '- ../webhook\n- ../certmanager',
    );
    changes.insert(
      'config/default/kustomization.yaml',
      'patches',
      '- path: manager_webhook_patch.yaml',
    );
  }
  if (hooks.defaulting || hooks.validation) {
    webhooks.defaulting = before.defaulting === true || hooks.defaulting;
    webhooks.validation = before.validation === true || hooks.validation;
    const module = admissionModule(names);
    changes.create(
      `src/${module}.ts`,
      admissionWebhookTs(names, webhooks.defaulting, webhooks.validation),
    );
    changes.create(
      `test/${names.lower}_${names.version}_webhook.test.ts`,
      admissionWebhookTestTs(names, webhooks.defaulting, webhooks.validation),
    );
    changes.insert(
      'src/operator.ts',
      'imports',
      `import { ${admissionSetupFunction(names)} } from './${module}.js';`,
    );
    changes.insert('src/operator.ts', 'webhooks', `${admissionSetupFunction(names)},`);
    if (!hadAdmission) {
      changes.insert('config/webhook/kustomization.yaml', 'webhookresources', '- manifests.yaml');
    }
    changes.regenerate('config/webhook/manifests.yaml', admissionManifests(project, context));
  }
  if (hooks.conversion) {
    if (hooks.spokes.length === 0) {
      throw new ScaffoldError(
        '--conversion needs --spoke <version>: the versions converted to and from this hub',
      );
    }
    const otherHub = project.resources.find(
      (r) => sameKind(r, request) && r.version !== names.version && r.webhooks?.conversion,
    );
    if (otherHub !== undefined) {
      throw new ScaffoldError(
        `${names.kind} is converted through ${otherHub.version} already: one hub per kind; ` +
          `create webhook --version ${otherHub.version} --conversion --spoke ${names.version}`,
      );
    }
    const spokeNames = hooks.spokes.map((version) => {
      const spoke = project.resources.find((r) => sameKind(r, request) && r.version === version);
      if (version === names.version) {
        throw new ScaffoldError(`--spoke ${version} is the hub itself`);
      }
      if (spoke === undefined) {
        throw new ScaffoldError(
          `--spoke ${version}: ${names.kind} ${names.qualifiedGroup}/${version} is not in PROJECT; ` +
            `create api --group ${request.group} --version ${version} --kind ${names.kind} --controller=false first`,
        );
      }
      return namesOf(project, spoke);
    });
    const path = `src/${conversionModule(names)}.ts`;
    if (!webhooks.conversion) {
      changes.create(path, conversionTs(names));
      changes.create(`test/${names.lower}_conversion.test.ts`, conversionTestTs(names));
      changes.insert(
        'src/operator.ts',
        'imports',
        `import { ${conversionSetupFunction(names)} } from './${conversionModule(names)}.js';`,
      );
      changes.insert('src/operator.ts', 'webhooks', `${conversionSetupFunction(names)},`);
      changes.create(
        `config/crd/patches/webhook_in_${names.plural}.yaml`,
        crdConversionPatch(names, context),
      );
      changes.insert(
        'config/crd/kustomization.yaml',
        'crdkustomizewebhookpatch',
        `- path: patches/webhook_in_${names.plural}.yaml`,
      );
    }
    for (const spoke of spokeNames) {
      changes.insert(path, 'imports', spokeImport(spoke));
      changes.insert(path, 'converters', spokeConverter(names, spoke));
      changes.insert(path, 'spokes', spokeEntry(spoke));
    }
    webhooks.conversion = true;
    webhooks.spoke = [...new Set([...(before.spoke ?? []), ...hooks.spokes])];
  }
  return names;
}

/** `config/webhook/manifests.yaml`: the configurations of every admission webhook in PROJECT. */
function admissionManifests(project: Project, context: ProjectContext): string {
  const build = (type: 'mutating' | 'validating') => {
    const webhooks = project.resources
      .filter((r) => (type === 'mutating' ? r.webhooks?.defaulting : r.webhooks?.validation))
      .map((r) => {
        const n = namesOf(project, r);
        const path = `/${type === 'mutating' ? 'mutate' : 'validate'}-${n.qualifiedGroup.replaceAll('.', '-')}-${n.version}-${n.lower}`;
        return {
          name: `${type === 'mutating' ? 'm' : 'v'}${n.lower}-${n.version}.kb.io`,
          clientConfig: {
            service: {
              namespace: context.namespace,
              name: context.webhookService,
              port: 443,
              path,
            },
          },
          rules: [
            {
              operations: ['CREATE', 'UPDATE'],
              apiGroups: [n.qualifiedGroup],
              apiVersions: [n.version],
              resources: [n.plural],
              scope: n.namespaced ? 'Namespaced' : 'Cluster',
            },
          ],
          failurePolicy: 'Fail',
          sideEffects: 'None',
          timeoutSeconds: 10,
          admissionReviewVersions: ['v1'],
          matchPolicy: 'Equivalent',
          ...(type === 'mutating' ? { reinvocationPolicy: 'Never' } : {}),
        };
      });
    if (webhooks.length === 0) return undefined;
    return {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: type === 'mutating' ? 'MutatingWebhookConfiguration' : 'ValidatingWebhookConfiguration',
      metadata: {
        name: `${context.name}-${type}`,
        annotations: {
          'cert-manager.io/inject-ca-from': `${context.namespace}/${context.certificate}`,
        },
      },
      webhooks,
    };
  };
  const docs = [build('mutating'), build('validating')].filter((d) => d !== undefined);
  return [
    '# Generated from PROJECT by kube-controller-kit create webhook: the configurations of the',
    '# admission webhooks src/operator.ts registers (test/webhook_manifests.test.ts checks that',
    "# they agree). cert-manager's CA injector fills in their caBundle.",
    ...docs.map((d) => `---\n${toYaml(d)}`),
  ].join('\n');
}

/**
 * The CRD file `crd` with the version of `names` added (or, with `--force`, replaced),
 * served and not stored, its schema a copy of the stored version's: the new version's types
 * and converters are the same shape until you change them. Comments and the rest stay.
 */
async function withVersion(dir: string, crd: string, names: ApiNames): Promise<string> {
  let text: string;
  try {
    text = await readFile(join(dir, crd), 'utf8');
  } catch {
    throw new ScaffoldError(`${crd} is missing: it is where the versions of ${names.kind} are`);
  }
  let yaml: typeof YamlTypes;
  try {
    yaml = await import('yaml');
  } catch (e) {
    throw new ScaffoldError(
      `adding a version to ${crd} needs the package yaml, a dependency of the project: run npm install (${errorMessage(e)})`,
    );
  }
  const doc = yaml.parseDocument(text);
  const versions = doc.getIn(['spec', 'versions']);
  if (!yaml.isSeq(versions)) throw new ScaffoldError(`${crd} has no spec.versions list`);
  const entries = versions.items.map((item) => (yaml.isMap(item) ? item : undefined));
  const stored = entries.find((v) => v?.get('storage') === true) ?? entries[0];
  const schema = (stored?.toJSON() as { schema?: unknown } | undefined)?.schema;
  if (schema === undefined) throw new ScaffoldError(`${crd} has no version with a schema to copy`);
  // The template's entry, with the stored version's schema, made a node of this document.
  const fresh = yaml.parse(
    crdVersion(names, false)
      .replace(/^ {4}- /, '')
      .replace(/^ {6}/gm, ''),
  ) as Record<string, unknown>;
  const entry = doc.createNode({ ...fresh, schema });
  const at = entries.findIndex((v) => v?.get('name') === names.version);
  if (at >= 0) versions.items[at] = entry;
  else versions.items.push(entry);
  return doc.toString({ lineWidth: 0 });
}

/** Runs npm in `dir`, its output passed on. */
function npm(args: string[], dir: string, out: (text: string) => void): Promise<void> {
  out(`npm ${args.join(' ')}\n`);
  return new Promise((resolve, reject) => {
    const child = spawn(process.platform === 'win32' ? 'npm.cmd' : 'npm', args, {
      cwd: dir,
      stdio: ['ignore', 'inherit', 'inherit'],
      shell: process.platform === 'win32',
    });
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0
        ? resolve()
        : reject(
            new ScaffoldError(`npm ${args.join(' ')} failed in ${dir} (exit ${code ?? 'signal'})`),
          ),
    );
  });
}

const FORMATTED = /\.(ts|js|json|md|ya?ml)$/;

/**
 * After the files are written: the types of the CRDs (`gen types`, as `npm run generate`
 * runs it) and prettier over what was written, in this process when this package's
 * optional dependencies are at hand, else with the project's own scripts once it is
 * installed. Resolves with every file written, and `ready: false` when neither could run
 * (the caller prints the commands).
 */
async function finish(
  dir: string,
  written: readonly string[],
  what: { generate: boolean; installed: boolean },
  out: (text: string) => void,
  err: (text: string) => void,
): Promise<{ ready: boolean; files: string[] }> {
  const files = [...written];
  let inProcess = true;
  if (what.generate) {
    try {
      const { runGenCli } = await import('../../codegen/cli.js');
      const lines: string[] = [];
      const code = await runGenCli(['types', 'config/crd/bases', '-o', 'src/api'], {
        cwd: dir,
        stdout: (t) => lines.push(t),
        stderr: (t) => err(t),
      });
      if (code !== 0) throw new ScaffoldError('gen types failed: see above');
      for (const line of lines) {
        const m = /^wrote (\S+)/.exec(line);
        if (m?.[1] !== undefined) files.push(m[1]);
      }
    } catch (e) {
      if (e instanceof ScaffoldError) throw e;
      inProcess = false;
    }
  }
  if (inProcess) {
    try {
      const prettier = await import('prettier');
      for (const file of files.filter((f) => FORMATTED.test(f))) {
        const path = join(dir, file);
        const options = (await prettier.resolveConfig(path)) ?? {};
        const text = await readFile(path, 'utf8');
        const formatted = await prettier.format(text, { ...options, filepath: path });
        if (formatted !== text) await writeFile(path, formatted, 'utf8');
      }
      return { ready: true, files };
    } catch {
      inProcess = false;
    }
  }
  if (!what.installed || !existsSync(join(dir, 'node_modules', '.bin'))) {
    return { ready: false, files };
  }
  if (what.generate) await npm(['run', '--silent', 'generate'], dir, out);
  await npm(
    [
      'exec',
      '--no',
      '--',
      'prettier',
      '--write',
      '--log-level=warn',
      ...files.filter((f) => FORMATTED.test(f)),
    ],
    dir,
    out,
  );
  return { ready: true, files };
}
