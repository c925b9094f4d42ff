// The application-operator example's types are generated from its CRD; this pins that the
// checked-in file is exactly what the generator writes today.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parseCrdManifests, runGenCli } from '../../src/codegen/index.js';
import { interfaceBody, repoRoot } from './helpers.js';

const exampleDir = 'examples/application-operator';
const crdPath = join(exampleDir, 'crd.yaml');
const outDir = join(exampleDir, 'src/generated');
// Run from the example's folder, as a user of the copied folder runs it (the header says so).
const genArgs = ['gen', 'types', 'crd.yaml', '-o', 'src/generated'];

describe('application-operator generated types', () => {
  it('match what `gen types` writes from crd.yaml (regenerate with the command in the header)', async () => {
    let stderr = '';
    const code = await runGenCli([...genArgs, '--check'], {
      cwd: join(repoRoot, exampleDir),
      stdout: () => {},
      stderr: (t) => (stderr += t),
    });
    assert.equal(
      code,
      0,
      `${stderr}\nRegenerate: cd ${exampleDir} && npx tsx ../../src/cli/main.ts ${genArgs.join(' ')}`,
    );
    assert.deepEqual(readdirSync(join(repoRoot, outDir)).sort(), [
      'application_v1.ts',
      'application_v2.ts',
    ]);
  });

  it('describe the Application CRD of the example: example.com/v1, namespaced, short name app', () => {
    const [crd] = parseCrdManifests(readFileSync(join(repoRoot, crdPath), 'utf8'), crdPath);
    assert.ok(crd);
    assert.deepEqual(
      [crd.group, crd.kind, crd.plural, crd.namespaced, crd.shortNames],
      ['example.com', 'Application', 'applications', true, ['app']],
    );
    assert.deepEqual(
      crd.versions.map((v) => [v.name, v.served, v.storage, v.statusSubresource]),
      [
        ['v1', true, true, true],
        ['v2', true, false, true],
      ],
    );
  });

  it('type spec and status as the example needs them', () => {
    const contents = readFileSync(join(repoRoot, outDir, 'application_v1.ts'), 'utf8');
    assert.equal(
      interfaceBody(contents, 'ApplicationSpec'),
      'image: string; replicas: number; port?: number | undefined; env?: ApplicationSpecEnv[] | undefined;',
    );
    assert.equal(
      interfaceBody(contents, 'ApplicationSpecEnv'),
      'name: string; value?: string | undefined;',
    );
    assert.equal(
      interfaceBody(contents, 'ApplicationStatus'),
      'availableReplicas?: number | undefined; conditions?: ApplicationStatusConditions[] | undefined;',
    );
    assert.equal(
      interfaceBody(contents, 'ApplicationStatusConditions'),
      "type: string; status: 'True' | 'False' | 'Unknown'; observedGeneration?: number | undefined; lastTransitionTime: string; reason: string; message: string;",
    );
    assert.match(contents, /export const applicationResource: ApiResource<Application> = \{/);
  });
});
