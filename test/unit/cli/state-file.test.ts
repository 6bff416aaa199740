import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { ChatStateStore, chatStatePath, conversationKey } from '../../../src/cli/state-file.js';
import { useTempDirs } from '../../support/temp-dirs.js';

const temp = useTempDirs();

let dir: string;
beforeEach(() => {
  dir = temp.make('a2a-cli-state-');
});

describe('chatStatePath', () => {
  it('prefers A2A_CLI_STATE, then XDG_STATE_HOME, then ~/.local/state', () => {
    expect(chatStatePath({ A2A_CLI_STATE: '/x/chat.json', XDG_STATE_HOME: '/xdg' }, '/home/u')).toBe('/x/chat.json');
    expect(chatStatePath({ XDG_STATE_HOME: '/xdg' }, '/home/u')).toBe('/xdg/a2a-temporal/chat.json');
    expect(chatStatePath({}, '/home/u')).toBe('/home/u/.local/state/a2a-temporal/chat.json');
  });

  it('ignores a relative XDG_STATE_HOME, as the XDG spec says', () => {
    expect(chatStatePath({ XDG_STATE_HOME: 'state' }, '/home/u')).toBe('/home/u/.local/state/a2a-temporal/chat.json');
  });
});

describe('ChatStateStore', () => {
  it('keys conversations by gateway and agent', () => {
    expect(conversationKey('http://gw:8080/', 'echo')).toBe(conversationKey('http://gw:8080', 'echo'));
    expect(conversationKey('http://gw:8080', 'echo')).not.toBe(conversationKey('http://other:8080', 'echo'));
  });

  it('remembers a conversation across instances (that is, CLI restarts)', () => {
    const path = join(dir, 'nested', 'chat.json');
    const key = conversationKey('http://gw', 'expense-approval');
    new ChatStateStore(path).set(key, { contextId: 'c1', pendingTaskId: 't1' }, new Date('2030-01-01T00:00:00Z'));
    expect(new ChatStateStore(path).get(key)).toEqual({
      contextId: 'c1',
      pendingTaskId: 't1',
      updatedAt: '2030-01-01T00:00:00.000Z',
    });
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it('changes one conversation without touching the others, and forgets on request', () => {
    const store = new ChatStateStore(join(dir, 'chat.json'));
    store.set('a', { contextId: 'ca', pendingTaskId: 'ta' });
    store.set('b', { contextId: 'cb' });
    store.set('a', { contextId: 'ca' });
    expect(store.get('a')?.pendingTaskId).toBeUndefined();
    expect(store.get('b')?.contextId).toBe('cb');
    store.set('b', undefined);
    expect(store.get('b')).toBeUndefined();
    store.set('a', {});
    expect(store.get('a')).toBeUndefined();
    expect(readdirSync(dir)).toEqual(['chat.json']);
  });

  it('sets a damaged file aside with a warning instead of failing', () => {
    const path = join(dir, 'chat.json');
    writeFileSync(path, '{"version": 1, "conversations": ');
    const warnings: string[] = [];
    const store = new ChatStateStore(path, (message) => warnings.push(message));
    expect(store.get('a')).toBeUndefined();
    expect(warnings[0]).toMatch(/unreadable; moved it to .*damaged/);
    store.set('a', { contextId: 'c' });
    expect(JSON.parse(readFileSync(path, 'utf8')).conversations.a.contextId).toBe('c');
    expect(readdirSync(dir).some((name) => name.includes('.damaged-'))).toBe(true);
  });
});
