// The shared store's setting (where it is, and where its password may come from), how a database's
// schema compares with the migrations askbridge ships, and how a failed connection is said.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createConfigReader, userConfigPath } from '../../src/config.js';
import { clientConfig, describeStoreError } from '../../src/store/connect.js';
import { compareSchema, knownMigrations, schemaProblem } from '../../src/store/schema.js';
import { chooseStore, describeStoreUrl } from '../../src/store/setting.js';

let root: string;
let env: NodeJS.ProcessEnv;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'askbridge-store-setting-'));
  env = { XDG_CONFIG_HOME: join(root, 'config'), HOME: root };
  mkdirSync(join(root, 'config', 'askbridge'), { recursive: true });
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const writeUser = (value: unknown) => writeFileSync(userConfigPath(env), JSON.stringify(value));

describe('the store setting', () => {
  it('is none when neither the user config nor ASKBRIDGE_STORE names one', () => {
    expect(chooseStore(env)).toEqual({ kind: 'none' });
  });

  it("is the user config's store, with no password", () => {
    writeUser({ store: 'postgres://askbridge@db.example:5432/askbridge' });
    expect(chooseStore(env)).toEqual({ kind: 'store', setting: { url: 'postgres://askbridge@db.example:5432/askbridge', source: { kind: 'user', file: userConfigPath(env) } } });
  });

  it('refuses a URL with a password in the config file, saying to use PGPASSWORD or a password file', () => {
    writeUser({ store: 'postgres://askbridge:secret@db.example/askbridge' });
    const choice = chooseStore(env);
    expect(choice.kind).toBe('error');
    expect(choice.kind === 'error' && choice.message).toMatch(/must not carry a password.*PGPASSWORD.*~\/\.pgpass.*PGPASSFILE/);
    expect(choice.kind === 'error' && choice.message).not.toContain('secret');
    // The same refusal for the password as a parameter of the URL.
    writeUser({ store: 'postgres://askbridge@db.example/askbridge?password=secret' });
    expect(chooseStore(env).kind).toBe('error');
  });

  it('is an error, never "no store", when the user config names one but is broken elsewhere in a way that stops it parsing', () => {
    writeUser({ store: 'postgres://askbridge@db.example/askbridge', waitSeconds: 'soon' });
    expect(chooseStore(env)).toMatchObject({ kind: 'error', message: expect.stringContaining('waitSeconds') });
  });

  it('refuses what is not a PostgreSQL URL', () => {
    writeUser({ store: 'mysql://askbridge@db.example/askbridge' });
    expect(chooseStore(env)).toMatchObject({ kind: 'error', message: expect.stringContaining('PostgreSQL URL') });
  });

  it('takes ASKBRIDGE_STORE over the config file', () => {
    writeUser({ store: 'postgres://askbridge@from-the-file/askbridge' });
    expect(chooseStore({ ...env, ASKBRIDGE_STORE: 'postgres://askbridge@from-the-environment/askbridge' })).toEqual({
      kind: 'store',
      setting: { url: 'postgres://askbridge@from-the-environment/askbridge', source: { kind: 'environment' } },
    });
  });

  it('is read from the user config only: a project file that sets it is told so, and it applies nowhere', () => {
    const project = join(root, 'project');
    mkdirSync(join(project, '.claude'), { recursive: true });
    writeFileSync(join(project, '.claude', 'askbridge.json'), JSON.stringify({ store: 'postgres://attacker@elsewhere/askbridge' }));
    const trust = { verdict: () => 'trusted' as const, trust: () => undefined, revoke: () => false, list: () => [] };
    const effective = createConfigReader(env, trust as never).effective(project);
    expect(effective.warnings?.[0]?.message).toMatch(/store is read from the user config only/);
    expect(chooseStore(env)).toEqual({ kind: 'none' });
  });

  it('is shown without its password', () => {
    expect(describeStoreUrl('postgres://askbridge:secret@db.example:5432/askbridge?password=also')).toBe('postgres://askbridge@db.example:5432/askbridge');
  });

  it('takes the password from PGPASSWORD when the URL has none', async () => {
    const config = clientConfig('postgres://askbridge@db.example:5432/askbridge', { PGPASSWORD: 'from-the-environment' });
    expect(typeof config.password).toBe('function');
    expect(await (config.password as () => Promise<string>)()).toBe('from-the-environment');
  });

  it('takes the password from the password file PGPASSFILE names', async () => {
    const file = join(root, 'pgpass');
    writeFileSync(file, 'db.example:5432:askbridge:askbridge:from-the-file\n', { mode: 0o600 });
    const previous = process.env.PGPASSFILE;
    // pgpass reads the file's name from this process's environment.
    process.env.PGPASSFILE = file;
    try {
      const config = clientConfig('postgres://askbridge@db.example:5432/askbridge', {});
      expect(await (config.password as () => Promise<string>)()).toBe('from-the-file');
    } finally {
      if (previous === undefined) delete process.env.PGPASSFILE;
      else process.env.PGPASSFILE = previous;
    }
  });
});

