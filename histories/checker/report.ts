import type { Operation, Partition } from './history';
import type { RevocationViolation } from './revocation';
import { checkPartition, minimise, type PartitionResult } from './wgl';

/** One anomaly: a partition with no linearization, reduced to a small failing sub-history. */
export interface Anomaly {
  object: string;
  model: string;
  /** Operations of the whole partition, and of the failing sub-history. */
  operations: number;
  minimal: Operation[];
  /** The longest order of the sub-history the search could linearize, and its final state. */
  linearized: Operation[];
  state: string;
  /** Operations none of which could come next. */
  stuck: Operation[];
  /**
   * The highest operation id (ids count invocations) in the failing sub-history: the run had failed
   * by the time that many operations were invoked.
   */
  caughtAt: number;
  lines: string[];
  describe: (op: Operation) => string;
}

const ms = (t: number) => (t === Number.POSITIVE_INFINITY ? 'never (lost)' : `${t.toFixed(1)} ms`);

/** Reduces a failing partition and describes it. */
export function explain(partition: Partition, full: PartitionResult): Anomaly {
  const reduced = minimise(partition);
  const again = checkPartition(reduced);
  const model = partition.model;
  const describe = (op: Operation) => model.describe(op.input, op.output);
  const linearized = again.longest?.order ?? [];
  const stuck = again.stuck ?? [];
  const lines = [
    `${partition.object} (${model.name}): no linearization of ${full.operations} operations; a failing sub-history of ${reduced.operations.length}:`,
    ...[...reduced.operations]
      .sort((a, b) => a.call - b.call)
      .map(
        (op) =>
          `  #${op.id} client ${op.client}  ${ms(op.call)} .. ${op.cut ? 'still running at the cut' : ms(op.ret)}  ${describe(op)}${stuck.includes(op) ? '   <- cannot be linearized here' : ''}`,
      ),
    `  longest linearizable order: ${linearized.map((op) => `#${op.id}`).join(' ') || '(none)'}`,
    `  state after it: ${again.longest ? model.describeState(again.longest.state) : model.describeState(partition.initial)}`,
  ];
  return {
    object: partition.object,
    model: model.name,
    operations: full.operations,
    minimal: reduced.operations,
    linearized,
    state: again.longest ? model.describeState(again.longest.state) : model.describeState(partition.initial),
    stuck,
    caughtAt: Math.max(...reduced.operations.map((op) => op.id)),
    lines,
    describe,
  };
}

export function describeRevocation(violation: RevocationViolation): string {
  return (
    `store ${violation.write.store}: write #${violation.write.id} invoked at ${ms(violation.write.call)} with a token of key ` +
    `${violation.write.tokenKey} succeeded, but delete #${violation.deletion.id} of that key completed at ${ms(violation.deletion.ret)}`
  );
}

const escapeHtml = (text: string) =>
  text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c] as string);

/**
 * An SVG timeline of an anomaly's operations: one lane per client, each operation a bar from its
 * invocation to its completion (dashed to the edge when its answer was lost), the operations that could
 * not be linearized in red, those of the longest linearizable order numbered by their place in it.
 */
export function timelineSvg(anomaly: Anomaly): string {
  const ops = [...anomaly.minimal].sort((a, b) => a.call - b.call);
  const clients = [...new Set(ops.map((op) => op.client))].sort((a, b) => a - b);
  const finite = ops.flatMap((op) => [op.call, op.ret]).filter(Number.isFinite);
  const start = Math.min(...finite);
  const end = Math.max(...finite, start + 1);
  const width = 1100;
  const left = 90;
  const lane = 44;
  const x = (t: number) => left + ((Math.min(t, end) - start) / (end - start)) * (width - left - 20);
  const order = new Map(anomaly.linearized.map((op, index) => [op.id, index + 1]));
  const height = clients.length * lane + 40;
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="monospace" font-size="11">`,
  ];
  clients.forEach((client, index) => {
    const y = 20 + index * lane;
    parts.push(`<text x="4" y="${y + 18}">client ${client}</text>`);
    parts.push(`<line x1="${left}" x2="${width - 20}" y1="${y + 30}" y2="${y + 30}" stroke="#ddd"/>`);
  });
  for (const op of ops) {
    const y = 20 + clients.indexOf(op.client) * lane;
    const x1 = x(op.call);
    const x2 = Math.max(x(op.ret), x1 + 3);
    const stuck = anomaly.stuck.includes(op);
    const fill = stuck ? '#f4a3a3' : order.has(op.id) ? '#a8d5a2' : '#cfd8e6';
    const dash = Number.isFinite(op.ret) ? '' : ' stroke-dasharray="4 3"';
    const label = `${order.has(op.id) ? `${order.get(op.id)}. ` : ''}#${op.id} ${anomaly.describe(op)}`;
    parts.push(
      `<g><title>${escapeHtml(`${label}\n${ms(op.call)} .. ${ms(op.ret)}`)}</title>` +
        `<rect x="${x1.toFixed(1)}" y="${y + 4}" width="${(x2 - x1).toFixed(1)}" height="22" fill="${fill}" stroke="#555"${dash}/>` +
        `<text x="${(x1 + 3).toFixed(1)}" y="${y + 19}">${escapeHtml(label)}</text></g>`,
    );
  }
  parts.push(
    `<text x="${left}" y="${height - 6}">${escapeHtml(`${start.toFixed(1)} ms`)}</text>`,
    `<text x="${width - 120}" y="${height - 6}">${escapeHtml(`${end.toFixed(1)} ms`)}</text>`,
    '</svg>',
  );
  return parts.join('\n');
}

/** A standalone HTML page: every anomaly's text and timeline, and the revocation violations. */
export function reportHtml(title: string, anomalies: Anomaly[], revocations: RevocationViolation[]): string {
  const sections = anomalies.map(
    (anomaly) =>
      `<section><h2>${escapeHtml(anomaly.object)}</h2><pre>${escapeHtml(anomaly.lines.join('\n'))}</pre>${timelineSvg(anomaly)}</section>`,
  );
  const revoked = revocations.length
    ? `<section><h2>Writes by tokens of deleted keys</h2><pre>${escapeHtml(revocations.map(describeRevocation).join('\n'))}</pre></section>`
    : '';
  return `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<style>body{font-family:sans-serif;margin:2em}pre{background:#f6f6f6;padding:1em;overflow:auto}</style></head>
<body><h1>${escapeHtml(title)}</h1>
<p>Bars run from an operation's invocation to its answer (dashed: the answer was lost). Green: the longest order the checker could linearize, numbered; red: operations none of which can come next; blue: the rest.</p>
${sections.join('\n')}${revoked}</body></html>
`;
}
