// A sequential specification the checker holds a history against: a pure state machine over immutable states.

import type { Operation } from "./history.ts";

/**
 * Model is a sequential object. States are immutable values: step returns a new state and never changes its
 * argument, because the search keeps old states to backtrack to.
 */
export interface Model<S, I, O> {
  /** init returns the state before any operation. */
  init(): S;
  /**
   * step applies one operation to `state`. `output` is what the caller saw, or undefined when the outcome is
   * unknown (then any output is accepted and only the effect matters). It returns the next state, or
   * undefined when `output` is impossible from `state`.
   */
  step(state: S, input: I, output: O | undefined): S | undefined;
  /** key identifies a state: two states with the same key behave alike for every future operation. */
  key(state: S): string;
  /**
   * partition splits a history into sub-histories that can be checked separately. It is sound only when the
   * model is a product of independent objects and every part holds all operations on its objects
   * (linearizability is local: Herlihy & Wing 1990, Theorem 1). Without it the history is one part.
   */
  partition?(ops: readonly Operation<I, O>[]): Operation<I, O>[][];
  /** readOnly says an input never changes the state: such an operation with an unknown outcome is dropped. */
  readOnly?(input: I): boolean;
  /** describe renders an operation for failure reports. */
  describe?(input: I, output: O | undefined): string;
  /** describeState renders a state for failure reports. */
  describeState?(state: S): string;
}
