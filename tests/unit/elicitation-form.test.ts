// An MCP server's form schema, read by readFormSchema, and a person's answer, checked by
// checkFormContent: every field kind MCP allows, every refusal with the reason a person reads, every
// check of a value with one that passes and one that fails, and hostile schemas (huge, deep,
// catastrophic patterns, prototype keys as field names).
import { readFileSync } from 'node:fs';
import { ElicitRequestFormParamsSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { checkFormContent, type FormField, type FormSpec, MAX_FIELDS, readFormSchema } from '../../src/elicitation-form.js';

const fixture = (name: string): unknown => JSON.parse(readFileSync(new URL(`../fixtures/elicitation/${name}`, import.meta.url), 'utf8'));

/** A form of the given properties (and required names). */
const schema = (properties: Record<string, unknown>, required?: string[]) => ({ type: 'object', properties, ...(required === undefined ? {} : { required }) });

function formOf(requested: unknown): FormSpec {
  const reading = readFormSchema(requested);
  if (!reading.ok) throw new Error(`refused: ${reading.reason}`);
  return reading.form;
}

function reasonFor(requested: unknown): string {
  const reading = readFormSchema(requested);
  if (reading.ok) throw new Error('accepted');
  return reading.reason;
}

describe('readFormSchema: what MCP allows', () => {
  it('reads every field kind, in the order the server gave, with titles, descriptions, bounds and defaults', () => {
    expect(formOf(fixture('every-kind.json')).fields).toEqual<FormField[]>([
      { name: 'branch', kind: 'text', required: true, title: 'Branch', description: 'A release branch', minLength: 3, maxLength: 40, pattern: '^release/[0-9]+\\.[0-9]+$', default: 'release/1.2' },
      { name: 'homepage', kind: 'text', required: false, title: 'Homepage', format: 'uri' },
      { name: 'releaseDate', kind: 'text', required: false, title: 'Release date', format: 'date', default: '2026-12-31' },
      { name: 'freezeAt', kind: 'text', required: false, title: 'Freeze at', format: 'date-time' },
      { name: 'rowLimit', kind: 'number', integer: true, required: true, title: 'Row limit', minimum: 1, maximum: 1000, default: 100 },
      { name: 'ratio', kind: 'number', integer: false, required: false, title: 'Sample ratio', minimum: 0, maximum: 1 },
      { name: 'dryRun', kind: 'boolean', required: false, title: 'Dry run', default: true },
      {
        name: 'environment',
        kind: 'choice',
        required: true,
        title: 'Environment',
        choices: [
          { value: 'dev', label: 'Development' },
          { value: 'staging', label: 'Staging' },
          { value: 'prod', label: 'Production' },
        ],
        default: 'staging',
      },
      {
        name: 'region',
        kind: 'choice',
        required: false,
        title: 'Region',
        choices: [
          { value: 'eu-west-1', label: 'Ireland' },
          { value: 'us-east-1', label: 'Virginia' },
        ],
      },
      {
        name: 'checks',
        kind: 'choices',
        required: false,
        title: 'Checks',
        choices: [
          { value: 'lint', label: 'lint' },
          { value: 'unit', label: 'unit' },
          { value: 'e2e', label: 'e2e' },
        ],
        minItems: 1,
        maxItems: 2,
        default: ['lint'],
      },
      {
        name: 'notify',
        kind: 'choices',
        required: false,
        title: 'Notify',
        choices: [
          { value: 'ops', label: 'Operations' },
          { value: 'qa', label: 'Quality' },
        ],
      },
    ]);
  });

  it('reads the fixtures, which the MCP SDK itself accepts as form requests', () => {
    for (const name of ['contact.json', 'every-kind.json']) {
      expect(ElicitRequestFormParamsSchema.safeParse({ message: 'Fill in', requestedSchema: fixture(name) }).success, name).toBe(true);
      expect(readFormSchema(fixture(name)).ok, name).toBe(true);
    }
    expect(formOf(fixture('contact.json')).fields.map((field) => [field.name, field.kind, field.required])).toEqual([
      ['name', 'text', true],
      ['email', 'text', true],
      ['age', 'number', false],
    ]);
  });

  it('takes a single choice without labels, showing each value as its own label', () => {
    expect(formOf(schema({ size: { type: 'string', enum: ['S', 'M'] } })).fields[0]).toEqual({ name: 'size', kind: 'choice', required: false, choices: [{ value: 'S', label: 'S' }, { value: 'M', label: 'M' }] });
  });

  it('takes a form with no fields (a message to accept or decline)', () => {
    expect(formOf(schema({}))).toEqual({ fields: [] });
  });

  it('ignores keywords MCP does not use', () => {
    const form = formOf({ $schema: 'https://json-schema.org/draft/2020-12/schema', $id: 'x', type: 'object', additionalProperties: false, properties: { n: { type: 'integer', examples: [1], $comment: 'c', multipleOf: 2 } } });
    expect(form.fields).toEqual([{ name: 'n', kind: 'number', integer: true, required: false }]);
  });
});

describe('readFormSchema: refusals, each with its reason', () => {
  const fields = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, index) => [`f${index}`, { type: 'boolean' }]));
  const choices = (count: number) => Array.from({ length: count }, (_, index) => `c${index}`);
  const cases: Array<[string, unknown, string]> = [
    ['not an object', ['a'], 'The form is not an object of fields.'],
    ['null', null, 'The form is not an object of fields.'],
    ['a type other than object', { type: 'array', properties: {} }, 'The form\'s type is not "object": an MCP form is one object of fields.'],
    ['no properties', { type: 'object' }, 'The form has no "properties" object listing its fields.'],
    ['too many fields', schema(fields(MAX_FIELDS + 1)), 'The form has 51 fields; askbridge shows at most 50.'],
    ['required naming an absent field', schema({ a: { type: 'boolean' } }, ['a', 'b']), 'The form requires a field "b" that it does not have.'],
    ['required that is not a list of names', { ...schema({ a: { type: 'boolean' } }), required: 'a' }, 'The form\'s "required" is not a list of field names.'],
    ['a nested object', schema({ address: { type: 'object', properties: { city: { type: 'string' } } } }), 'Field "address": is a group of fields inside the form; MCP forms are flat (text, numbers, yes/no and choices only).'],
    ['an array of numbers', schema({ ids: { type: 'array', items: { type: 'number' } } }), 'Field "ids": is a list, but not a list of fixed choices (MCP forms allow lists of choices only).'],
    ['an array of free text', schema({ tags: { type: 'array', items: { type: 'string' } } }), 'Field "tags": is a list, but not a list of fixed choices (MCP forms allow lists of choices only).'],
    ['an array of objects', schema({ rows: { type: 'array', items: { type: 'object', properties: {} } } }), 'Field "rows": is a list, but not a list of fixed choices (MCP forms allow lists of choices only).'],
    ['an array without items', schema({ rows: { type: 'array' } }), 'Field "rows": is a list, but not a list of fixed choices (MCP forms allow lists of choices only).'],
    ['an unknown type', schema({ when: { type: 'date' } }), 'Field "when": has the type "date", which MCP forms do not allow (string, number, integer, boolean, or an array of choices).'],
    ['a list of types', schema({ x: { type: ['string', 'null'] } }), 'Field "x": has a type that is not a word, which MCP forms do not allow (string, number, integer, boolean, or an array of choices).'],
    ['no type', schema({ x: { title: 'X' } }), 'Field "x": has no type.'],
    ['a field that is not an object', schema({ x: 'string' }), 'Field "x": is not described by an object.'],
    ['an empty field name', schema({ '': { type: 'string' } }), 'The form has a field with an empty name.'],
    ['a name too long', schema({ ['n'.repeat(101)]: { type: 'string' } }), `Field "${'n'.repeat(40)}…": the name is longer than 100 characters.`],
    ['a title too long', schema({ x: { type: 'string', title: 't'.repeat(201) } }), 'Field "x": its title is longer than 200 characters.'],
    ['a title that is not text', schema({ x: { type: 'string', title: 7 } }), 'Field "x": its title is not text.'],
    ['a description too long', schema({ x: { type: 'string', description: 'd'.repeat(2001) } }), 'Field "x": its description is longer than 2000 characters.'],
    ['an unknown format', schema({ ip: { type: 'string', format: 'ipv4' } }), 'Field "ip": its format is not one MCP forms allow (email, uri, date, date-time).'],
    ['a minLength above the maxLength', schema({ x: { type: 'string', minLength: 5, maxLength: 2 } }), 'Field "x": its minLength (5) is above its maxLength (2).'],
    ['a negative maxLength', schema({ x: { type: 'string', maxLength: -1 } }), 'Field "x": its maxLength is not a whole number of zero or more.'],
    ['a minimum above the maximum', schema({ n: { type: 'number', minimum: 5, maximum: 1 } }), 'Field "n": its minimum (5) is above its maximum (1).'],
    ['a maximum that is not a number', schema({ n: { type: 'number', maximum: '10' } }), 'Field "n": its maximum is not a number.'],
    ['too many choices', schema({ c: { type: 'string', enum: choices(101) } }), 'Field "c": offers 101 choices; askbridge shows at most 100.'],
    ['no choices', schema({ c: { type: 'string', enum: [] } }), 'Field "c": offers no choices.'],
    ['a choice too long', schema({ c: { type: 'string', enum: ['ok', 'v'.repeat(201)] } }), 'Field "c": choice 2 is longer than 200 characters.'],
    ['a choice that is not text', schema({ c: { type: 'string', enum: ['a', 2] } }), 'Field "c": choice 2 is not text.'],
    ['an empty choice', schema({ c: { type: 'string', enum: ['a', ''] } }), 'Field "c": choice 2 is empty.'],
    ['a choice given twice', schema({ c: { type: 'string', enum: ['a', 'a'] } }), 'Field "c": offers the choice "a" twice.'],
    ['enumNames not one per choice', schema({ c: { type: 'string', enum: ['a', 'b'], enumNames: ['A'] } }), 'Field "c": its enumNames is not a list of one label per choice.'],
    ['a label too long', schema({ c: { type: 'string', enum: ['a'], enumNames: ['L'.repeat(201)] } }), 'Field "c": the label of choice 1 is longer than 200 characters.'],
    ['a titled choice without its title', schema({ c: { type: 'string', oneOf: [{ const: 'a' }] } }), 'Field "c": the title of choice 1 is not text.'],
    ['a titled choice that is not an object', schema({ c: { type: 'string', oneOf: ['a'] } }), 'Field "c": choice 1 is not an object of const and title.'],
    ['both enum and oneOf', schema({ c: { type: 'string', enum: ['a'], oneOf: [{ const: 'a', title: 'A' }] } }), 'Field "c": gives its choices twice (both enum and oneOf).'],
    ['too many choices in a list', schema({ c: { type: 'array', items: { anyOf: choices(101).map((value) => ({ const: value, title: value })) } } }), 'Field "c": offers 101 choices; askbridge shows at most 100.'],
    ['more items asked for than offered', schema({ c: { type: 'array', items: { enum: ['a', 'b'] }, minItems: 3 } }), 'Field "c": it asks for at least 3 choices but offers 2.'],
    ['minItems above maxItems', schema({ c: { type: 'array', items: { enum: ['a', 'b'] }, minItems: 2, maxItems: 1 } }), 'Field "c": its minItems (2) is above its maxItems (1).'],
    ['a pattern with a backreference', schema({ x: { type: 'string', pattern: '(a)\\1' } }), 'Field "x": its pattern is not a regular expression askbridge can match safely (RE2 syntax: no backreferences or lookaround): error parsing regexp: invalid escape sequence: `\\1`.'],
    ['a pattern with lookahead', schema({ x: { type: 'string', pattern: '^(?=.*\\d).+$' } }), 'Field "x": its pattern is not a regular expression askbridge can match safely (RE2 syntax: no backreferences or lookaround): error parsing regexp: invalid or unsupported Perl syntax: `(?=`.'],
    ['a broken pattern', schema({ x: { type: 'string', pattern: '[a-' } }), 'Field "x": its pattern is not a regular expression askbridge can match safely (RE2 syntax: no backreferences or lookaround): error parsing regexp: missing closing ]: `[a-`.'],
    ['a pattern too long', schema({ x: { type: 'string', pattern: 'a'.repeat(501) } }), 'Field "x": its pattern is longer than 500 characters.'],
    ['a text default for a number', schema({ n: { type: 'number', title: 'Rows', default: '10' } }), 'Field "n": its default does not fit the field: must be a number.'],
    ['a fraction as an integer default', schema({ n: { type: 'integer', default: 1.5 } }), 'Field "n": its default does not fit the field: must be a whole number.'],
    ['a default above the maximum', schema({ n: { type: 'integer', maximum: 1000, default: 5000 } }), 'Field "n": its default does not fit the field: at most 1000.'],
    ['a default that is not a choice', schema({ c: { type: 'string', enum: ['a', 'b'], default: 'z' } }), 'Field "c": its default does not fit the field: must be one of the offered choices.'],
    ['a list default with a choice not offered', schema({ c: { type: 'array', items: { enum: ['a', 'b'] }, default: ['a', 'z'] } }), 'Field "c": its default does not fit the field: must hold only the offered choices.'],
    ['a default off the pattern', schema({ x: { type: 'string', pattern: '^[0-9]+$', default: 'abc' } }), 'Field "x": its default does not fit the field: must match the pattern ^[0-9]+$.'],
    ['a default date that does not exist', schema({ d: { type: 'string', format: 'date', default: '2026-02-30' } }), 'Field "d": its default does not fit the field: must be a date as YYYY-MM-DD, such as 2026-12-31.'],
    ['a boolean default given as text', schema({ b: { type: 'boolean', default: 'true' } }), 'Field "b": its default does not fit the field: must be yes or no (true or false).'],
    ['a null default', schema({ b: { type: 'string', default: null } }), 'Field "b": its default does not fit the field: must be text.'],
  ];
  it.each(cases)('refuses %s', (_what, requested, reason) => {
    expect(reasonFor(requested)).toBe(reason);
  });
});

