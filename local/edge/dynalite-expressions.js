// dynalite parses every condition, key condition, update and projection expression of every request with its PEG
// parsers (a tenth of its CPU a call, more than any other part of a PutItem's own work). Holdback sends the same few
// expressions over and over, only their values differ, so each parser here keeps what it made for an expression, its
// names and the kinds of its values, and hands a fresh copy of that tree with this request's values in it: the same
// tree, the same unused-name bookkeeping, the same errors as a parse of its own (plain JS: see dynalite-worker.js).

/** Expressions whose answer reads a value's content, not only its kind: always parsed (BETWEEN's bounds, a type name). */
const READS_VALUES = /between|attribute_type/i;
/** A bound on the trees kept; Holdback has a few dozen expressions, so a full cache is a sign of something else. */
const MAX_TREES = 1000;

/** Where a request's expression value goes in a kept tree. */
class ValueSlot {
  constructor(name) {
    this.name = name;
  }
}

/** The tree with each of the request's value objects (found by identity) replaced by its slot. */
function templateOf(node, slots, seen = new Map()) {
  if (node === null || typeof node !== 'object') return node;
  if (slots.has(node)) return new ValueSlot(slots.get(node));
  if (seen.has(node)) return seen.get(node);
  const copy = Array.isArray(node) ? [] : Object.create(Object.getPrototypeOf(node));
  seen.set(node, copy);
  for (const key of Object.keys(node)) copy[key] = templateOf(node[key], slots, seen);
  return copy;
}

/** A fresh tree from a kept one, with this request's values (shared parts stay shared, as in the parser's own tree). */
function instantiate(node, values, seen = new Map()) {
  if (node === null || typeof node !== 'object') return node;
  if (node instanceof ValueSlot) return values[node.name];
  if (seen.has(node)) return seen.get(node);
  const copy = Array.isArray(node) ? [] : Object.create(Object.getPrototypeOf(node));
  seen.set(node, copy);
  for (const key of Object.keys(node)) copy[key] = instantiate(node[key], values, seen);
  return copy;
}

const allOf = (record) => {
  const all = {};
  for (const name of Object.keys(record)) all[name] = true;
  return all;
};

/** Makes `parser.parse` (a dynalite PEG parser module) keep its trees; the module object is what dynalite calls. */
function keepTrees(parser) {
  const parse = parser.parse;
  const trees = new Map();
  parser.parse = function keptParse(input, options) {
    const context = options && options.context;
    if (!context || READS_VALUES.test(input)) return parse.call(this, input, options);
    const names = context.attrNames || {};
    const values = context.attrVals || {};
    let key = `${input}\u0000${context.isKeyCondition ? 'key' : ''}\u0000${JSON.stringify(names)}\u0000`;
    for (const name of Object.keys(values)) key += `${name}:${Object.keys(values[name] || {}).join(',')};`;
    let kept = trees.get(key);
    if (!kept) {
      // Parsed once against fresh bookkeeping, to learn which names and values this expression itself uses.
      const probe = { ...context, unusedAttrNames: allOf(names), unusedAttrVals: allOf(values) };
      let tree;
      try {
        tree = parse.call(this, input, { ...options, context: probe });
      } catch {
        tree = null;
      }
      // An error (a message, or a syntax error thrown) is answered by a parse of its own, with the request's own bookkeeping.
      if (tree === null || typeof tree !== 'object') return parse.call(this, input, options);
      const slots = new Map(Object.keys(values).map((name) => [values[name], name]));
      kept = {
        names: Object.keys(names).filter((name) => !(name in probe.unusedAttrNames)),
        values: Object.keys(values).filter((name) => !(name in probe.unusedAttrVals)),
        template: templateOf(tree, slots),
      };
      if (trees.size >= MAX_TREES) trees.clear();
      trees.set(key, kept);
    }
    if (context.unusedAttrNames) for (const name of kept.names) delete context.unusedAttrNames[name];
    if (context.unusedAttrVals) for (const name of kept.values) delete context.unusedAttrVals[name];
    return instantiate(kept.template, values);
  };
}

module.exports = function keepExpressionTrees() {
  for (const parser of ['conditionParser', 'updateParser', 'projectionParser']) keepTrees(require(`dynalite/db/${parser}`));
};
