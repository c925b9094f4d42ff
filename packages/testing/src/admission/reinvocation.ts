/**
 * Reinvocation, as kube-apiserver's admission chain does it (`admission/reinvocation.go`
 * and the two mutating plugins' reinvocation contexts): the chain's mutations run once;
 * when a plugin asked for it (`shouldReinvoke`), they run once more with `isReinvoke` set,
 * and each plugin then calls again only the hooks (webhooks, policy bindings) with
 * `reinvocationPolicy: IfNeeded` that ran before a later change of the object: a change by
 * a later hook of the same plugin, or any change since the plugin last ran (another
 * plugin's mutation).
 *
 * @module
 */

/** The chain's part: one per admission of one write. */
export class ReinvocationContext {
  /** Set in the second run of the mutations. */
  isReinvoke = false;
  /** Asked by a plugin that changed the object after a reinvocable hook ran. */
  shouldReinvoke = false;
  readonly #plugins = new Map<string, PluginReinvocation>();

  /** The state of one plugin (created on first use). */
  plugin(name: string): PluginReinvocation {
    let p = this.#plugins.get(name);
    if (p === undefined) {
      p = new PluginReinvocation();
      this.#plugins.set(name, p);
    }
    return p;
  }
}

/** One plugin's part: which of its reinvocable hooks ran, which to call again. */
export class PluginReinvocation {
  #lastOutput: string | undefined;
  #previouslyInvoked = new Set<string>();
  readonly #reinvoke = new Set<string>();

  /** Whether the hook is to be called in the second run. */
  shouldReinvoke(key: string): boolean {
    return this.#reinvoke.has(key);
  }

  /** Whether the object changed since the plugin last ran. */
  outputChangedSinceLastInvocation(obj: unknown): boolean {
    return this.#lastOutput !== JSON.stringify(obj ?? null);
  }

  /** Keeps the object the plugin leaves. */
  setLastInvocationOutput(obj: unknown): void {
    this.#lastOutput = JSON.stringify(obj ?? null);
  }

  /** Records a hook with `reinvocationPolicy: IfNeeded` that ran. */
  addReinvocable(key: string): void {
    this.#previouslyInvoked.add(key);
  }

  /** The object changed: every reinvocable hook that ran before is called again. */
  requireReinvokingPreviouslyInvoked(): void {
    for (const k of this.#previouslyInvoked) this.#reinvoke.add(k);
    this.#previouslyInvoked = new Set();
  }
}
