// dynalite's checkTypes (dynalite/validations/index.js, Apache-2.0, version 4.0.0) with the type descriptors it made
// for every value of every request made once instead (plain JS: loaded by dynalite-worker.js on dynalite's thread).
// For each attribute value of a request it matched a regular expression against its type's name, twice, and built a
// new descriptor of ten members for `AttrStruct`: with the rest of its validation, 14% of dynalite's thread in a
// profile of the pipeline, and much of its garbage. The checks, their order, the answer and every error are its own:
// the code below is dynalite's, but for namedType, parsedType and attrStruct, which hand out the same descriptors
// made once, and refuseUnlessCollection, its collections' shared checks; edge-dynalite-types.test.ts checks both
// give the same on valid and invalid requests.

// The descriptors dynalite's checkType made again for every value: each is made once and shared (checkType only
// reads them).
var namedTypes = new Map(), parsedTypes = new Map(), attrStructs = new Map()

/** `{ type: name }`, as checkType wraps a child type given by its name. */
function namedType (name) {
  var made = namedTypes.get(name)
  if (!made) namedTypes.set(name, made = { type: name })
  return made
}

/** A type name split as `Name<Subtype>` (subtype undefined when it has none). */
function parsedType (name) {
  var made = parsedTypes.get(name)
  if (!made) {
    var subtypeMatch = name.match(/(.+?)<(.+)>$/)
    made = subtypeMatch != null ? { type: subtypeMatch[1], subtype: subtypeMatch[2] } : { type: name, subtype: undefined }
    parsedTypes.set(name, made)
  }
  return made
}

/** The type of an attribute value (`AttrStruct<subtype>`), exactly as checkType wrote it. */
function attrStruct (subtype) {
  var made = attrStructs.get(subtype)
  if (!made) {
    made = {
      type: subtype + '<AttributeValue>',
      children: {
        S: 'String',
        B: 'Blob',
        N: 'String',
        BOOL: 'Boolean',
        NULL: 'Boolean',
        BS: {
          type: 'List',
          children: 'Blob',
        },
        NS: {
          type: 'List',
          children: 'String',
        },
        SS: {
          type: 'List',
          children: 'String',
        },
        L: {
          type: 'List',
          children: 'AttrStruct<ValueStruct>',
        },
        M: {
          type: 'Map<AttributeValue>',
          children: 'AttrStruct<ValueStruct>',
        },
      },
    }
    attrStructs.set(subtype, made)
  }
  return made
}

function checkTypes (data, types) {
  var key
  for (key in data) {
    // TODO: deal with nulls
    if (!types[key] || data[key] == null)
      delete data[key]
  }

  return Object.keys(types).reduce(function (newData, key) {
    var val = checkType(data[key], types[key])
    if (val != null) newData[key] = val
    return newData
  }, {})
}

function typeError (msg) {
  var err = new Error(msg)
  err.statusCode = 400
  err.body = {
    __type: 'com.amazon.coral.service#SerializationException',
    Message: msg,
  }
  return err
}

var PARAMETERIZED = "class sun.reflect.generics.reflectiveObjects.ParameterizedTypeImpl cannot be cast to class java.lang.Class (sun.reflect.generics.reflectiveObjects.ParameterizedTypeImpl and java.lang.Class are in module java.base of loader 'bootstrap')"

/**
 * dynalite's checks before a list or a map is read (its cases shared them line for line): a boolean, a number or a
 * string is refused with `primitive`; an object where an array is wanted, or an array where an object is, with
 * `misplaced` (a message, or a function that makes it, made only then).
 */
function refuseUnlessCollection (val, wantsArray, primitive, misplaced) {
  switch (typeof val) {
  case 'boolean':
  case 'number':
  case 'string':
    throw typeError(primitive)
  case 'object':
    if (Array.isArray(val) != wantsArray) throw typeError(typeof misplaced == 'function' ? misplaced() : misplaced)
  }
}

