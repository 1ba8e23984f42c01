/**
 * All of a network's parameters in one flat float32 buffer (issue 20: one optimiser update over
 * every parameter instead of ~12 kernels per parameter tensor).
 *
 * Parameters are grouped by their shape without the last axis (every 1-D parameter in one group,
 * every [192, ·] matrix in another, …). A group is stored row-major as one block [...prefix, Σ last]
 * of the flat buffer, its members side by side along the last axis, so that a member is a column
 * range of its block. Named views of the flat buffer are then, per group, one SplitV along the last
 * axis: 1 + 2·groups kernels (the FT-Transformer has 5 groups), and the gradients of the views go
 * back into one flat buffer with one Concat per group plus one.
 *
 * Host copies (init, checkpoints) use the same layout through `pack` and `unpack`.
 */
import * as tf from '@tensorflow/tfjs';
import type { ParamSpec } from './ftTransformer.ts';

interface Member {
  name: string;
  shape: number[];
  /** Width along the group's last axis. */
  width: number;
  /** Column offset inside the group. */
  col: number;
}

interface Group {
  /** The shape without the last axis (empty for 1-D parameters). */
  prefix: number[];
  rows: number;
  width: number;
  /** Offset of the group's block in the flat buffer. */
  offset: number;
  members: Member[];
}

const prod = (s: readonly number[]) => s.reduce((a, b) => a * b, 1);

export class FlatLayout {
  readonly size: number;
  readonly names: readonly string[];
  private readonly groups: Group[] = [];
  private readonly byName = new Map<string, { group: Group; member: Member }>();

  constructor(specs: readonly ParamSpec[]) {
    const byKey = new Map<string, Group>();
    for (const s of specs) {
      if (s.shape.length === 0)
        throw new Error(`FlatLayout: parameter ${s.name} is a scalar; give it shape [1].`);
      if (this.byName.has(s.name)) throw new Error(`FlatLayout: parameter ${s.name} appears twice.`);
      const prefix = s.shape.slice(0, -1);
      const key = prefix.join('x');
      let g = byKey.get(key);
      if (!g) {
        g = { prefix, rows: prod(prefix), width: 0, offset: 0, members: [] };
        byKey.set(key, g);
        this.groups.push(g);
      }
      const width = s.shape[s.shape.length - 1];
      const m: Member = { name: s.name, shape: [...s.shape], width, col: g.width };
      g.width += width;
      g.members.push(m);
      this.byName.set(s.name, { group: g, member: m });
    }
    let off = 0;
    for (const g of this.groups) {
      g.offset = off;
      off += g.rows * g.width;
    }
    this.size = off;
    this.names = specs.map((s) => s.name);
  }

  /** Number of values of parameter `name` (0 when it is not in the layout). */
  sizeOf(name: string): number {
    const e = this.byName.get(name);
    return e ? e.group.rows * e.member.width : 0;
  }

  /** Host arrays by name → one flat array in this layout. */
  pack(values: ReadonlyMap<string, Float32Array> | Readonly<Record<string, Float32Array>>): Float32Array {
    const get = (n: string) =>
      values instanceof Map ? values.get(n) : (values as Record<string, Float32Array>)[n];
    const out = new Float32Array(this.size);
    for (const g of this.groups)
      for (const m of g.members) {
        const a = get(m.name);
        if (!a) throw new Error(`Missing parameter ${m.name}.`);
        if (a.length !== g.rows * m.width)
          throw new Error(
            `Parameter ${m.name} has ${a.length} values; its shape [${m.shape}] needs ${g.rows * m.width}.`,
          );
        for (let r = 0; r < g.rows; r++)
          out.set(a.subarray(r * m.width, (r + 1) * m.width), g.offset + r * g.width + m.col);
      }
    return out;
  }

  /** One flat array in this layout → host arrays by name (copies). */
  unpack(flat: Float32Array): Record<string, Float32Array> {
    if (flat.length !== this.size)
      throw new Error(`Flat parameters: ${flat.length} values, expected ${this.size}.`);
    const out: Record<string, Float32Array> = {};
    for (const g of this.groups)
      for (const m of g.members) {
        const a = new Float32Array(g.rows * m.width);
        for (let r = 0; r < g.rows; r++) {
          const s = g.offset + r * g.width + m.col;
          a.set(flat.subarray(s, s + m.width), r * m.width);
        }
        out[m.name] = a;
      }
    return out;
  }

  /** Per-element values of a per-parameter function (e.g. the weight-decay coefficient). */
  fill(valueOf: (name: string) => number): Float32Array {
    const out = new Float32Array(this.size);
    for (const g of this.groups)
      for (const m of g.members) {
        const v = valueOf(m.name);
        if (v === 0) continue;
        for (let r = 0; r < g.rows; r++) {
          const s = g.offset + r * g.width + m.col;
          out.fill(v, s, s + m.width);
        }
      }
    return out;
  }

  /** Named views of a flat tensor (new tensors; call inside a tidy). */
  views(flat: tf.Tensor): Record<string, tf.Tensor> {
    const out: Record<string, tf.Tensor> = {};
    const blocks =
      this.groups.length > 1
        ? tf.split(
            flat,
            this.groups.map((g) => g.rows * g.width),
          )
        : [flat];
    this.groups.forEach((g, i) => {
      const block = g.prefix.length ? tf.reshape(blocks[i], [...g.prefix, g.width]) : blocks[i];
      const parts =
        g.members.length > 1
          ? tf.split(
              block,
              g.members.map((m) => m.width),
              g.prefix.length,
            )
          : [block];
      g.members.forEach((m, j) => (out[m.name] = parts[j]));
    });
    return out;
  }

  /** Gradients by name (null: the parameter did not reach the loss) → one flat tensor. */
  flatten(grads: Readonly<Record<string, tf.Tensor | null | undefined>>): tf.Tensor1D {
    const blocks = this.groups.map((g) => {
      const parts = g.members.map((m) => grads[m.name] ?? tf.zeros(m.shape));
      const block = parts.length > 1 ? tf.concat(parts, g.prefix.length) : parts[0];
      return g.prefix.length ? tf.reshape(block, [-1]) : block;
    });
    return (blocks.length > 1 ? tf.concat(blocks) : blocks[0]) as tf.Tensor1D;
  }
}
