/**
 * Text for the Temporal UI, which renders workflow summaries, details and event summaries as
 * Markdown (GitHub's flavour, raw HTML included): a request, a question or a remote agent's words
 * must show as the words they are, never as an image, a link or bold type. Pure, so that the
 * workflow (current details, timer and activity summaries) and the gateway (the static summary at
 * start) share it. Checked against the UI itself (2.54): it shows entities such as `&lt;` as
 * written, so HTML's characters are escaped as Markdown's are, with a backslash.
 */

/** Markdown's inline markup (emphasis, code, links and images, tables, strikethrough) and HTML's characters. */
const INLINE_MARKUP = /[\\`*_[\]!|~<>&]/g;

/**
 * What GitHub's Markdown turns into a link by itself: `https://…`, `www.…`. (An email address stays
 * one: the UI shows a backslash before `@` as written, and a mailto link shows the address itself.)
 */
const AUTOLINKS = /(?<=[a-z])(:\/\/)|\b(www)\./gi;

/** What opens a block where a line starts: a heading, a list item, a setext underline. */
const LINE_START_MARKUP = /^([ \t]*)([#+=-]|\d+(?=[.)]))/gm;

/** `text` escaped for Markdown and HTML: the UI shows exactly these characters. */
export function uiText(text: string): string {
  return text
    .replace(INLINE_MARKUP, (char) => `\\${char}`)
    .replace(AUTOLINKS, (_match, scheme?: string, www?: string) => (scheme ? `\\${scheme}` : `${www}\\.`))
    .replace(LINE_START_MARKUP, (_match, indent: string, marker: string) =>
      /^\d/.test(marker) ? `${indent}${marker}\\` : `${indent}\\${marker}`,
    );
}
