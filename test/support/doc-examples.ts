import MarkdownIt from 'markdown-it';

/**
 * Executable documentation: the fenced blocks of README.md and docs/*.md, split at their check lines,
 * turned into one bash session per page (sh blocks) and one Node ES module per js block, and the checks
 * evaluated against what each part printed. The convention is in docs/writing-docs.md.
 */

export type BlockLanguage = 'sh' | 'js';

export interface DocBlock {
  file: string;
  /** 1-based line of the block's first content line. */
  line: number;
  lang: BlockLanguage;
  source: string;
  /** The reason of a `# not run in CI: <why>` mark; the block is not run. */
  skip?: string;
}

export type Check =
  | { kind: 'status'; raw: string; status: number }
  | { kind: 'exit'; raw: string; code: number }
  | { kind: 'contains'; raw: string; text: string }
  | { kind: 'equals'; raw: string; path: string; value: unknown }
  | { kind: 'present'; raw: string; path: string };

export interface Segment {
  /** `<block index>.<segment index>`: names the segment's marker. */
  id: string;
  block: DocBlock;
  /** 1-based line in the page of the check line (or of the block's end for a trailing segment). */
  line: number;
  code: string;
  checks: Check[];
}

const SH_LANGS = new Set(['sh', 'bash', 'shell']);
const JS_LANGS = new Set(['js', 'javascript', 'mjs']);
/** Languages that look runnable but are not run as they are: write them as sh or js, or mark them. */
const REFUSED_LANGS = new Set(['ts', 'typescript', 'console', 'zsh', 'shell-session']);

const SKIP_MARK: Record<BlockLanguage, RegExp> = {
  sh: /^#\s*not run in CI:\s*(.*)$/,
  js: /^\/\/\s*not run in CI:\s*(.*)$/,
};
const CHECK_LINE: Record<BlockLanguage, RegExp> = { sh: /^\s*#\s*=>\s?(.*)$/, js: /^\s*\/\/\s*=>\s?(.*)$/ };

const markdown = new MarkdownIt();

/** The runnable (sh, js) blocks of a page, and what breaks the convention. */
export function extractBlocks(file: string, text: string): { blocks: DocBlock[]; problems: string[] } {
  const blocks: DocBlock[] = [];
  const problems: string[] = [];
  for (const token of markdown.parse(text, {})) {
    if (token.type !== 'fence' || !token.map) continue;
    const info = token.info.trim().split(/\s+/)[0]?.toLowerCase() ?? '';
    const line = token.map[0] + 2;
    if (REFUSED_LANGS.has(info)) {
      problems.push(
        `${file}:${line - 1}: a \`${info}\` block is not run; write it as sh or js (or use text)`,
      );
      continue;
    }
    const lang: BlockLanguage | undefined = SH_LANGS.has(info) ? 'sh' : JS_LANGS.has(info) ? 'js' : undefined;
    if (!lang) continue;
    const source = token.content;
    const firstLine = source.split('\n').find((each) => each.trim() !== '') ?? '';
    const mark = SKIP_MARK[lang].exec(firstLine.trim());
    const markAnywhere = source.split('\n').some((each) => /not run in CI/.test(each));
    if (mark) {
      const why = mark[1]?.trim() ?? '';
      if (why === '') problems.push(`${file}:${line}: "not run in CI:" needs the reason after the colon`);
      blocks.push({ file, line, lang, source, skip: why });
      continue;
    }
    if (markAnywhere) {
      problems.push(`${file}:${line}: the "not run in CI: <why>" mark must be the block's first line`);
      continue;
    }
    const stray = source.split('\n').findIndex((each) => /^\s*(```|~~~)/.test(each));
    if (stray !== -1) {
      problems.push(
        `${file}:${line + stray}: a fence line inside the block: a closing fence stands alone on its line`,
      );
      continue;
    }
    const block: DocBlock = { file, line, lang, source };
    try {
      if (!splitSegments(block, 0).some((segment) => segment.checks.length > 0)) {
        const comment = lang === 'sh' ? '#' : '//';
        problems.push(
          `${file}:${line}: no \`${comment} =>\` line says what this block prints (docs/writing-docs.md)`,
        );
      }
    } catch (error) {
      problems.push((error as Error).message);
    }
    blocks.push(block);
  }
  return { blocks, problems };
}

