/**
 * Text for the Temporal UI, which renders workflow summaries, details and event summaries as
 * Markdown (raw HTML included): a request, a question or a remote agent's words must show as the
 * words they are, never as an image, a link or bold type. Pure, so that the workflow (current
 * details, timer and activity summaries) and the gateway (the static summary at start) share it.
 */

/** HTML's own characters, as entities: Markdown renderers and plain HTML alike show them as text. */
const ENTITIES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };

/** Markdown's inline markup (emphasis, code, links and images, tables, strikethrough, escapes). */
const INLINE_MARKUP = /[\\`*_[\]!|~]/g;

/** What opens a block where a line starts: a heading, a list item, a quote, a setext underline. */
const LINE_START_MARKUP = /^([ \t]*)([#+=-]|\d+(?=[.)]))/gm;

/** `text` escaped for Markdown and HTML: the UI shows exactly these characters. */
export function uiText(text: string): string {
  return text
    .replace(INLINE_MARKUP, (char) => `\\${char}`)
    .replace(/[&<>]/g, (char) => ENTITIES[char]!)
    .replace(LINE_START_MARKUP, (_match, indent: string, marker: string) =>
      /^\d/.test(marker) ? `${indent}${marker}\\` : `${indent}\\${marker}`,
    );
}
