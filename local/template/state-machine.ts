import { TemplateError, type TemplateStateMachine } from './template';

/*
 * Runs a state machine of the template (its Amazon States Language definition, as `cdk deploy` creates it)
 * over the template's function bundles: what `--from-template` does where AWS would start an execution, so
 * that the order of the states, their Choice rules, Retry and Catch, ResultPaths and the Map's ItemSelector
 * are the deployed definition's, not a copy of it. Only what the stack's definitions use is understood:
 * Task states that invoke a function, Choice on BooleanEquals or StringEquals, a Map over a JSON Lines
 * object in S3, Succeed and Fail, reference paths (`$.a.b`, `$$.Map.Item.Value`). `checkDefinition` refuses
 * anything else by name when the server starts, rather than running it differently. Not modelled: the
 * execution's TimeoutSeconds, and a Map's child executions are iterations of this process.
 */

type Json = Record<string, unknown>;

interface Retrier {
  ErrorEquals: string[];
  IntervalSeconds?: number;
  MaxAttempts?: number;
  BackoffRate?: number;
  MaxDelaySeconds?: number;
  JitterStrategy?: 'FULL' | 'NONE';
}

interface Catcher {
  ErrorEquals: string[];
  ResultPath?: string | null;
  Next: string;
}

interface ChoiceRule {
  Variable: string;
  BooleanEquals?: boolean;
  StringEquals?: string;
  Next: string;
}

interface State {
  Type: 'Task' | 'Map' | 'Choice' | 'Succeed' | 'Fail';
  Next?: string;
  End?: boolean;
  Resource?: string;
  Retry?: Retrier[];
  Catch?: Catcher[];
  ResultPath?: string | null;
  Choices?: ChoiceRule[];
  Default?: string;
  Error?: string;
  Cause?: string;
  ItemReader?: { Resource: string; ReaderConfig: { InputType: string }; Parameters: Json };
  ItemSelector?: Json;
  ItemProcessor?: Machine & { ProcessorConfig?: Json };
  MaxConcurrency?: number;
}

interface Machine {
  StartAt: string;
  States: Record<string, State>;
}

/** An error as the state machine sees it: a name Retry and Catch match, and its cause. */
export class StatesError extends Error {
  override name = 'StatesError';
  constructor(
    readonly error: string,
    override readonly cause: string,
  ) {
    super(`${error}: ${cause}`);
  }
}

export interface StateMachineDeps {
  /** Invokes the template function a Task names with the state's JSON; a StatesError when it fails. */
  invoke(functionName: string, input: unknown): Promise<unknown>;
  /** The items of a JSON Lines object (a Map's ItemReader). */
  readJsonLines(bucket: string, key: string): Promise<unknown[]>;
  /** Map iterations at once at most (the Map's own MaxConcurrency bounds them too). */
  mapConcurrency: number;
  /** Waits before a retry. */
  sleep(ms: number): Promise<void>;
}

export interface ExecutionResult {
  status: 'SUCCEEDED' | 'FAILED';
  output?: unknown;
  error?: string;
  cause?: string;
}

const FUNCTION_ARN = /^arn:aws:lambda:[^:]*:\d+:function:([\w-]+)$/;
const S3_GET_OBJECT = /^arn:[\w-]+:states:::s3:getObject$/;
const PATH = /^\$\$?(?:\.[A-Za-z_][\w-]*)*$/;

/** What each state type may hold here: a field outside these is refused by `checkDefinition`. */
const FIELDS: Record<State['Type'], string[]> = {
  Task: ['Type', 'Comment', 'Next', 'End', 'Resource', 'Retry', 'Catch', 'ResultPath'],
  Map: [
    'Type',
    'Comment',
    'Next',
    'End',
    'ItemReader',
    'ItemSelector',
    'ItemProcessor',
    'MaxConcurrency',
    'Label',
    'Retry',
    'Catch',
    'ResultPath',
  ],
  Choice: ['Type', 'Comment', 'Choices', 'Default'],
  Succeed: ['Type', 'Comment'],
  Fail: ['Type', 'Comment', 'Error', 'Cause'],
};
const RETRIER_FIELDS = [
  'ErrorEquals',
  'IntervalSeconds',
  'MaxAttempts',
  'BackoffRate',
  'MaxDelaySeconds',
  'JitterStrategy',
];
const CATCHER_FIELDS = ['ErrorEquals', 'ResultPath', 'Next'];
const CHOICE_FIELDS = ['Variable', 'BooleanEquals', 'StringEquals', 'Next'];

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The name of the template function a Task's Resource (`localFunctionArn`) invokes. */
function functionOf(resource: string | undefined): string | undefined {
  return FUNCTION_ARN.exec(resource ?? '')?.[1];
}