/** Splits a block at its check lines: each segment is the code since the previous check line. */
export function splitSegments(block: DocBlock, index: number): Segment[] {
  const segments: Segment[] = [];
  let code: string[] = [];
  const lines = block.source.replace(/\n$/, '').split('\n');
  lines.forEach((text, offset) => {
    const check = CHECK_LINE[block.lang].exec(text);
    if (!check) {
      code.push(text);
      return;
    }
    const line = block.line + offset;
    segments.push({
      id: `${index}.${segments.length}`,
      block,
      line,
      code: code.join('\n'),
      checks: parseChecks(check[1] ?? '', `${block.file}:${line}`, block.lang),
    });
    code = [];
  });
  if (code.some((text) => text.trim() !== '') || segments.length === 0) {
    segments.push({
      id: `${index}.${segments.length}`,
      block,
      line: block.line + lines.length - 1,
      code: code.join('\n'),
      checks: [],
    });
  }
  return segments;
}

/** Splits at top-level commas (not inside quotes, brackets or braces). */
function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quote: string | undefined;
  let current = '';
  for (let i = 0; i < text.length; i += 1) {
    const char = text[i] as string;
    if (quote) {
      if (char === '\\') {
        current += char + (text[i + 1] ?? '');
        i += 1;
        continue;
      }
      if (char === quote) quote = undefined;
    } else if (char === '"') quote = char;
    else if (char === '[' || char === '{') depth += 1;
    else if (char === ']' || char === '}') depth -= 1;
    else if (char === ',' && depth === 0) {
      parts.push(current.trim());
      current = '';
      continue;
    }
    current += char;
  }
  if (current.trim() !== '') parts.push(current.trim());
  return parts;
}

const PATH = /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*|\[\d+\])*$/;

/** Parses the checks of one check line (see docs/writing-docs.md for the forms). */
export function parseChecks(text: string, where: string, lang: BlockLanguage): Check[] {
  const checks: Check[] = [];
  for (const raw of splitTopLevel(text)) {
    if (/^[1-5]\d\d$/.test(raw)) {
      if (lang === 'js') throw new Error(`${where}: a status check needs a curl command (sh)`);
      checks.push({ kind: 'status', raw, status: Number(raw) });
      continue;
    }
    const exit = /^exit (\d+)$/.exec(raw);
    if (exit) {
      if (lang === 'js') throw new Error(`${where}: exit checks are for sh blocks`);
      checks.push({ kind: 'exit', raw, code: Number(exit[1]) });
      continue;
    }
    if (raw.startsWith('"')) {
      checks.push({ kind: 'contains', raw, text: parseJson(raw, where) as string });
      continue;
    }
    const equals = /^([^=\s]+)\s*=\s*(.+)$/.exec(raw);
    const path = equals ? (equals[1] as string) : raw;
    if (!PATH.test(path)) {
      throw new Error(
        `${where}: cannot read the check "${raw}": expected a status (200), exit N, "text", path = value or path`,
      );
    }
    if (!equals) {
      checks.push({ kind: 'present', raw, path });
      continue;
    }
    const literal = (equals[2] as string).trim();
    checks.push({ kind: 'equals', raw, path, value: literalValue(literal, where) });
  }
  if (checks.length === 0) throw new Error(`${where}: an empty check line`);
  return checks;
}

/** A JSON literal; `$NAME` is the variable's value (filled in when the check runs); else a bare string. */
function literalValue(literal: string, where: string): unknown {
  if (/^\$[A-Z_][A-Z0-9_]*$/.test(literal)) return { $env: literal.slice(1) };
  if (/^["[{\d-]|^(true|false|null)$/.test(literal)) return parseJson(literal, where);
  return literal;
}

function parseJson(text: string, where: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`${where}: ${text} is not a JSON value`);
  }
}

/** The marker a part prints to stdout and stderr when it has run: `<id> <exit status> <last HTTP status>`. */
export const MARK = '\u001eDOC-MARK';
/** A js check's value line: `<json {id, path, value | error}>`. */
export const VALUE = '\u001eDOC-VALUE';
/** A shell variable a check compares with, as the session had it: `NAME=value`. */
export const VARIABLE = '\u001eDOC-VAR';

/** The variables (`$NAME`) a segment's checks compare with. */
function checkedVariables(segment: Segment): string[] {
  return segment.checks.flatMap((check) => {
    const name = check.kind === 'equals' ? (check.value as { $env?: string } | null)?.$env : undefined;
    return name === undefined ? [] : [name];
  });
}

