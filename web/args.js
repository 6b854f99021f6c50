// ffn-lab arguments: tensors parsed and checked (nested arrays, typed arrays, {data, shape}), sizes, activation names.
import { ACT_CODES } from './codes.js';
import { product, fmtShape } from './shape.js';

export { fmtShape };

const INT32_MAX = 2 ** 31 - 1;

/** `what` may be a string or a function returning one (built only when a message needs it). */
export function whatText(what) {
  return typeof what === 'function' ? what() : what;
}

/** A RangeError if a size passed to a kernel's int parameter does not fit in int32 (what: string or () => string). */
export function checkKernelDims(fnName, what, a, b = 0, c = 0) {
  if (a <= INT32_MAX && b <= INT32_MAX && c <= INT32_MAX) return;
  const v = a > INT32_MAX ? a : b > INT32_MAX ? b : c;
  throw new RangeError(
    `${fnName}: ${whatText(what)} has a dimension of ${v}, more than the kernels' limit ${INT32_MAX}`,
  );
}

/**
 * Every activation name in the order error messages list them: those of src/ffn.h (ACT_CODES, generated from it) in
 * code order, identity last. web/ffn.js exports it as `activations` (not memoryModel.ACTIVATIONS, the memory widget's
 * three).
 */
export const ACT_NAMES = Object.freeze([...Object.keys(ACT_CODES).filter((a) => a !== 'identity'), 'identity']);

/** The C code of an activation name; a TypeError (not a string) or RangeError (unknown name) naming fnName, argName. */
export function actCode(fnName, name, argName = 'activation') {
  if (typeof name !== 'string') {
    const list = ACT_NAMES.map((a) => `'${a}'`).join(', ');
    throw new TypeError(`${fnName}: ${argName} must be one of ${list}; got ${describe(name)}`);
  }
  if (!Object.prototype.hasOwnProperty.call(ACT_CODES, name)) {
    const list = ACT_NAMES.map((a) => `'${a}'`).join(', ');
    throw new RangeError(`${fnName}: unknown ${argName} '${name}'; expected one of ${list}`);
  }
  return ACT_CODES[name];
}

export function describe(v) {
  if (v === null) return 'null';
  if (v === undefined) return 'undefined';
  if (Array.isArray(v)) return `an array of length ${v.length}`;
  if (ArrayBuffer.isView(v)) return `a ${v.constructor.name} of length ${v.length}`;
  if (typeof v === 'string') return `the string ${JSON.stringify(v.length > 40 ? v.slice(0, 40) + '...' : v)}`;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return `${typeof v} ${String(v)}`;
  if (typeof v === 'function') return 'a function';
  if (typeof v === 'symbol') return 'a symbol';
  return v.constructor && v.constructor.name ? `an object (${v.constructor.name})` : 'an object';
}

/** Validate a shape: an array of non-negative integers. */
function checkShape(fnName, argName, shape) {
  if (!Array.isArray(shape)) {
    throw new TypeError(`${fnName}: ${argName} shape must be an array of sizes; got ${describe(shape)}`);
  }
  for (let i = 0; i < shape.length; i++) {
    const s = shape[i];
    if (typeof s !== 'number') {
      throw new TypeError(
        `${fnName}: ${argName} shape ${JSON.stringify(shape)} has a non-numeric size at position ${i} ` +
          `(got ${describe(s)})`,
      );
    }
    if (!Number.isInteger(s) || s < 0) {
      throw new RangeError(
        `${fnName}: ${argName} shape ${fmtShape(shape)} has an invalid size ${s} at position ${i} ` +
          '(sizes must be non-negative integers)',
      );
    }
  }
  return shape.slice();
}

/** Require a 2-D weight with given first and second sizes (null = free); why() builds the message only on error. */
export function matrix(fnName, argName, t, first, second, why) {
  const ok =
    t.shape.length === 2 && (first == null || t.shape[0] === first) && (second == null || t.shape[1] === second);
  if (!ok) {
    const exp = `[${first == null ? '?' : first},${second == null ? '?' : second}]`;
    throw new RangeError(`${fnName}: ${argName} has shape ${fmtShape(t.shape)} but ${why ? why() : `expected ${exp}`}`);
  }
}

/** Require a 1-D tensor of n elements; why (a string) is added in parentheses. */
export function vector(fnName, argName, t, n, why) {
  if (t.shape.length !== 1 || t.shape[0] !== n) {
    const because = why ? ` (${why})` : '';
    throw new RangeError(`${fnName}: ${argName} has shape ${fmtShape(t.shape)} but expected [${n}]${because}`);
  }
}

function isNumericTyped(v) {
  const bigint = typeof BigInt64Array !== 'undefined' && (v instanceof BigInt64Array || v instanceof BigUint64Array);
  return ArrayBuffer.isView(v) && !(v instanceof DataView) && !bigint;
}

function isArrayLike(v) {
  return Array.isArray(v) || isNumericTyped(v);
}

