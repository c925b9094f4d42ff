/**
 * A Pod's quality-of-service class, as kube-apiserver records it in `status.qosClass` when
 * the pod is created (the pod strategy's PrepareForCreate, from the defaulted spec; the
 * rule of k8s.io/kubernetes `pkg/apis/core/helper/qos`):
 *
 * - only `cpu` and `memory` count, and only quantities above zero;
 * - with pod-level `spec.resources`, they alone decide; otherwise the requests and limits
 *   of every container and init container are summed per resource;
 * - no request and no limit: `BestEffort`;
 * - every container limits both cpu and memory (or the pod level does) and each summed
 *   request equals the summed limit: `Guaranteed`;
 * - anything else: `Burstable`.
 *
 * @module
 */
import type { Obj } from './fields.js';
import { child, items } from './fields.js';

/** The three classes of `status.qosClass`. */
export type PodQOSClass = 'Guaranteed' | 'Burstable' | 'BestEffort';

const QOS_RESOURCES = ['cpu', 'memory'] as const;

/** An exact quantity: `num / den`, both BigInt (den > 0). */
interface Rational {
  readonly num: bigint;
  readonly den: bigint;
}

const BINARY_SI: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const DECIMAL_SI: Record<string, number> = {
  n: -9,
  u: -6,
  m: -3,
  '': 0,
  k: 3,
  M: 6,
  G: 9,
  T: 12,
  P: 15,
  E: 18,
};
const QUANTITY = /^([+-]?)(\d*)(?:\.(\d*))?(.*)$/;

/**
 * The exact value of a Kubernetes quantity (`500m`, `1.5Gi`, `2e3`, `128974848`; a number
 * is taken as its decimal text), or undefined when it is not one.
 */
export function parseQuantity(q: unknown): Rational | undefined {
  const text = typeof q === 'number' && Number.isFinite(q) ? String(q) : q;
  if (typeof text !== 'string') return undefined;
  const m = QUANTITY.exec(text);
  if (m === null) return undefined;
  const [, sign, whole = '', fraction = '', suffix = ''] = m;
  if (whole === '' && fraction === '') return undefined;
  let exp10 = -fraction.length;
  let exp2 = 0;
  if (suffix in BINARY_SI) exp2 = BINARY_SI[suffix]!;
  else if (suffix in DECIMAL_SI) exp10 += DECIMAL_SI[suffix]!;
  else if (/^[eE][+-]?\d+$/.test(suffix)) exp10 += Number(suffix.slice(1));
  else return undefined;
  let num = BigInt(`${whole}${fraction}` || '0') * 2n ** BigInt(exp2);
  if (sign === '-') num = -num;
  return exp10 >= 0
    ? { num: num * 10n ** BigInt(exp10), den: 1n }
    : { num, den: 10n ** BigInt(-exp10) };
}

function add(a: Rational | undefined, b: Rational): Rational {
  return a === undefined ? b : { num: a.num * b.den + b.num * a.den, den: a.den * b.den };
}

function equal(a: Rational, b: Rational): boolean {
  return a.num * b.den === b.num * a.den;
}

/**
 * Adds each positive cpu/memory quantity of `list` to `into`; returns the names found.
 */
function sumPositive(list: Obj | undefined, into: Map<string, Rational>): Set<string> {
  const found = new Set<string>();
  if (list === undefined) return found;
  for (const name of QOS_RESOURCES) {
    const q = parseQuantity(list[name]);
    if (q === undefined || q.num <= 0n) continue;
    found.add(name);
    into.set(name, add(into.get(name), q));
  }
  return found;
}

/** The QoS class of a (defaulted) Pod. */
export function podQOSClass(pod: Obj): PodQOSClass {
  const spec = child(pod, 'spec') ?? {};
  const requests = new Map<string, Rational>();
  const limits = new Map<string, Rational>();
  let guaranteed = true;
  const podLevel = child(spec, 'resources');
  const sources =
    podLevel !== undefined
      ? [podLevel]
      : [...items(spec, 'containers'), ...items(spec, 'initContainers')].map(
          (c) => child(c, 'resources') ?? {},
        );
  for (const resources of sources) {
    sumPositive(child(resources, 'requests'), requests);
    const given = child(resources, 'limits') ?? {};
    const limited = sumPositive(given, limits);
    // At the pod level, only limits that are set at all must cover cpu and memory.
    const checked = podLevel === undefined || Object.keys(given).length > 0;
    if (checked && limited.size < QOS_RESOURCES.length) {
      guaranteed = false;
    }
  }
  if (requests.size === 0 && limits.size === 0) return 'BestEffort';
  if (guaranteed) {
    for (const [name, request] of requests) {
      const limit = limits.get(name);
      if (limit === undefined || !equal(limit, request)) {
        guaranteed = false;
        break;
      }
    }
  }
  return guaranteed && requests.size === limits.size ? 'Guaranteed' : 'Burstable';
}
