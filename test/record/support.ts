// Helpers of the event recorder tests: a logger that keeps its lines, a counting metrics
// provider, and objects to record events about.
import type { KubeObject } from '../../src/client/types.js';
import type { EventMetricsProvider } from '../../src/record/index.js';
import type { LogFields, Logger } from '../../src/util/logger.js';

export interface Line {
  level: 'debug' | 'info' | 'warn' | 'error';
  message: string;
  fields: LogFields | undefined;
}

export function memoryLogger(): Logger & { lines: Line[] } {
  const lines: Line[] = [];
  const at =
    (level: Line['level']) =>
    (message: string, fields?: LogFields): void => {
      lines.push({ level, message, fields });
    };
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

export function countingMetrics(): EventMetricsProvider & { dropped: Map<string, number> } {
  const dropped = new Map<string, number>();
  return {
    dropped,
    newDroppedEventsMetric: (name) => ({
      inc: () => dropped.set(name, (dropped.get(name) ?? 0) + 1),
    }),
  };
}

export function configMap(name: string, uid = `uid-${name}`): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: 'default', uid, resourceVersion: '7' },
  };
}