describe('the schema against the migrations askbridge ships', () => {
  const known = ['0001_first-schema', '0002_more'];

  it('ships its first migration', () => {
    expect(knownMigrations()[0]).toBe('0001_first-schema');
  });

  it('is current, unmigrated, older or newer', () => {
    expect(compareSchema(known, known)).toEqual({ kind: 'current', version: 2 });
    expect(compareSchema([], known)).toEqual({ kind: 'unmigrated', daemon: 2 });
    expect(compareSchema(['0001_first-schema'], known)).toEqual({ kind: 'older', database: 1, daemon: 2 });
    expect(compareSchema([...known, '0003_later'], known)).toEqual({ kind: 'newer', database: 3, daemon: 2, unknown: ['0003_later'] });
  });

  it('says what to do about each', () => {
    expect(schemaProblem({ kind: 'current', version: 2 }, 'askbridge')).toBeUndefined();
    expect(schemaProblem({ kind: 'unmigrated', daemon: 2 }, 'askbridge')).toMatch(/run `askbridge store migrate`/);
    expect(schemaProblem({ kind: 'older', database: 1, daemon: 2 }, 'askbridge')).toMatch(/version 1, older than this askbridge's \(version 2\): run `askbridge store migrate`/);
    expect(schemaProblem({ kind: 'newer', database: 3, daemon: 2, unknown: ['0003_later'] }, 'askbridge')).toMatch(/version 3, newer than this askbridge's \(version 2; it does not know 0003_later\): upgrade askbridge/);
  });
});

describe('a failed connection, in words', () => {
  const url = 'postgres://askbridge@db.example:5433/teamstate';
  const pgError = (code: string, message: string) => Object.assign(new Error(message), { code });

  it('names the host and the driver reason when it cannot reach it', () => {
    expect(describeStoreError(pgError('ECONNREFUSED', 'connect ECONNREFUSED 10.0.0.1:5433'), url)).toBe('cannot reach the store at db.example:5433: connect ECONNREFUSED 10.0.0.1:5433');
    const both = new AggregateError([pgError('ECONNREFUSED', 'connect ECONNREFUSED ::1:5433'), pgError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5433')]);
    expect(describeStoreError(Object.assign(both, { code: 'ECONNREFUSED' }), url)).toBe('cannot reach the store at db.example:5433: connect ECONNREFUSED ::1:5433; connect ECONNREFUSED 127.0.0.1:5433');
  });

  it('names the user for a wrong password, and the database when there is none', () => {
    expect(describeStoreError(pgError('28P01', 'password authentication failed for user "askbridge"'), url)).toMatch(/refused the password of user "askbridge".*PGPASSWORD/);
    expect(describeStoreError(pgError('3D000', 'database "teamstate" does not exist'), url)).toMatch(/no database "teamstate" at db\.example:5433/);
  });

  it('says when the server asked for a password and none was given', () => {
    expect(describeStoreError(new Error('SASL: SCRAM-SERVER-FIRST-MESSAGE: client password must be a string'), url)).toMatch(/asks user "askbridge" for a password and none was given: set PGPASSWORD/);
  });
});
