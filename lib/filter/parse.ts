import { BadRequestError } from '../http/errors';
import type { FilterAttribute, FilterExpression, FilterGrammar, FilterOperator } from './types';

/** At most this many `:`-joined expressions in one filter. */
export const MAX_FILTER_EXPRESSIONS = 10;
/** At most this many bytes (UTF-8) in one filter. */
export const MAX_FILTER_BYTES = 8192;

const SOURCE = 'filter';
const OPERATORS = new Set<string>(['eq', 'in']);
/** The catalog's filter: product attributes. */
export const CATALOG_FILTER: FilterGrammar<FilterAttribute> = {
  // A Map, not an object literal: a name such as `constructor` must not find a prototype property.
  attributes: new Map<string, FilterAttribute>([
    ['id', 'id'],
    ['name', 'name'],
    ['sku', 'sku'],
    ['slug', 'slug'],
    ['manufacturer_part_num', 'manufacturer_part_num'],
    ['mpn', 'manufacturer_part_num'],
    ['upc_ean', 'upc_ean'],
    ['product_types', 'product_types'],
    ['tags', 'tags'],
  ]),
  description: 'id, name, sku, slug, manufacturer_part_num (or mpn), upc_ean, product_types, tags',
  inOnly: new Set(['id']),
  lowerCase: new Set(['tags']),
};
const ESCAPABLE = new Set(['\\', '"', "'"]);
const WHITESPACE = new Set([' ', '\t', '\r', '\n']);
const WORD = /[A-Za-z0-9_]/;
const BARE = /^[\p{L}\p{M}\p{N} $\-_*.@+/{}|]$/u;
const MAX_ECHO = 32;
// Characters shown by code point in error details: controls, format characters, separators other than space.
const INVISIBLE = /^(?! )[\p{C}\p{Z}]$/u;
const UNPAIRED_SURROGATE = /^\p{Cs}$/u;

/**
 * Parses a `filter` query value into expressions over the grammar's attributes (default:
 * the catalog's). Throws only BadRequestError, with source `filter` and a detail naming the problem and its
 * character position.
 */
export function parseFilter(input: string): FilterExpression[];
export function parseFilter<A extends string>(
  input: string,
  grammar: FilterGrammar<A>,
): FilterExpression<A>[];
export function parseFilter(
  input: string,
  grammar: FilterGrammar<string> = CATALOG_FILTER,
): FilterExpression<string>[] {
  const bytes = Buffer.byteLength(input, 'utf8');
  if (bytes > MAX_FILTER_BYTES) {
    throw new BadRequestError(
      `filter is too long: ${bytes} bytes, at most ${MAX_FILTER_BYTES} are allowed`,
      SOURCE,
    );
  }
  return new FilterParser(input, grammar).parse();
}

class FilterParser {
  private index = 0;

  constructor(
    private readonly input: string,
    private readonly grammar: FilterGrammar<string>,
  ) {}

  parse(): FilterExpression<string>[] {
    this.skipWhitespace();
    if (this.atEnd()) throw this.error('filter is empty; expected an expression such as eq(sku,ABC-1)');
    const expressions = [this.expression()];
    for (;;) {
      this.skipWhitespace();
      if (this.atEnd()) return expressions;
      if (this.peek() !== ':') {
        throw this.error(
          `expected ':' or the end of the filter at character ${this.position()}, found ${this.found()}`,
        );
      }
      this.index += 1;
      this.skipWhitespace();
      if (expressions.length === MAX_FILTER_EXPRESSIONS) {
        throw this.error(
          `too many expressions: at most ${MAX_FILTER_EXPRESSIONS} are allowed, the next one starts at character ${this.position()}`,
        );
      }
      expressions.push(this.expression());
    }
  }

