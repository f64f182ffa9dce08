import type { Model, Operation, Partition } from './history';

/**
 * The Wing & Gong / Lowe linearizability search, as Porcupine runs it: depth first over the operations
 * that could take effect next (invoked before any not-yet-linearized operation returned), memoising each
 * (set of linearized operations, model state) already explored so no configuration is searched twice.
 * Indeterminate operations (`ret = Infinity`) stay candidates for ever and may be linearized at any later
 * point, or never affect anything visible: the model's `step` offers both outcomes.
 *
 * One optimisation on top: an operation that leaves the state as it is (a read whose answer fits the
 * current state) is linearized at once without branching. Taking it now can only relax the search (it
 * changes no state and its completion no longer bounds the others), so no linearization is lost.
 */
export type Verdict = 'ok' | 'violation' | 'unknown';

export interface CheckOptions {
  /** Give up (verdict `unknown`) after exploring this many configurations; default 2,000,000. */
  maxStates?: number;
}

export interface PartitionResult<S = unknown, I = unknown, O = unknown> {
  object: string;
  verdict: Verdict;
  /** Operations in the partition. */
  operations: number;
  /** Configurations explored (memo entries). */
  explored: number;
  ms: number;
  /** On a violation: the longest linearized prefix found, in order, and the state it leads to. */
  longest?: { order: Operation<I, O>[]; state: S };
  /** On a violation: the operations that could not be linearized after the longest prefix. */
  stuck?: Operation<I, O>[];
}

/** A deterministic 32-bit hash of an index (splitmix-style), for the linearized-set fingerprint. */
function mix(index: number, salt: number): number {
  let x = (index + 1) * 0x9e3779b1 + salt;
  x = Math.imul(x ^ (x >>> 16), 0x85ebca6b);
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35);
  return (x ^ (x >>> 16)) | 0;
}

interface Frame<S> {
  state: S;
  /** Index of the operation this frame linearized (-1 for the root). */
  applied: number;
  h1: number;
  h2: number;
  candidates?: number[];
  ci: number;
  nexts?: S[];
  ni: number;
}

/** Checks one partition: is there a sequential order, consistent with real time, that the model accepts? */
export function checkPartition<S, I, O>(
  partition: Partition<S, I, O>,
  options: CheckOptions = {},
): PartitionResult<S, I, O> {
  const started = performance.now();
  const maxStates = options.maxStates ?? 2_000_000;
  const model: Model<S, I, O> = partition.model;
  const ops = [...partition.operations].sort((a, b) => a.call - b.call || a.id - b.id);
  const n = ops.length;
  const z1 = Int32Array.from({ length: n }, (_, i) => mix(i, 0x1234567));
  const z2 = Int32Array.from({ length: n }, (_, i) => mix(i, 0x7654321));
  const done = new Uint8Array(n);
  const seen = new Set<string>();
  // An indeterminate operation's "it did not happen" needs no place in the order: it is the same as
  // leaving it out. So those that change nothing whatever happened (lost reads) are settled at once,
  // the others are only ever linearized for their effect, and the search succeeds once every
  // operation with an answer is linearized.
  const lost = (op: Operation<I, O>) => op.ret === Number.POSITIVE_INFINITY;
  ops.forEach((op, i) => {
    if (lost(op) && model.readOnly(op.input, op.output)) done[i] = 1;
  });
  const answered = ops.filter((op) => !lost(op)).length;
  let first = 0;
  let count = 0;
  let best = -1;
  let longest: { order: Operation<I, O>[]; state: S } | undefined;
  let stuckAt: number[] = [];

  const candidates = (state: S): number[] => {
    while (first < n && done[first]) first += 1;
    const found: number[] = [];
    let minRet = Number.POSITIVE_INFINITY;
    for (let i = first; i < n; i += 1) {
      if (done[i]) continue;
      const op = ops[i] as Operation<I, O>;
      if (op.call > minRet) break;
      found.push(i);
      if (op.ret < minRet) minRet = op.ret;
    }
    const ready = found.filter((i) => (ops[i] as Operation<I, O>).call <= minRet);
    const key = model.key(state);
    for (const i of ready) {
      const op = ops[i] as Operation<I, O>;
      if (lost(op) || !model.readOnly(op.input, op.output)) continue;
      const nexts = model.step(state, op.input, op.output);
      if (nexts.length > 0 && nexts.every((next) => model.key(next) === key)) return [i];
    }
    // Answered operations first: a lost write's effect is tried only where nothing else fits.
    return [
      ...ready.filter((i) => !lost(ops[i] as Operation<I, O>)),
      ...ready.filter((i) => lost(ops[i] as Operation<I, O>)),
    ];
  };

  const stack: Frame<S>[] = [{ state: partition.initial, applied: -1, h1: 0, h2: 0, ci: 0, ni: 0 }];
  let verdict: Verdict = 'violation';
  while (stack.length > 0) {
    const frame = stack[stack.length - 1] as Frame<S>;
    if (count === answered) {
      verdict = 'ok';
      break;
    }
    if (count > best) {
      best = count;
      longest = { order: stack.slice(1).map((f) => ops[f.applied] as Operation<I, O>), state: frame.state };
      frame.candidates = candidates(frame.state);
      // The answered operations that could come next here: on a violation, none of them can.
      stuckAt = frame.candidates.filter((i) => !lost(ops[i] as Operation<I, O>));
    }
    frame.candidates ??= candidates(frame.state);
    let pushed = false;
    while (!pushed) {
      if (frame.nexts !== undefined && frame.ni < frame.nexts.length) {
        const next = frame.nexts[frame.ni] as S;
        frame.ni += 1;
        const index = frame.candidates[frame.ci - 1] as number;
        const h1 = frame.h1 ^ (z1[index] as number);
        const h2 = frame.h2 ^ (z2[index] as number);
        const memo = `${h1}:${h2}:${model.key(next)}`;
        if (seen.has(memo)) continue;
        seen.add(memo);
        done[index] = 1;
        if (!lost(ops[index] as Operation<I, O>)) count += 1;
        stack.push({ state: next, applied: index, h1, h2, ci: 0, ni: 0 });
        pushed = true;
      } else if (frame.ci < frame.candidates.length) {
        const op = ops[frame.candidates[frame.ci] as number] as Operation<I, O>;
        frame.ci += 1;
        const nexts = model.step(frame.state, op.input, op.output);
        const unchanged = model.key(frame.state);
        frame.nexts = lost(op) ? nexts.filter((next) => model.key(next) !== unchanged) : nexts;
        frame.ni = 0;
      } else {
        stack.pop();
        if (frame.applied >= 0) {
          done[frame.applied] = 0;
          if (frame.applied < first) first = frame.applied;
          if (!lost(ops[frame.applied] as Operation<I, O>)) count -= 1;
        }
        break;
      }
    }
    if (seen.size > maxStates) {
      verdict = 'unknown';
      break;
    }
  }
  const result: PartitionResult<S, I, O> = {
    object: partition.object,
    verdict,
    operations: n,
    explored: seen.size,
    ms: performance.now() - started,
  };
  if (verdict === 'violation') {
    result.longest = longest;
    result.stuck = stuckAt.map((i) => ops[i] as Operation<I, O>);
  }
  return result;
}

