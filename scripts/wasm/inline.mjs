// Build-time inlining of small WebAssembly text functions (scripts/wasm/build.mjs).
//
// Why: V8 only inlines wasm calls where wasm inlining is on (not in Node 20's V8 11.3, nor in
// older Chrome), and a call inside a hot loop costs far more than the helper's work: the caller
// spills its live SIMD registers around it (no callee-saved xmm registers in V8's wasm ABI). The
// deep kernels call helpers per vector (the dropout hash, exp, partial stores): on a Pseudo-Label
// step, Node's --experimental-wasm-inlining made the attention products ~25 % and the softmax /
// ReGLU kernels 30–60 % faster. Inlining at build time gives every engine that code.
//
// A function marked by a `;; @inline` line just above its `(func $name` is inlined at each
// `(call $name …)`: the call becomes a block (with the function's result type) that sets fresh
// caller locals to the arguments, in order, zeroes fresh copies of the function's own locals (a
// function's locals start at zero; an inlined copy inside a loop would not), and runs the body,
// `return` becoming a branch out of the block. Marked functions may call marked functions (inlined
// in turn, at any depth; no recursion). Same operations in the same order: the same results.
// The marked functions stay in the module (an export keeps working). Text without a marker is
// returned unchanged.

const MARK = /^[ \t]*;; @inline[ \t]*\r?\n[ \t]*\(func[ \t]+(\$[\w.]+)/gm;

/** Tokens of WebAssembly text: '(', ')', strings and atoms; comments dropped. */
function tokens(text) {
  const out = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === ';' && text[i + 1] === ';') {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (c === '(' && text[i + 1] === ';') {
      let depth = 1;
      i += 2;
      while (i < text.length && depth > 0) {
        const pair = text.slice(i, i + 2);
        depth += pair === '(;' ? 1 : pair === ';)' ? -1 : 0;
        i += pair === '(;' || pair === ';)' ? 2 : 1;
      }
    } else if (c === '(' || c === ')') {
      out.push(c);
      i++;
    } else if (/\s/.test(c)) i++;
    else if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      out.push(text.slice(i, j + 1));
      i = j + 1;
    } else {
      let j = i;
      while (j < text.length && !/[\s()]/.test(text[j]) && !(text[j] === ';' && text[j + 1] === ';')) j++;
      out.push(text.slice(i, j));
      i = j;
    }
  }
  return out;
}

/** The s-expressions of a token list: lists are arrays, atoms strings. */
function parse(toks) {
  const stack = [[]];
  for (const t of toks) {
    if (t === '(') stack.push([]);
    else if (t === ')') {
      const done = stack.pop();
      if (!stack.length) throw new Error('inline: unbalanced ")"');
      stack[stack.length - 1].push(done);
    } else stack[stack.length - 1].push(t);
  }
  if (stack.length !== 1) throw new Error('inline: unbalanced "("');
  return stack[0];
}

const print = (x) => (Array.isArray(x) ? `(${x.map(print).join(' ')})` : x);
const isHead = (x, ...heads) => Array.isArray(x) && heads.includes(x[0]);
const ZERO = {
  i32: '(i32.const 0)',
  i64: '(i64.const 0)',
  f32: '(f32.const 0)',
  f64: '(f64.const 0)',
  v128: '(v128.const i32x4 0 0 0 0)',
};

/** A function's named params and locals (one name per declaration, as this codebase writes them). */
function signature(fn, strict = false) {
  const params = [],
    locals = [];
  let result = null;
  let bodyAt = 1;
  for (let i = 1; i < fn.length; i++) {
    const x = fn[i];
    if ((i === 1 && typeof x === 'string' && x.startsWith('$')) || isHead(x, 'export', 'type'))
      bodyAt = i + 1;
    else if (isHead(x, 'param', 'local')) {
      if (strict && (x.length !== 3 || !x[1].startsWith('$')))
        throw new Error(`inline: ${fn[1]}: write one named ${x[0]} per declaration (${print(x)})`);
      (x[0] === 'param' ? params : locals).push({ name: x[1], type: x[2] });
      bodyAt = i + 1;
    } else if (isHead(x, 'result')) {
      result = x.slice(1).join(' ');
      bodyAt = i + 1;
    } else break;
  }
  return { params, locals, result, body: fn.slice(bodyAt), declEnd: bodyAt };
}

const LOCAL_OPS = ['local.get', 'local.set', 'local.tee'];
const BRANCHES = ['br', 'br_if', 'br_table'];

/**
 * Why a marked function's body cannot be inlined by renaming, or null: locals by index, or flat
 * instructions (only folded `(local.get $x)`, `(br $l …)` forms are renamed).
 */
