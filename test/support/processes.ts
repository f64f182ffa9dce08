import type { ChildProcess } from 'node:child_process';

/**
 * Kills a child spawned with `detached: true` and everything it started (its process group): the tsx
 * wrapper, the node process it runs and that process's DynamoDB Local. Killing only the wrapper would
 * leave the other two running when a test fails before its own graceful stop.
 */
export function killProcessGroup(child: ChildProcess | undefined): void {
  if (!child?.pid || child.exitCode !== null) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    child.kill('SIGKILL');
  }
}