function checkType (val, type) {
  if (val == null) return null
  var children = type.children
  if (typeof children == 'string') children = namedType(children)
  if (type.type) type = type.type
  var parsed = parsedType(type), subtype = parsed.subtype
  type = parsed.type

  if (type == 'AttrStruct') return checkType(val, attrStruct(subtype))

  switch (type) {
  case 'Boolean':
    switch (typeof val) {
    case 'number':
      throw typeError((val % 1 === 0 ? 'NUMBER_VALUE' : 'DECIMAL_VALUE') + ' cannot be converted to ' + type)
    case 'string':
      // 'true'/'false'/'1'/'0'/'no'/'yes' seem to convert fine
      val = val.toUpperCase()
      if (~[ 'TRUE', '1', 'YES' ].indexOf(val)) {
        val = true
      }
      else if (~[ 'FALSE', '0', 'NO' ].indexOf(val)) {
        val = false
      }
      else {
        throw typeError('Unexpected token received from parser')
      }
      break
    case 'object':
      if (Array.isArray(val)) throw typeError('Unrecognized collection type class java.lang.' + type)
      throw typeError('Start of structure or map found where not expected')
    }
    return val
  case 'Short':
  case 'Integer':
  case 'Long':
  case 'Double':
    switch (typeof val) {
    case 'boolean':
      throw typeError((val ? 'TRUE_VALUE' : 'FALSE_VALUE') + ' cannot be converted to ' + type)
    case 'number':
      if (type != 'Double') val = Math.floor(val)
      break
    case 'string':
      throw typeError('STRING_VALUE cannot be converted to ' + type)
    case 'object':
      if (Array.isArray(val)) throw typeError('Unrecognized collection type class java.lang.' + type)
      throw typeError('Start of structure or map found where not expected')
    }
    return val
  case 'String':
    switch (typeof val) {
    case 'boolean':
      throw typeError((val ? 'TRUE_VALUE' : 'FALSE_VALUE') + ' cannot be converted to ' + type)
    case 'number':
      throw typeError((val % 1 === 0 ? 'NUMBER_VALUE' : 'DECIMAL_VALUE') + ' cannot be converted to ' + type)
    case 'object':
      if (Array.isArray(val)) throw typeError('Unrecognized collection type class java.lang.' + type)
      throw typeError('Start of structure or map found where not expected')
    }
    return val
  case 'Blob':
    switch (typeof val) {
    case 'boolean':
    case 'number':
      throw typeError('only base-64-encoded strings are convertible to bytes')
    case 'object':
      if (Array.isArray(val)) throw typeError('Unrecognized collection type class java.nio.ByteBuffer')
      throw typeError('Start of structure or map found where not expected')
    }
    if (val.length % 4)
      throw typeError('Base64 encoded length is expected a multiple of 4 bytes but found: ' + val.length)
      // TODO: need a better check than this...
    if (Buffer.from(val, 'base64').toString('base64') != val)
      throw typeError('Invalid last non-pad Base64 character dectected')
    return val
  case 'List':
  case 'ParameterizedList':
    refuseUnlessCollection(val, true, type == 'List' ? 'Unexpected field type' : PARAMETERIZED, 'Start of structure or map found where not expected')
    return val.map(function (child) { return checkType(child, children) })
  case 'ParameterizedMap':
  case 'Map':
    refuseUnlessCollection(val, false, type == 'Map' ? 'Unexpected field type' : PARAMETERIZED, function () {
      if (type == 'ParameterizedMap') return 'Unrecognized collection type java.util.Map<java.lang.String, com.amazonaws.dynamodb.v20120810.AttributeValue>'
      return 'Unrecognized collection type java.util.Map<java.lang.String, ' +
        (~subtype.indexOf('.') ? subtype : 'com.amazonaws.dynamodb.v20120810.' + subtype) + '>'
    })
    return Object.keys(val).reduce(function (newVal, key) {
      newVal[key] = checkType(val[key], children)
      return newVal
    }, {})
  case 'ValueStruct':
  case 'FieldStruct':
    refuseUnlessCollection(val, false, type == 'ValueStruct' ? 'Unexpected value type in payload' : 'Unexpected field type', function () {
      return 'Unrecognized collection type class com.amazonaws.dynamodb.v20120810.' + subtype
    })
    return checkTypes(val, children)
  default:
    throw new Error('Unknown type: ' + type)
  }
}

/** Makes dynalite's request handler check types with this checkTypes (it calls the module's export). */
function install () {
  require('dynalite/validations').checkTypes = checkTypes
}

module.exports = { checkTypes: checkTypes, install: install }
