// Shared by the example tests: the example's Application CRD, read from its manifest.
import { fileURLToPath } from 'node:url';
import type { UnstructuredObject } from '../../src/client/types.js';
import type { TestApiServer } from '../../packages/testing/src/index.js';
import { readManifests } from '../../src/program/index.js';

/** The in-memory server's CustomResourceDefinition resource. */
export const crdRef = { group: 'apiextensions.k8s.io', resource: 'customresourcedefinitions' };

/** The path of a file under examples/. */
export function examplePath(relative: string): string {
  return fileURLToPath(new URL(`../../examples/${relative}`, import.meta.url));
}

/** The Application CRD manifest(s) of examples/application-operator/crd.yaml. */
export function applicationCrds(): Promise<UnstructuredObject[]> {
  return readManifests(examplePath('application-operator/crd.yaml'));
}

/** Creates the example's Application CRD on an in-memory server (in-process). */
export async function installApplicationCrd(server: TestApiServer): Promise<void> {
  for (const crd of await applicationCrds()) server.create(crdRef, crd);
}
