// A stuck informer is said once, clearly (issue #37, part 1): the resource, the cause
// (forbidden, not found: the CRD is not installed, connection refused) and for a 403 the
// RBAC rule that allows it in manifest words; then quieter — its retries at debug, a
// reminder at warn every 5 minutes — and its recovery once at info. The informer keeps
// retrying with backoff, as client-go's reflector does (its watch error handler only
// reports: `SetWatchErrorHandler`).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { SharedInformerFactory } from '../../src/cache/factory.js';
import {
  SyncFailureReporter,
  describeSyncFailure,
  rbacRuleFor,
  syncFailureReminderMs,
} from '../../src/cache/sync_failure.js';
import type { SyncTarget } from '../../src/cache/sync_failure.js';
import { ApiError } from '../../src/client/errors.js';
import { FakeClock } from '../../src/util/clock.js';
import type { LogFields, Logger } from '../../src/util/logger.js';
import { startTestApiServer } from '@kube-controller-kit/testing';
import type { TestApiServer } from '@kube-controller-kit/testing';
import { fastBackoff } from '../dynamic/helpers.js';
import { eventually } from '../support/eventually.js';

const secrets: SyncTarget = { group: '', version: 'v1', resource: 'secrets' };
const widgets: SyncTarget = { group: 'example.com', version: 'v1', resource: 'widgets' };

function apiError(code: number, reason: string, message: string): ApiError {
  return new ApiError(
    { kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason, message },
    { context: 'GET /api/v1/secrets?limit=500' },
  );
}

function recording(): { logger: Logger; lines: { level: string; message: string }[] } {
  const lines: { level: string; message: string }[] = [];
  const rec =
    (level: string) =>
    (message: string, _fields?: LogFields): void =>
      void lines.push({ level, message });
  return {
    lines,
    logger: { debug: rec('debug'), info: rec('info'), warn: rec('warn'), error: rec('error') },
  };
}

describe('describeSyncFailure: the cause of a failed list or watch, and what fixes it', () => {
  const forbidden = apiError(
    403,
    'Forbidden',
    'secrets is forbidden: User "system:serviceaccount:ops:op" cannot list resource "secrets" in API group "" at the cluster scope',
  );
  const refused = new Error('request failed', {
    cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6443'), {
      code: 'ECONNREFUSED',
    }),
  });
  const table: {
    rule: string;
    err: unknown;
    target: SyncTarget;
    cause: string;
    stuck: boolean;
    remedy: RegExp | undefined;
  }[] = [
    {
      rule: 'RBAC: a cluster-wide informer needs list and watch in a ClusterRole',
      err: forbidden,
      target: secrets,
      cause: 'forbidden',
      stuck: true,
      remedy:
        /cluster-wide \(a ClusterRole bound by a ClusterRoleBinding\): apiGroups: \[""\], resources: \["secrets"\], verbs: \["list","watch"\]$/,
    },
    {
      rule: 'RBAC: a namespaced informer needs the rule in its namespace only',
      err: forbidden,
      target: { ...secrets, namespace: 'team-a' },
      cause: 'forbidden',
      stuck: true,
      remedy:
        /in namespaces: \["team-a"\] \(a Role there, or a ClusterRole bound by a RoleBinding there\): apiGroups: \[""\]/,
    },
    {
      rule: 'a 404 for a custom resource: its CRD is not installed',
      err: apiError(404, 'NotFound', 'the server could not find the requested resource'),
      target: widgets,
      cause: 'notFound',
      stuck: true,
      remedy: /Install the CustomResourceDefinition widgets\.example\.com serving version v1/,
    },
    {
      rule: 'a 404 for a core resource: the server does not serve it',
      err: apiError(404, 'NotFound', 'the server could not find the requested resource'),
      target: { group: '', version: 'v2', resource: 'pods' },
      cause: 'notFound',
      stuck: true,
      remedy: /does not serve pods\/v2/,
    },
    {
      rule: 'a 401: the credentials',
      err: apiError(401, 'Unauthorized', 'Unauthorized'),
      target: secrets,
      cause: 'unauthorized',
      stuck: true,
      remedy: /credentials/,
    },
    {
      rule: 'connection refused: the API server is down (transient: not stuck)',
      err: refused,
      target: secrets,
      cause: 'connectionRefused',
      stuck: false,
      remedy: /refuses connections/,
    },
    {
      rule: '410 Gone: a routine relist',
      err: apiError(410, 'Expired', 'too old resource version'),
      target: secrets,
      cause: 'gone',
      stuck: false,
      remedy: undefined,
    },
    {
      rule: 'a 500: transient',
      err: apiError(500, 'InternalError', 'etcd timeout'),
      target: secrets,
      cause: 'transient',
      stuck: false,
      remedy: undefined,
    },
  ];
  for (const row of table) {
    test(row.rule, () => {
      const failure = describeSyncFailure(row.err, row.target);
      assert.equal(failure.cause, row.cause);
      assert.equal(failure.stuck, row.stuck);
      if (row.remedy === undefined) assert.equal(failure.remedy, undefined);
      else assert.match(failure.remedy ?? '', row.remedy);
      assert.ok(!failure.summary.includes('GET /api'), 'the summary leaves the request out');
    });
  }

  test('rbacRuleFor writes the rule as a Role or ClusterRole does', () => {
    assert.equal(
      rbacRuleFor(widgets),
      'apiGroups: ["example.com"], resources: ["widgets"], verbs: ["list","watch"]',
    );
  });
});

