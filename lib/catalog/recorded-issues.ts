/**
 * What a release record keeps of the issues that failed it (the catalog API's `meta.errors`). Kept apart
 * from the validation, with no imports, so that every function writing a release can use it cheaply.
 */

/** An issue as a release records it: a JSON path, the rule, and words a person can act on. */
export interface RecordedIssue {
  path: string;
  rule: string;
  message: string;
}

/** The most of one issue's `path` or `message` a release record keeps (characters). */
export const MAX_RECORDED_ISSUE_CHARS = 1000;
/** What a release record's issues may take together (bytes of their JSON): far below an item's 400 KB. */
export const MAX_RECORDED_ISSUES_BYTES = 64 * 1024;

/**
 * The issues a release record keeps: each `path` and `message` cut to MAX_RECORDED_ISSUE_CHARS (marked with
 * an ellipsis), then the first ones that fit in MAX_RECORDED_ISSUES_BYTES together. Never none when there
 * were some (the first is kept, cut), so a failed release always says why; `errors_total` counts them all.
 */
export function recordableIssues<T extends RecordedIssue>(issues: readonly T[]): T[] {
  const cut = (text: string) =>
    text.length <= MAX_RECORDED_ISSUE_CHARS ? text : `${text.slice(0, MAX_RECORDED_ISSUE_CHARS - 1)}…`;
  const kept: T[] = [];
  let bytes = 2;
  for (const issue of issues) {
    const recorded = { ...issue, path: cut(issue.path), message: cut(issue.message) };
    bytes += Buffer.byteLength(JSON.stringify(recorded)) + 1;
    if (bytes > MAX_RECORDED_ISSUES_BYTES && kept.length > 0) break;
    kept.push(recorded);
  }
  return kept;
}