/**
 * The smallest failing sub-history the checker can find without inventing anomalies: the shortest
 * prefix (by invocation time) that still fails, where operations still running at the cut become
 * indeterminate, then with every state-preserving operation (reads, refused writes) removed that is not
 * needed for the failure. Removing such an operation only removes constraints, so what is left fails
 * for the same reason the full history did.
 */
export function minimise<S, I, O>(
  partition: Partition<S, I, O>,
  options: CheckOptions = {},
): Partition<S, I, O> {
  // Each candidate is searched with a tenth of the budget: one the search cannot decide is kept as it
  // was (the result is less small, never wrong).
  const budget = { maxStates: Math.ceil((options.maxStates ?? 2_000_000) / 10) };
  const fails = (operations: Operation<I, O>[]) =>
    checkPartition({ ...partition, operations }, budget).verdict === 'violation';
  const sorted = [...partition.operations].sort((a, b) => a.call - b.call || a.id - b.id);
  // The first `length` operations (by invocation) with every operation invoked before the last of
  // them completed; those still running at that moment become indeterminate (their answer is unknown).
  const window = (length: number): Operation<I, O>[] => {
    const cut = Math.max(...sorted.slice(0, length).map((op) => (op.ret === Infinity ? op.call : op.ret)));
    return sorted
      .filter((op) => op.call <= cut)
      .map((op) =>
        op.ret > cut
          ? { ...op, ret: Number.POSITIVE_INFINITY, output: undefined, cut: op.ret !== Infinity }
          : op,
      );
  };
  let low = 1;
  let high = sorted.length;
  while (low < high) {
    const middle = Math.floor((low + high) / 2);
    if (fails(window(middle))) high = middle;
    else low = middle + 1;
  }
  let current = window(high);
  if (!fails(current)) current = sorted;
  // Drop state-preserving operations in halves, then quarters, ... down to one at a time (delta
  // debugging): a long window of reads costs a few dozen searches, not one per read.
  let removable = current.filter((op) => partition.model.readOnly(op.input, op.output));
  for (let size = Math.max(1, Math.ceil(removable.length / 2)); removable.length > 0; ) {
    const kept: Operation<I, O>[] = [];
    for (let start = 0; start < removable.length; start += size) {
      const chunk = new Set(removable.slice(start, start + size));
      const without = current.filter((op) => !chunk.has(op));
      if (without.length > 0 && fails(without)) current = without;
      else kept.push(...chunk);
    }
    removable = kept;
    if (size === 1) break;
    size = Math.max(1, Math.ceil(size / 2));
  }
  return { ...partition, operations: current };
}
