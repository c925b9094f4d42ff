/**
 * Follows every CustomResourceDefinition of one API group: as CRDs appear the manager
 * starts an informer per served version, as they disappear it stops it, and every event is
 * logged with its group/version/resource.
 */
import { CRDInformerManager, DeletedFinalStateUnknown, crdSelector } from 'kube-controller-kit';
import type {
  ApiResource,
  DeepReadonly,
  KubeConfigLike,
  Logger,
  UnstructuredObject,
} from 'kube-controller-kit';

/** One event, as the watcher reports it. */
export interface DynamicEvent {
  /** `resource.group/version`, e.g. `applications.example.com/v1`. */
  gvr: string;
  /** What happened. */
  type: 'added' | 'updated' | 'deleted';
  /** `namespace/name` or `name`. */
  key: string;
}

/** Options of {@link runDynamicWatcher}. */
export interface DynamicWatcherOptions {
  /** The API group to follow (default `example.com`). */
  group?: string;
  /** Receives each event (default: printed with console.log). */
  onEvent?: (event: DynamicEvent) => void;
  /** Where the manager and its informers log (default: the library's default). */
  logger?: Logger;
}

function gvrOf(r: ApiResource<UnstructuredObject>): string {
  return `${r.resource}${r.group === '' ? '' : `.${r.group}`}/${r.version}`;
}

function keyOf(
  obj:
    DeepReadonly<UnstructuredObject> | DeletedFinalStateUnknown<DeepReadonly<UnstructuredObject>>,
): string {
  if (obj instanceof DeletedFinalStateUnknown) return obj.key;
  const ns = obj.metadata?.namespace;
  const name = obj.metadata?.name ?? '';
  return ns === undefined || ns === '' ? name : `${ns}/${name}`;
}

/** Runs until `signal` aborts; resolves after every informer has stopped. */
export async function runDynamicWatcher(
  kubeConfig: KubeConfigLike,
  signal: AbortSignal,
  options: DynamicWatcherOptions = {},
): Promise<void> {
  const print =
    options.onEvent ?? ((e: DynamicEvent) => console.log(`${e.gvr}  ${e.type.padEnd(7)} ${e.key}`));
  const manager = new CRDInformerManager(kubeConfig, {
    predicate: crdSelector({ groups: [options.group ?? 'example.com'] }),
    ...(options.logger !== undefined ? { logger: options.logger } : {}),
  });
  manager.addEventHandler(
    {
      onAdd: (r, obj) => print({ gvr: gvrOf(r), type: 'added', key: keyOf(obj) }),
      onUpdate: (r, _old, obj) => print({ gvr: gvrOf(r), type: 'updated', key: keyOf(obj) }),
      onDelete: (r, obj) => print({ gvr: gvrOf(r), type: 'deleted', key: keyOf(obj) }),
    },
    { name: 'dynamic-watcher' },
  );
  await manager.run(signal);
}