function unsupported(x, names) {
  if (!Array.isArray(x)) return null;
  if (isHead(x, ...LOCAL_OPS) && !names.has(x[1])) return `${print(x)} is not one of its named locals`;
  for (let i = 1; i < x.length; i++) {
    if (typeof x[i] === 'string' && [...LOCAL_OPS, ...BRANCHES, 'return'].includes(x[i]))
      return `write its instructions folded (a bare ${x[i]})`;
    const why = unsupported(x[i], names);
    if (why) return why;
  }
  return null;
}

/** The `$label`s a body declares (block / loop / if heads). */
function labelsIn(x, out = new Set()) {
  if (!Array.isArray(x)) return out;
  if (isHead(x, 'block', 'loop', 'if') && typeof x[1] === 'string' && x[1].startsWith('$')) out.add(x[1]);
  for (const y of x) labelsIn(y, out);
  return out;
}

/**
 * The text with every call of a `;; @inline`-marked function replaced by the function's body.
 * Throws on what it cannot inline faithfully (a marked function with locals by index or flat
 * instructions, one that calls itself, a call with the wrong number of arguments).
 */
export function inlineMarked(text) {
  const marked = new Set([...text.matchAll(MARK)].map((m) => m[1]));
  if (!marked.size) return text;
  const top = parse(tokens(text));
  const module = top.find((x) => isHead(x, 'module'));
  if (!module) throw new Error('inline: no (module …)');
  const funcs = new Map();
  for (const x of module) if (isHead(x, 'func') && marked.has(x[1])) funcs.set(x[1], signature(x, true));
  for (const name of marked) {
    if (!funcs.has(name)) throw new Error(`inline: ${name} is marked @inline but no such function`);
    const f = funcs.get(name);
    const names = new Set([...f.params, ...f.locals].map((v) => v.name));
    const why = unsupported(['func', ...f.body], names);
    if (why) throw new Error(`inline: ${name} cannot be inlined: ${why}`);
  }

  for (const fn of module) {
    if (!isHead(fn, 'func')) continue;
    const added = [];
    let serial = 0;
    /** x with marked calls expanded; `depth` guards against recursion. */
    const expand = (x, depth) => {
      if (!Array.isArray(x)) return x;
      const kids = x.map((y) => expand(y, depth));
      if (!(kids[0] === 'call' && funcs.has(kids[1]))) return kids;
      const name = kids[1];
      if (depth > 16) throw new Error(`inline: ${name}: calls nest deeper than 16 (recursion?)`);
      const f = funcs.get(name);
      const args = kids.slice(2);
      if (args.length !== f.params.length)
        throw new Error(
          `inline: ${name} takes ${f.params.length} arguments, called with ${args.length} in ${fn[1]}`,
        );
      const id = `${name.slice(1)}_${serial++}`;
      const rename = new Map([...f.params, ...f.locals].map((v) => [v.name, `$__${id}_${v.name.slice(1)}`]));
      // Its labels get the copy's prefix too: two copies in one caller must not share a name.
      const relabel = new Map([...labelsIn(f.body)].map((l) => [l, `$__${id}_${l.slice(1)}`]));
      for (const v of [...f.params, ...f.locals]) added.push(['local', rename.get(v.name), v.type]);
      const label = `$__${id}`;
      const copy = (y) => {
        if (!Array.isArray(y)) return y;
        if (isHead(y, ...LOCAL_OPS) && rename.has(y[1]))
          return [y[0], rename.get(y[1]), ...y.slice(2).map(copy)];
        if (isHead(y, 'return')) return ['br', label, ...y.slice(1).map(copy)];
        // Declared labels and the branches to them; a numeric depth needs nothing: the body keeps
        // its nesting, and a depth that reached the function now reaches the copy's block.
        if (isHead(y, 'block', 'loop', 'if', ...BRANCHES))
          return y.map((z, i) => (i > 0 && relabel.has(z) ? relabel.get(z) : copy(z)));
        return y.map(copy);
      };
      // The arguments are expanded already; the copied body may call marked functions in turn.
      const body = [
        ...f.params.map((p, i) => ['local.set', rename.get(p.name), args[i]]),
        ...f.locals.map((l) => ['local.set', rename.get(l.name), ZERO[l.type] ?? fail(name, l.type)]),
        ...f.body.map((y) => expand(copy(y), depth + 1)),
      ];
      return ['block', label, ...(f.result ? [['result', ...f.result.split(' ')]] : []), ...body];
    };
    const sig = signature(fn);
    const body = sig.body.map((x) => expand(x, 0));
    if (!added.length) continue;
    fn.splice(sig.declEnd, fn.length - sig.declEnd, ...added, ...body);
  }
  return top.map(print).join('\n') + '\n';
}

function fail(name, type) {
  throw new Error(`inline: ${name}: no zero for a local of type ${type}`);
}
