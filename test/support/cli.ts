import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '../..');

/** Runs a local CLI (`local/<script>.ts` through tsx, as `npm run` does) against the test tables. */
export function runCli(
  script: string,
  ...args: string[]
): { status: number | null; stdout: string; stderr: string } {
  return runCliWith(process.env, script, ...args);
}

/** `runCli` with the given environment. */
export function runCliWith(
  env: NodeJS.ProcessEnv,
  script: string,
  ...args: string[]
): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(join(ROOT, 'node_modules/.bin/tsx'), [`local/${script}.ts`, ...args], {
    cwd: ROOT,
    env,
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}
