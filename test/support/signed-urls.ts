/** A pre-signed URL with the last hex digit of its signature changed: what a tampered link looks like. */
export function withAlteredSignature(url: string): URL {
  const altered = new URL(url);
  const signature = altered.searchParams.get('X-Amz-Signature') as string;
  altered.searchParams.set(
    'X-Amz-Signature',
    `${signature.slice(0, -1)}${signature.endsWith('0') ? '1' : '0'}`,
  );
  return altered;
}
