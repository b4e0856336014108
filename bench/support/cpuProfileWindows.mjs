// Splits a V8 .cpuprofile (node --cpu-prof) by time, to compare a benchmark's first round with its last:
//   node bench/support/cpuProfileWindows.mjs file.cpuprofile [bucketSec]        active ms per time bucket
//   node bench/support/cpuProfileWindows.mjs file.cpuprofile from to [from to]  top self / inclusive per window
import { readFileSync } from 'node:fs';
const [file, ...args] = process.argv.slice(2);
const p = JSON.parse(readFileSync(file, 'utf8'));
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const name = (n) => `${n.callFrame.functionName || '(anon)'} ${n.callFrame.url.replace(/^.*?\/(src|node_modules|bench)\//, '$1/').replace(/^file:\/\//, '')}:${n.callFrame.lineNumber + 1}`;
let t = 0;
const times = p.timeDeltas.map((d) => (t += d) / 1e6);
const isIdle = (id) => byId.get(id).callFrame.functionName === '(idle)';
if (args.length <= 1) {
  const b = Number(args[0] ?? 5);
  const buckets = [];
  p.samples.forEach((id, i) => { const k = Math.floor(times[i] / b); buckets[k] ??= { active: 0, total: 0 }; buckets[k].total += p.timeDeltas[i] / 1000; if (!isIdle(id)) buckets[k].active += p.timeDeltas[i] / 1000; });
  buckets.forEach((x, k) => x && console.log(`${k * b}s\tactive ${x.active.toFixed(0)} ms of ${x.total.toFixed(0)}`));
} else {
  for (let w = 0; w + 1 < args.length; w += 2) {
    const [from, to] = [Number(args[w]), Number(args[w + 1])];
    const self = new Map(), incl = new Map();
    let active = 0;
    p.samples.forEach((id, i) => {
      if (times[i] < from || times[i] >= to || isIdle(id)) return;
      const dt = p.timeDeltas[i] / 1000; active += dt;
      const k = name(byId.get(id)); self.set(k, (self.get(k) ?? 0) + dt);
      const seen = new Set();
      for (let x = id; x !== undefined; x = parent.get(x)) { const kk = name(byId.get(x)); if (seen.has(kk)) continue; seen.add(kk); incl.set(kk, (incl.get(kk) ?? 0) + dt); }
    });
    console.log(`\n=== window ${from}-${to}s active ${active.toFixed(0)} ms`);
    console.log('-- self');
    [...self].sort((a, b) => b[1] - a[1]).slice(0, 25).forEach(([k, v]) => console.log(`${v.toFixed(0).padStart(7)}  ${(100 * v / active).toFixed(1).padStart(5)}%  ${k}`));
    console.log('-- inclusive (src only)');
    [...incl].filter(([k]) => /src\//.test(k)).sort((a, b) => b[1] - a[1]).slice(0, 30).forEach(([k, v]) => console.log(`${v.toFixed(0).padStart(7)}  ${(100 * v / active).toFixed(1).padStart(5)}%  ${k}`));
  }
}
