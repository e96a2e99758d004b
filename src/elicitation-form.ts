// An MCP server's form (an elicitation's `requestedSchema`) read once, and a person's answer to it
// checked once, by the same code in the daemon and in the answer page: this module imports nothing
// but re2js (no Node, no zod, nothing of the daemon), so the page's bundle can take it as it is.
// The schema and every text in it come from a server that may be hostile: only what MCP allows is
// accepted (a flat object of text, number, yes/no and choice fields), everything is bounded, and a
// field's pattern is matched by RE2, in time linear in the text, so no pattern can hang a page or
// the daemon. Refusals and answer errors are plain sentences; they quote field names and titles,
// which are the server's text: show them as any model text (marked, never as HTML).
import { RE2JS } from 're2js';

/** Most fields one form may have: a form is a few questions, and each one is shown on a phone. */
export const MAX_FIELDS = 50;
/** Longest field name, in characters (shown when a field has no title). */
export const MAX_NAME_CHARS = 100;
export const MAX_TITLE_CHARS = 200;
export const MAX_DESCRIPTION_CHARS = 2000;
/** Most choices one field may offer, and the longest value or label of one. */
export const MAX_CHOICES = 100;
export const MAX_CHOICE_CHARS = 200;
/** Longest pattern, as for the config's own rules. */
export const MAX_PATTERN_CHARS = 500;
/** Longest text a person may answer in one field, whatever the field's own maxLength says. */
export const MAX_TEXT_CHARS = 10_000;

export const TEXT_FORMATS = ['email', 'uri', 'date', 'date-time'] as const;
export type TextFormat = (typeof TEXT_FORMATS)[number];

type FieldCommon = { name: string; title?: string; description?: string; required: boolean };
export type TextField = FieldCommon & { kind: 'text'; format?: TextFormat; minLength?: number; maxLength?: number; pattern?: string; default?: string };
export type NumberField = FieldCommon & { kind: 'number'; integer: boolean; minimum?: number; maximum?: number; default?: number };
export type BooleanField = FieldCommon & { kind: 'boolean'; default?: boolean };
/** One offered choice: the value sent back, and the words shown (the value itself when the server gave none). */
export type Choice = { value: string; label: string };
export type ChoiceField = FieldCommon & { kind: 'choice'; choices: Choice[]; default?: string };
export type MultiChoiceField = FieldCommon & { kind: 'choices'; choices: Choice[]; minItems?: number; maxItems?: number; default?: string[] };
export type FormField = TextField | NumberField | BooleanField | ChoiceField | MultiChoiceField;
/** A form as askbridge shows it: its fields in the server's order. Plain data: it can be sent as JSON. */
export type FormSpec = { fields: FormField[] };

export type FormValue = string | number | boolean | string[];
export type FormContent = Record<string, FormValue>;
/** One problem with an answer: the field's name (empty when the problem is the answer as a whole) and a sentence for a person. */
export type FormError = { field: string; message: string };

export type FormSchemaReading = { ok: true; form: FormSpec } | { ok: false; reason: string };
export type FormContentCheck = { ok: true; content: FormContent } | { ok: false; errors: FormError[] };

/** Why a schema is refused; thrown only inside readFormSchema, which returns it as a value. */
class SchemaRefusal extends Error {}

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A keyword of the server's object, only if it is the object's own: `constructor` or `toString` is never read from a prototype. */
function own(object: JsonObject, key: string): unknown {
  return Object.hasOwn(object, key) ? object[key] : undefined;
}

/** Whether a text has more than `max` characters (code points, as JSON Schema counts), without counting a huge one through. */
function longerThan(text: string, max: number): boolean {
  if (text.length <= max) return false;
  if (text.length > 2 * max) return true;
  let count = 0;
  for (const _ of text) if (++count > max) return true;
  return false;
}

/** A field's name as a refusal quotes it: never the whole of a huge one. */
function quoteName(name: string): string {
  return longerThan(name, 40) ? `"${Array.from(name).slice(0, 40).join('')}…"` : `"${name}"`;
}

/**
 * The form an elicitation asks for, or why askbridge will not show it. Accepts only what MCP allows:
 * `{type: "object", properties, required?}` whose properties are text (format email, uri, date or
 * date-time; minLength, maxLength, pattern), number or integer (minimum, maximum), boolean, one
 * choice (`enum` with optional `enumNames`, or `oneOf` of `{const, title}`) or several (`type:
 * "array"` with `items` of `enum` or `anyOf` of `{const, title}`; minItems, maxItems), each with an
 * optional title, description and default. Keywords MCP does not use (`$schema`…) are ignored.
 */
