import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '../..');

interface CliRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a local CLI (`local/<script>.ts` through tsx, as `npm run` does) against the test tables. */
export function runCli(script: string, ...args: string[]): CliRun {
  return runCliWith(process.env, script, ...args);
}

/** `runCli` with the given environment. */
export function runCliWith(env: NodeJS.ProcessEnv, script: string, ...args: string[]): CliRun {
  const result = spawnSync(join(ROOT, 'node_modules/.bin/tsx'), [`local/${script}.ts`, ...args], {
    cwd: ROOT,
    env,
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/**
 * `runCliWith` without blocking this process, for tools that use the run's object store: the global setup
 * serves it from jest's own process, which runs the tests too when one file is run (in band), so a
 * synchronous spawn there would wait forever on a CLI waiting for it.
 */
export function runCliAsync(
  env: NodeJS.ProcessEnv,
  script: string,
  args: string[],
  options: { timeoutMs?: number } = {},
): Promise<CliRun> {
  return runScriptAsync(env, `local/${script}.ts`, args, options);
}

/** `runCliAsync` for any script of the repository (`fuzz/run.ts`...), by its path from the root. */
export function runScriptAsync(
  env: NodeJS.ProcessEnv,
  path: string,
  args: string[],
  options: { timeoutMs?: number } = {},
): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(join(ROOT, 'node_modules/.bin/tsx'), [path, ...args], {
      cwd: ROOT,
      env,
      timeout: options.timeoutMs ?? 60_000,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.once('error', reject);
    // 'close', not 'exit': the output is complete only then.
    child.once('close', (status) => resolve({ status, stdout, stderr }));
  });
}