describe('SyncFailureReporter: once at error, quieter while it lasts, once at info when it recovers', () => {
  test('the first failure at error; retries at debug; a warn reminder every 5 minutes; the recovery at info; a new episode is said again', async () => {
    const clock = new FakeClock(0);
    const { logger, lines } = recording();
    const reporter = new SyncFailureReporter({
      name: 'secrets/v1',
      target: secrets,
      logger,
      clock,
    });
    const forbidden = apiError(
      403,
      'Forbidden',
      'secrets is forbidden: User "system:serviceaccount:ops:op" cannot list resource "secrets" in API group "" at the cluster scope',
    );
    reporter.failed(forbidden);
    for (let i = 0; i < 5; i++) {
      await clock.advance(30_000);
      reporter.failed(forbidden);
    }
    const errors = lines.filter((l) => l.level === 'error');
    assert.equal(errors.length, 1, 'said once');
    assert.match(errors[0]!.message, /^informer secrets\/v1 cannot list and watch secrets: /);
    assert.match(
      errors[0]!.message,
      /forbidden: serviceaccount ops\/op cannot list secrets at the cluster scope/,
      'the refusal (ApiError’s summary of the server’s words)',
    );
    assert.ok(
      errors[0]!.message.includes(
        'apiGroups: [""], resources: ["secrets"], verbs: ["list","watch"]',
      ),
      'the rule in manifest words',
    );
    assert.equal(lines.filter((l) => l.level === 'debug').length, 5, 'retries at debug');
    assert.equal(lines.filter((l) => l.level === 'warn').length, 0);
    assert.equal(reporter.current()?.failure.cause, 'forbidden');

    await clock.advance(syncFailureReminderMs);
    reporter.failed(forbidden);
    const warns = lines.filter((l) => l.level === 'warn');
    assert.equal(warns.length, 1, 'a reminder after 5 minutes');
    assert.match(warns[0]!.message, /still cannot list and watch after 7m30s \(7 attempts\)/);
    reporter.failed(forbidden);
    assert.equal(lines.filter((l) => l.level === 'warn').length, 1, 'not twice in 5 minutes');

    reporter.succeeded();
    reporter.succeeded();
    const infos = lines.filter((l) => l.level === 'info');
    assert.equal(infos.length, 1, 'the recovery once');
    assert.match(infos[0]!.message, /^informer secrets\/v1 recovered: .* after 7m30s of forbidden/);
    assert.equal(reporter.current(), undefined);

    reporter.failed(forbidden);
    assert.equal(lines.filter((l) => l.level === 'error').length, 2, 'a new episode is said');
  });

  test('connection refused is said at error, with the cause', () => {
    const clock = new FakeClock(0);
    const { logger, lines } = recording();
    const reporter = new SyncFailureReporter({
      name: 'secrets/v1',
      target: secrets,
      logger,
      clock,
    });
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6443'), {
      code: 'ECONNREFUSED',
    });
    reporter.failed(refused);
    reporter.failed(refused);
    assert.deepEqual(
      lines.map((l) => l.level),
      ['error', 'debug'],
    );
    assert.match(
      lines[0]!.message,
      /connect ECONNREFUSED 127\.0\.0\.1:6443\. The API server refuses connections/,
    );
  });

  test('a 410 is routine (debug only, no recovery line); a transient failure is said at warn', () => {
    const clock = new FakeClock(0);
    const { logger, lines } = recording();
    const reporter = new SyncFailureReporter({
      name: 'secrets/v1',
      target: secrets,
      logger,
      clock,
    });
    reporter.failed(apiError(410, 'Expired', 'too old resource version: 5 (10)'));
    reporter.succeeded();
    assert.deepEqual(
      lines.map((l) => l.level),
      ['debug'],
    );
    reporter.failed(apiError(500, 'InternalError', 'etcd timeout'));
    reporter.failed(apiError(500, 'InternalError', 'etcd timeout'));
    reporter.succeeded();
    assert.deepEqual(
      lines.map((l) => l.level),
      ['debug', 'warn', 'debug', 'info'],
    );
  });
});

