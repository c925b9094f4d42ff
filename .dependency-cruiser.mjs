// The layering of shared/DESIGN.md ("Dependencies run one way"), checked by `npm run lint`
// (`depcruise src packages/testing/src`): each folder of src/ may import only the folders
// below it; no import circles, inside a folder either; nothing in the library imports the
// test server (`packages/testing`, its own package); the test server imports the library
// only through its public face (`src/index.ts`, `kube-controller-kit`); nothing imports
// `manager` but `multicluster` (the public index re-exports both). Type-only imports count: a type is a
// dependency too.

/** What each folder may import besides itself (the layers below it). */
const allowed = {
  util: [],
  apimachinery: ['util'],
  client: ['apimachinery', 'util'],
  cache: ['client', 'apimachinery', 'util'],
  dynamic: ['cache', 'client', 'apimachinery', 'util'],
  workqueue: ['client', 'apimachinery', 'util'],
  leaderelection: ['client', 'apimachinery', 'util'],
  record: ['client', 'apimachinery', 'util'],
  webhook: ['client', 'apimachinery', 'util'],
  // The reconcile loop stands on the cache and runs a work queue.
  controller: ['cache', 'workqueue', 'client', 'apimachinery', 'util'],
  sharding: [
    'cache',
    'leaderelection',
    'workqueue',
    'controller',
    'record',
    'client',
    'apimachinery',
    'util',
  ],
  // The Prometheus adapter implements every module's metrics provider.
  metrics: [
    'multicluster',
    'sharding',
    'controller',
    'dynamic',
    'cache',
    'workqueue',
    'leaderelection',
    'record',
    'webhook',
    'client',
    'apimachinery',
    'util',
  ],
  codegen: ['client', 'apimachinery', 'util'],
  // A program's command line and the cluster it opens (the in-memory server is loaded by
  // package name, never imported).
  program: ['client', 'apimachinery', 'util'],
  // The command line tool, not the library (it loads the in-memory API server by package
  // name for `apiserver`).
  cli: ['codegen', 'program', 'client', 'apimachinery', 'util'],
};

/**
 * The folders above `allowed`'s: `manager` ties the modules together; `multicluster`
 * engages clusters on a manager, so it alone may import `manager` (and what is below).
 */
const top = {
  multicluster: [
    'manager',
    'controller',
    'record',
    'dynamic',
    'cache',
    'workqueue',
    'client',
    'apimachinery',
    'util',
  ],
};

const folders = [...Object.keys(allowed), 'manager', ...Object.keys(top)];

/** A path regex of the given folders of src/. */
const under = (names) => `^src/(${names.join('|')})/`;

const layerRules = Object.entries({ ...allowed, ...top }).map(([folder, below]) => ({
  name: `layer-${folder}`,
  comment: `src/${folder} may import only ${below.length === 0 ? 'nothing else' : below.join(', ')} (shared/DESIGN.md)`,
  severity: 'error',
  from: { path: `^src/${folder}/` },
  to: { path: under(folders.filter((f) => f !== folder && !below.includes(f))) },
}));

export default {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'No import circles, inside a folder either (shared/DESIGN.md).',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'nothing-imports-testing',
      comment:
        'Nothing in the library imports the test server: it is the package @kube-controller-kit/testing.',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^packages/testing/' },
    },
    {
      name: 'nothing-imports-manager',
      comment:
        'The manager ties the modules together; nothing imports it but the public index and multicluster (which engages clusters on it).',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/manager/', '^src/multicluster/', '^src/index\\.ts$'] },
      to: { path: '^src/manager/' },
    },
    {
      name: 'manager-below-multicluster',
      comment: 'multicluster engages clusters on the manager; the manager never imports it.',
      severity: 'error',
      from: { path: '^src/manager/' },
      to: { path: '^src/multicluster/' },
    },
    {
      name: 'testing-through-the-public-api',
      comment:
        'The test server is its own package: it imports the library only as kube-controller-kit (src/index.ts).',
      severity: 'error',
      from: { path: '^packages/testing/' },
      to: { path: '^src/', pathNot: ['^src/index\\.ts$'] },
    },
    ...layerRules,
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.mjs', '.cjs', '.json'],
    },
  },
};
