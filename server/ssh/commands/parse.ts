/** Splitting an SSH exec command line into words, the way a POSIX shell quotes them. */
import { UsageError } from "./types.ts";

/** Longest command line accepted. */
export const MAX_COMMAND_LENGTH = 4096;

/**
 * Splits `line` at unquoted whitespace. Supports `'single'` and `"double"` quotes and backslash
 * escapes (git sends paths as `'alice/x.git'`). Throws UsageError on an unterminated quote.
 */
export function splitCommandLine(line: string): string[] {
  if (line.length > MAX_COMMAND_LENGTH) throw new UsageError("command line too long");
  const words: string[] = [];
  let word = "";
  let inWord = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) throw new UsageError("unterminated ' quote in command");
      word += line.slice(i + 1, end);
      inWord = true;
      i = end;
    } else if (c === '"') {
      let j = i + 1;
      for (; j < line.length && line[j] !== '"'; j++) {
        if (line[j] === "\\" && j + 1 < line.length && '"\\$`'.includes(line[j + 1])) j++;
        word += line[j];
      }
      if (j >= line.length) throw new UsageError('unterminated " quote in command');
      inWord = true;
      i = j;
    } else if (c === "\\") {
      if (i + 1 < line.length) word += line[++i];
      inWord = true;
    } else if (c === " " || c === "\t" || c === "\n") {
      if (inWord) words.push(word);
      word = "";
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (inWord) words.push(word);
  return words;
}
