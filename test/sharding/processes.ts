// Shard replicas as child processes (test/sharding/replica-process.ts), their reconcile lines
// collected as intervals.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { resolve } from 'node:path';
import type { Interval } from './harness.js';

/** What a replica prints besides reconcile lines. */
export interface ReplicaReport {
  shard: string;
  reconciles: number;
  heapUsedBytes: number;
  outcome?: string;
}

const script = resolve('test/sharding/replica-process.ts');

/** One replica process. */
export class ChildReplica {
  readonly proc: ChildProcess;
  readonly exited: Promise<number | null>;
  done: ReplicaReport | undefined;
  readonly #heapWaiters: ((r: ReplicaReport) => void)[] = [];
  stderr = '';

  constructor(
    readonly name: string,
    kubeConfigJson: string,
    readonly intervals: Interval[],
    env: Record<string, string> = {},
  ) {
    this.proc = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', script], {
      env: { ...process.env, KUBECONFIG_JSON: kubeConfigJson, SHARD: name, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.proc.stderr?.on('data', (d: Buffer) => (this.stderr += d.toString()));
    const lines = createInterface({ input: this.proc.stdout! });
    lines.on('line', (line) => {
      const m = JSON.parse(line) as Interval & ReplicaReport & { done?: true; heap?: true };
      if (m.done === true) this.done = m;
      else if (m.heap === true) this.#heapWaiters.shift()?.(m);
      else intervals.push({ shard: m.shard, key: m.key, start: m.start, end: m.end });
    });
    this.exited = new Promise((r) => this.proc.once('close', (code) => r(code)));
  }

  /** Asks for the heap in use now; rejects when the replica has exited or exits first. */
  heap(): Promise<ReplicaReport> {
    const exited = (): Error =>
      new Error(
        `replica ${this.name} exited (${this.done?.outcome ?? 'no report'}) before reporting its heap: ${this.stderr}`,
      );
    if (this.proc.exitCode !== null || this.proc.signalCode !== null) {
      return Promise.reject(exited());
    }
    return new Promise((resolve, reject) => {
      const onClose = (): void => reject(exited());
      this.proc.once('close', onClose);
      this.#heapWaiters.push((r) => {
        this.proc.off('close', onClose);
        resolve(r);
      });
      this.proc.kill('SIGUSR2');
    });
  }

  /** A clean stop: the replica releases its Lease. */
  async terminate(): Promise<ReplicaReport | undefined> {
    this.proc.kill('SIGTERM');
    await this.exited;
    return this.done;
  }

  /** A crash: no release, no goodbye. */
  async kill(): Promise<void> {
    this.proc.kill('SIGKILL');
    await this.exited;
  }
}