/**
 * Checks that a definition uses only what this runner understands and that its Tasks name functions of the
 * template; a TemplateError names the first state and field that does not.
 */
export function checkDefinition(definition: Json, where: string, functions: ReadonlySet<string>): void {
  const fail = (what: string) => {
    throw new TemplateError(`${where}: ${what} (the template server's workflow runner does not run it)`);
  };
  const only = (value: unknown, fields: string[], what: string) => {
    if (!isObject(value)) fail(`${what} is not an object`);
    const other = Object.keys(value as Json).find((field) => !fields.includes(field));
    if (other !== undefined) fail(`${what} has ${other}`);
  };
  const path = (value: unknown, what: string) => {
    if (typeof value !== 'string' || !PATH.test(value)) fail(`${what} is not a plain reference path`);
  };
  const template = (value: unknown, what: string) => {
    if (!isObject(value)) return;
    for (const [key, entry] of Object.entries(value)) {
      if (key.endsWith('.$')) path(entry, `${what}.${key}`);
      else template(entry, `${what}.${key}`);
    }
  };
  const machine = (value: unknown, at: string, fields: string[]) => {
    only(value, ['StartAt', 'States', 'Comment', ...fields], at);
    const { StartAt, States } = value as Machine;
    if (!isObject(States) || States[StartAt] === undefined) fail(`${at}: StartAt names no state`);
    const target = (name: unknown, what: string) => {
      if (typeof name !== 'string' || States[name] === undefined) fail(`${what} names no state`);
    };
    for (const [name, state] of Object.entries(States)) {
      const what = `${at}.${name}`;
      const fields = FIELDS[state.Type];
      if (fields === undefined) fail(`${what} is a ${String(state.Type)} state`);
      only(state, fields, what);
      if (fields.includes('Next') && (state.End === true) === (state.Next !== undefined)) {
        fail(`${what} needs one of Next and End`);
      }
      if (state.Next !== undefined) target(state.Next, `${what}.Next`);
      if (state.ResultPath !== undefined && state.ResultPath !== null)
        path(state.ResultPath, `${what}.ResultPath`);
      for (const retrier of state.Retry ?? []) only(retrier, RETRIER_FIELDS, `${what}.Retry`);
      for (const catcher of state.Catch ?? []) {
        only(catcher, CATCHER_FIELDS, `${what}.Catch`);
        target(catcher.Next, `${what}.Catch.Next`);
        if (catcher.ResultPath != null) path(catcher.ResultPath, `${what}.Catch.ResultPath`);
      }
      if (state.Type === 'Task') {
        const fn = functionOf(state.Resource);
        if (fn === undefined || !functions.has(fn))
          fail(`${what}.Resource is not a function of the template`);
      }
      if (state.Type === 'Choice') {
        for (const rule of state.Choices ?? []) {
          only(rule, CHOICE_FIELDS, `${what}.Choices`);
          path(rule.Variable, `${what}.Choices.Variable`);
          if ('BooleanEquals' in rule === 'StringEquals' in rule) {
            fail(`${what}.Choices needs one of BooleanEquals and StringEquals`);
          }
          target(rule.Next, `${what}.Choices.Next`);
        }
        if (state.Default !== undefined) target(state.Default, `${what}.Default`);
      }
      if (state.Type === 'Map') {
        const reader = state.ItemReader;
        only(reader, ['Resource', 'ReaderConfig', 'Parameters'], `${what}.ItemReader`);
        if (!S3_GET_OBJECT.test(String(reader?.Resource))) fail(`${what}.ItemReader reads no S3 object`);
        if (reader?.ReaderConfig?.InputType !== 'JSONL') fail(`${what}.ItemReader reads no JSON Lines`);
        only(reader?.ReaderConfig, ['InputType'], `${what}.ItemReader.ReaderConfig`);
        only(reader?.Parameters, ['Bucket', 'Key', 'Key.$'], `${what}.ItemReader.Parameters`);
        template(reader?.Parameters, `${what}.ItemReader.Parameters`);
        template(state.ItemSelector, `${what}.ItemSelector`);
        machine(state.ItemProcessor, `${what}.ItemProcessor`, ['ProcessorConfig']);
      }
    }
  };
  machine(definition, where, ['TimeoutSeconds']);
}

