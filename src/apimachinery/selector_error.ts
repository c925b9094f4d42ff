/**
 * The error every label and field selector parser and constructor throws.
 *
 * @module
 */
import { KubeControllerKitError } from '../util/errors.js';

/**
 * A label or field selector is malformed or names an invalid key or value.
 *
 * `input` is the text that was parsed (for selectors built from a set or a
 * `metav1.LabelSelector`, the rendered requirement that failed), and `position` is the
 * 0-based character offset of the problem in `input`, or -1 when the problem has no
 * position (a selector built from a structure rather than parsed from text).
 */
export class SelectorParseError extends KubeControllerKitError {
  /** The selector text (or rendered requirement) that was rejected. */
  readonly input: string;
  /** 0-based character offset of the problem in {@link SelectorParseError.input}, or -1. */
  readonly position: number;
  /** What is wrong, without the input and position (those are in the message too). */
  readonly problem: string;

  /**
   * @param kind - `label` or `field`, for the message.
   * @param input - the rejected text.
   * @param position - offset of the problem, or -1.
   * @param problem - what is wrong there.
   */
  constructor(kind: 'label' | 'field', input: string, position: number, problem: string) {
    super(
      position >= 0
        ? `invalid ${kind} selector ${JSON.stringify(input)} at position ${position}: ${problem}`
        : `invalid ${kind} selector ${JSON.stringify(input)}: ${problem}`,
    );
    this.input = input;
    this.position = position;
    this.problem = problem;
  }
}