export function readFormSchema(requested: unknown): FormSchemaReading {
  try {
    return { ok: true, form: readForm(requested) };
  } catch (error) {
    if (error instanceof SchemaRefusal) return { ok: false, reason: error.message };
    throw error;
  }
}

function readForm(requested: unknown): FormSpec {
  if (!isObject(requested)) throw new SchemaRefusal('The form is not an object of fields.');
  if (own(requested, 'type') !== 'object') throw new SchemaRefusal('The form\'s type is not "object": an MCP form is one object of fields.');
  const properties = own(requested, 'properties');
  if (!isObject(properties)) throw new SchemaRefusal('The form has no "properties" object listing its fields.');
  const names = Object.keys(properties);
  if (names.length > MAX_FIELDS) throw new SchemaRefusal(`The form has ${names.length} fields; askbridge shows at most ${MAX_FIELDS}.`);
  const required = readRequired(own(requested, 'required'), properties);
  return { fields: names.map((name) => readField(name, properties[name], required.has(name))) };
}

function readRequired(required: unknown, properties: JsonObject): Set<string> {
  if (required === undefined) return new Set();
  if (!Array.isArray(required) || !required.every((name) => typeof name === 'string')) throw new SchemaRefusal('The form\'s "required" is not a list of field names.');
  for (const name of required) if (!Object.hasOwn(properties, name)) throw new SchemaRefusal(`The form requires a field ${quoteName(name)} that it does not have.`);
  return new Set(required);
}

function readField(name: string, raw: unknown, required: boolean): FormField {
  if (name === '') throw new SchemaRefusal('The form has a field with an empty name.');
  const refuse = (why: string) => new SchemaRefusal(`Field ${quoteName(name)}: ${why}`);
  if (longerThan(name, MAX_NAME_CHARS)) throw refuse(`the name is longer than ${MAX_NAME_CHARS} characters.`);
  if (!isObject(raw)) throw refuse('is not described by an object.');
  const common: FieldCommon = { name, required };
  const title = readText(raw, 'title', MAX_TITLE_CHARS, refuse);
  if (title !== undefined) common.title = title;
  const description = readText(raw, 'description', MAX_DESCRIPTION_CHARS, refuse);
  if (description !== undefined) common.description = description;

  const type = own(raw, 'type');
  let field: FormField;
  if (type === 'string') field = Object.hasOwn(raw, 'enum') || Object.hasOwn(raw, 'oneOf') ? readChoiceField(raw, common, refuse) : readTextField(raw, common, refuse);
  else if (type === 'number' || type === 'integer') field = readNumberField(raw, { ...common, kind: 'number', integer: type === 'integer' }, refuse);
  else if (type === 'boolean') field = { ...common, kind: 'boolean' };
  else if (type === 'array') field = readMultiChoiceField(raw, common, refuse);
  else if (type === 'object') throw refuse('is a group of fields inside the form; MCP forms are flat (text, numbers, yes/no and choices only).');
  else if (type === undefined) throw refuse('has no type.');
  else throw refuse(`has ${typeof type === 'string' ? `the type ${quoteName(type)}` : 'a type that is not a word'}, which MCP forms do not allow (string, number, integer, boolean, or an array of choices).`);

  const fallback = own(raw, 'default');
  if (fallback !== undefined) {
    const problem = checkValue(field, fallback);
    if (problem !== undefined) throw refuse(`its default does not fit the field: ${problem}.`);
    // checkValue has just shown it is of the field's own type.
    (field as { default?: FormValue }).default = copyValue(fallback as FormValue);
  }
  return field;
}

type Refuse = (why: string) => SchemaRefusal;

function readText(raw: JsonObject, key: string, max: number, refuse: Refuse): string | undefined {
  const value = own(raw, key);
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw refuse(`its ${key} is not text.`);
  if (longerThan(value, max)) throw refuse(`its ${key} is longer than ${max} characters.`);
  return value;
}

/** A count the schema gives (minLength, maxItems…): a whole number, zero or more. */
function readCount(raw: JsonObject, key: string, refuse: Refuse): number | undefined {
  const value = own(raw, key);
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) throw refuse(`its ${key} is not a whole number of zero or more.`);
  return value;
}

