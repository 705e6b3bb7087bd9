// `node bench/summarize-profile.mjs file.cpuprofile [top]`: self time by function and by package.
import { readFileSync } from 'node:fs';

const [file, topArg] = process.argv.slice(2);
const top = Number(topArg ?? 40);
const profile = JSON.parse(readFileSync(file, 'utf8'));
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const self = new Map();
const dt = profile.timeDeltas;
for (let i = 0; i < profile.samples.length; i++) {
  const id = profile.samples[i];
  self.set(id, (self.get(id) ?? 0) + (dt[i] ?? 0));
}
const total = [...self.values()].reduce((a, b) => a + b, 0);
const byFunction = new Map();
const byPackage = new Map();
for (const [id, us] of self) {
  const { callFrame: f } = byId.get(id);
  const where = f.url
    .replace(/^file:\/\//, '')
    .replace(/.*\/node_modules\//, 'nm:')
    .replace(/.*\/dist\//, 'dist/');
  const fn = `${f.functionName || '(anonymous)'}  ${where}:${f.lineNumber + 1}`;
  byFunction.set(fn, (byFunction.get(fn) ?? 0) + us);
  const pkg = where.startsWith('nm:')
    ? where
        .slice(3)
        .split('/')
        .slice(0, where.slice(3).startsWith('@') ? 2 : 1)
        .join('/')
    : where.startsWith('dist/')
      ? where.split('/').slice(0, 3).join('/')
      : where || f.functionName;
  byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + us);
}
const print = (title, map, n) => {
  console.log(`\n${title} (total ${(total / 1000).toFixed(0)} ms)`);
  for (const [k, us] of [...map].sort((a, b) => b[1] - a[1]).slice(0, n)) {
    console.log(`${((100 * us) / total).toFixed(1).padStart(5)}%  ${k}`);
  }
};
print('self time by package', byPackage, 25);
print('self time by function', byFunction, top);

// `BENCH_CALLERS=name`: the stacks that lead to functions of that name, by self time.
const target = process.env.BENCH_CALLERS;
if (target) {
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const stacks = new Map();
  for (const [id, us] of self) {
    if ((byId.get(id).callFrame.functionName || '(anonymous)') !== target) continue;
    const chain = [];
    for (let p = parent.get(id); p !== undefined && chain.length < 8; p = parent.get(p)) {
      const f = byId.get(p).callFrame;
      chain.push(`${f.functionName || '(anon)'}@${f.url.split('/').slice(-2).join('/')}:${f.lineNumber + 1}`);
    }
    const key = chain.join(' < ');
    stacks.set(key, (stacks.get(key) ?? 0) + us);
  }
  console.log(`\ncallers of ${target}`);
  for (const [k, us] of [...stacks].sort((a, b) => b[1] - a[1]).slice(0, 8)) {
    console.log(`${((100 * us) / total).toFixed(1).padStart(5)}%  ${k}`);
  }
}
