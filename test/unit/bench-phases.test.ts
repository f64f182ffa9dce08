import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  harnessFile,
  lambdaEnv,
  measureColdStart,
  measureEmptyFunction,
  medianPhases,
  phasesOf,
} from '../../bench/cold-start';
import { tailRatio } from '../../bench/local-server';

describe('cold-start phases', () => {
  it('splits a run at its timestamps, the exit being the wall time left after the answer', () => {
    expect(phasesOf([30, 70, 85, 90, 92], 100)).toEqual({
      boot: 30,
      init: 40,
      before_handler: 15,
      handler: 5,
      response: 2,
      exit: 8,
    });
  });

  it('takes the median of each phase on its own', () => {
    const runs = [
      phasesOf([30, 70, 85, 90, 92], 100),
      phasesOf([40, 90, 95, 99, 100], 110),
      phasesOf([35, 80, 100, 101, 103], 104),
    ];
    expect(medianPhases(runs)).toEqual({
      boot: 35,
      init: 45,
      before_handler: 15,
      handler: 4,
      response: 2,
      exit: 8,
    });
  });
});

describe('measureColdStart', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'cold-start-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** A middy function as the stack bundles one: `handler` behind `middleware`, errors mapped to a 404. */
  const bundle = (name: string, handler: string, middleware = '[]') => {
    const file = join(dir, `${name}.mjs`);
    const middy = pathToFileURL(require.resolve('@middy/core')).href;
    writeFileSync(
      file,
      `import middy from ${JSON.stringify(middy)};
export const handler = middy(${handler})
  .use(${middleware})
  .use({ onError: (request) => { request.response = { statusCode: 404 }; } });`,
    );
    return file;
  };

  it("times a handler that throws, its error mapped by the function's own middleware, with its phases", async () => {
    const file = bundle('throws', "async () => { throw new Error('not found'); }");
    const measured = await measureColdStart(file, () => ({}), 404, lambdaEnv(), 1);
    expect(measured.phases?.handler).toBeGreaterThanOrEqual(0);
    expect(measured.phases?.init).toBeGreaterThan(0);
  });

  it('fails a function that answers without running its handler: its figure would not be its work', async () => {
    const file = bundle(
      'short-circuit',
      'async () => ({ statusCode: 200 })',
      '{ before: () => ({ statusCode: 404 }) }',
    );
    await expect(measureColdStart(file, () => ({}), 404, lambdaEnv(), 1)).rejects.toThrow(
      /answered without running its handler/,
    );
  });
});

describe('the harness', () => {
  it('runs from a module file, the same one for the same harness', () => {
    const file = harnessFile();
    expect(file).toMatch(/\.mjs$/);
    expect(readFileSync(file, 'utf8')).toContain('await import(process.env.BENCH_BUNDLE)');
    expect(harnessFile()).toBe(file);
  });

  it('measures a function that does nothing: its handler is all it runs', async () => {
    const measured = await measureEmptyFunction(lambdaEnv(), 1);
    expect(measured.median_ms).toBeGreaterThan(0);
    expect(measured.phases?.before_handler).toBe(0);
    expect(measured.phases?.init).toBeGreaterThan(0);
  });
});

describe('lambdaEnv', () => {
  it("drops NODE_EXTRA_CA_CERTS, which a Lambda function's process does not have, and keeps the rest", () => {
    const env = {
      NODE_EXTRA_CA_CERTS: '/etc/ssl/certs/ca-certificates.crt',
      PATH: '/bin',
      AWS_REGION: 'us-east-1',
    };
    expect(lambdaEnv(env)).toEqual({ PATH: '/bin', AWS_REGION: 'us-east-1' });
    // The environment given is not changed.
    expect(env.NODE_EXTRA_CA_CERTS).toBe('/etc/ssl/certs/ca-certificates.crt');
  });
});

describe('tailRatio', () => {
  it('is p99 at the most connections over p50 at one', () => {
    const rows = [
      { connections: 1, p50_ms: 0.5, p99_ms: 1, rps: 1800 },
      { connections: 16, p50_ms: 3, p99_ms: 6, rps: 4000 },
      { connections: 64, p50_ms: 16, p99_ms: 30, rps: 4000 },
    ];
    expect(tailRatio(rows)).toBe(60);
    expect(tailRatio([])).toBeNaN();
  });
});
