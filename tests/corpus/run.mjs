// run.mjs - csv2col against every CSV of the shared corpora, as TAP.
//
// For each CSV input listed in corpora/MANIFEST.tsv:
//   csv2col FILE (10 s limit), then col2csv and col2csv --format jsonl on
//   its stream.  The result passes when
//   - csv2col failed cleanly: exit 2, 3 or 4, a message starting
//     "csv2col: ", no signal, no sanitizer report, and col2csv refuses the
//     partial stream; or
//   - it succeeded, col2csv printed it (every jsonl line strict JSON, as
//     many rows as the csv output), and its rows match the structure of
//     one reference: the upstream suite's answer or DuckDB's reading.
//     Structure means every line of the file as a list of field texts
//     (header included), compared field by field where NULL and "" are
//     alike, numbers compare by value ("007" and 7, "1.50" and 1.5),
//     true/false by case-folded text and timestamps with either T or a
//     space: the references disagree on these quirks, colpipe's policy is
//     its own, the structure (rows, fields, text) must agree.
//   Listed in tests/corpus/DEVIATIONS (path TAB reason): colpipe reads the
//   file its own documented way; a clean error or a successful read that
//   prints as valid CSV and JSON passes, a crash or a hang never does.
// A signal, a sanitizer report or a timeout fails whatever the file.
//
// Environment: COLPIPE_BIN, CORPORA (the corpora directory).

import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const BIN = process.env.COLPIPE_BIN;
const CORPORA = process.env.CORPORA;
const LIMIT_MS = Number(process.env.CORPUS_TIMEOUT_MS ?? 10000);
const here = dirname(fileURLToPath(import.meta.url));

let ntest = 0, nfail = 0;
function report(pass, desc, diag = []) {
	ntest++;
	if (!pass) nfail++;
	console.log(`${pass ? 'ok' : 'not ok'} ${ntest} - ${desc}`);
	if (!pass)
		for (const d of diag)
			for (const l of String(d).split('\n'))
				console.log(`# ${l}`);
}

// ---- running the tools ----

function tool(name, args, input) {
	const r = spawnSync(join(BIN, name), args, {
		input,
		maxBuffer: 1 << 30,
		timeout: LIMIT_MS,
		killSignal: 'SIGKILL',
		cwd: CORPORA,
	});
	return {
		status: r.status,
		signal: r.signal,
		timedOut: r.error?.code === 'ETIMEDOUT' || (r.signal === 'SIGKILL' && r.status === null),
		stdout: r.stdout ?? Buffer.alloc(0),
		stderr: r.stderr ? r.stderr.toString('utf8') : '',
		error: r.error,
	};
}

// Why a run counts as a crash, or null.
function crashOf(name, r) {
	if (r.timedOut) return `${name} did not finish within ${LIMIT_MS / 1000}s`;
	if (r.error && !r.timedOut) return `${name}: ${r.error.message}`;
	if (r.signal) return `${name} killed by ${r.signal}`;
	if (r.status >= 128) return `${name} exited ${r.status}`;
	if (/Sanitizer|runtime error:|LeakSanitizer/.test(r.stderr))
		return `${name} sanitizer report:\n${r.stderr.slice(0, 3000)}`;
	return null;
}

// ---- CSV parsing (references and colpipe's own csv output) ----

// RFC 4180 with a given delimiter and quote; CRLF, LF and CR end records.
// Returns rows of {t: text, q: was quoted}.
function parseCsv(text, delim = ',', quote = '"') {
	const rows = [];
	let row = [], cell = '', quoted = false, inq = false, any = false;
	const endCell = () => { row.push({ t: cell, q: quoted }); cell = ''; quoted = false; };
	const endRow = () => { endCell(); rows.push(row); row = []; any = false; };
	for (let i = 0; i < text.length; i++) {
		const c = text[i];
		if (inq) {
			if (c === quote) {
				if (text[i + 1] === quote) { cell += quote; i++; } else inq = false;
			} else cell += c;
			continue;
		}
		if (quote && c === quote && cell === '') { inq = true; quoted = true; any = true; continue; }
		if (c === delim) { endCell(); any = true; continue; }
		if (c === '\r' || c === '\n') {
			if (c === '\r' && text[i + 1] === '\n') i++;
			endRow();
			continue;
		}
		cell += c;
		any = true;
	}
	if (any || cell !== '' || row.length > 0)
		endRow();
	return rows;
}