/** The value at a reference path of the state's data (`$...`) or of the context object (`$$...`). */
function read(path: string, data: unknown, context: Json): unknown {
  let value: unknown = path.startsWith('$$') ? context : data;
  for (const step of path
    .replace(/^\$\$?/, '')
    .split('.')
    .slice(1)) {
    if (!isObject(value) || !(step in value)) {
      throw new StatesError('States.Runtime', `The JSONPath '${path}' could not be found in the input`);
    }
    value = value[step];
  }
  return value;
}

/** A payload template (`Parameters`, `ItemSelector`) filled in: `"key.$": path` takes the value at the path. */
function fill(template: Json, data: unknown, context: Json): Json {
  const filled: Json = {};
  for (const [key, value] of Object.entries(template)) {
    if (key.endsWith('.$')) filled[key.slice(0, -2)] = read(value as string, data, context);
    else filled[key] = isObject(value) ? fill(value, data, context) : value;
  }
  return filled;
}

/** The state's output: its input with `result` at `path` (`$`: the result alone; null: the input alone). */
function place(data: unknown, path: string | null | undefined, result: unknown): unknown {
  if (path === null) return data;
  if (path === undefined || path === '$') return result;
  const steps = path.split('.').slice(1);
  const root: Json = isObject(data) ? { ...data } : {};
  let node = root;
  steps.forEach((step, n) => {
    if (n === steps.length - 1) {
      node[step] = result;
      return;
    }
    const child: Json = isObject(node[step]) ? { ...(node[step] as Json) } : {};
    node[step] = child;
    node = child;
  });
  return root;
}

/** Whether an ErrorEquals list takes an error: States.ALL any but a runtime error, States.TaskFailed any but a timeout. */
function matches(names: string[], error: string): boolean {
  if (error === 'States.Runtime') return false;
  return names.some(
    (name) =>
      name === error || name === 'States.ALL' || (name === 'States.TaskFailed' && error !== 'States.Timeout'),
  );
}

/** The wait before retry number `attempt` (1, 2, ...). */
function backoff(retrier: Retrier, attempt: number): number {
  const seconds = Math.min(
    (retrier.IntervalSeconds ?? 1) * (retrier.BackoffRate ?? 2) ** (attempt - 1),
    retrier.MaxDelaySeconds ?? Number.POSITIVE_INFINITY,
  );
  return 1000 * (retrier.JitterStrategy === 'FULL' ? Math.random() * seconds : seconds);
}

async function withRetries<T>(state: State, deps: StateMachineDeps, run: () => Promise<T>): Promise<T> {
  const retriers = state.Retry ?? [];
  const attempts = retriers.map(() => 0);
  for (;;) {
    try {
      return await run();
    } catch (error) {
      if (!(error instanceof StatesError)) throw error;
      const n = retriers.findIndex((retrier) => matches(retrier.ErrorEquals, error.error));
      const retrier = retriers[n];
      if (retrier === undefined || (attempts[n] ?? 0) >= (retrier.MaxAttempts ?? 3)) throw error;
      attempts[n] = (attempts[n] ?? 0) + 1;
      await deps.sleep(backoff(retrier, attempts[n] ?? 1));
    }
  }
}

function choose(name: string, state: State, data: unknown): string {
  for (const rule of state.Choices ?? []) {
    const value = read(rule.Variable, data, {});
    if ('BooleanEquals' in rule ? value === rule.BooleanEquals : value === rule.StringEquals)
      return rule.Next;
  }
  if (state.Default === undefined)
    throw new StatesError('States.NoChoiceMatched', `no choice of ${name} matched`);
  return state.Default;
}