function readBound(raw: JsonObject, key: string, refuse: Refuse): number | undefined {
  const value = own(raw, key);
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value)) throw refuse(`its ${key} is not a number.`);
  return value;
}

function readTextField(raw: JsonObject, common: FieldCommon, refuse: Refuse): TextField {
  const field: TextField = { ...common, kind: 'text' };
  const format = own(raw, 'format');
  if (format !== undefined) {
    if (!TEXT_FORMATS.includes(format as TextFormat)) throw refuse(`its format is not one MCP forms allow (${TEXT_FORMATS.join(', ')}).`);
    field.format = format as TextFormat;
  }
  const minLength = readCount(raw, 'minLength', refuse);
  const maxLength = readCount(raw, 'maxLength', refuse);
  if (minLength !== undefined && maxLength !== undefined && minLength > maxLength) throw refuse(`its minLength (${minLength}) is above its maxLength (${maxLength}).`);
  if (minLength !== undefined) field.minLength = minLength;
  if (maxLength !== undefined) field.maxLength = maxLength;
  const pattern = own(raw, 'pattern');
  if (pattern !== undefined) {
    if (typeof pattern !== 'string') throw refuse('its pattern is not text.');
    if (longerThan(pattern, MAX_PATTERN_CHARS)) throw refuse(`its pattern is longer than ${MAX_PATTERN_CHARS} characters.`);
    try {
      compilePattern(pattern);
    } catch (error) {
      throw refuse(`its pattern is not a regular expression askbridge can match safely (RE2 syntax: no backreferences or lookaround): ${(error as Error).message}.`);
    }
    field.pattern = pattern;
  }
  return field;
}

function readNumberField(raw: JsonObject, field: NumberField, refuse: Refuse): NumberField {
  const minimum = readBound(raw, 'minimum', refuse);
  const maximum = readBound(raw, 'maximum', refuse);
  if (minimum !== undefined && maximum !== undefined && minimum > maximum) throw refuse(`its minimum (${minimum}) is above its maximum (${maximum}).`);
  if (minimum !== undefined) field.minimum = minimum;
  if (maximum !== undefined) field.maximum = maximum;
  return field;
}

function readChoiceField(raw: JsonObject, common: FieldCommon, refuse: Refuse): ChoiceField {
  const values = own(raw, 'enum');
  const titled = own(raw, 'oneOf');
  if (values !== undefined && titled !== undefined) throw refuse('gives its choices twice (both enum and oneOf).');
  const choices = values !== undefined ? readUntitledChoices(values, own(raw, 'enumNames'), 'enum', refuse) : readTitledChoices(titled, 'oneOf', refuse);
  return { ...common, kind: 'choice', choices };
}

function readMultiChoiceField(raw: JsonObject, common: FieldCommon, refuse: Refuse): MultiChoiceField {
  const items = own(raw, 'items');
  const notChoices = 'is a list, but not a list of fixed choices (MCP forms allow lists of choices only).';
  if (!isObject(items)) throw refuse(notChoices);
  const itemType = own(items, 'type');
  if (itemType !== undefined && itemType !== 'string') throw refuse(notChoices);
  let choices: Choice[];
  if (Object.hasOwn(items, 'enum')) choices = readUntitledChoices(own(items, 'enum'), undefined, 'items.enum', refuse);
  else if (Object.hasOwn(items, 'anyOf')) choices = readTitledChoices(own(items, 'anyOf'), 'items.anyOf', refuse);
  else throw refuse(notChoices);
  const field: MultiChoiceField = { ...common, kind: 'choices', choices };
  const minItems = readCount(raw, 'minItems', refuse);
  const maxItems = readCount(raw, 'maxItems', refuse);
  if (minItems !== undefined && maxItems !== undefined && minItems > maxItems) throw refuse(`its minItems (${minItems}) is above its maxItems (${maxItems}).`);
  if (minItems !== undefined && minItems > choices.length) throw refuse(`it asks for at least ${minItems} choices but offers ${choices.length}.`);
  if (minItems !== undefined) field.minItems = minItems;
  if (maxItems !== undefined) field.maxItems = maxItems;
  return field;
}

function readChoiceList(list: unknown, key: string, refuse: Refuse): unknown[] {
  if (!Array.isArray(list)) throw refuse(`its ${key} is not a list of choices.`);
  if (list.length === 0) throw refuse('offers no choices.');
  if (list.length > MAX_CHOICES) throw refuse(`offers ${list.length} choices; askbridge shows at most ${MAX_CHOICES}.`);
  return list;
}

