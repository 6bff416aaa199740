import { describe, expect, it } from 'vitest';
import { uiText } from '../../src/protocol/ui-text.js';

describe('text for the Temporal UI (Markdown and HTML)', () => {
  it('turns HTML into text', () => {
    expect(uiText('<img src=x onerror=alert(1)><b>Confirm</b> & more')).toBe(
      '&lt;img src=x onerror=alert(1)&gt;&lt;b&gt;Confirm&lt;/b&gt; &amp; more',
    );
    // An entity the agent wrote stays the characters it wrote.
    expect(uiText('&lt;')).toBe('&amp;lt;');
  });

  it("escapes Markdown's inline markup", () => {
    expect(uiText('**Pay** _now_ `x` [link](https://evil.example) ![i](x) a|b ~~c~~ \\')).toBe(
      '\\*\\*Pay\\*\\* \\_now\\_ \\`x\\` \\[link\\](https://evil.example) \\!\\[i\\](x) a\\|b \\~\\~c\\~\\~ \\\\',
    );
  });

  it('escapes what opens a block only where a line starts', () => {
    expect(uiText('# Title\n- item\n  + item\n1. first\n2) second\n===\nA - B. 3.5 EUR')).toBe(
      '\\# Title\n\\- item\n  \\+ item\n1\\. first\n2\\) second\n\\===\nA - B. 3.5 EUR',
    );
  });

  it('leaves plain words alone', () => {
    expect(uiText('Approve 3 monitors for 450 EUR? (group:finance)')).toBe(
      'Approve 3 monitors for 450 EUR? (group:finance)',
    );
  });
});