function flatNumbers(fnName, argName, arr, out, offset) {
  // arr is an Array or typed array of numbers; writes into out from offset.
  if (arr instanceof Float32Array || isNumericTyped(arr)) {
    out.set(arr, offset);
    return;
  }
  for (let i = 0; i < arr.length; i++) {
    const v = arr[i];
    if (typeof v !== 'number') {
      throw new TypeError(`${fnName}: ${argName} entry ${i} is not a number (got ${describe(v)})`);
    }
    out[offset + i] = v;
  }
}

/** Infer the shape of a nested rectangular array and flatten it; ragged -> TypeError naming where. */
const MAX_DIMS = 32;

function parseNested(fnName, argName, x) {
  const shape = [];
  let cur = x;
  while (Array.isArray(cur) || (shape.length > 0 && isNumericTyped(cur))) {
    if (shape.length >= MAX_DIMS) {
      throw new TypeError(`${fnName}: ${argName} is nested more than ${MAX_DIMS} levels deep (or contains itself)`);
    }
    shape.push(cur.length);
    if (cur.length === 0 || isNumericTyped(cur)) break;
    cur = cur[0];
  }
  const depth = shape.length;
  const data = new Float32Array(product(shape));
  let pos = 0;
  const walk = (node, level, path) => {
    if (!isArrayLike(node)) {
      throw new TypeError(
        `${fnName}: ${argName} is ragged: ${argName}${path} is ${describe(node)} ` +
          `but an array of length ${shape[level]} was expected (shape ${fmtShape(shape)})`,
      );
    }
    if (node.length !== shape[level]) {
      throw new TypeError(
        `${fnName}: ${argName} is ragged: ${argName}${path} has length ${node.length} ` +
          `but ${argName}${'[0]'.repeat(level)} has length ${shape[level]}`,
      );
    }
    if (level === depth - 1) {
      if (isNumericTyped(node)) {
        data.set(node, pos);
        pos += node.length;
        return;
      }
      for (let i = 0; i < node.length; i++) {
        const v = node[i];
        if (typeof v !== 'number') {
          if (isArrayLike(v)) {
            throw new TypeError(
              `${fnName}: ${argName} is ragged: ${argName}${path}[${i}] is an array ` +
                `but ${argName}${'[0]'.repeat(level + 1)} is a number`,
            );
          }
          throw new TypeError(`${fnName}: ${argName}${path}[${i}] is not a number (got ${describe(v)})`);
        }
        data[pos++] = v;
      }
      return;
    }
    for (let i = 0; i < node.length; i++) walk(node[i], level + 1, `${path}[${i}]`);
  };
  walk(x, 0, '');
  return { data, shape };
}

/**
 * Parse any accepted array argument into { data: Float32Array, shape: number[] }.
 * data may share memory with the caller's Float32Array (it is only read).
 */
export function parseTensor(fnName, argName, x) {
  if (x == null) {
    throw new TypeError(
      `${fnName}: ${argName} is ${x === null ? 'null' : 'missing'}; ` +
        'expected a tensor {data, shape}, a nested number array or a typed array',
    );
  }
  if (isNumericTyped(x)) {
    return { data: x instanceof Float32Array ? x : Float32Array.from(x), shape: [x.length] };
  }
  if (Array.isArray(x)) return parseNested(fnName, argName, x);
  if (typeof x === 'object' && 'data' in x && 'shape' in x) {
    const shape = checkShape(fnName, argName, x.shape);
    const n = product(shape);
    const d = x.data;
    let data;
    if (d instanceof Float32Array) data = d;
    else if (isNumericTyped(d)) data = Float32Array.from(d);
    else if (Array.isArray(d)) {
      if (d.length > 0 && Array.isArray(d[0])) {
        const t = parseNested(fnName, argName, d);
        data = t.data;
      } else {
        data = new Float32Array(d.length);
        flatNumbers(fnName, argName, d, data, 0);
      }
    } else {
      throw new TypeError(`${fnName}: ${argName}.data must be a typed array or a number array; got ${describe(d)}`);
    }
    if (data.length !== n) {
      throw new RangeError(
        `${fnName}: ${argName} has shape ${fmtShape(shape)} (${n} elements) but its data has ${data.length} elements`,
      );
    }
    return { data, shape };
  }
  throw new TypeError(
    `${fnName}: ${argName} must be a tensor {data, shape}, a nested number array or a typed array; got ${describe(x)}`,
  );
}

/** Build a fresh tensor (the public ffn.tensor). */
export function makeTensor(data, shape) {
  const fresh = (t) => (t.data === data || (data && t.data === data.data) ? Float32Array.from(t.data) : t.data);
  if (shape === undefined) {
    const t = parseTensor('tensor', 'data', data);
    return { data: fresh(t), shape: t.shape };
  }
  const sh = checkShape('tensor', 'shape', shape);
  const t = parseTensor('tensor', 'data', data);
  const n = product(sh);
  if (t.data.length !== n) {
    throw new RangeError(
      `tensor: shape ${fmtShape(sh)} needs ${n} elements but data ` +
        (t.shape.length > 1
          ? `has shape ${fmtShape(t.shape)} (${t.data.length} elements)`
          : `has ${t.data.length} elements`),
    );
  }
  return { data: fresh(t), shape: sh };
}