function checkChoiceText(text: unknown, what: string, refuse: Refuse): string {
  if (typeof text !== 'string') throw refuse(`${what} is not text.`);
  if (text === '') throw refuse(`${what} is empty.`);
  if (longerThan(text, MAX_CHOICE_CHARS)) throw refuse(`${what} is longer than ${MAX_CHOICE_CHARS} characters.`);
  return text;
}

function withoutRepeats(choices: Choice[], refuse: Refuse): Choice[] {
  const seen = new Set<string>();
  for (const { value } of choices) {
    if (seen.has(value)) throw refuse(`offers the choice ${quoteName(value)} twice.`);
    seen.add(value);
  }
  return choices;
}

/** `enum` (with the older `enumNames` as labels). */
function readUntitledChoices(values: unknown, names: unknown, key: string, refuse: Refuse): Choice[] {
  const list = readChoiceList(values, key, refuse);
  if (names !== undefined && (!Array.isArray(names) || names.length !== list.length)) throw refuse('its enumNames is not a list of one label per choice.');
  return withoutRepeats(
    list.map((value, index) => {
      const choice = checkChoiceText(value, `choice ${index + 1}`, refuse);
      return { value: choice, label: names === undefined ? choice : checkChoiceText((names as unknown[])[index], `the label of choice ${index + 1}`, refuse) };
    }),
    refuse,
  );
}

/** `oneOf` or `items.anyOf`: `{const, title}` each. */
function readTitledChoices(options: unknown, key: string, refuse: Refuse): Choice[] {
  const list = readChoiceList(options, key, refuse);
  return withoutRepeats(
    list.map((option, index) => {
      if (!isObject(option)) throw refuse(`choice ${index + 1} is not an object of const and title.`);
      return { value: checkChoiceText(own(option, 'const'), `the const of choice ${index + 1}`, refuse), label: checkChoiceText(own(option, 'title'), `the title of choice ${index + 1}`, refuse) };
    }),
    refuse,
  );
}

/** A JSON Schema pattern (ECMAScript syntax, found anywhere in the text) as RE2 reads it; throws when RE2 cannot. */
function compilePattern(pattern: string): RE2JS {
  return RE2JS.compile(RE2JS.translateRegExp(pattern));
}

/**
 * An accepted form's values, checked against the form: each value of its field's type (an integer a
 * whole number, a boolean true or false), format, length, pattern, range, choices and count; every
 * required field present; no field the form does not have. Returns the values as they will be sent
 * (a fresh object, in the form's order), or every problem, one per field, in plain words.
 */
export function checkFormContent(form: FormSpec, content: unknown): FormContentCheck {
  if (!isObject(content)) return { ok: false, errors: [{ field: '', message: 'The answer is not an object of field values.' }] };
  const keys = Object.keys(content);
  if (keys.length > form.fields.length) return { ok: false, errors: [{ field: '', message: `The answer has ${keys.length} values; the form has ${form.fields.length} fields.` }] };
  const known = new Set(form.fields.map((field) => field.name));
  const errors: FormError[] = keys.filter((key) => !known.has(key)).map((key) => ({ field: key, message: `The form has no field ${quoteName(key)}.` }));
  const checked: Array<[string, FormValue]> = [];
  for (const field of form.fields) {
    const problem = checkField(field, content);
    if (problem !== undefined) errors.push({ field: field.name, message: problem });
    else if (Object.hasOwn(content, field.name)) checked.push([field.name, copyValue(content[field.name] as FormValue)]);
  }
  // fromEntries defines each key as the object's own, so a field named __proto__ stays a field.
  return errors.length > 0 ? { ok: false, errors } : { ok: true, content: Object.fromEntries(checked) };
}

/**
 * What is wrong with one field's value in `content` ("Label: problem", as checkFormContent says it),
 * or undefined when it fits: absent is fine unless the field is required. The terminal checks each
 * field with it as it is answered, before the whole answer goes to the daemon.
 */
export function checkField(field: FormField, content: Record<string, unknown>): string | undefined {
  const label = field.title ?? field.name;
  if (!Object.hasOwn(content, field.name)) return field.required ? `${label}: required` : undefined;
  const problem = checkValue(field, content[field.name]);
  return problem === undefined ? undefined : `${label}: ${problem}`;
}

function copyValue(value: FormValue): FormValue {
  return Array.isArray(value) ? [...value] : value;
}

