// compare.mjs - compares two benchmark records written by harness/bench.sh
// (or the older harness/run.sh, now gone: its colpipe-bench/1 records
// are still read).
//
//	node harness/compare.mjs OLD.json NEW.json [--force]
//	harness/bench.sh --compare OLD.json      (the same, after the run)
//
// Refuses (exit 3) when the records were not taken under the same
// conditions: machine (CPU model, cores, kernel, memory), data (SHA-256 of
// the input), build mode and compiler, runs and warm-ups (LONG_RUNS too,
// and the runs of every case both records hold, so a case timed by its
// answer run alone is never held against one timed three times), and for
// bench.sh's records the budgets the cases ran under.  A difference
// there is the machine or the input, not the code; --force prints the
// deltas anyway for a reader who knows what moved.  Clock, governor, load
// and the temporary file system are shown as advisory lines: they move
// from one run to the next legitimately.
//
// Per case it prints best and median wall time, median CPU time and peak
// RSS, old and new, with the delta of the best wall time.  A delta is
// labelled "noise" when it is under 25% (deltas that size between runs on different days
// have been seen on unchanged code) or inside either record's own
// run-to-run spread (max over best) for that case.  A case whose output
// SHA-256 changed did different work: it is flagged and the exit status
// is 1, because its timing comparison means nothing.
//
// Exit status: 0 compared, 1 some case's output changed or a case is
// missing from one record, 2 usage, 3 records not comparable.

import { readFileSync } from 'node:fs';

const NOISE = 0.25;

const args = process.argv.slice(2);
const force = args.includes('--force');
const files = args.filter((a) => a !== '--force');
if (files.length !== 2) {
	process.stderr.write(
	    'usage: node harness/compare.mjs OLD.json NEW.json [--force]\n');
	process.exit(2);
}

function load(f) {
	try {
		return JSON.parse(readFileSync(f, 'utf8'));
	} catch (e) {
		process.stderr.write(`compare: ${f}: ${e.message}\n`);
		process.exit(2);
	}
}
const [a, b] = files.map(load);

const conditions = [
	['machine.cpu', (r) => r.machine?.cpu],
	['machine.cores', (r) => r.machine?.cores],
	['machine.kernel', (r) => r.machine?.kernel],
	['machine.mem_kb', (r) => r.machine?.mem_kb],
	['data.sha256', (r) => r.data?.sha256],
	['build.mode', (r) => r.build?.mode],
	['build.compiler', (r) => r.build?.compiler],
	['method.runs', (r) => r.method?.runs],
	['method.warmups', (r) => r.method?.warmups],
	// Absent from records older than LONG_RUNS: they timed every case
	// method.runs times.
	['method.long_runs', (r) => r.method?.long_runs ??
	    (r.method?.runs === undefined ? undefined : r.method.runs)],
];
let mismatch = 0;
for (const [name, get] of conditions) {
	const x = get(a), y = get(b);
	if (x === undefined || y === undefined) {
		console.log(`not compared: ${name} (missing from a record)`);
	} else if (x !== y) {
		console.log(`differs: ${name}: ${JSON.stringify(x)} -> ` +
		    JSON.stringify(y));
		mismatch++;
	}
}
// The runs behind each case's figures (a case timed by its answer run
// alone has one, marked).
const runsOf = (c) => `${c.runs}${c.timed ? ' (the answer run)' : ''}`;
const other = new Map((b.cases ?? []).map((c) => [c.id, c]));
for (const c of a.cases ?? []) {
	const d = other.get(c.id);
	if (d && runsOf(c) !== runsOf(d)) {
		console.log(`differs: runs of ${c.id}: ${runsOf(c)} -> ` +
		    runsOf(d));
		mismatch++;
	}
}
if (mismatch && !force) {
	process.stderr.write('compare: the records were taken under ' +
	    'different conditions; deltas would measure those, not the code ' +
	    '(--force to print them anyway)\n');
	process.exit(3);
}

const adv = (r) => r.machine?.advisory ?? {};
for (const k of ['cpu_mhz_at_start', 'governor', 'loadavg_start',
    'loadavg_end', 'tmp_fs']) {
	console.log(`advisory: ${k}: ${adv(a)[k] ?? '-'} -> ${adv(b)[k] ?? '-'}`);
}
console.log(`build: ${a.build?.git_sha ?? '?'}` +
    `${a.build?.git_dirty ? '+dirty' : ''} -> ${b.build?.git_sha ?? '?'}` +
    `${b.build?.git_dirty ? '+dirty' : ''}`);
console.log('');

const pad = (s, n) => String(s).padEnd(n);
const lpad = (s, n) => String(s).padStart(n);
const f1 = (x) => (typeof x === 'number' ? x.toFixed(1) : '-');
const spread = (c) => (c.max_wall_ms - c.best_wall_ms) / c.best_wall_ms;

console.log(pad('case', 26) + lpad('best old', 10) + lpad('best new', 10) +
    lpad('delta', 9) + lpad('med old', 10) + lpad('med new', 10) +
    lpad('cpu old', 10) + lpad('cpu new', 10) + lpad('RSS old', 9) +
    lpad('RSS new', 9) + '  verdict');

let changed = 0, moved = 0;
const byId = (r) => new Map((r.cases ?? []).map((c) => [c.id, c]));
const ca = byId(a), cb = byId(b);
const ids = [...new Set([...ca.keys(), ...cb.keys()])];
for (const id of ids) {
	const x = ca.get(id), y = cb.get(id);
	if (!x || !y) {
		console.log(pad(id, 26) + `  only in ${x ? 'old' : 'new'} record`);
		changed++;
		continue;
	}
	const d = (y.best_wall_ms - x.best_wall_ms) / x.best_wall_ms;
	const s = Math.max(NOISE, spread(x), spread(y));
	let verdict;
	if (x.output_sha256 !== y.output_sha256) {
		verdict = 'OUTPUT CHANGED: different work, not comparable';
		changed++;
	} else if (Math.abs(d) < s) {
		verdict = `noise (under ${(s * 100).toFixed(0)}%)`;
	} else {
		verdict = d < 0 ? 'faster' : 'slower';
		moved++;
	}
	const pct = `${d >= 0 ? '+' : ''}${(d * 100).toFixed(1)}%`;
	console.log(pad(id, 26) + lpad(f1(x.best_wall_ms), 10) +
	    lpad(f1(y.best_wall_ms), 10) + lpad(pct, 9) +
	    lpad(f1(x.median_wall_ms), 10) + lpad(f1(y.median_wall_ms), 10) +
	    lpad(f1(x.median_cpu_ms), 10) + lpad(f1(y.median_cpu_ms), 10) +
	    lpad(f1(x.peak_rss_mb), 9) + lpad(f1(y.peak_rss_mb), 9) +
	    '  ' + verdict);
}
console.log('');
console.log(`${moved} case(s) moved beyond noise, ${changed} with a ` +
    'changed or missing output');
if (mismatch)
	console.log('(conditions differ: printed under --force, not evidence)');
process.exit(changed ? 1 : 0);
