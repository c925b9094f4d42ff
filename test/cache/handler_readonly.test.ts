// Rule (issue 15, "handlers see what they get"): an event handler receives the cache's own
// instance, shared with every other handler and lister, so every place that hands a cached
// object to user code types it DeepReadonly<T>: assigning to one of its fields does not
// compile, and deepCopy(obj) gives a mutable T. The @ts-expect-error lines are the test
// (`tsc -p tsconfig.json` fails if any of them compiles); the runtime tests show the type
// is the truth: the handler's object is the cached instance itself.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { DeepReadonly } from '../../src/cache/deep_readonly.js';
import { DeletedFinalStateUnknown } from '../../src/cache/keys.js';
import { deepCopy } from '../../src/cache/mutation_detector.js';
import type { ResourceEventHandler } from '../../src/cache/processor.js';
import { SharedIndexInformer } from '../../src/cache/shared_informer.js';
import type { UnstructuredObject } from '../../src/client/types.js';
import { Controller } from '../../src/controller/controller.js';
import type { ControllerInformer } from '../../src/controller/controller.js';
import type { UpdatePredicate } from '../../src/controller/predicates.js';
import { getControllerOf, setControllerReference } from '../../src/controller/owner.js';
import { generationChanged } from '../../src/controller/predicates.js';
import type { CustomResourceEventHandler } from '../../src/dynamic/crd_informer_manager.js';
import { noopLogger } from '../../src/util/logger.js';
import { pod, podList, ScriptedLW, Stream, until } from './shared_informer_support.js';
import type { Pod } from './shared_informer_support.js';

// Never called: each body only has to type-check (or, on @ts-expect-error lines, not).
const informerHandler: ResourceEventHandler<Pod> = {
  onAdd: (obj) => {
    // @ts-expect-error a handler's object is read-only
    obj.metadata = { name: 'x' };
    // @ts-expect-error read-only at every depth: nested maps too
    obj.metadata.labels!['app'] = 'x';
    const mine: Pod = deepCopy(obj); // deepCopy gives a mutable T
    mine.metadata.labels = { app: 'x' };
  },
  onUpdate: (oldObj, newObj) => {
    // @ts-expect-error the old object is read-only
    oldObj.spec = {};
    // @ts-expect-error the new object is read-only
    newObj.metadata.name = 'y';
  },
  onDelete: (obj) => {
    if (obj instanceof DeletedFinalStateUnknown) {
      // @ts-expect-error a tombstone's last state is the cached object, read-only
      obj.obj.metadata.name = 'z';
    } else {
      // @ts-expect-error a deleted object is read-only
      obj.metadata.name = 'z';
    }
  },
};

const crdHandler: CustomResourceEventHandler = {
  onAdd: (_resource, obj) => {
    // @ts-expect-error the CRD manager hands out the cached object, read-only
    obj['spec'] = {};
    const mine: UnstructuredObject = deepCopy(obj);
    mine['spec'] = {};
  },
};

const predicate: UpdatePredicate<Pod> = (oldObj, newObj) => {
  // @ts-expect-error a predicate sees the cached objects, read-only
  newObj.metadata.name = oldObj.metadata.name;
  return true;
};

function controllerMappers(informer: ControllerInformer<Pod>): void {
  new Controller({ name: 'types', reconcile: async () => {} })
    .watches(
      informer,
      (obj) => {
        // @ts-expect-error a watches() mapper sees the cached object, read-only
        obj.metadata.name = 'x';
        return [obj.metadata.name];
      },
      {
        filter: (obj) => {
          // @ts-expect-error a filter sees the cached object, read-only
          obj.metadata.namespace = 'x';
          return true;
        },
        predicate,
      },
    )
    .for(informer, { predicate: generationChanged });
}

// What a handler or lister hands out can be read by the helpers without a copy.
function readOnlyHelpers(cachedOwner: DeepReadonly<Pod>, child: Pod): void {
  setControllerReference(cachedOwner, child);
  void getControllerOf(cachedOwner);
}

describe('handlers receive the cached object, typed read-only', () => {
  test('the type rules above are compiled (tsc fails if a @ts-expect-error line compiles)', () => {
    assert.equal(typeof informerHandler.onAdd, 'function');
    assert.equal(typeof crdHandler.onAdd, 'function');
    assert.equal(typeof controllerMappers, 'function');
    assert.equal(typeof readOnlyHelpers, 'function');
  });

  test("onAdd and onUpdate receive the very instance the cache holds (why they are read-only), and deepCopy's result is a different, equal object", async () => {
    const lw = new ScriptedLW();
    const stream = new Stream();
    lw.queueList(podList('10', [pod('a', '1')])).queueWatch(stream);
    const informer = new SharedIndexInformer<Pod>(lw, {
      name: 'pods',
      logger: noopLogger,
      idleTimeoutMs: 0,
      watchList: false,
    });
    const seen: DeepReadonly<Pod>[] = [];
    informer.addEventHandler({
      onAdd: (obj) => void seen.push(obj),
      onUpdate: (_old, obj) => void seen.push(obj),
    });
    const ac = new AbortController();
    const running = informer.run(ac.signal);
    await until('added', () => seen.length === 1);
    assert.equal(seen[0], informer.getIndexer().getByKey('ns/a'), 'onAdd: the cached instance');
    stream.push({ type: 'MODIFIED', object: pod('a', '2') });
    await until('updated', () => seen.length === 2);
    assert.equal(seen[1], informer.getIndexer().getByKey('ns/a'), 'onUpdate: the cached instance');
    const copy = deepCopy(seen[1]!);
    assert.notEqual(copy, seen[1]);
    assert.deepEqual(copy, seen[1]);
    copy.metadata.labels = { changed: 'yes' };
    assert.equal(informer.getIndexer().getByKey('ns/a')?.metadata.labels?.['changed'], undefined);
    ac.abort();
    await running;
  });
});
