import { existsSync } from 'node:fs';

/**
 * Debian's Chromium for the browser tests (CHROMIUM_PATH, else /usr/bin/chromium), driven by playwright-core.
 * Without one the browser tests are skipped, with a message saying how to install it.
 */
export const chromiumPath = [process.env.CHROMIUM_PATH, '/usr/bin/chromium'].find(
  (path): path is string => !!path && existsSync(path),
);

/** Warns once per test file that its browser tests are skipped, and how to install a Chromium. */
export function warnWithoutChromium(file: string): void {
  if (chromiumPath) return;
  console.warn(
    `${file} SKIPPED: no Chromium found at $CHROMIUM_PATH or /usr/bin/chromium. ` +
      "Install Debian's: sudo apt-get install -y --no-install-recommends chromium (or set CHROMIUM_PATH).",
  );
}

/** The flags Chromium needs on a closed network (no background connections to Google's hosts). */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
// playwright-core starts every browser with a fresh temporary --user-data-dir of its own.
