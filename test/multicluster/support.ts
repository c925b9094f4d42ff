// Helpers of the multicluster tests: a ClusterAware that records what it was engaged on,
// kubeconfig text, and a recording logger.
import type { ClusterAware, ClusterHandle } from '../../src/multicluster/index.js';
import type { Logger } from '../../src/util/logger.js';

/** Records engagements: the live ones by name, and every engage/disengage in order. */
export class RecordingAware implements ClusterAware {
  readonly live = new Map<string, { cluster: ClusterHandle; signal: AbortSignal }>();
  readonly events: string[] = [];
  refuse: ((name: string) => boolean) | undefined;

  engage(signal: AbortSignal, name: string, cluster: ClusterHandle): void {
    if (this.refuse?.(name) === true) throw new Error(`refusing ${name}`);
    this.events.push(`engage ${name}`);
    const entry = { cluster, signal };
    this.live.set(name, entry);
    signal.addEventListener(
      'abort',
      () => {
        this.events.push(`disengage ${name}`);
        if (this.live.get(name) === entry) this.live.delete(name);
      },
      { once: true },
    );
  }

  names(): string[] {
    return [...this.live.keys()].sort();
  }
}

/** A kubeconfig (YAML) for `server` with an inline token. */
export function kubeconfigText(server: string, token = 'token'): string {
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '- name: c',
    '  cluster:',
    `    server: ${server}`,
    '    insecure-skip-tls-verify: true',
    'users:',
    '- name: u',
    '  user:',
    `    token: ${token}`,
    'contexts:',
    '- name: ctx',
    '  context:',
    '    cluster: c',
    '    user: u',
    'current-context: ctx',
    '',
  ].join('\n');
}

/** A logger that keeps `level message` lines. */
export function recordingLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const rec =
    (level: string) =>
    (message: string, fields?: Record<string, unknown>): void => {
      // The error of a line is its `error` field (said once, not in the message).
      const error = fields?.['error'];
      lines.push(
        `${level} ${message}${error === undefined ? '' : ` error=${error instanceof Error ? error.message : JSON.stringify(error)}`}`,
      );
    };
  return {
    lines,
    logger: { debug: rec('debug'), info: rec('info'), warn: rec('warn'), error: rec('error') },
  };
}
