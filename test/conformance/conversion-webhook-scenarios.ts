// Conformance scenario for CRD conversion by webhook, served by the kit's WebhookServer and
// called by the API server: a CRD with two versions (v1 stored, v2 with the image split in
// parts), objects written and read at either version, list and update through the spoke,
// and a converter failure as the client sees it. Run against a real
// apiextensions-apiserver (conversion-webhook-real.test.ts), which calls conversion
// webhooks, and the in-memory server (conversion-webhook-in-memory.test.ts).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiError } from '../../src/client/errors.js';
import { ResourceClient } from '../../src/client/resource_client.js';
import { Transport } from '../../src/client/transport.js';
import { customResourceDefinitionsResource } from '../../src/client/builtins.js';
import type { ApiResource, UnstructuredObject } from '../../src/client/types.js';
import { noopLogger } from '../../src/util/logger.js';
import {
  WebhookServer,
  crdConversion,
  generateCertificateAuthority,
  writeCertificateFiles,
} from '../../src/webhook/index.js';
import type { SpokeConverter } from '../../src/webhook/index.js';
import { conformanceGroup, ensureCrd } from './scenarios.js';
import type { TargetProvider } from './scenarios.js';

const plural = 'gadgets';
const kind = 'Gadget';

const imageV1 = { type: 'string' };
const imageV2 = {
  type: 'object',
  properties: { repository: { type: 'string' }, tag: { type: 'string' } },
};
const schemaWith = (image: Record<string, unknown>) => ({
  openAPIV3Schema: {
    type: 'object',
    properties: {
      spec: { type: 'object', properties: { image, replicas: { type: 'integer' } } },
    },
  },
});