// colpipe's csv output: header names, then rows with null for NULL.
function parseColpipeCsv(buf) {
	const rows = parseCsv(buf.toString('utf8'));
	if (rows.length === 0)
		return null;
	const names = rows[0].map((c) => c.t);
	const data = rows.slice(1).map((r) => r.map((c) => (c.t === '' && !c.q ? null : c.t)));
	return { names, data };
}

// ---- structure comparison ----

const isNum = (s) => /^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/.test(s);
const isNumName = (s) => /^[-+]?(inf|infinity|nan)$/i.test(s.trim());

// A timestamp as one UTC spelling: "T" or space, optional seconds, a
// fraction without trailing zeros, a zone (Z, +HH, +HH:MM) applied.
function normTs(s) {
	const m = /^(\d{4})-(\d\d)-(\d\d)[T ](\d\d):(\d\d)(?::(\d\d))?(\.\d+)?\s*(Z|[+-]\d\d(?::?\d\d)?)?$/.exec(s.trim());
	if (!m) return null;
	let off = 0;
	if (m[8] && m[8] !== 'Z') {
		const z = m[8].replace(':', '');
		off = (z[0] === '-' ? -1 : 1) * (Number(z.slice(1, 3)) * 60 + Number(z.slice(3, 5) || 0));
	}
	const t = Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +(m[6] ?? 0)) - off * 60000;
	const f = (m[7] ?? '').replace(/0+$/, '').replace(/^\.$/, '');
	return new Date(t).toISOString().slice(0, 19).replace('T', ' ') + f;
}

function sameCell(a, b) {
	a = a === null || a === undefined ? '' : String(a);
	b = b === null || b === undefined ? '' : String(b);
	if (a === b) return true;
	if (isNum(a) && isNum(b)) {
		const x = Number(a), y = Number(b);
		if (x === y) return true;
		// Beyond double precision: compare the digits themselves.
		const canon = (s) => s.trim().replace(/^\+/, '').replace(/^(-?)0+(?=\d)/, '$1')
		    .replace(/(\.\d*?)0+$/, '$1').replace(/\.$/, '');
		return canon(a) === canon(b);
	}
	if (isNumName(a) && isNumName(b))
		return Number(a.replace(/inf$/i, 'Infinity')) === Number(b.replace(/inf$/i, 'Infinity')) ||
		    (/nan/i.test(a) && /nan/i.test(b));
	const la = a.toLowerCase(), lb = b.toLowerCase();
	if ((la === 'true' || la === 'false') && la === lb) return true;
	const ta = normTs(a), tb = normTs(b);
	return ta !== null && ta === tb;
}

// A header name the reader made up rather than read.
const madeUp = (s) => s === null || s === '' || /^(c|column|_col\.?)\d+$/i.test(String(s)) ||
    /_\d+$/.test(String(s));

function sameHeaderCell(a, b) {
	return sameCell(a, b) || madeUp(a) || madeUp(b) ||
	    String(a ?? '').trim() === String(b ?? '').trim() ||
	    String(b ?? '').startsWith(String(a ?? '')) || String(a ?? '').startsWith(String(b ?? ''));
}

// Drops rows that hold nothing (a blank line read as one empty field).
const dropBlank = (rows) => rows.filter((r) => !(r.length === 0 ||
    (r.length === 1 && (r[0] === null || r[0] === ''))));

// Compares colpipe's result with one reference {lines, header, rowsOnly}.
// Returns null when they agree, else the first difference.
function compare(cp, ref) {
	const candidates = [];
	const synth = cp.names.every((n, i) => n === `c${i + 1}`);
	if (ref.rowsOnly) {
		candidates.push({ lines: cp.data, header: false });
	} else {
		candidates.push({ lines: [cp.names, ...cp.data], header: true });
		if (synth) candidates.push({ lines: cp.data, header: false });
	}
	let first = null;
	for (const cand of candidates) {
		const a = dropBlank(cand.lines), b = dropBlank(ref.lines);
		let diff = null;
		if (a.length !== b.length)
			diff = `${a.length} lines, reference ${b.length}`;
		for (let i = 0; !diff && i < a.length; i++) {
			if (a[i].length !== b[i].length) {
				diff = `line ${i + 1}: ${a[i].length} fields, reference ${b[i].length}: ` +
				    `${JSON.stringify(a[i]).slice(0, 200)} vs ${JSON.stringify(b[i]).slice(0, 200)}`;
				break;
			}
			const hdr = i === 0 && ((cand.header && !ref.rowsOnly) || ref.header);
			for (let j = 0; j < a[i].length; j++) {
				if (!(hdr ? sameHeaderCell(a[i][j], b[i][j]) : sameCell(a[i][j], b[i][j]))) {
					diff = `line ${i + 1} field ${j + 1}: ${JSON.stringify(a[i][j])} vs reference ${JSON.stringify(b[i][j])}`;
					break;
				}
			}
		}
		if (!diff) return null;
		first = first ? `${first}; as ${cand.header ? 'header and rows' : 'rows'}: ${diff}` : diff;
	}
	return first;
}

