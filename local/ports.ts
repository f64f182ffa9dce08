import { createServer } from 'node:net';

/**
 * The ports `npm start` serves on, read and checked the same way for all three: a number from 1 to
 * 65535 (the default when unset), free on 127.0.0.1 before anything starts, one message when taken.
 */

export type PortVariable = 'PORT' | 'DYNAMODB_PORT' | 'S3_PORT';

export const DEFAULT_PORTS: Readonly<Record<PortVariable, number>> = {
  PORT: 3000,
  DYNAMODB_PORT: 8000,
  S3_PORT: 9000,
};

/** What else may be done when the port is taken: use the server already there, by its URL. */
const INSTEAD: Readonly<Record<PortVariable, string>> = {
  PORT: '',
  DYNAMODB_PORT: ', or DYNAMODB_ENDPOINT to use the database already there',
  S3_PORT: ', or S3_ENDPOINT to use the object store already there',
};

/** A port variable that is not a port number (the message names it and what it got). */
export class PortSettingError extends Error {
  override name = 'PortSettingError';
}

/** The port `name` sets in `env` (its default when unset or empty); PortSettingError when not a port number. */
export function portFrom(name: PortVariable, env: NodeJS.ProcessEnv = process.env): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return DEFAULT_PORTS[name];
  const port = Number(raw);
  if (!/^\d{1,5}$/.test(raw) || port < 1 || port > 65535)
    throw new PortSettingError(`${name} must be a port number from 1 to 65535, got '${raw}'`);
  return port;
}

/** What to say when the port of `name` is taken. */
export function portInUseMessage(port: number, name: PortVariable): string {
  return `port ${port} (${name}) is already in use: set ${name} to another port${INSTEAD[name]}`;
}

/** True when nothing listens on the port of 127.0.0.1 (or on every address): a server could take it now. */
export function portFree(port: number): Promise<boolean> {
  return new Promise((done) => {
    const probe = createServer();
    probe.once('error', () => done(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => done(true)));
  });
}

/**
 * The first problem with the ports about to be used, or undefined: one port given to two variables (a
 * usage error), or a port already taken.
 */
export async function portsProblem(
  ports: Partial<Record<PortVariable, number>>,
): Promise<{ usage: boolean; message: string } | undefined> {
  const entries = Object.entries(ports) as [PortVariable, number][];
  for (const [index, [name, port]] of entries.entries()) {
    const same = entries.slice(index + 1).find(([, other]) => other === port);
    if (same)
      return { usage: true, message: `${name} and ${same[0]} are both ${port}: give each its own port` };
  }
  for (const [name, port] of entries) {
    if (!(await portFree(port))) return { usage: false, message: portInUseMessage(port, name) };
  }
  return undefined;
}