  /** `op "(" attribute "," value ("," value)* ")"`, starting at a non-whitespace character. */
  private expression(): FilterExpression<string> {
    const op = this.operator();
    this.skipWhitespace();
    if (this.peek() !== '(') {
      throw this.error(
        `expected '(' after operator '${op}' at character ${this.position()}, found ${this.found()}`,
      );
    }
    this.index += 1;
    this.skipWhitespace();
    const start = this.index;
    const [attribute, written] = this.attribute(op);
    const allowed = this.grammar.operators?.get(op);
    if (allowed !== undefined && !allowed.has(attribute)) {
      const instead = [...(this.grammar.operators?.entries() ?? [])].find(([, on]) => on.has(attribute))?.[0];
      throw this.error(
        `${op} cannot be used with attribute '${written}' at character ${this.position(start)}${instead ? `; use ${instead}(${written},...)` : ''}`,
      );
    }
    this.skipWhitespace();
    if (this.peek() === ')') {
      const arity = op === 'in' ? 'at least one value' : 'exactly one value';
      throw this.error(`${op}(${written},...) needs ${arity}, found ')' at character ${this.position()}`);
    }
    if (this.peek() !== ',') {
      throw this.error(
        `expected ',' after attribute '${written}' at character ${this.position()}, found ${this.found()}`,
      );
    }
    const values: string[] = [];
    for (;;) {
      // The current character is the ',' before a value.
      if (op !== 'in' && values.length === 1) {
        throw this.error(
          `${op}(${written},...) takes exactly one value, found ',' at character ${this.position()}; use in(${written},...) for several values`,
        );
      }
      this.index += 1;
      this.skipWhitespace();
      const value = this.value();
      values.push(this.grammar.lowerCase.has(attribute) ? value.toLowerCase() : value);
      this.skipWhitespace();
      if (this.peek() === ')') {
        this.index += 1;
        return { op, attribute, values };
      }
      if (this.peek() !== ',') {
        throw this.error(`expected ',' or ')' at character ${this.position()}, found ${this.found()}`);
      }
    }
  }

  private operator(): FilterOperator {
    const start = this.index;
    const word = this.word();
    const operators =
      this.grammar.operators === undefined ? OPERATORS : new Set(this.grammar.operators.keys());
    const names = [...operators];
    // "eq or in", "eq, like or in"
    const expected =
      names.length > 1 ? `${names.slice(0, -1).join(', ')} or ${names[names.length - 1]}` : (names[0] ?? '');
    if (word === '') {
      throw this.error(
        `expected an operator (${expected}) at character ${this.position()}, found ${this.found()}`,
      );
    }
    if (!operators.has(word)) {
      throw this.error(
        `unknown operator ${echo(word)} at character ${this.position(start)}; expected ${expected}`,
      );
    }
    return word as FilterOperator;
  }

  /** The attribute and the name as written (so `mpn` errors say `mpn`). */
  private attribute(op: FilterOperator): [string, string] {
    const start = this.index;
    const word = this.word();
    if (word === '') {
      throw this.error(`expected an attribute at character ${this.position()}, found ${this.found()}`);
    }
    const attribute = this.grammar.attributes.get(word);
    if (attribute === undefined) {
      throw this.error(
        `unknown attribute ${echo(word)} at character ${this.position(start)}; expected one of ${this.grammar.description}`,
      );
    }
    if (op !== 'in' && this.grammar.inOnly.has(attribute)) {
      throw this.error(
        `${op} cannot be used with attribute '${word}' at character ${this.position(start)}; use in(${word},...)`,
      );
    }
    return [attribute, word];
  }

  private value(): string {
    const quote = this.peek();
    if (quote === '"' || quote === "'") return this.quotedValue(quote);
    const start = this.index;
    while (!this.atEnd()) {
      const char = this.codePoint();
      if (!BARE.test(char)) break;
      this.index += char.length;
    }
    if (this.index === start) {
      if (this.peek() === ',' || this.peek() === ')') {
        throw this.error(`empty value at character ${this.position()}`);
      }
      if (this.atEnd()) {
        throw this.error(`expected a value at character ${this.position()}, found ${this.found()}`);
      }
    }
    const stop = this.index;
    if (!this.atEnd() && this.peek() !== ',' && this.peek() !== ')') {
      // Whitespace may end a value only when a ',' or ')' follows; any other stop is a character to quote.
      this.skipWhitespace();
      const after = this.peek();
      if (this.index === stop || (after !== undefined && after !== ',' && after !== ')')) {
        throw this.error(
          `${describe(this.codePoint(stop))} at character ${this.position(stop)} is not allowed in an unquoted value; put the value in quotes`,
        );
      }
    }
    // Leading whitespace was skipped before the value; trailing spaces are not part of it either.
    return this.input.slice(start, stop).trimEnd();
  }

