/**
 * What V8's `JSON.parse` error says, taken apart: the reason, and the offset (in UTF-16 units of the
 * parsed text) when V8 gives one. V8 says where for some errors only ("Expected ',' or '}' after
 * property value in JSON at position 12", with "(line 1 column 13)" after it on newer versions); an
 * unexpected token comes with a snippet of the text around it instead, and the end of the input with
 * neither.
 */
export function jsonParseFailure(error: Error): { reason: string; position?: number; endOfInput: boolean } {
  const message = error.message.replace(/\s*\(line \d+ column \d+\)$/, '');
  const at = /at position (\d+)/.exec(message);
  return {
    reason: message.replace(/ in JSON at position \d+$/, '').replace(/ at position \d+$/, ''),
    ...(at ? { position: Number(at[1]) } : {}),
    endOfInput: /end of JSON input/.test(message),
  };
}
