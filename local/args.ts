/** Minimal argv parsing for the local CLIs: positionals, `--flag`, `--name value` (repeatable). */
export interface ParsedArgs {
  positionals: string[];
  options: Map<string, string[]>;
  flags: Set<string>;
}

export function parseArgs(argv: string[], valueOptions: string[]): ParsedArgs {
  const positionals: string[] = [];
  const options = new Map<string, string[]>();
  const flags = new Set<string>();
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] ?? '';
    if (!arg.startsWith('--')) {
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq === -1 ? undefined : eq);
    if (!valueOptions.includes(name)) {
      flags.add(name);
      continue;
    }
    let value: string | undefined = eq === -1 ? undefined : arg.slice(eq + 1);
    if (value === undefined) {
      value = argv[i + 1];
      i += 1;
    }
    if (value === undefined) throw new Error(`--${name} needs a value`);
    options.set(name, [...(options.get(name) ?? []), value]);
  }
  return { positionals, options, flags };
}

/** The single value of an option, or undefined. */
export function option(args: ParsedArgs, name: string): string | undefined {
  return args.options.get(name)?.at(-1);
}

/** Exits with a message on stderr and status 1. */
export function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(1);
}
