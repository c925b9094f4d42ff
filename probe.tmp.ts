import { startTestApiServer } from '@kube-controller-kit/testing';
import { raw } from './test/testing/helpers.js';
const s = await startTestApiServer();
console.log((await raw(s.url, 'GET', '/api/v1/namespaces/default/pods/nope')).body);
console.log((await raw(s.url, 'GET', '/version')).body);
await s.close();
