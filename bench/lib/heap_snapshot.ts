// Heap snapshots grouped by what their nodes are, and the difference of two such groupings:
// "what does one more X hold", measured as the snapshot with 2N of X minus the one with N,
// divided by N. A group is the node's type and, for objects and V8's internal nodes, its
// constructor or internal name (strings, closures, code, numbers are grouped by type alone).
import { readFileSync } from 'node:fs';

/** How many nodes of one group a snapshot holds, and their shallow size. */
export interface Group {
  count: number;
  bytes: number;
}

interface SnapshotFile {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
  nodes: number[];
  strings: string[];
}

/** Types whose nodes are grouped by their name (a constructor or an internal name). */
const NAMED_TYPES = new Set(['object', 'hidden', 'array', 'native', 'object shape']);

/** The nodes of a `.heapsnapshot` file, grouped by type (and name where it says something). */
export function snapshotGroups(file: string): Map<string, Group> {
  const snap = JSON.parse(readFileSync(file, 'utf8')) as SnapshotFile;
  const fields = snap.snapshot.meta.node_fields;
  const types = snap.snapshot.meta.node_types[0];
  const width = fields.length;
  const typeAt = fields.indexOf('type');
  const nameAt = fields.indexOf('name');
  const sizeAt = fields.indexOf('self_size');
  const groups = new Map<string, Group>();
  for (let i = 0; i < snap.nodes.length; i += width) {
    const type = types[snap.nodes[i + typeAt]!]!;
    let name = NAMED_TYPES.has(type) ? snap.strings[snap.nodes[i + nameAt]!]! : '';
    // Per-object names (e.g. "system / Context") are fine; long or instance-specific ones
    // (a string's text never lands here) are cut to keep groups meaningful.
    if (name.length > 60) name = `${name.slice(0, 57)}...`;
    const key = name === '' ? type : `${type}: ${name}`;
    const g = groups.get(key);
    if (g === undefined) groups.set(key, { count: 1, bytes: snap.nodes[i + sizeAt]! });
    else {
      g.count++;
      g.bytes += snap.nodes[i + sizeAt]!;
    }
  }
  return groups;
}

/**
 * `after - before` per group, divided by `per`, largest byte difference first; groups
 * whose difference is below `minBytes` (per unit) are left out.
 */
export function diffGroups(
  before: Map<string, Group>,
  after: Map<string, Group>,
  per: number,
  minBytes = 16,
): { key: string; count: number; bytes: number }[] {
  const keys = new Set([...before.keys(), ...after.keys()]);
  const rows: { key: string; count: number; bytes: number }[] = [];
  for (const key of keys) {
    const a = after.get(key) ?? { count: 0, bytes: 0 };
    const b = before.get(key) ?? { count: 0, bytes: 0 };
    const bytes = (a.bytes - b.bytes) / per;
    if (Math.abs(bytes) < minBytes) continue;
    rows.push({ key, count: (a.count - b.count) / per, bytes });
  }
  return rows.sort((x, y) => y.bytes - x.bytes);
}
