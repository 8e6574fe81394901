/**
 * Whether a new version of an event schema breaks its published version. For an event Holdback consumes, every
 * detail the published schema accepted must still be accepted (marketplaces keep sending what they sent); for an
 * event Holdback emits, every detail it now emits must still match the published schema (subscribers keep reading).
 * Covers the JSON Schema keywords these schemas use.
 */

type Schema = Record<string, unknown>;
export type Direction = 'consumed' | 'emitted';

const asList = (value: unknown): unknown[] => (Array.isArray(value) ? value : value === undefined ? [] : [value]);
const props = (s: Schema): Record<string, Schema> => (s.properties as Record<string, Schema> | undefined) ?? {};

/**
 * Each breaking difference as "path: what changed". `wider` must accept all that `narrower` accepts: for a consumed
 * event the new schema is the wider, for an emitted one the published schema is.
 */
function notWider(narrower: Schema, wider: Schema, path: string, out: string[]): void {
  const nOne = narrower.oneOf as Schema[] | undefined;
  const wOne = wider.oneOf as Schema[] | undefined;
  if (nOne || wOne) {
    // Every alternative of the narrower must fit one alternative of the wider.
    for (const [i, alternative] of (nOne ?? [narrower]).entries()) {
      const fits = (wOne ?? [wider]).some((w) => { const probe: string[] = []; notWider(alternative, w, path, probe); return probe.length === 0; });
      if (!fits) out.push(`${path}${nOne ? `.oneOf[${i}]` : ''}: accepts values the other version does not (${JSON.stringify(alternative.type ?? alternative)})`);
    }
    return;
  }
  const nTypes = asList(narrower.type);
  const wTypes = asList(wider.type);
  if (wTypes.length > 0 && nTypes.some((t) => !wTypes.includes(t) && !(t === 'integer' && wTypes.includes('number')))) {
    out.push(`${path}: type ${JSON.stringify(narrower.type)} is not within ${JSON.stringify(wider.type)}`);
  }
  if (wider.enum && (!narrower.enum || asList(narrower.enum).some((v) => !asList(wider.enum).includes(v)))) {
    out.push(`${path}: enum ${JSON.stringify(narrower.enum ?? 'any value')} is not within ${JSON.stringify(wider.enum)}`);
  }
  if (wider.pattern !== undefined && wider.pattern !== narrower.pattern) out.push(`${path}: pattern changed from ${JSON.stringify(narrower.pattern)} to ${JSON.stringify(wider.pattern)}`);
  const bound = (key: string, tighter: (w: number, n: number) => boolean): void => {
    const w = wider[key] as number | undefined;
    const n = narrower[key] as number | undefined;
    if (w !== undefined && (n === undefined || tighter(w, n))) out.push(`${path}: ${key} ${n ?? 'none'} is outside ${w}`);
  };
  bound('maxItems', (w, n) => w < n);
  bound('minItems', (w, n) => w > n);
  bound('maxLength', (w, n) => w < n);
  bound('minLength', (w, n) => w > n);
  bound('maximum', (w, n) => w < n);
  bound('minimum', (w, n) => w > n);
  bound('exclusiveMinimum', (w, n) => w > n);
  if (wider.uniqueItems === true && narrower.uniqueItems !== true) out.push(`${path}: now requires unique items`);
  for (const name of asList(wider.required) as string[]) {
    if (!asList(narrower.required).includes(name)) out.push(`${path}.${name}: now required`);
  }
  if (wider.additionalProperties === false) {
    for (const name of Object.keys(props(narrower))) if (!(name in props(wider))) out.push(`${path}.${name}: no longer allowed`);
    if (narrower.additionalProperties !== false) out.push(`${path}: no longer allows other properties`);
  }
  for (const [name, w] of Object.entries(props(wider))) {
    const n = props(narrower)[name];
    if (n) notWider(n, w, `${path}.${name}`, out);
  }
  if (narrower.items && wider.items) notWider(narrower.items as Schema, wider.items as Schema, `${path}[]`, out);
}

/** The breaking changes from `published` to `current`; empty when the change is compatible. */
export function breakingChanges(published: Schema, current: Schema, direction: Direction): string[] {
  const out: string[] = [];
  if (direction === 'consumed') notWider(published, current, 'detail', out);
  else {
    // Required fields are checked below, with the subscriber's view: each one published must still always be there.
    notWider({ ...current, required: published.required }, published, 'detail', out);
    for (const name of asList(published.required) as string[]) {
      if (!asList(current.required).includes(name)) out.push(`detail.${name}: no longer always present`);
    }
  }
  return out;
}
