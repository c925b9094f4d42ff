// The real apiextensions-apiserver as a ConformanceTarget, for real.test.ts and
// real-watch-expiry.test.ts. Which server: see servers.ts (REAL_APISERVER_KUBECONFIG, else
// a private instance when built, else a loud skip; REAL_APISERVER_REQUIRED=1 turns the
// skip into a failure).
import assert from 'node:assert/strict';
import { ResourceClient } from '../../src/client/resource_client.js';
import { Transport } from '../../src/client/transport.js';
import { isResourceExpired } from '../../src/client/errors.js';
import { acquireRealServer } from './servers.js';
import type { RealServerHandle } from './servers.js';
import { CHURN_EVENTS, eventually } from './scenarios.js';
import type { TargetProvider } from './scenarios.js';

/**
 * The real watch cache keeps at least 75 s of events (its `eventFreshDuration`: the 1 min
 * bookmark frequency + 15 s) and at least 100 of them; only events both older than that
 * and beyond the 100 newest are dropped. Nothing signals it: the time has to pass.
 */
const WATCH_WINDOW_MS = 80_000;

/** A provider of the real server as a target; `what` names the test file in skip messages. */
export function realTarget(what: string): TargetProvider {
  let handle: RealServerHandle | undefined;
  return {
    acquire: async () => {
      handle = await acquireRealServer(what);
      const server = handle.server;
      if (server === undefined) return { target: undefined, skipReason: handle.skipReason ?? '' };
      // The leg runs over HTTP/2 by default and over HTTP/1.1 with DISABLE_HTTP2 set
      // (scripts/test-real-apiserver.sh): check the protocol is the one meant.
      const probe = new Transport(server.kubeConfig());
      try {
        await probe.request({ method: 'GET', path: '/version' });
        if (probe.server.startsWith('https:')) {
          const wanted = (process.env.DISABLE_HTTP2 ?? '') === '' ? 'h2' : 'http/1.1';
          assert.equal(probe.protocol, wanted, `the real server must be spoken to in ${wanted}`);
        }
      } finally {
        probe.close();
      }
      return {
        skipReason: '',
        target: {
          name: 'real',
          // No namespaces on this server (NamespaceLifecycle is off): any name serves.
          namespace: 'conformance',
          kubeConfig: () => server.kubeConfig(),
          compact: async (resource) => {
            const client = new ResourceClient(server.kubeConfig(), resource);
            try {
              const rv = (await client.list({ limit: 1 })).metadata.resourceVersion ?? '';
              await server.compact();
              // The watch cache serves lists at old versions from its snapshots until its
              // compactor polls etcd's compaction (every 15 s): wait until it answers 410.
              await eventually(
                `the watch cache of ${resource.resource} to see the compaction`,
                () =>
                  client
                    .list({ resourceVersion: rv, resourceVersionMatch: 'Exact', limit: 1 })
                    .then(
                      () => false,
                      (err: unknown) => {
                        if (isResourceExpired(err)) return true;
                        throw err;
                      },
                    ),
                45_000,
              );
            } finally {
              client.transport.close();
            }
          },
          expireWatchHistory: async (churn) => {
            await server.compact();
            await new Promise((r) => setTimeout(r, WATCH_WINDOW_MS));
            for (let i = 0; i < CHURN_EVENTS; i++) await churn();
          },
          patienceMs: 60_000,
        },
      };
    },
    release: async () => {
      await handle?.release();
    },
  };
}
