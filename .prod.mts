import { f64Kernels } from './src/lib/models/statistical/f64Kernels.ts';
const m = Number(process.argv[2]), k = 26;
const S = new Float64Array(m * m).map((_, i) => ((i * 2654435761) % 1000) / 1e6);
const X = new Float64Array(m * k).map((_, i) => Math.sin(i)); const out = new Float64Array(m * k);
const K = f64Kernels()!;
K.mulSquare(S, m, X, k, out); // copy-in + warm-up
const c0 = process.cpuUsage(); const reps = 3;
for (let r = 0; r < reps; r++) K.mulSquare(S, m, X, k, out);
const c = process.cpuUsage(c0); const s = (c.user + c.system) / 1e6 / reps;
console.log(`m ${m}: ${s.toFixed(3)} s CPU per product S·X (k=${k}), ${(m * m * k / s / 1e9).toFixed(2)} GMAC/s`);