function gadgetCrd(conversion: unknown): UnstructuredObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${conformanceGroup}` },
    spec: {
      group: conformanceGroup,
      scope: 'Namespaced',
      names: { plural, singular: kind.toLowerCase(), kind, listKind: `${kind}List` },
      conversion,
      versions: [
        { name: 'v1', served: true, storage: true, schema: schemaWith(imageV1) },
        { name: 'v2', served: true, storage: false, schema: schemaWith(imageV2) },
      ],
    },
  };
}

const toV2: SpokeConverter = {
  toHub(obj) {
    const spec = obj.spec as { image: { repository: string; tag?: string }; replicas?: number };
    const image = `${spec.image.repository}${spec.image.tag !== undefined ? `:${spec.image.tag}` : ''}`;
    return { ...obj, spec: { ...spec, image } };
  },
  fromHub(hub) {
    const spec = hub.spec as { image: string; replicas?: number };
    if (spec.image === 'refused:1') throw new Error('this image cannot be shown as v2');
    const [repository = '', tag] = spec.image.split(':');
    return {
      ...hub,
      spec: { ...spec, image: tag === undefined ? { repository } : { repository, tag } },
    };
  },
};

/** Options of {@link describeConversionWebhookConformance}. */
export interface ConversionWebhookConformanceOptions {
  /**
   * When set, a server that serves v2 without calling the webhook skips the scenario with
   * this reason instead of failing (for a server that does not call conversion webhooks).
   */
  skipWithoutWebhookCalls?: string;
}

/** Runs the conversion-webhook scenario against the target `provider` gives. */
export function describeConversionWebhookConformance(
  name: string,
  provider: TargetProvider,
  options: ConversionWebhookConformanceOptions = {},
): void {
  describe(`conversion webhook conformance: ${name}`, () => {
    let skip = 'no server';
    let transport: Transport | undefined;
    let certDir: string | undefined;
    let namespace = 'conformance';
    let patienceMs = 10_000;
    const stop = new AbortController();
    let running: Promise<void> | undefined;
    let webhookAddress: { host: string; port: number } | undefined;
    const ca = generateCertificateAuthority({ commonName: 'conformance-webhook-ca' });

    before(async () => {
      const got = await provider.acquire();
      if (got.target === undefined) {
        skip = got.skipReason;
        return;
      }
      namespace = got.target.namespace;
      patienceMs = got.target.patienceMs;
      transport = new Transport(got.target.kubeConfig());
      certDir = await mkdtemp(join(tmpdir(), 'kck-conversion-conformance-'));
      // The API server checks the name it dials (127.0.0.1) against the SANs.
      await writeCertificateFiles(
        certDir,
        ca.issue({ dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] }),
      );
      const server = new WebhookServer({ host: '127.0.0.1', port: 0, certDir, logger: noopLogger });
      server.registerConversion({ group: conformanceGroup, kind, hub: 'v1', spokes: { v2: toV2 } });
      running = server.start(stop.signal);
      await server.started();
      webhookAddress = server.address;
    });

    after(async () => {
      if (transport !== undefined) {
        await new ResourceClient(transport, customResourceDefinitionsResource)
          .delete(`${plural}.${conformanceGroup}`)
          .catch(() => undefined);
        transport.close();
      }
      stop.abort();
      await running;
      if (certDir !== undefined) await rm(certDir, { recursive: true, force: true });
      await provider.release();
    });

    test(
      'the API server converts through the kit: write and read at v1 and v2, list and update through the spoke, a converter failure as a 500',
      { timeout: 120_000 },
      async (t) => {
        if (transport === undefined || webhookAddress === undefined) {
          t.skip(skip);
          return;
        }
        const conversion = crdConversion({
          endpoint: { url: `https://${webhookAddress.host}:${webhookAddress.port}` },
          caBundle: ca.caBundle,
        });
        const v1Resource = await ensureCrd(transport, gadgetCrd(conversion), patienceMs);
        const v2Resource: ApiResource<UnstructuredObject> = { ...v1Resource, version: 'v2' };
        const v1 = new ResourceClient<UnstructuredObject>(transport, v1Resource).namespace(
          namespace,
        );
        const v2 = new ResourceClient<UnstructuredObject>(transport, v2Resource).namespace(
          namespace,
        );
        const apiVersion = (version: string) => `${conformanceGroup}/${version}`;

        // Written at v1 (the storage version), read at v2: converted by the webhook.
        const created = await v1.create({
          apiVersion: apiVersion('v1'),
          kind,
          metadata: { name: 'one', namespace, labels: { app: 'one' } },
          spec: { image: 'nginx:1.27', replicas: 2 },
        });
        const asV2 = await v2.get('one');
        if (
          options.skipWithoutWebhookCalls !== undefined &&
          JSON.stringify(asV2.spec) === JSON.stringify(created.spec)
        ) {
          t.skip(options.skipWithoutWebhookCalls);
          return;
        }
        assert.equal(asV2.apiVersion, apiVersion('v2'));
        assert.deepEqual(asV2.spec, { image: { repository: 'nginx', tag: '1.27' }, replicas: 2 });
        assert.equal(asV2.metadata?.uid, created.metadata?.uid);
        assert.equal(asV2.metadata?.resourceVersion, created.metadata?.resourceVersion);
        assert.deepEqual(asV2.metadata?.labels, { app: 'one' });

        // Written at v2, stored at v1.
        await v2.create({
          apiVersion: apiVersion('v2'),
          kind,
          metadata: { name: 'two', namespace },
          spec: { image: { repository: 'redis', tag: '7' }, replicas: 1 },
        });
        assert.deepEqual((await v1.get('two')).spec, { image: 'redis:7', replicas: 1 });

        // A list at v2 converts every item.
        const listed = await v2.list();
        assert.deepEqual(listed.items.map((o) => [o.metadata?.name, o.apiVersion, o.spec]).sort(), [
          ['one', apiVersion('v2'), { image: { repository: 'nginx', tag: '1.27' }, replicas: 2 }],
          ['two', apiVersion('v2'), { image: { repository: 'redis', tag: '7' }, replicas: 1 }],
        ]);

        // An update through v2 lands in storage at v1.
        const current = await v2.get('one');
        await v2.update({
          ...current,
          spec: { ...(current.spec as object), image: { repository: 'nginx', tag: '1.28' } },
        });
        assert.deepEqual((await v1.get('one')).spec, { image: 'nginx:1.28', replicas: 2 });

        // A converter that fails: the client gets a 500 naming the conversion webhook.
        await v1.create({
          apiVersion: apiVersion('v1'),
          kind,
          metadata: { name: 'three', namespace },
          spec: { image: 'refused:1' },
        });
        await assert.rejects(v2.get('three'), (err: unknown) => {
          assert.ok(err instanceof ApiError, String(err));
          assert.equal(err.code, 500);
          assert.match(err.summary, /conversion webhook for .*Kind=Gadget failed/);
          assert.match(err.summary, /this image cannot be shown as v2/);
          return true;
        });
        assert.deepEqual(
          (await v1.get('three')).spec,
          { image: 'refused:1' },
          'v1 reads need no conversion',
        );
      },
    );
  });
}