/**
 * One bash session for a page's blocks, in page order, as a reader pasting them into one terminal after
 * `npm start`'s export line: sh blocks as they are, each js block as an ES module on node's stdin (run
 * from the project folder, so `@elasticpath/js-sdk` resolves). `curl` is wrapped only to note each
 * response's status (`-D` to a temp file); what it prints is unchanged.
 */
export function shellScript(exportLine: string, segments: Segment[]): string {
  const lines = [
    'set -eo pipefail',
    '__doc_status=$(mktemp)',
    'curl() { local h rc; h=$(mktemp); command curl -D "$h" "$@" && rc=0 || rc=$?; grep -a "^HTTP/" "$h" | tail -n 1 | cut -d" " -f2 >> "$__doc_status" || true; rm -f "$h"; return $rc; }',
    `__doc_mark() { local s; s=$(tail -n 1 "$__doc_status"); : > "$__doc_status"; printf '\\n${MARK} %s %s %s\\n' "$1" "$2" "\${s:--}"; printf '\\n${MARK} %s %s %s\\n' "$1" "$2" "\${s:--}" >&2; }`,
    exportLine,
  ];
  let index = 0;
  while (index < segments.length) {
    const segment = segments[index] as Segment;
    if (segment.block.lang === 'js') {
      const own = segments.filter((each) => each.block === segment.block);
      lines.push(`node --input-type=module <<'__DOC_JS_END'`, jsModule(own).trimEnd(), '__DOC_JS_END');
      index += own.length;
      continue;
    }
    const expectsExit = segment.checks.some((check) => check.kind === 'exit');
    if (expectsExit) lines.push('set +e');
    lines.push(segment.code);
    if (expectsExit) lines.push('__doc_rc=$?');
    for (const name of checkedVariables(segment))
      lines.push(`printf '\\n${VARIABLE} %s=%s\\n' ${name} "\${${name}-}"`);
    lines.push(expectsExit ? `set -e; __doc_mark ${segment.id} $__doc_rc` : `__doc_mark ${segment.id} 0`);
    index += 1;
  }
  return `${lines.join('\n')}\n`;
}

/** One js block as an ES module: each check line becomes a marker and one value line per path. */
export function jsModule(segments: Segment[]): string {
  const lines = [
    `const __docOut = (line) => { process.stdout.write(line + '\\n'); };`,
    `const __docValue = (id, path, read) => { let entry; try { entry = { id, path, value: read() }; } catch (error) { entry = { id, path, error: String(error) }; } __docOut(${JSON.stringify(VALUE)} + ' ' + JSON.stringify(entry)); };`,
    `const __docMark = (id) => { __docOut('\\n' + ${JSON.stringify(MARK)} + ' ' + id + ' 0 -'); process.stderr.write('\\n' + ${JSON.stringify(MARK)} + ' ' + id + ' 0 -\\n'); };`,
  ];
  for (const segment of segments) {
    lines.push(segment.code);
    for (const check of segment.checks) {
      if (check.kind === 'equals' || check.kind === 'present') {
        lines.push(
          `__docValue(${JSON.stringify(segment.id)}, ${JSON.stringify(check.path)}, () => ${check.path});`,
        );
      }
    }
    lines.push(`__docMark(${JSON.stringify(segment.id)});`);
  }
  return `${lines.join('\n')}\n`;
}

export interface SegmentResult {
  stdout: string;
  stderr: string;
  exit: number;
  /** HTTP status of the segment's last curl response. */
  status?: number;
  /** js: the values of the checked paths. */
  values: Map<string, { value?: unknown; error?: string }>;
  /** sh: the session's variables the checks compare with. */
  variables: Map<string, string>;
}

/** Splits a run's output at the markers: what each segment printed, its exit status and last HTTP status. */
export function segmentResults(stdout: string, stderr: string): Map<string, SegmentResult> {
  const results = new Map<string, SegmentResult>();
  const outParts = splitAtMarks(stdout);
  const errParts = new Map(splitAtMarks(stderr).map((part) => [part.id, part.text]));
  for (const part of outParts) {
    const values = new Map<string, { value?: unknown; error?: string }>();
    const variables = new Map<string, string>();
    const kept: string[] = [];
    for (const line of part.text.split('\n')) {
      if (line.startsWith(VARIABLE)) {
        const assignment = line.slice(VARIABLE.length + 1);
        const eq = assignment.indexOf('=');
        variables.set(assignment.slice(0, eq), assignment.slice(eq + 1));
      } else if (line.startsWith(VALUE)) {
        const entry = JSON.parse(line.slice(VALUE.length + 1)) as {
          path: string;
          value?: unknown;
          error?: string;
        };
        values.set(entry.path, entry);
      } else kept.push(line);
    }
    results.set(part.id, {
      stdout: kept.join('\n').trim(),
      stderr: (errParts.get(part.id) ?? '').trim(),
      exit: part.exit,
      ...(part.status === undefined ? {} : { status: part.status }),
      values,
      variables,
    });
  }
  return results;
}

