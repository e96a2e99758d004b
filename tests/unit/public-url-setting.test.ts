// The public URL while the daemon runs: which new value of the user config applies, which does not
// and why, and what `askbridge config` and `askbridge pair` are told about it.
import { describe, expect, it } from 'vitest';
import { createPublicUrlSetting, PLACEHOLDER_PUSH_SUBJECT, pushSubject, type PublicUrlAtStart } from '../../src/daemon/public-url-setting.js';
import { parsePublicUrl, type PublicUrl } from '../../src/public-url.js';

const USER_FILE = '/home/someone/.config/askbridge/config.json';
const url = (raw: string) => parsePublicUrl(raw) as PublicUrl;
const starting = (overrides: Partial<PublicUrlAtStart>): PublicUrlAtStart => ({ url: undefined, source: 'none', userValue: undefined, userFile: USER_FILE, listening: false, ...overrides });

describe('the public URL while the daemon runs', () => {
  it("applies the user config's new value, and its removal, and says the user file is where it comes from", () => {
    const setting = createPublicUrlSetting(starting({ url: url('https://a.example.test'), source: 'user', userValue: 'https://a.example.test' }));
    expect(setting.userChanged('https://a.example.test')).toEqual({ kind: 'same' });
    expect(setting.userChanged('https://b.example.test:8443')).toEqual({ kind: 'applied', from: url('https://a.example.test'), to: url('https://b.example.test:8443') });
    expect(setting.url()).toEqual(url('https://b.example.test:8443'));
    expect(setting.status()).toEqual({ url: 'https://b.example.test:8443', source: 'user', userFile: USER_FILE });
    expect(setting.userChanged(undefined)).toMatchObject({ kind: 'applied', to: undefined });
    expect(setting.status()).toEqual({ source: 'none', userFile: USER_FILE });
  });

  it('keeps the flag or the environment over the user config, and names the value it does not use', () => {
    for (const source of ['flag', 'environment'] as const) {
      const setting = createPublicUrlSetting(starting({ url: url('https://given.example.test'), source, userValue: 'https://file.example.test' }));
      expect(setting.status()).toEqual({ url: 'https://given.example.test', source, userFile: USER_FILE, userValueNotUsed: 'https://file.example.test' });
      expect(setting.userChanged('https://other.example.test')).toMatchObject({ kind: 'not-applied', value: 'https://other.example.test' });
      expect(setting.url()?.origin).toBe('https://given.example.test');
      expect(setting.status().userValueNotUsed).toBe('https://other.example.test');
      // The same address in the file is no news.
      setting.userChanged('https://given.example.test');
      expect(setting.status().userValueNotUsed).toBeUndefined();
    }
  });

  it('keeps the address --listen serves with its certificate, and says a restart is needed', () => {
    const setting = createPublicUrlSetting(starting({ url: url('https://desk.example.lan:8443'), source: 'user', userValue: 'https://desk.example.lan:8443', listening: true }));
    expect(setting.userChanged('https://other.example.lan:8443')).toMatchObject({ kind: 'not-applied' });
    expect(setting.url()?.origin).toBe('https://desk.example.lan:8443');
    expect(setting.status().restartNeeded).toContain('--listen serves https://desk.example.lan:8443');
  });

  it('signs pushes as an https public URL, and as a placeholder otherwise (Apple refuses localhost and reserved names)', () => {
    expect(pushSubject(undefined)).toBe(PLACEHOLDER_PUSH_SUBJECT);
    expect(pushSubject(url('http://localhost:7433'))).toBe(PLACEHOLDER_PUSH_SUBJECT);
    expect(pushSubject(url('https://box.tailnet.ts.net'))).toBe('https://box.tailnet.ts.net/');
  });

});
