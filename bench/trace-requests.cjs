/*
 * A preload that records every HTTP request a measured process sends (DynamoDB Local's and the object
 * store's, through lib/store/http1.ts, which publishes each on a diagnostics channel; a webhook's, through
 * `http.request`), for counting what a cold invocation waits on (bench/request-depth.ts). One line a request,
 * appended to the file REQUEST_TRACE names once its answer has been read: the bundle, the process id,
 * the method, the operation (DynamoDB's `X-Amz-Target`, or the object store's path without its query)
 * and when it was sent and answered (ms since the process started). Used only through
 * BENCH_COLD_NODE_ARGS (see bench/request-depth.ts); never loaded by the service.
 */
const http = require('node:http');
const fs = require('node:fs');
const { performance } = require('node:perf_hooks');

const file = process.env.REQUEST_TRACE;
if (file) {
  const out = fs.openSync(file, 'a');
  const bundle = (process.env.BENCH_BUNDLE ?? '').split('/').pop() || 'process';
  // lib/store/http1.ts's requests (DynamoDB, Step Functions, SQS, S3): both phases carry the same request object.
  const started = new WeakMap();
  require('node:diagnostics_channel').subscribe('commerce-api.http1', ({ phase, request }) => {
    if (phase === 'start') {
      started.set(request, performance.now());
      return;
    }
    const operation = request.target ? String(request.target).split('.').pop() : request.path.split('?')[0];
    const line = [bundle, process.pid, request.method, operation, started.get(request), performance.now()];
    fs.writeSync(out, `${JSON.stringify(line)}\n`);
  });
  const send = http.request;
  http.request = function request(...args) {
    const sent = performance.now();
    const req = send.apply(this, args);
    const options = typeof args[0] === 'object' && !(args[0] instanceof URL) ? args[0] : {};
    const headers = options.headers ?? {};
    const target = headers['x-amz-target'] ?? headers['X-Amz-Target'];
    const operation = target ? String(target).split('.').pop() : String(options.path ?? '').split('?')[0];
    req.on('response', (response) => {
      response.on('end', () => {
        const line = [bundle, process.pid, options.method ?? 'GET', operation, sent, performance.now()];
        fs.writeSync(out, `${JSON.stringify(line)}\n`);
      });
    });
    return req;
  };
}