/** What is wrong with one value for its field, in words that follow "Label: ", or undefined when it fits. */
function checkValue(field: FormField, value: unknown): string | undefined {
  switch (field.kind) {
    case 'text':
      return checkText(field, value);
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value)) return 'must be a number';
      if (field.integer && !Number.isInteger(value)) return 'must be a whole number';
      if (field.minimum !== undefined && value < field.minimum) return `at least ${field.minimum}`;
      if (field.maximum !== undefined && value > field.maximum) return `at most ${field.maximum}`;
      return undefined;
    case 'boolean':
      return typeof value === 'boolean' ? undefined : 'must be yes or no (true or false)';
    case 'choice':
      return typeof value === 'string' && field.choices.some((choice) => choice.value === value) ? undefined : 'must be one of the offered choices';
    case 'choices':
      return checkChoices(field, value);
  }
}

function checkText(field: TextField, value: unknown): string | undefined {
  if (typeof value !== 'string') return 'must be text';
  const maxLength = Math.min(field.maxLength ?? MAX_TEXT_CHARS, MAX_TEXT_CHARS);
  if (longerThan(value, maxLength)) return `at most ${maxLength} characters`;
  if (field.minLength !== undefined && !longerThan(value, field.minLength - 1)) return `at least ${field.minLength} characters`;
  if (field.format !== undefined && !FORMAT_CHECKS[field.format].fits(value)) return FORMAT_CHECKS[field.format].expected;
  if (field.pattern !== undefined && !compilePattern(field.pattern).test(value)) return `must match the pattern ${field.pattern}`;
  return undefined;
}

function checkChoices(field: MultiChoiceField, value: unknown): string | undefined {
  if (!Array.isArray(value)) return 'must be a list of choices';
  if (value.length > field.choices.length) return 'has more choices than the field offers';
  const seen = new Set<string>();
  for (const item of value) {
    if (typeof item !== 'string' || !field.choices.some((choice) => choice.value === item)) return 'must hold only the offered choices';
    if (seen.has(item)) return `chooses ${quoteName(item)} twice`;
    seen.add(item);
  }
  if (field.minItems !== undefined && value.length < field.minItems) return `choose at least ${field.minItems}`;
  if (field.maxItems !== undefined && value.length > field.maxItems) return `choose at most ${field.maxItems}`;
  return undefined;
}

/**
 * An email address as a browser's `<input type="email">` accepts it (the HTML standard's "valid
 * email address"): what a person types into the page passes here too. Linear: each part is bounded
 * or separated by a character it cannot hold.
 */
const EMAIL = /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;
/** An absolute URI: a scheme, then no space or control character (RFC 3986 has none); the rest as the URL parser reads it. */
const URI_SCHEME = /^[a-zA-Z][a-zA-Z0-9+.-]*:[^\s\p{Cc}]*$/u;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
/** RFC 3339's date-time: a date, T, a time with seconds, optional fractions, and a zone (Z or ±hh:mm). */
const DATE_TIME = /^(\d{4}-\d{2}-\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:[Zz]|[+-](\d{2}):(\d{2}))$/;

function isLeapYear(year: number): boolean {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}

/** A real calendar date: February 30th or month 13 is not one. */
function isDate(text: string): boolean {
  const match = DATE.exec(text);
  if (match === null) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const days = [31, isLeapYear(year) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
  return days !== undefined && day >= 1 && day <= days;
}

function isDateTime(text: string): boolean {
  const match = DATE_TIME.exec(text);
  if (match === null || !isDate(match[1]!)) return false;
  const [hour, minute, second] = [Number(match[2]), Number(match[3]), Number(match[4])];
  // Second 60 is a leap second, which RFC 3339 allows.
  if (hour > 23 || minute > 59 || second > 60) return false;
  return match[5] === undefined || (Number(match[5]) <= 23 && Number(match[6]) <= 59);
}

const FORMAT_CHECKS: Record<TextFormat, { fits: (text: string) => boolean; expected: string }> = {
  email: { fits: (text) => EMAIL.test(text), expected: 'must be an email address, such as name@example.com' },
  uri: { fits: (text) => URI_SCHEME.test(text) && URL.canParse(text), expected: 'must be a full address with its scheme, such as https://example.com' },
  date: { fits: isDate, expected: 'must be a date as YYYY-MM-DD, such as 2026-12-31' },
  'date-time': { fits: isDateTime, expected: 'must be a date and time with its time zone, such as 2026-12-31T18:30:00Z' },
};
