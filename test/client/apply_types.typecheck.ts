// Type-level checks of server-side apply with a partial object and of the wire conversion.
// Compiled by test/client/apply_types.test.ts (and by `npm run typecheck`): an unused
// `@ts-expect-error` is itself an error, so each line proves a type is as strict as it says.
import { V1Pod } from '@kubernetes/client-node';
import type { V1Deployment } from '@kubernetes/client-node';
import type { ResourceClient } from '../../src/client/resource_client.js';
import type { ApplyConfiguration } from '../../src/client/resource_client.js';
import type { Serialized } from '../../src/client/types.js';
import { fromWire, toWire } from '../../src/controller/wire.js';

type Deployment = Serialized<V1Deployment>;

export async function partialApply(deployments: ResourceClient<Deployment>): Promise<number> {
  // A partial object: no selector, no template, no container image — only replicas.
  const applied: Deployment = await deployments.apply(
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'default' },
      spec: { replicas: 3 },
    },
    { fieldManager: 'checker', force: true },
  );
  // A partial list element: a container with a name and no image.
  await deployments.apply(
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web' },
      spec: { template: { spec: { containers: [{ name: 'web' }] } } },
    },
    { fieldManager: 'checker' },
  );
  return applied.spec?.replicas ?? 0;
}

export const noName: ApplyConfiguration<Deployment> = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  // @ts-expect-error metadata.name is required
  metadata: { namespace: 'default' },
};

// @ts-expect-error apiVersion and kind are required
export const noKind: ApplyConfiguration<Deployment> = { metadata: { name: 'web' } };

export const wrongType: ApplyConfiguration<Deployment> = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web' },
  // @ts-expect-error replicas is a number, deep partial keeps field types
  spec: { replicas: 'three' },
};

export const unknownField: ApplyConfiguration<Deployment> = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web' },
  // @ts-expect-error fields that the type does not have are rejected
  spec: { replica: 3 },
};

export async function missingFieldManager(deployments: ResourceClient<Deployment>): Promise<void> {
  const partial = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'w' } };
  // @ts-expect-error apply needs a fieldManager
  await deployments.apply(partial, {});
}

export function wireConversion(wire: Serialized<V1Pod>): string | undefined {
  const model: V1Pod = fromWire(V1Pod, wire);
  const created: Date | undefined = model.metadata?.creationTimestamp;
  const back: Serialized<V1Pod> = toWire(V1Pod, model);
  // @ts-expect-error the model form has Dates, not strings
  const asString: string | undefined = model.metadata?.creationTimestamp;
  // @ts-expect-error the wire form has strings, not Dates
  const asDate: Date | undefined = back.metadata?.creationTimestamp;
  // @ts-expect-error fromWire takes the wire form, not a model object
  fromWire(V1Pod, model);
  void created;
  void asString;
  void asDate;
  return back.metadata?.creationTimestamp;
}
