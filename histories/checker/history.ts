/**
 * A concurrent history: every operation one client invoked, with when it was invoked, when its response
 * arrived and what the response said. An operation whose response never arrived (lost, or the client gave
 * up waiting) has `ret = Infinity` and `output = undefined`: it may or may not have taken effect, at any
 * time after its invocation, and the checker must allow both.
 */
export interface Operation<I = unknown, O = unknown> {
  /** Unique within the history; the order operations were recorded in. */
  id: number;
  /** The client (one sequential caller) that invoked it. */
  client: number;
  /** Invocation time (ms since the run started). */
  call: number;
  /** Completion time; Infinity when the response was lost or timed out. */
  ret: number;
  input: I;
  /** The response; undefined exactly when `ret` is Infinity. */
  output: O | undefined;
  /**
   * Set on operations a reduced sub-history cut short: they were still running where it ends, so
   * their answer is treated as unknown there (they were not lost in the run).
   */
  cut?: boolean;
}

/** Whether the operation's outcome is unknown (its response was lost or timed out). */
export function isIndeterminate(op: Operation): boolean {
  return op.output === undefined;
}

/**
 * A sequential specification of one object. `step` returns every state the object can be in after
 * applying `input` in `state` and answering `output`; an empty array means that answer is impossible
 * there. With `output` undefined (an indeterminate operation) it must return the states for every
 * answer the operation could have had, always including the unchanged state ("it did not happen").
 */
export interface Model<S, I, O> {
  /** Model name, shown in reports. */
  name: string;
  step(state: S, input: I, output: O | undefined): S[];
  /** A string that is equal for equal states (memoisation key). */
  key(state: S): string;
  /**
   * True when the operation changes no state whatever the state (a read, or a failed write): such
   * operations can be left out of a failing sub-history without creating a new anomaly.
   */
  readOnly(input: I, output: O | undefined): boolean;
  /** One line describing the operation, for reports. */
  describe(input: I, output: O | undefined): string;
  /** One line describing a state, for reports. */
  describeState(state: S): string;
}

/** One object's share of a history: its model, its initial state and its operations. */
export interface Partition<S = unknown, I = unknown, O = unknown> {
  /** Object name, e.g. `key:<id>` or `mappings`. */
  object: string;
  model: Model<S, I, O>;
  initial: S;
  operations: Operation<I, O>[];
}