// ---- references ----

function readJson(rel) {
	try {
		return JSON.parse(readFileSync(join(CORPORA, rel), 'utf8'));
	} catch {
		return null;
	}
}

// DuckDB's reading of a file with the dialect its sniffer found but every
// column read as text: the stored reference converts values ("10/18/2010"
// becomes a DATE printed 2010-10-18), which is DuckDB's policy, not the
// file's structure.  Returns all lines, or null when DuckDB is not
// installed or refuses.
let duckCon;
async function duckText(duck) {
	const prompt = duck.sniff?.Prompt;
	const names = (duck.sniff?.Columns ?? []).map((c) => c.name);
	if (!prompt || names.length === 0 || duck.sniff_error)
		return null;
	const cut = prompt.lastIndexOf(', columns={');
	if (!prompt.startsWith('FROM read_csv(') || cut < 0)
		return null;
	if (duckCon === undefined) {
		try {
			const { DuckDBInstance } = await import(process.env.DUCKDB_API ?? '@duckdb/node-api');
			duckCon = await (await DuckDBInstance.create(':memory:', { threads: '1' })).connect();
		} catch {
			duckCon = null;
		}
	}
	if (!duckCon)
		return null;
	const sq = (x) => `'${String(x).replace(/'/g, "''")}'`;
	const cols = names.map((n) => `${sq(n)}: 'VARCHAR'`).join(', ');
	const sql = `SELECT * ${prompt.slice(0, cut)}, columns={${cols}})`;
	try {
		const r = await duckCon.runAndReadAll(sql);
		const rows = r.getRows().map((row) => row.map((v) => (v === null ? null : String(v))));
		return duck.sniff.HasHeader ? [names, ...rows] : rows;
	} catch {
		return null;
	}
}

