/**
 * A write's steps and the one runner that drives them. The store writes as a generator that
 * stops at each point where kube-apiserver calls out — admission (whose webhooks answer over
 * the network) and a CRD's conversion webhook — and resumes with the answer. The runner
 * answers each point and stays synchronous as long as every answer is at hand, so one write
 * path serves in-process writes (seeding, the server's controllers: answered at once) and
 * requests (answered when the webhooks are).
 *
 * @module
 */
import type { UnstructuredObject } from 'kube-controller-kit';
import { isPromise } from './admission/chain.js';
import type { AdmissionAttributes, MaybePromise } from './admission/interfaces.js';
import type { ResourceType } from './registry/types.js';

/**
 * The part of the admission chain an admission point runs: a create and an update run
 * `mutate` before the registry's BeforeCreate/BeforeUpdate and `validate` after it, as
 * kube-apiserver does; a delete runs `both` at one point.
 */
export type AdmissionPhase = 'both' | 'mutate' | 'validate';

/** A point of a write where admission runs: the write resumes with the admitted object. */
export interface AdmissionPoint {
  /** What admission is told. */
  readonly attrs: AdmissionAttributes;
  /** The object admitted (undefined on delete). */
  readonly obj: UnstructuredObject | undefined;
  /** Which half of the chain runs. */
  readonly phase: AdmissionPhase;
}

/**
 * A point of a write where its object changes version through a CRD's conversion webhook
 * (kube-apiserver admits a write at the request's version and converts it to the storage
 * version when it encodes it for storage): the write resumes with the object at `version`.
 */
export interface ConversionPoint {
  /** The object to convert. */
  readonly convert: UnstructuredObject;
  /** Its resource. */
  readonly type: ResourceType;
  /** The version wanted. */
  readonly version: string;
}

/** A write's steps, suspended at its admission and conversion points. */
export type WriteSteps<T> = Generator<
  AdmissionPoint | ConversionPoint,
  T,
  UnstructuredObject | undefined
>;

/** Answers a point: at once, or later. */
export type PointAnswer = (
  point: AdmissionPoint | ConversionPoint,
) => MaybePromise<UnstructuredObject | undefined>;

/** Drives steps from `input` on: synchronously until an answer is a promise. */
function drive<T>(
  steps: WriteSteps<T>,
  answer: PointAnswer,
  input: UnstructuredObject | undefined,
): MaybePromise<T> {
  let step = steps.next(input);
  while (step.done !== true) {
    const out = answer(step.value);
    if (isPromise(out)) return out.then((v) => drive(steps, answer, v));
    step = steps.next(out);
  }
  return step.value;
}

/**
 * Runs a write's steps: its result, at once when every point was answered at once, else a
 * promise of it. A point whose answer fails fails the write.
 */
export function runSteps<T>(steps: WriteSteps<T>, answer: PointAnswer): MaybePromise<T> {
  return drive(steps, answer, undefined);
}