/** A Map: its items read from S3, each through the item processor, at most `limit` at once; the first failure fails it. */
async function runMap(state: State, data: unknown, deps: StateMachineDeps): Promise<unknown[]> {
  const reader = state.ItemReader as NonNullable<State['ItemReader']>;
  const { Bucket, Key } = fill(reader.Parameters, data, {}) as { Bucket: string; Key: string };
  let items: unknown[];
  try {
    items = await deps.readJsonLines(Bucket, Key);
  } catch (error) {
    throw new StatesError('States.ItemReaderFailed', (error as Error).message);
  }
  const limit = Math.min(state.MaxConcurrency || Number.POSITIVE_INFINITY, deps.mapConcurrency);
  const results: unknown[] = [];
  let next = 0;
  let failure: StatesError | undefined;
  const iterate = async () => {
    while (failure === undefined && next < items.length) {
      const index = next++;
      const value = items[index];
      const input = state.ItemSelector
        ? fill(state.ItemSelector, data, { Map: { Item: { Value: value, Index: index } } })
        : value;
      try {
        results[index] = await runStates(state.ItemProcessor as Machine, input, deps);
      } catch (error) {
        if (!(error instanceof StatesError)) throw error;
        failure ??= new StatesError(
          'States.ExceedToleratedFailureThreshold',
          `item ${index} failed (${error.error}: ${error.cause}), and no failure is tolerated`,
        );
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, iterate));
  if (failure) throw failure;
  return results;
}

async function runStates(machine: Machine, input: unknown, deps: StateMachineDeps): Promise<unknown> {
  let name = machine.StartAt;
  let data = input;
  for (;;) {
    const state = machine.States[name] as State;
    if (state.Type === 'Succeed') return data;
    if (state.Type === 'Fail') throw new StatesError(state.Error ?? 'States.Fail', state.Cause ?? '');
    if (state.Type === 'Choice') {
      name = choose(name, state, data);
      continue;
    }
    let next: string | undefined;
    try {
      const before = data;
      const result = await withRetries(state, deps, () =>
        state.Type === 'Map'
          ? runMap(state, before, deps)
          : deps.invoke(functionOf(state.Resource) as string, before),
      );
      data = place(before, state.ResultPath, result);
      next = state.Next;
    } catch (error) {
      const catcher =
        error instanceof StatesError
          ? state.Catch?.find((c) => matches(c.ErrorEquals, error.error))
          : undefined;
      if (catcher === undefined) throw error;
      const { error: code, cause } = error as StatesError;
      data = place(data, catcher.ResultPath, { Error: code, Cause: cause });
      next = catcher.Next;
    }
    if (next === undefined) return data;
    name = next;
  }
}

/** Runs one execution to its end: SUCCEEDED with its output, or FAILED with the error that ended it. */
export async function runStateMachine(
  definition: Json,
  input: unknown,
  deps: StateMachineDeps,
): Promise<ExecutionResult> {
  try {
    return { status: 'SUCCEEDED', output: await runStates(definition as unknown as Machine, input, deps) };
  } catch (error) {
    if (!(error instanceof StatesError)) throw error;
    return { status: 'FAILED', error: error.error, cause: error.cause };
  }
}

/**
 * The executions of one state machine, started in the background as StartExecution does. `stop` lets
 * what is running end at its next step (a retry's wait ends at once) and waits for it.
 */
export class StateMachineRunner {
  private readonly running = new Set<Promise<void>>();
  private readonly wakers = new Set<() => void>();
  private stopped = false;

  constructor(
    readonly machine: TemplateStateMachine,
    private readonly deps: Omit<StateMachineDeps, 'sleep'>,
    /** Told each execution's end (an error of the runner itself as a FAILED `States.Runtime`), unless stopped. */
    private readonly onEnd: (result: ExecutionResult) => void,
  ) {}

  start(input: unknown): void {
    if (this.stopped) return;
    const deps: StateMachineDeps = {
      ...this.deps,
      invoke: async (name, payload) => {
        if (this.stopped) throw new Error('the template server stopped');
        return this.deps.invoke(name, payload);
      },
      sleep: (ms) =>
        new Promise<void>((resolve) => {
          const wake = () => {
            clearTimeout(timer);
            this.wakers.delete(wake);
            resolve();
          };
          const timer = setTimeout(wake, ms);
          this.wakers.add(wake);
        }),
    };
    const execution: Promise<void> = runStateMachine(this.machine.definition, input, deps)
      .then(this.onEnd, (error: unknown) => {
        // Stopped: the execution ends where it was, as a deleted stack's would.
        if (!this.stopped) this.onEnd({ status: 'FAILED', error: 'States.Runtime', cause: String(error) });
      })
      .finally(() => this.running.delete(execution));
    this.running.add(execution);
  }

  /** Resolves once no execution is running. */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const wake of [...this.wakers]) wake();
    await this.idle();
  }
}