// Builds the runs for one manifest row: [{args, refs: [{name, lines,
// rowsOnly}]}].  The first run is always csv2col with no options.
async function runsFor(row) {
	const plain = { args: [], refs: [] };
	const runs = [plain];
	const path = row.path;
	const duck = row.duckdb_reference ? readJson(row.duckdb_reference) : null;
	const text = duck ? await duckText(duck) : null;
	if (text)
		plain.refs.push({ name: 'DuckDB as text', lines: text, header: duck.sniff.HasHeader });
	if (duck && duck.error === null && Array.isArray(duck.rows)) {
		const names = (duck.columns ?? []).map((c) => c.name);
		const header = duck.sniff?.HasHeader !== false;
		const lines = duck.rows.map((r) => r.map((v) => (v === null ? null : String(v))));
		// A truncated reference compares only when colpipe's rows are
		// cut the same way; it is left out.
		if (!duck.rows_truncated)
			plain.refs.push({ name: 'DuckDB', lines: header ? [names, ...lines] : lines, header });
	}
	for (const exp of (row.upstream_expected || '').split(';').filter(Boolean)) {
		const j = readJson(exp);
		if (!j) continue;
		if (path.startsWith('csv/csv-spectrum/')) {
			if (/location_coordinates/.test(path)) continue;	// its answer is wrong
			if (Array.isArray(j) && j.length > 0) {
				const names = Object.keys(j[0]);
				plain.refs.push({ name: 'upstream', lines: [names, ...j.map((o) => names.map((n) => o[n]))] });
			}
		} else if (path.startsWith('csv/rfc4180/')) {
			plain.refs.push({ name: 'upstream', lines: j.expected_rows_all_lines });
		} else if (path.startsWith('csv/cpython/')) {
			if (Array.isArray(j.expected_rows)) {
				const o = j.reader_options ?? {};
				const keys = Object.keys(o);
				if (keys.length === 0 && !j.dialect) {
					plain.refs.push({ name: 'upstream', lines: j.expected_rows });
				} else if (keys.every((k) => k === 'delimiter' || k === 'quotechar') &&
				    keys.every((k) => typeof o[k] === 'string' && o[k].length === 1 && o[k] !== '\0')) {
					const args = [];
					if (o.delimiter) args.push('-d', o.delimiter);
					if (o.quotechar) args.push('-q', o.quotechar);
					runs.push({ args, refs: [{ name: `upstream (${args.join(' ')})`, lines: j.expected_rows }] });
				}
			} else if (j.python_3_11_csv_Sniffer_result) {
				// A sniffer case: its answer is a dialect and a header
				// flag; the structure is the file read with that dialect.
				const s = j.python_3_11_csv_Sniffer_result;
				const text = readFileSync(join(CORPORA, path), 'utf8');
				const lines = parseCsv(text, s.delimiter, s.quotechar || '"').map((r) => r.map((c) => c.t));
				plain.refs.push({ name: `upstream sniffer (delimiter ${JSON.stringify(s.delimiter)})`, lines });
			}
		} else if (path.startsWith('csv/papaparse/')) {
			const cfg = j.config ?? {};
			const keys = Object.keys(cfg).filter((k) => !['newline', 'dynamicTyping'].includes(k));
			const data = j.expected?.data;
			if (!Array.isArray(data) || j.disabled) continue;
			if (!keys.every((k) => ['delimiter', 'quoteChar', 'header'].includes(k))) continue;
			if (cfg.delimiter && (typeof cfg.delimiter !== 'string' || cfg.delimiter.length !== 1)) continue;
			if (cfg.quoteChar && cfg.quoteChar.length !== 1) continue;
			let lines;
			if (data.length > 0 && !Array.isArray(data[0])) {
				if (data.some((o) => '__parsed_extra' in o)) continue;
				const names = Object.keys(data[0]);
				lines = [names, ...data.map((o) => names.map((n) => o[n]))];
			} else if (data.length > 0 || !cfg.header) {
				lines = data;
			} else {
				continue;
			}
			lines = lines.map((r) => r.map((v) => (v === null || v === undefined ? '' : String(v))));
			const args = [];
			if (cfg.delimiter) args.push('-d', cfg.delimiter);
			if (cfg.quoteChar) args.push('-q', cfg.quoteChar);
			if (cfg.header) args.push('--header');
			if (args.length === 0)
				plain.refs.push({ name: 'upstream', lines });
			else
				runs.push({ args, refs: [{ name: `upstream (${args.join(' ')})`, lines }] });
		} else if (path.startsWith('csv/csvw/')) {
			// Metadata may rename columns; compare the data rows only.
			const objs = Array.isArray(j) ? j :
			    (j.tables?.[0]?.row ?? []).map((r) => r.describes?.[0]);
			if (objs.length === 0 || objs.some((o) => !o || typeof o !== 'object')) continue;
			const names = Object.keys(objs[0]);
			const lines = objs.map((o) => names.map((n) => (typeof o[n] === 'object' ? JSON.stringify(o[n]) : o[n])));
			plain.refs.push({ name: `upstream ${exp.replace(/.*\//, '')}`, lines, rowsOnly: true });
		}
	}
	return runs;
}

// ---- one input ----

// Runs csv2col with args on path; returns {verdict: 'crash'|'error'|'ok',
// why, cp}.
function runOne(path, args) {
	const a = tool('csv2col', [...args, path]);
	const crash = crashOf('csv2col', a);
	if (crash) return { verdict: 'crash', why: crash };
	if (a.status !== 0) {
		const msgs = [];
		if (![2, 3, 4].includes(a.status))
			msgs.push(`csv2col exit status ${a.status}, want 0, 2, 3 or 4`);
		if (!a.stderr.startsWith('csv2col: '))
			msgs.push(`message does not start with "csv2col: ": ${JSON.stringify(a.stderr.slice(0, 300))}`);
		// What it wrote before failing must not pass for a stream.
		const d = tool('col2csv', [], a.stdout);
		const c2 = crashOf('col2csv', d);
		if (c2) msgs.push(`on csv2col's partial output: ${c2}`);
		else if (d.status === 0)
			msgs.push('col2csv accepted the partial stream of a failed csv2col');
		if (msgs.length) return { verdict: 'crash', why: msgs.join('\n') };
		return { verdict: 'error', why: a.stderr.trim() };
	}
	if (a.stderr !== '' && !/^csv2col: warning/.test(a.stderr))
		return { verdict: 'crash', why: `csv2col succeeded but printed: ${a.stderr.slice(0, 300)}` };
	const c = tool('col2csv', [], a.stdout);
	const j = tool('col2csv', ['--format', 'jsonl'], a.stdout);
	for (const [n, r] of [['col2csv', c], ['col2csv --format jsonl', j]]) {
		const cr = crashOf(n, r);
		if (cr) return { verdict: 'crash', why: cr };
		if (r.status !== 0) return { verdict: 'crash', why: `${n} exit ${r.status} on csv2col's output: ${r.stderr}` };
	}
	const cp = parseColpipeCsv(c.stdout);
	if (!cp) return { verdict: 'crash', why: 'col2csv printed no header' };
	const jl = j.stdout.toString('utf8').split('\n');
	if (jl.pop() !== '' && jl.length > 0) return { verdict: 'crash', why: 'jsonl output does not end in a newline' };
	for (let i = 0; i < jl.length; i++) {
		try {
			JSON.parse(jl[i]);
		} catch (e) {
			return { verdict: 'crash', why: `jsonl line ${i + 1} is not JSON (${e.message}): ${jl[i].slice(0, 200)}` };
		}
	}
	if (jl.length !== cp.data.length)
		return { verdict: 'crash', why: `jsonl has ${jl.length} rows, csv ${cp.data.length}` };
	return { verdict: 'ok', cp };
}

