import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '../..');

/**
 * The project's files speak of the project alone: a fact is stated, or points at the project's own
 * docs, never at planning documents or tickets that live outside the repository (a newcomer who
 * clones it cannot open them). The patterns are built from pieces so this file does not match itself.
 */
const OUTSIDE = [
  new RegExp(`\\b(?:${['DES', 'IGN'].join('')}|${['STY', 'LE'].join('')})\\.md\\b`),
  new RegExp(`\\b${'iss'}ue\\s+#?\\d+`, 'i'),
  new RegExp(`\\.\\./${'sha'}red/`),
];

/** Every tracked text file (the lock file is npm's, not ours). */
function trackedFiles(): string[] {
  return execFileSync('git', ['ls-files'], { cwd: ROOT, encoding: 'utf8' })
    .split('\n')
    .filter((path) => path !== '' && path !== 'package-lock.json');
}

/** `path:line: text` for each line that cites a document outside the repository. */
function outsideCitations(path: string, text: string): string[] {
  return text
    .split('\n')
    .flatMap((line, index) =>
      OUTSIDE.some((pattern) => pattern.test(line)) ? [`${path}:${index + 1}: ${line.trim()}`] : [],
    );
}

describe('the repository is self-contained', () => {
  test('the check sees the citations it is for', () => {
    const design = `see ${['DES', 'IGN'].join('')}.md section 17`;
    const ticket = `what ${'iss'}ue 20 asked`;
    expect(outsideCitations('a.ts', `ok\n${design}\n(${ticket})\nfine`)).toEqual([
      `a.ts:2: ${design}`,
      `a.ts:3: (${ticket})`,
    ]);
    expect(
      outsideCitations('b.md', 'RFC 6749 section 3.2; docs/publishing.md; an issue with 3 items'),
    ).toEqual([]);
  });

  test('no tracked file cites a planning document or a ticket', () => {
    const found = trackedFiles().flatMap((path) =>
      outsideCitations(path, readFileSync(join(ROOT, path), 'utf8')),
    );
    expect(found).toEqual([]);
  });
});
