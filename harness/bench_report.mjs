// bench_report.mjs - the table of a harness/bench.sh record, and the
// figures derived from its runs, written back into the record.
//
//	node harness/bench_report.mjs RECORD.json [--no-write]
//
// Adds to each case: spread, (max - best) / best of its wall times, the
// run-to-run noise a delta must exceed to mean anything; and, when the
// case has a peer in the record, vs_peer: its best wall, median wall and
// best CPU times over the peer's (colpipe over peer: below 1 is colpipe
// faster), and noise: true when the two cases' runs overlap (the slower
// one's best run is faster than the other's slowest), so that the runs
// do not settle which is faster.  Then prints one line per case, and per
// family the geometric mean of its ratios to DuckDB and GNU sort.  The
// record is rewritten in place unless --no-write is given (compare.mjs
// reads both forms).
//
// Exit status: 0 done, 2 usage or an unreadable record.

import { readFileSync, writeFileSync } from 'node:fs';

const args = process.argv.slice(2);
const write = !args.includes('--no-write');
const files = args.filter((a) => a !== '--no-write');
if (files.length !== 1) {
	process.stderr.write(
	    'usage: node harness/bench_report.mjs RECORD.json [--no-write]\n');
	process.exit(2);
}
let rec;
try {
	rec = JSON.parse(readFileSync(files[0], 'utf8'));
} catch (e) {
	process.stderr.write(`bench_report: ${files[0]}: ${e.message}\n`);
	process.exit(2);
}

const byId = new Map(rec.cases.map((c) => [c.id, c]));
for (const c of rec.cases) {
	c.spread = +((c.max_wall_ms - c.best_wall_ms) / c.best_wall_ms)
	    .toFixed(4);
	const p = c.peer && c.peer !== '-' ? byId.get(c.peer) : undefined;
	if (!p)
		continue;
	c.vs_peer = {
		best_wall: +(c.best_wall_ms / p.best_wall_ms).toFixed(4),
		median_wall: +(c.median_wall_ms / p.median_wall_ms).toFixed(4),
		best_cpu: p.best_cpu_ms > 0 ?
		    +(c.best_cpu_ms / p.best_cpu_ms).toFixed(4) : null,
		noise: c.best_wall_ms <= p.max_wall_ms &&
		    p.best_wall_ms <= c.max_wall_ms,
	};
}
if (write)
	writeFileSync(files[0], JSON.stringify(rec, null, 1) + '\n');

const m = rec.machine ?? {}, b = rec.build ?? {}, d = rec.data ?? {};
const me = rec.method ?? {};
console.log(`${m.cpu}, ${m.cores} cores, ${m.kernel}; load average ` +
    `${m.advisory?.loadavg_start} at start, ${m.advisory?.loadavg_end} ` +
    'at end');
console.log(`${b.mode} build ${b.git_sha}${b.git_dirty ? ' (dirty)' : ''}; ` +
    `data ${d.name} (${d.from}), lineitem ${d.lineitem_rows} rows; ` +
    `best of ${me.runs} after ${me.warmups} warm-up(s), whole processes`);
const f1 = (x) => x.toFixed(1);
const pad = (s, n) => String(s).padEnd(n);
const lp = (s, n) => String(s).padStart(n);
console.log(pad('case', 26) + lp('best ms', 10) + lp('median', 10) +
    lp('spread', 8) + lp('cpu ms', 10) + lp('RSS MB', 8) +
    '  vs peer (best wall, cpu)');
const fam = new Map();
for (const c of rec.cases) {
	let vs = '';
	if (c.vs_peer) {
		const v = c.vs_peer;
		vs = `${v.best_wall.toFixed(2)}, ${v.best_cpu === null ? '-' :
		    v.best_cpu.toFixed(2)} vs ${c.peer}` +
		    (v.noise ? ' (inside noise)' : '');
		// The family's mean is over the other programs only: a
		// ratio to a floor or to another colpipe case is a cost, not
		// a comparison.
		const f = c.id.split('/')[0];
		const g = fam.get(f) ?? { n: 0, lw: 0, lc: 0, nc: 0 };
		if (/duckdb|gnu/.test(c.peer)) {
			g.n++;
			g.lw += Math.log(v.best_wall);
			if (v.best_cpu) {
				g.nc++;
				g.lc += Math.log(v.best_cpu);
			}
			fam.set(f, g);
		}
	}
	console.log(pad(c.id, 26) + lp(f1(c.best_wall_ms), 10) +
	    lp(f1(c.median_wall_ms), 10) +
	    lp(`${(c.spread * 100).toFixed(0)}%`, 8) +
	    lp(f1(c.best_cpu_ms), 10) + lp(f1(c.peak_rss_mb), 8) + '  ' + vs);
}
console.log('(vs peer: colpipe over the peer, best over best; below 1 is ' +
    'colpipe faster; "inside noise": the runs overlap)');
for (const [f, g] of fam)
	console.log(`${f}: geometric mean over ${g.n} ratio(s) to DuckDB or ` +
	    'GNU sort: wall ' +
	    `${Math.exp(g.lw / g.n).toFixed(2)}` + (g.nc ?
	    `, cpu ${Math.exp(g.lc / g.nc).toFixed(2)}` : ''));
