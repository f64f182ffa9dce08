import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { createLambdaContext } from '../local/http-event';
import { loadHandler } from '../local/router';
import { measurePair, round } from './support';

export interface OperationFigures {
  p50_ms: number;
  p99_ms: number;
  db_p50_ms: number;
  ratio: number;
}

/** One operation to time: its handler with a realistic event, and the raw DynamoDB calls it needs. */
export interface OperationBench {
  function: string;
  /** A fresh event per call (e.g. alternating prefixes so every update really writes). */
  event(call: number): APIGatewayProxyEventV2;
  expectStatus: number;
  /** The same DynamoDB requests the operation makes, issued directly (the physical floor). */
  raw(call: number): Promise<unknown>;
}

/**
 * In-process p50/p99 of the handler (warm container: imported once, warmed up) against the p50 of
 * its raw DynamoDB calls, timed in alternation in the same run. `ratio` = p50 / db_p50.
 */
export async function benchOperation(
  op: OperationBench,
  iterations: number,
  warmup = 30,
): Promise<OperationFigures> {
  const handler = await loadHandler(op.function);
  const context = createLambdaContext(op.function);
  let handlerCalls = 0;
  let rawCalls = 0;
  const [viaHandler, viaRaw] = await measurePair(
    async () => {
      const result = (await handler(op.event(handlerCalls), context)) as {
        statusCode: number;
        body?: string;
      };
      handlerCalls += 1;
      if (result.statusCode !== op.expectStatus) {
        throw new Error(`${op.function} answered ${result.statusCode}: ${result.body?.slice(0, 300)}`);
      }
    },
    async () => {
      await op.raw(rawCalls);
      rawCalls += 1;
    },
    iterations,
    warmup,
  );
  return {
    p50_ms: viaHandler.p50_ms,
    p99_ms: viaHandler.p99_ms,
    db_p50_ms: viaRaw.p50_ms,
    ratio: round(viaHandler.p50_ms / viaRaw.p50_ms, 3),
  };
}