/** The text before each marker, with the marker's fields. */
function splitAtMarks(output: string): { id: string; exit: number; status?: number; text: string }[] {
  const parts: { id: string; exit: number; status?: number; text: string }[] = [];
  let text: string[] = [];
  for (const line of output.split('\n')) {
    if (!line.startsWith(MARK)) {
      text.push(line);
      continue;
    }
    const [id = '', exit = '0', status = '-'] = line.slice(MARK.length + 1).split(' ');
    parts.push({
      id,
      exit: Number(exit),
      ...(status === '-' ? {} : { status: Number(status) }),
      text: text.join('\n'),
    });
    text = [];
  }
  return parts;
}

/** The value at a path like `data[0].attributes.sku` (undefined when any step is missing). */
export function valueAt(root: unknown, path: string): unknown {
  let current = root;
  for (const step of path.match(/[^.[\]]+/g) ?? []) {
    if (current === null || current === undefined) return undefined;
    current = (current as Record<string, unknown>)[step];
  }
  return current;
}

/** The JSON a segment printed: all of stdout when it is one JSON document, else its last JSON line. */
export function printedJson(stdout: string): unknown {
  try {
    return JSON.parse(stdout);
  } catch {
    for (const line of stdout.split('\n').reverse()) {
      try {
        const value = JSON.parse(line);
        if (typeof value === 'object' && value !== null) return value;
      } catch {}
    }
    return undefined;
  }
}

function resolve(value: unknown, result: SegmentResult, env: NodeJS.ProcessEnv): unknown {
  const name = (value as { $env?: string } | null)?.$env;
  return name === undefined ? value : (result.variables.get(name) ?? env[name]);
}

function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Why a check failed against a segment's result, or undefined when it holds. */
export function failedCheck(
  check: Check,
  result: SegmentResult,
  lang: BlockLanguage,
  env: NodeJS.ProcessEnv,
): string | undefined {
  const read = (path: string): { value?: unknown; error?: string } => {
    if (lang === 'js') return result.values.get(path) ?? { error: 'not evaluated' };
    const json = printedJson(result.stdout);
    if (json === undefined) return { error: 'the output holds no JSON' };
    return { value: valueAt(json, path) };
  };
  switch (check.kind) {
    case 'status':
      return result.status === check.status
        ? undefined
        : `expected HTTP ${check.status}, the last response was ${result.status ?? 'none (no curl ran)'}`;
    case 'exit':
      return result.exit === check.code ? undefined : `expected exit ${check.code}, got ${result.exit}`;
    case 'contains':
      return `${result.stdout}\n${result.stderr}`.includes(check.text)
        ? undefined
        : `expected the output to contain ${JSON.stringify(check.text)}`;
    case 'present': {
      const { value, error } = read(check.path);
      if (error) return `${check.path}: ${error}`;
      return value === undefined || value === null
        ? `expected ${check.path} to be set, it is ${value}`
        : undefined;
    }
    case 'equals': {
      const { value, error } = read(check.path);
      if (error) return `${check.path}: ${error}`;
      const expected = resolve(check.value, result, env);
      return sameValue(value, expected)
        ? undefined
        : `expected ${check.path} = ${JSON.stringify(expected)}, got ${JSON.stringify(value)}`;
    }
  }
}

/**
 * Why a js part that a reader runs shows nothing, or undefined: its `// =>` line names values of the
 * module, which the test reads, but a reader sees only what the block prints, so it must print them.
 */
export function silentJsPart(lang: BlockLanguage, result: SegmentResult): string | undefined {
  if (lang !== 'js' || result.values.size === 0 || result.stdout !== '') return undefined;
  return 'prints nothing, so a reader cannot see what its `// =>` line checks: console.log the values it names';
}

/** Parses `export A=1 B=2` (what `npm start` prints) into variables. */
export function parseExportLine(line: string): Record<string, string> {
  const match = /^export (.+)$/.exec(line.trim());
  if (!match) throw new Error(`not an export line: ${line}`);
  const values: Record<string, string> = {};
  for (const pair of (match[1] as string).split(/\s+/)) {
    const eq = pair.indexOf('=');
    values[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return values;
}