describe('readFormSchema: hostile schemas', () => {
  it('refuses a 10 MB schema at once, by its size in fields or in text', () => {
    const field = JSON.stringify({ type: 'string', description: 'd'.repeat(150) });
    const manyFields = `{"type":"object","properties":{${Array.from({ length: 60_000 }, (_, index) => `"f${index}":${field}`).join(',')}}}`;
    expect(manyFields.length).toBeGreaterThan(10_000_000);
    expect(reasonFor(JSON.parse(manyFields))).toBe('The form has 60000 fields; askbridge shows at most 50.');
    const hugeText = JSON.stringify(schema({ x: { type: 'string', description: 'd'.repeat(10_000_000) } }));
    expect(reasonFor(JSON.parse(hugeText))).toBe('Field "x": its description is longer than 2000 characters.');
  });

  it('refuses a deeply nested object without walking it, and ignores deep nesting in keywords it does not read', () => {
    let deep: Record<string, unknown> = { type: 'string' };
    for (let depth = 0; depth < 100_000; depth++) deep = { type: 'object', properties: { inner: deep } };
    expect(reasonFor(schema({ x: deep }))).toBe('Field "x": is a group of fields inside the form; MCP forms are flat (text, numbers, yes/no and choices only).');
    expect(formOf({ ...schema({ y: { type: 'boolean', $defs: deep } }), $defs: deep }).fields).toEqual([{ name: 'y', kind: 'boolean', required: false }]);
  });

  it('matches a catastrophic pattern against a long text in linear time', () => {
    const form = formOf(schema({ x: { type: 'string', title: 'Code', pattern: '(a+)+$' } }));
    // A backtracking engine takes about 2^n steps here: 30 letters would already take seconds.
    const text = `${'a'.repeat(9_999)}!`;
    const started = performance.now();
    expect(checkFormContent(form, { x: text })).toEqual({ ok: false, errors: [{ field: 'x', message: 'Code: must match the pattern (a+)+$' }] });
    expect(checkFormContent(form, { x: 'a'.repeat(9_999) })).toEqual({ ok: true, content: { x: 'a'.repeat(9_999) } });
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it('takes __proto__ and constructor as plain field names: read as the server\'s own, never from a prototype', () => {
    const form = formOf(JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string","title":"Proto"},"constructor":{"type":"integer"}},"required":["constructor"]}'));
    expect(form.fields.map((field) => [field.name, field.kind, field.required])).toEqual([
      ['__proto__', 'text', false],
      ['constructor', 'number', true],
    ]);
    // A name that exists only on Object.prototype is absent, and a keyword is never inherited.
    expect(reasonFor(schema({ a: { type: 'string' } }, ['toString']))).toBe('The form requires a field "toString" that it does not have.');
    expect(reasonFor(schema({ a: Object.create({ type: 'string' }) }))).toBe('Field "a": has no type.');

    const answered = checkFormContent(form, JSON.parse('{"__proto__":"x","constructor":5}'));
    expect(answered.ok).toBe(true);
    if (!answered.ok) return;
    expect(Object.keys(answered.content)).toEqual(['__proto__', 'constructor']);
    expect(Object.getOwnPropertyDescriptor(answered.content, '__proto__')?.value).toBe('x');
    expect(Object.getPrototypeOf(answered.content)).toBe(Object.prototype);
    expect(JSON.stringify(answered.content)).toBe('{"__proto__":"x","constructor":5}');
    // A plain object's inherited constructor is not an answer to the required field.
    expect(checkFormContent(form, {})).toEqual({ ok: false, errors: [{ field: 'constructor', message: 'constructor: required' }] });
  });

  it('keeps hostile titles as they are (marking them is the display\'s work) and quotes at most 40 characters of a name in a reason', () => {
    const title = '\u001b]52;c;ZXZpbA==\u0007<img src=x onerror=alert(1)>\u202e';
    expect(formOf(schema({ x: { type: 'string', title } })).fields[0]?.title).toBe(title);
    expect(reasonFor(schema({ ['q'.repeat(60)]: { type: 'nope' } }))).toBe(`Field "${'q'.repeat(40)}…": has the type "nope", which MCP forms do not allow (string, number, integer, boolean, or an array of choices).`);
  });
});

describe('checkFormContent', () => {
  /** One check: a field, a value that passes, a value that fails, and the failure's message. */
  const cases: Array<[string, Record<string, unknown>, unknown, unknown, string]> = [
    ['text is text', { type: 'string', title: 'Name' }, 'Ada', 42, 'Name: must be text'],
    ['minLength, in characters', { type: 'string', title: 'Code', minLength: 2 }, '😀😀', '😀', 'Code: at least 2 characters'],
    ['maxLength, in characters', { type: 'string', title: 'Code', maxLength: 2 }, '😀😀', 'abc', 'Code: at most 2 characters'],
    ['no text above askbridge\'s own limit', { type: 'string', title: 'Notes', maxLength: 1_000_000 }, 'n'.repeat(10_000), 'n'.repeat(10_001), 'Notes: at most 10000 characters'],
    ['pattern, found anywhere as JSON Schema does', { type: 'string', title: 'Ticket', pattern: '[A-Z]+-[0-9]+' }, 'see OPS-12', 'ops 12', 'Ticket: must match the pattern [A-Z]+-[0-9]+'],
    ['pattern in ECMAScript syntax (\\u escapes)', { type: 'string', title: 'Word', pattern: '^\\u00e9t\\u00e9$' }, 'été', 'ete', 'Word: must match the pattern ^\\u00e9t\\u00e9$'],
    ['email', { type: 'string', title: 'Email', format: 'email' }, 'ada@example.com', 'ada@', 'Email: must be an email address, such as name@example.com'],
    ['email without spaces', { type: 'string', title: 'Email', format: 'email' }, 'a.b+c@mail.example.org', 'ada @example.com', 'Email: must be an email address, such as name@example.com'],
    ['uri with its scheme', { type: 'string', title: 'Homepage', format: 'uri' }, 'https://example.com/a?b=c', 'example.com', 'Homepage: must be a full address with its scheme, such as https://example.com'],
    ['uri without spaces', { type: 'string', title: 'Homepage', format: 'uri' }, 'mailto:ada@example.com', 'https://example.com/a b', 'Homepage: must be a full address with its scheme, such as https://example.com'],
    ['date, a real one', { type: 'string', title: 'Day', format: 'date' }, '2024-02-29', '2023-02-29', 'Day: must be a date as YYYY-MM-DD, such as 2026-12-31'],
    ['date as YYYY-MM-DD', { type: 'string', title: 'Day', format: 'date' }, '2026-12-31', '31/12/2026', 'Day: must be a date as YYYY-MM-DD, such as 2026-12-31'],
    ['date with a month that exists', { type: 'string', title: 'Day', format: 'date' }, '2026-01-31', '2026-13-01', 'Day: must be a date as YYYY-MM-DD, such as 2026-12-31'],
    ['date-time with a zone', { type: 'string', title: 'At', format: 'date-time' }, '2026-12-31T18:30:00+02:00', '2026-12-31T18:30:00', 'At: must be a date and time with its time zone, such as 2026-12-31T18:30:00Z'],
    ['date-time with a real hour', { type: 'string', title: 'At', format: 'date-time' }, '2026-12-31T23:59:60.5Z', '2026-12-31T24:00:00Z', 'At: must be a date and time with its time zone, such as 2026-12-31T18:30:00Z'],
    ['date-time on a real day', { type: 'string', title: 'At', format: 'date-time' }, '2024-02-29t00:00:00z', '2026-02-29T00:00:00Z', 'At: must be a date and time with its time zone, such as 2026-12-31T18:30:00Z'],
    ['a number is a number, not text', { type: 'number', title: 'Ratio' }, 0.5, '0.5', 'Ratio: must be a number'],
    ['a number is finite', { type: 'number', title: 'Ratio' }, -3, Number.POSITIVE_INFINITY, 'Ratio: must be a number'],
    ['an integer is a whole number', { type: 'integer', title: 'Rows' }, 3, 2.5, 'Rows: must be a whole number'],
    ['minimum', { type: 'integer', title: 'Row limit', minimum: 1 }, 1, 0, 'Row limit: at least 1'],
    ['maximum', { type: 'integer', title: 'Row limit', maximum: 1000 }, 1000, 1001, 'Row limit: at most 1000'],
    ['a boolean is true or false', { type: 'boolean', title: 'Dry run' }, false, 'false', 'Dry run: must be yes or no (true or false)'],
    ['a choice is an offered value', { type: 'string', title: 'Env', enum: ['dev', 'prod'] }, 'prod', 'staging', 'Env: must be one of the offered choices'],
    ['a choice is its value, not its label', { type: 'string', title: 'Region', oneOf: [{ const: 'eu-west-1', title: 'Ireland' }] }, 'eu-west-1', 'Ireland', 'Region: must be one of the offered choices'],
    ['several choices are a list', { type: 'array', title: 'Checks', items: { enum: ['lint', 'unit'] } }, ['unit', 'lint'], 'lint', 'Checks: must be a list of choices'],
    ['several choices hold only offered values', { type: 'array', title: 'Checks', items: { enum: ['lint', 'unit'] } }, [], ['lint', 'deploy'], 'Checks: must hold only the offered choices'],
    ['several choices name each at most once', { type: 'array', title: 'Checks', items: { anyOf: [{ const: 'lint', title: 'Lint' }, { const: 'unit', title: 'Unit' }] } }, ['lint'], ['lint', 'lint'], 'Checks: chooses "lint" twice'],
    ['minItems', { type: 'array', title: 'Checks', items: { enum: ['a', 'b', 'c'] }, minItems: 2 }, ['a', 'c'], ['a'], 'Checks: choose at least 2'],
    ['maxItems', { type: 'array', title: 'Checks', items: { enum: ['a', 'b', 'c'] }, maxItems: 2 }, ['a', 'c'], ['a', 'b', 'c'], 'Checks: choose at most 2'],
    ['the field name when there is no title', { type: 'integer', maximum: 9 }, 9, 10, 'x: at most 9'],
  ];
  it.each(cases)('checks %s', (_what, property, passing, failing, message) => {
    const form = formOf(schema({ x: property }));
    expect(checkFormContent(form, { x: passing })).toEqual({ ok: true, content: { x: passing } });
    expect(checkFormContent(form, { x: failing })).toEqual({ ok: false, errors: [{ field: 'x', message }] });
  });

  const form = formOf(fixture('every-kind.json'));
  const valid = { branch: 'release/2.0', rowLimit: 1000, environment: 'prod', dryRun: false, checks: ['unit', 'lint'] };

  it('returns the values with their types, in the form\'s order, as a fresh object', () => {
    const content = { checks: ['unit', 'lint'], environment: 'prod', branch: 'release/2.0', rowLimit: 1000, dryRun: false };
    const checked = checkFormContent(form, content);
    expect(checked).toEqual({ ok: true, content: valid });
    if (!checked.ok) return;
    expect(Object.keys(checked.content)).toEqual(['branch', 'rowLimit', 'dryRun', 'environment', 'checks']);
    expect(checked.content.checks).not.toBe(content.checks);
  });

  it('needs every required field, and lets an optional one be left out', () => {
    expect(checkFormContent(form, { branch: 'release/2.0' })).toEqual({
      ok: false,
      errors: [
        { field: 'rowLimit', message: 'Row limit: required' },
        { field: 'environment', message: 'Environment: required' },
      ],
    });
    expect(checkFormContent(form, { branch: 'release/2.0', rowLimit: 1, environment: 'dev' }).ok).toBe(true);
  });

  it('refuses a field the form does not have', () => {
    expect(checkFormContent(form, { ...valid, admin: true })).toEqual({ ok: false, errors: [{ field: 'admin', message: 'The form has no field "admin".' }] });
  });

  it('names every problem, one per field', () => {
    expect(checkFormContent(form, { branch: 'main', rowLimit: 5000, environment: 'prod', homepage: 'nowhere' })).toEqual({
      ok: false,
      errors: [
        { field: 'branch', message: 'Branch: must match the pattern ^release/[0-9]+\\.[0-9]+$' },
        { field: 'homepage', message: 'Homepage: must be a full address with its scheme, such as https://example.com' },
        { field: 'rowLimit', message: 'Row limit: at most 1000' },
      ],
    });
  });

  it('refuses an answer that is not an object of values, or has more values than the form has fields', () => {
    for (const content of [null, 'yes', ['branch']]) expect(checkFormContent(form, content)).toEqual({ ok: false, errors: [{ field: '', message: 'The answer is not an object of field values.' }] });
    const flood = Object.fromEntries(Array.from({ length: 1_000 }, (_, index) => [`k${index}`, 1]));
    expect(checkFormContent(form, flood)).toEqual({ ok: false, errors: [{ field: '', message: 'The answer has 1000 values; the form has 11 fields.' }] });
  });
});