describe('a factory informer that is refused says so once, and recovers without a restart', () => {
  let server: TestApiServer;
  before(async () => {
    server = await startTestApiServer({ authorization: 'RBAC', namespaces: ['default', 'ops'] });
  });
  after(() => server.close());

  test('forbidden secrets: one error line with the RBAC rule, retries at debug; the rule granted, it syncs and says it recovered', async () => {
    server.create('secrets', {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's1', namespace: 'default' },
    });
    const user = server.addUser({ serviceAccount: { namespace: 'ops', name: 'op' } });
    const { logger, lines } = recording();
    const factory = new SharedInformerFactory(user.kubeConfig(), {
      logger,
      informerOptions: { backoff: fastBackoff },
    });
    const informer = factory.secrets();
    const stop = new AbortController();
    factory.start(stop.signal);
    try {
      await eventually(
        'a few retries',
        () =>
          lines.filter((l) => l.level === 'debug' && /failed again/.test(l.message)).length >= 3,
      );
      const errors = lines.filter((l) => l.level === 'error');
      assert.equal(errors.length, 1, lines.map((l) => `${l.level} ${l.message}`).join('\n'));
      assert.match(
        errors[0]!.message,
        /^informer secrets\/v1 cannot list and watch secrets: forbidden: serviceaccount ops\/op cannot list secrets at the cluster scope\. Grant the operator's ServiceAccount this RBAC rule cluster-wide \(a ClusterRole bound by a ClusterRoleBinding\): apiGroups: \[""\], resources: \["secrets"\], verbs: \["list","watch"\]; it retries with backoff/,
      );
      assert.equal(informer.hasSynced(), false);

      const rbac = (resource: string) => ({ group: 'rbac.authorization.k8s.io', resource });
      server.create(rbac('clusterroles'), {
        metadata: { name: 'secrets-reader' },
        rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['list', 'watch'] }],
      });
      server.create(rbac('clusterrolebindings'), {
        metadata: { name: 'secrets-reader' },
        roleRef: {
          apiGroup: 'rbac.authorization.k8s.io',
          kind: 'ClusterRole',
          name: 'secrets-reader',
        },
        subjects: [{ kind: 'ServiceAccount', name: 'op', namespace: 'ops' }],
      });
      await eventually('synced once granted', () => informer.hasSynced());
      assert.equal(informer.lister().list().length, 1);
      const recovered = lines.filter((l) => l.level === 'info' && /recovered/.test(l.message));
      assert.equal(recovered.length, 1);
      assert.match(recovered[0]!.message, /^informer secrets\/v1 recovered: .* of forbidden/);
      assert.equal(lines.filter((l) => l.level === 'error').length, 1, 'still said once');
    } finally {
      stop.abort();
      await factory.shutdown();
    }
  });
});
