/**
 * A form from a reply's JSON Schema, kept small on purpose: an object whose fields are strings,
 * numbers, integers, booleans or enums gets one labelled control per field; anything else gets a
 * JSON text area. `problems` checks a value's shape against a schema (types, required fields,
 * enums, unexpected fields) before it is sent; everything else (bounds, formats, refinements) is
 * the task's to check, as for any A2A reply, and its refusal is shown as it is.
 */
import { h, json } from './dom.js';

/** The object schema inside an optional one (`anyOf: [{object}, {not: {}}]` and the like). */
export function unwrap(schema) {
  const alternatives = schema?.anyOf ?? schema?.oneOf;
  if (!Array.isArray(alternatives)) return schema;
  const objects = alternatives.filter((alternative) => alternative?.type === 'object');
  return objects.length === 1 ? objects[0] : schema;
}

function fieldKind(schema) {
  if (Array.isArray(schema?.enum) && schema.enum.every((value) => typeof value === 'string')) return 'enum';
  if (schema?.type === 'string' && schema.const === undefined) return 'string';
  if (['number', 'integer', 'boolean'].includes(schema?.type)) return schema.type;
  return undefined;
}

export function isSimpleObject(schema) {
  if (schema?.type !== 'object' || typeof schema.properties !== 'object') return false;
  return Object.values(schema.properties).every((field) => fieldKind(field) !== undefined);
}

/**
 * The controls for `schema` inside `form`, and a `read()` that returns the value they hold (or
 * throws with what is wrong); `prefix` keeps ids unique on the page.
 */
export function schemaControls(schema, prefix, initial) {
  if (!isSimpleObject(schema)) return jsonControl(prefix, initial ?? {});
  const required = new Set(schema.required ?? []);
  const fields = Object.entries(schema.properties).map(([name, field]) =>
    fieldControl(`${prefix}-${name}`, name, field, required.has(name), initial?.[name]),
  );
  return {
    element: h('div', { class: 'fields' }, ...fields.map((field) => field.element)),
    read() {
      const value = {};
      for (const field of fields) {
        const read = field.read();
        if (read !== undefined) value[field.name] = read;
      }
      return value;
    },
  };
}

function fieldControl(id, name, schema, required, initial) {
  const kind = fieldKind(schema);
  const label = `${schema.title ?? name}${required || kind === 'boolean' ? '' : ' (optional)'}`;
  const hint = schema.description && h('small', { id: `${id}-hint`, class: 'hint', text: schema.description });
  const attributes = { id, name, 'aria-describedby': hint ? `${id}-hint` : undefined };
  if (kind === 'boolean') {
    const input = h('input', { ...attributes, type: 'checkbox' });
    input.checked = initial === true;
    return {
      name,
      element: h('div', { class: 'field check' }, input, h('label', { for: id, text: label }), hint),
      read: () => input.checked,
    };
  }
  const input =
    kind === 'enum'
      ? h(
          'select',
          { ...attributes, required },
          h('option', { value: '', text: required ? 'Choose…' : '(none)' }),
          ...schema.enum.map((option) => h('option', { value: option, text: option })),
        )
      : h('input', {
          ...attributes,
          required,
          type: kind === 'string' ? 'text' : 'number',
          step: kind === 'integer' ? '1' : kind === 'number' ? 'any' : undefined,
        });
  if (initial !== undefined) input.value = String(initial);
  const read = () => {
    const text = input.value.trim();
    if (text === '') return undefined;
    return kind === 'number' || kind === 'integer' ? Number(text) : input.value;
  };
  return { name, element: h('div', { class: 'field' }, h('label', { for: id, text: label }), input, hint), read };
}

/** A JSON text area: for schemas the generator does not cover, and for a tool's arguments. */
export function jsonControl(id, initial, label = 'Answer (JSON)') {
  const area = h('textarea', { id, name: id, rows: 8, spellcheck: 'false', class: 'json' });
  area.value = json(initial);
  return {
    element: h('div', { class: 'field' }, h('label', { for: id, text: label }), area),
    read() {
      try {
        return JSON.parse(area.value);
      } catch (error) {
        throw new Error(`Not valid JSON: ${error.message}`);
      }
    },
  };
}

const TYPES = {
  string: (value) => typeof value === 'string',
  number: (value) => typeof value === 'number' && Number.isFinite(value),
  integer: (value) => Number.isInteger(value),
  boolean: (value) => typeof value === 'boolean',
  object: (value) => typeof value === 'object' && value !== null && !Array.isArray(value),
  array: (value) => Array.isArray(value),
  null: (value) => value === null,
};

/** What is wrong with `value` by the simple rules of `schema` (empty: nothing found). */
export function problems(schema, value, path = 'answer') {
  if (!schema || typeof schema !== 'object') return [];
  const types = [schema.type].flat().filter(Boolean);
  if (types.length > 0 && !types.some((type) => TYPES[type]?.(value))) return [`${path} must be ${types.join(' or ')}`];
  if (Array.isArray(schema.enum) && !schema.enum.includes(value)) {
    return [`${path} must be one of ${schema.enum.join(', ')}`];
  }
  if (TYPES.object(value) && schema.properties) return objectProblems(schema, value, path);
  return [];
}

function objectProblems(schema, value, path) {
  const found = (schema.required ?? [])
    .filter((name) => value[name] === undefined)
    .map((name) => `${path}.${name} is required`);
  for (const [name, field] of Object.entries(schema.properties)) {
    if (value[name] !== undefined) found.push(...problems(field, value[name], `${path}.${name}`));
  }
  if (schema.additionalProperties === false) {
    for (const name of Object.keys(value)) {
      if (!(name in schema.properties)) found.push(`${path}.${name} is not expected`);
    }
  }
  return found;
}
