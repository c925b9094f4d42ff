// Shared by the example tests: the example's Application CRD, read from its manifest.
import { fileURLToPath } from 'node:url';
import type { UnstructuredObject } from '../../src/client/types.js';
import type { TestApiServer } from '../../src/testing/index.js';
import { readManifests } from '../../examples/shared/cluster.js';

/** The in-memory server's CustomResourceDefinition resource. */
export const crdRef = { group: 'apiextensions.k8s.io', resource: 'customresourcedefinitions' };

/** The Application CRD manifest(s) of examples/application-operator/crd.yaml. */
export function applicationCrds(): Promise<UnstructuredObject[]> {
  return readManifests(
    fileURLToPath(new URL('../../examples/application-operator/crd.yaml', import.meta.url)),
  );
}

/** Creates the example's Application CRD on an in-memory server (in-process). */
export async function installApplicationCrd(server: TestApiServer): Promise<void> {
  for (const crd of await applicationCrds()) server.create(crdRef, crd);
}
