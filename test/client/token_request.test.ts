// The TokenRequest client against the in-memory API server: the token it gets back
// authenticates as the ServiceAccount, a bound Pod's deletion ends it, and the server's
// refusals (missing ServiceAccount, lifetime too short) surface as typed ApiErrors.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ApiError, createToken } from '../../src/client/index.js';
import { startTestApiServer } from '../../packages/testing/src/index.js';
import type { TestApiServer } from '../../packages/testing/src/index.js';

describe('createToken (TokenRequest)', () => {
  let server: TestApiServer;
  before(async () => {
    server = await startTestApiServer({ authorization: 'RBAC', namespaces: ['default', 'ops'] });
    server.create('serviceaccounts', { metadata: { name: 'bot', namespace: 'ops' } });
  });
  after(() => server.close());

  it('issues a token for the asked audiences and lifetime', async () => {
    const issued = await createToken(server.kubeConfig(), 'ops', 'bot', {
      audiences: ['https://kubernetes.default.svc.cluster.local', 'metrics'],
      expirationSeconds: 600,
    });
    assert.deepEqual(issued.audiences, ['https://kubernetes.default.svc.cluster.local', 'metrics']);
    assert.ok(Date.parse(issued.expirationTimestamp) > Date.now());
    const review = await fetch(`${server.url}/apis/authentication.k8s.io/v1/selfsubjectreviews`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${issued.token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }),
    });
    const body = (await review.json()) as { status: { userInfo: { username: string } } };
    assert.equal(body.status.userInfo.username, 'system:serviceaccount:ops:bot');
  });

  it('a token bound to a Pod names it, and the server refuses it once the Pod is gone', async () => {
    server.create('pods', {
      metadata: { name: 'p', namespace: 'ops' },
      spec: { containers: [{ name: 'c', image: 'x' }] },
    });
    const { token } = await createToken(server.kubeConfig(), 'ops', 'bot', {
      boundObjectRef: { kind: 'Pod', name: 'p' },
    });
    const whoami = async (): Promise<number> =>
      (await fetch(`${server.url}/api`, { headers: { Authorization: `Bearer ${token}` } })).status;
    assert.equal(await whoami(), 200);
    server.delete('pods', 'p', 'ops');
    assert.equal(await whoami(), 401);
  });

  it("the server's refusals are typed ApiErrors", async () => {
    await assert.rejects(createToken(server.kubeConfig(), 'ops', 'nobody'), (err) => {
      assert.ok(err instanceof ApiError);
      assert.equal(err.code, 404);
      return true;
    });
    await assert.rejects(
      createToken(server.kubeConfig(), 'ops', 'bot', { expirationSeconds: 60 }),
      (err) => err instanceof ApiError && err.code === 422,
    );
    const nobody = server.addUser({ username: 'nobody' }).kubeConfig();
    await assert.rejects(
      createToken(nobody, 'ops', 'bot'),
      (err) => err instanceof ApiError && err.code === 403,
    );
  });
});
