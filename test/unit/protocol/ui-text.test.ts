import { describe, expect, it } from 'vitest';
import { uiText } from '../../../src/protocol/ui-text.js';

// What the Temporal UI (2.54) showed for each escaped string was checked in Chromium: the characters, no markup.
describe('text for the Temporal UI (Markdown and HTML)', () => {
  it('turns HTML into text', () => {
    expect(uiText('<img src=x onerror=alert(1)><b>Confirm</b> & &amp;')).toBe(
      '\\<img src=x onerror=alert(1)\\>\\<b\\>Confirm\\</b\\> \\& \\&amp;',
    );
  });

  it("escapes Markdown's inline markup and the links it makes by itself", () => {
    expect(uiText('**Pay** _now_ `x` [link](https://evil.example) ![i](x) a|b ~~c~~ \\ www.evil.example')).toBe(
      '\\*\\*Pay\\*\\* \\_now\\_ \\`x\\` \\[link\\](https\\://evil.example) \\!\\[i\\](x) a\\|b \\~\\~c\\~\\~ \\\\ www\\.evil.example',
    );
  });

  it('escapes what opens a block only where a line starts', () => {
    expect(uiText('# Title\n- item\n  + item\n1. first\n2) second\n> quote\n===\nA - B. 3.5 EUR')).toBe(
      '\\# Title\n\\- item\n  \\+ item\n1\\. first\n2\\) second\n\\> quote\n\\===\nA - B. 3.5 EUR',
    );
  });

  it('leaves plain words alone', () => {
    expect(uiText('Approve 3 monitors for 450 EUR? (may answer: group:finance, bob@example.com)')).toBe(
      'Approve 3 monitors for 450 EUR? (may answer: group:finance, bob@example.com)',
    );
  });
});