  private quotedValue(quote: string): string {
    const start = this.index;
    this.index += 1;
    let value = '';
    for (;;) {
      const char = this.peek();
      if (char === undefined) {
        throw this.error(`unterminated quoted value starting at character ${this.position(start)}`);
      }
      if (char === quote) {
        this.index += 1;
        if (value === '') throw this.error(`empty value at character ${this.position(start)}`);
        return value;
      }
      if (char === '\\') {
        const escaped = this.input[this.index + 1];
        if (escaped === undefined) {
          throw this.error(`unterminated quoted value starting at character ${this.position(start)}`);
        }
        if (!ESCAPABLE.has(escaped)) {
          const shown = describeEscape(this.codePoint(this.index + 1));
          throw this.error(
            `invalid escape ${shown} at character ${this.position()}; only \\\\, \\" and \\' are allowed`,
          );
        }
        value += escaped;
        this.index += 2;
      } else {
        const whole = this.codePoint();
        if (UNPAIRED_SURROGATE.test(whole)) {
          // Not text: the links that echo the filter could not percent-encode it (encodeURIComponent throws).
          throw this.error(
            `${codePointName(whole)} at character ${this.position()} is an unpaired surrogate, not a character`,
          );
        }
        value += whole;
        this.index += whole.length;
      }
    }
  }

  private word(): string {
    const start = this.index;
    while (!this.atEnd() && WORD.test(this.peek() as string)) this.index += 1;
    return this.input.slice(start, this.index);
  }

  private skipWhitespace(): void {
    while (!this.atEnd() && WHITESPACE.has(this.peek() as string)) this.index += 1;
  }

  private atEnd(): boolean {
    return this.index >= this.input.length;
  }

  private peek(): string | undefined {
    return this.input[this.index];
  }

  /** The whole code point at `at` (a surrogate pair is one character). */
  private codePoint(at = this.index): string {
    const code = this.input.codePointAt(at);
    return code === undefined ? '' : String.fromCodePoint(code);
  }

  /** 1-based position in code points, as a person counts characters. */
  private position(at = this.index): number {
    let count = 0;
    for (let i = 0; i < at; i += 1) {
      const unit = this.input.charCodeAt(i);
      const next = this.input.charCodeAt(i + 1);
      if (unit >= 0xd800 && unit <= 0xdbff && next >= 0xdc00 && next <= 0xdfff && i + 1 < at) i += 1;
      count += 1;
    }
    return count + 1;
  }

  private found(): string {
    return this.atEnd() ? 'the end of the filter' : describe(this.codePoint());
  }

  private error(detail: string): BadRequestError {
    return new BadRequestError(detail, SOURCE);
  }
}

/** A token for an error detail, shortened so a long input is not echoed back whole. */
function echo(word: string): string {
  return `'${word.length > MAX_ECHO ? `${word.slice(0, MAX_ECHO)}...` : word}'`;
}

/** A character for an error detail: quoted when visible, else as U+XXXX (tabs, line breaks, controls). */
function describe(char: string): string {
  if (INVISIBLE.test(char)) return codePointName(char);
  return char === "'" ? `"'"` : `'${char}'`;
}

/** A backslash escape for an error detail, e.g. '\x'. */
function describeEscape(char: string): string {
  return INVISIBLE.test(char) ? `'\\' followed by ${codePointName(char)}` : `'\\${char}'`;
}

function codePointName(char: string): string {
  const code = char.codePointAt(0) ?? 0;
  return `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
}
