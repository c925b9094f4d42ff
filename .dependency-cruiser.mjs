// The layering of shared/DESIGN.md ("Dependencies run one way"), checked by `npm run lint`
// (`depcruise src`): each folder of src/ may import only the folders below it; no import
// circles, inside a folder either; nothing in the library imports `testing`; nothing
// imports `manager` (the public index re-exports it). Type-only imports count: a type is
// a dependency too.

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
  // The command line tool, not the library: it also serves the in-memory API server.
  cli: ['codegen', 'testing', 'client', 'apimachinery', 'util'],
};

const folders = [...Object.keys(allowed), 'manager', 'testing'];

/** A path regex of the given folders of src/. */
const under = (names) => `^src/(${names.join('|')})/`;

const layerRules = Object.entries(allowed).map(([folder, below]) => ({
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
        'Nothing in the library imports testing (it is a subpath export of its own); the CLI may.',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/testing/', '^src/cli/'] },
      to: { path: '^src/testing/' },
    },
    {
      name: 'nothing-imports-manager',
      comment: 'The manager ties the modules together; nothing imports it but the public index.',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/manager/', '^src/index\\.ts$'] },
      to: { path: '^src/manager/' },
    },
    {
      name: 'testing-not-on-manager',
      comment: 'The test server stands on the library below the manager.',
      severity: 'error',
      from: { path: '^src/testing/' },
      to: { path: under(['manager', 'cli']) },
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
