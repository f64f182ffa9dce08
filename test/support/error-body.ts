import type { InvokeResult } from './fixtures';

/**
 * Expects the response to be exactly one error of `status`: its detail `detail` (or matching it), its
 * `source` (none when undefined), a title and the request id.
 */
export function expectErrorBody(res: InvokeResult, status: number, detail: string | RegExp, source?: string) {
  expect(res.status).toBe(status);
  expect(res.body.errors).toEqual([
    {
      status: String(status),
      title: expect.any(String),
      detail: typeof detail === 'string' ? detail : expect.stringMatching(detail),
      ...(source === undefined ? {} : { source }),
      request_id: expect.any(String),
    },
  ]);
}
