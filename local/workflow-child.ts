import { runWorkflowLocally } from '../lib/catalog/pipeline/run-local';
import type { ReleaseExecutionInput } from '../lib/catalog/pipeline/workflow';
import { getConfig } from '../lib/config/index';
import { registerLocalDeliveryQueue } from '../lib/integrations/queue';
import { pcmRepository } from '../lib/store/pcm-repository';
import type { WorkflowProcessMessage } from './workflow-process';

/**
 * A release's publishing workflow in a process of its own (local/workflow-process.ts forks it through
 * workflow-child.mjs, the release's input as its argument): the steps as the local harness runs them, their
 * heap bounded by the process's limit. The webhook events the steps emit go to the parent's deliveries
 * queue (this process only sends them: deliveries run where the queue is); then the release's end state,
 * after the process's peak RSS is recorded on the release (`workflow_peak_rss_mb`).
 */
const post = (message: WorkflowProcessMessage) =>
  new Promise<void>((resolve, reject) => {
    if (!process.connected || process.send === undefined) resolve();
    else process.send(message, (error: Error | null) => (error ? reject(error) : resolve()));
  });
// This process lives as long as the one that started it: a tool interrupted (it fails the release itself,
// and a terminal's Ctrl-C reaches both processes: this one leaves the handling to it), or a server stopped,
// ends its workflow too.
process.on('SIGINT', () => undefined);
process.on('disconnect', () => process.exit(1));
registerLocalDeliveryQueue({
  send: (body) => {
    post({ delivery: body }).catch(() => undefined);
  },
  delay: () => {
    throw new Error(
      "the workflow's process sends webhook events; deliveries run in the process that started it",
    );
  },
});
const input = JSON.parse(process.argv[2] ?? '') as ReleaseExecutionInput;
const state = await runWorkflowLocally(input, { concurrency: getConfig().releaseWriters });
const peak = Math.round(process.resourceUsage().maxRSS / 1024);
await pcmRepository
  .updateRelease(input.store_id, input.catalog_id, input.release_id, { workflow_peak_rss_mb: peak })
  .catch(() => undefined);
await post({ state });
// Keep-alive sockets would hold the process open: its work is done.
process.exit(0);
