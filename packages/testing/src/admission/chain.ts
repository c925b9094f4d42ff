/**
 * The admission chain: plugins in one ordered list, run as kube-apiserver runs its
 * chain: every mutation in order, then every validation in order. A chain stays
 * synchronous as long as its plugins answer synchronously (in-process writes), and turns
 * into a promise at the first plugin that answers with one (a webhook call).
 *
 * @module
 */
import type { UnstructuredObject } from 'kube-controller-kit';
import type {
  AdmissionAttributes,
  AdmissionPlugin,
  MaybePromise,
  MutationInterface,
  ValidationInterface,
} from './interfaces.js';
import { ReinvocationContext } from './reinvocation.js';

function isMutation(p: AdmissionPlugin): p is MutationInterface {
  return typeof (p as Partial<MutationInterface>).admit === 'function';
}

function isValidation(p: AdmissionPlugin): p is ValidationInterface {
  return typeof (p as Partial<ValidationInterface>).validate === 'function';
}

/** Whether a plugin (or the chain) answered with a promise rather than at once. */
export function isPromise<T>(v: MaybePromise<T>): v is Promise<T> {
  return typeof (v as { then?: unknown } | undefined)?.then === 'function';
}

/** The ordered list of admission plugins of a server. */
export class AdmissionChain {
  readonly #plugins: readonly AdmissionPlugin[];
  // Split once: every write runs these lists (a chain's plugins never change).
  readonly #mutations: readonly MutationInterface[];
  readonly #validations: readonly ValidationInterface[];

  /** @param plugins - the plugins, in the order they run. */
  constructor(plugins: AdmissionPlugin[]) {
    this.#plugins = [...plugins];
    this.#mutations = this.#plugins.filter(isMutation);
    this.#validations = this.#plugins.filter(isValidation);
  }

  /** The plugins' names, in order. */
  get names(): string[] {
    return this.#plugins.map((p) => p.name);
  }

  /**
   * Runs every mutation, then every validation, on the object about to be written
   * (undefined on delete). Returns the admitted object, synchronously while every plugin
   * answers synchronously.
   */
  admit(
    attrs: AdmissionAttributes,
    obj: UnstructuredObject | undefined,
  ): MaybePromise<UnstructuredObject | undefined> {
    const mutated = this.mutate(attrs, obj);
    if (isPromise(mutated)) return mutated.then((o) => this.validate(attrs, o));
    return this.validate(attrs, mutated);
  }

  /**
   * Runs every mutation only: kube-apiserver's mutating admission, which a create runs
   * before the registry's BeforeCreate (no uid, no name generated from `generateName`).
   * When a plugin asks for it, every mutation runs a second time (kube-apiserver's
   * reinvoker: the plugins then call again only their `IfNeeded` hooks, see
   * ./reinvocation.ts).
   */
  mutate(
    attrs: AdmissionAttributes,
    obj: UnstructuredObject | undefined,
  ): MaybePromise<UnstructuredObject | undefined> {
    const context = new ReinvocationContext();
    attrs.reinvocation = context;
    const first = this.#mutateFrom(0, attrs, obj);
    // No closure for the common write, whose mutations all answer at once.
    return isPromise(first)
      ? first.then((out) => this.#again(context, attrs, out))
      : this.#again(context, attrs, first);
  }

  /** The second pass of the mutations, when a plugin asked for it (the reinvoker). */
  #again(
    context: ReinvocationContext,
    attrs: AdmissionAttributes,
    out: UnstructuredObject | undefined,
  ): MaybePromise<UnstructuredObject | undefined> {
    if (!context.shouldReinvoke) return out;
    context.isReinvoke = true;
    return this.#mutateFrom(0, attrs, out);
  }

  #mutateFrom(
    i: number,
    attrs: AdmissionAttributes,
    cur: UnstructuredObject | undefined,
  ): MaybePromise<UnstructuredObject | undefined> {
    const mutations = this.#mutations;
    let out = cur;
    for (; i < mutations.length; i++) {
      const r = (mutations[i] as MutationInterface).admit(attrs, out);
      if (isPromise(r)) {
        const next = i + 1;
        return r.then((o) => this.#mutateFrom(next, attrs, o));
      }
      out = r;
    }
    return out;
  }

  /**
   * Runs every validation only (kube-apiserver's validating admission, which a create
   * runs after BeforeCreate). Returns the object unchanged.
   */
  validate(
    attrs: AdmissionAttributes,
    obj: UnstructuredObject | undefined,
  ): MaybePromise<UnstructuredObject | undefined> {
    return this.#validateFrom(0, attrs, obj);
  }

  #validateFrom(
    i: number,
    attrs: AdmissionAttributes,
    obj: UnstructuredObject | undefined,
  ): MaybePromise<UnstructuredObject | undefined> {
    const validations = this.#validations;
    for (; i < validations.length; i++) {
      const r = (validations[i] as ValidationInterface).validate(attrs, obj);
      if (isPromise(r)) {
        const next = i + 1;
        return r.then(() => this.#validateFrom(next, attrs, obj));
      }
    }
    return obj;
  }
}
