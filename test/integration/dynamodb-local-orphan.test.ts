import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** Whether a process with this id is still there. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('DynamoDB Local started by a tool', () => {
  it('goes with the process that started it when that process dies of an uncaught error', async () => {
    const module = pathToFileURL(join(__dirname, '../../local/dynamodb-local.ts')).href;
    // Starts a database, reports its JVM's pid, then dies without stopping it (as a bench does when the
    // reader of its output goes away).
    const script = `const { startDynamoDbLocal } = await import(${JSON.stringify(module)});
const database = await startDynamoDbLocal();
process.stdout.write(String(database.process.pid) + '\\n');
setImmediate(() => { throw new Error('gone'); });`;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).not.toBe(0);
    const pid = Number(stdout.trim());
    expect(pid).toBeGreaterThan(0);
    const deadline = Date.now() + 5000;
    while (alive(pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    const left = alive(pid);
    // A regression must not leave its JVM running beside the suite's.
    if (left) process.kill(pid, 'SIGKILL');
    expect(left).toBe(false);
  }, 120_000);
});
