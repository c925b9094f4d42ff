#!/usr/bin/env node
/**
 * The `kube-controller-kit` command.
 *
 * - `kube-controller-kit apiserver [options]`: run the in-memory API server in the foreground
 *   (it is the package `@kube-controller-kit/testing`, loaded only for this command).
 * - `kube-controller-kit gen types <crd.yaml…> -o <dir>`: generate TypeScript types from CRDs.
 * - `kube-controller-kit init [dir]`, `create api`, `create webhook`: scaffold an operator
 *   project and add kinds and webhooks to it (kubebuilder's commands and flags).
 * - `kube-controller-kit kubeconfig <serviceaccount>`: a kubeconfig for a ServiceAccount, its
 *   token from the API server's TokenRequest (as `kubectl create token`).
 * - `kube-controller-kit --version`: print the library's version.
 *
 * Each subcommand is loaded only when used, so `apiserver` does not need the code
 * generator's optional dependencies.
 *
 * @module
 */

import { VERSION } from '../client/version.js';

/** The package of the in-memory API server (a development dependency of its users). */
const testingPackage = '@kube-controller-kit/testing';

const usage = `usage:
  kube-controller-kit init [DIR] [--domain D] [--group G --version V --kind K] [--force]
  kube-controller-kit create api --group G --version V --kind K [--controller=false]
  kube-controller-kit create webhook --group G --version V --kind K [--defaulting] [--programmatic-validation] [--conversion --spoke V2]
  kube-controller-kit apiserver [--kubeconfig PATH] [--port N] [--https] [--token T] [--client-cert]
  kube-controller-kit gen types <crd.yaml...> -o <dir> [--check]
  kube-controller-kit kubeconfig <serviceaccount> [-n NS] [--kubeconfig PATH] [-o PATH]
  kube-controller-kit --version
run a subcommand with --help for its options`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'apiserver': {
      let runTestApiServerCli: (args: string[]) => Promise<number>;
      try {
        // By a name in a variable: the in-memory API server is the optional package
        // @kube-controller-kit/testing, which this package must not resolve when compiled.
        ({ runTestApiServerCli } = (await import(testingPackage)) as {
          runTestApiServerCli: (args: string[]) => Promise<number>;
        });
      } catch (err) {
        process.stderr.write(
          `kube-controller-kit apiserver needs the in-memory API server, the package ${testingPackage}: ` +
            `npm install --save-dev ${testingPackage} (${(err as Error).message})\n`,
        );
        return 1;
      }
      return runTestApiServerCli(rest);
    }
    case 'gen': {
      let runGenCli: (args: string[]) => Promise<number>;
      try {
        ({ runGenCli } = await import('../codegen/cli.js'));
      } catch (err) {
        process.stderr.write(
          `kube-controller-kit gen needs the optional packages json-schema-to-typescript and yaml: ` +
            `npm install --save-dev json-schema-to-typescript yaml (${(err as Error).message})\n`,
        );
        return 1;
      }
      return runGenCli(rest);
    }
    case 'init':
    case 'create': {
      const { runScaffoldCli } = await import('./scaffold/commands.js');
      return runScaffoldCli(argv);
    }
    case 'kubeconfig': {
      const { runKubeconfigCli } = await import('./kubeconfig.js');
      return runKubeconfigCli(rest);
    }
    case '--version':
    case '-v':
    case 'version':
      process.stdout.write(`kube-controller-kit ${VERSION}\n`);
      return 0;
    case undefined:
    case '-h':
    case '--help':
    case 'help':
      process.stdout.write(usage + '\n');
      return command === undefined ? 2 : 0;
    default:
      process.stderr.write(`unknown command "${command}"\n${usage}\n`);
      return 2;
  }
}

process.exitCode = await main(process.argv.slice(2));