async function main() {
	const manifest = readFileSync(join(CORPORA, 'MANIFEST.tsv'), 'utf8').split('\n').filter(Boolean);
	const cols = manifest[0].split('\t');
	const rows = manifest.slice(1).map((l) => Object.fromEntries(l.split('\t').map((v, i) => [cols[i], v])))
	    .filter((r) => r.kind === 'csv' && r.path.startsWith('csv/'));
	const deviations = new Map();
	const devFile = join(here, 'DEVIATIONS');
	if (existsSync(devFile))
		for (const l of readFileSync(devFile, 'utf8').split('\n')) {
			if (!l.trim() || l.startsWith('#')) continue;
			const [p, ...why] = l.split('\t');
			deviations.set(p, why.join('\t'));
		}
	const seen = new Set();
	let nerr = 0, nmatch = 0, ndev = 0;
	const stale = [];
	for (const row of rows) {
		seen.add(row.path);
		if (!existsSync(join(CORPORA, row.path))) {
			report(false, row.path, ['listed in MANIFEST.tsv but missing']);
			continue;
		}
		const runs = await runsFor(row);
		let pass = false, note = '', diag = [];
		const results = runs.map((r) => ({ run: r, res: runOne(row.path, r.args) }));
		const crashes = results.filter((x) => x.res.verdict === 'crash');
		if (crashes.length) {
			diag = crashes.map((x) => `csv2col ${[...x.run.args, row.path].join(' ')}: ${x.res.why}`);
		} else if (results[0].res.verdict === 'error') {
			pass = true;
			note = 'clean error';
			nerr++;
		} else {
			const diffs = [];
			for (const { run, res } of results) {
				if (res.verdict !== 'ok') continue;
				for (const ref of run.refs) {
					const d = compare(res.cp, ref);
					if (!d) { pass = true; note = `matches ${ref.name}`; break; }
					diffs.push(`vs ${ref.name}${run.args.length ? '' : ''}: ${d}`);
				}
				if (pass) break;
			}
			if (pass) {
				nmatch++;
				if (deviations.has(row.path)) stale.push(row.path);
			} else if (deviations.has(row.path)) {
				pass = true;
				note = `deviation: ${deviations.get(row.path)}`;
				ndev++;
			} else if (results[0].run.refs.length === 0 && runs.length === 1) {
				diag = ['no reference structure for this file and it is not in DEVIATIONS'];
			} else {
				diag = diffs.length ? diffs : ['no reference applies'];
				diag.push(`colpipe read: ${JSON.stringify([results[0].res.cp.names, ...results[0].res.cp.data.slice(0, 4)]).slice(0, 400)}`);
			}
		}
		report(pass, `${row.path}${note ? ` (${note})` : ''}`, diag);
	}
	for (const p of deviations.keys())
		if (!seen.has(p))
			report(false, `DEVIATIONS lists ${p}, which is not in the corpus`);
	console.log(`# ${nmatch} match a reference, ${nerr} clean errors, ${ndev} listed deviations`);
	for (const p of stale)
		console.log(`# ${p} is in DEVIATIONS but now matches a reference`);
	console.log(`1..${ntest}`);
	process.exitCode = nfail ? 1 : 0;
}

process.chdir(CORPORA);
await main();
