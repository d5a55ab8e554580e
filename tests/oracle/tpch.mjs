// tpch.mjs - colpipe against DuckDB on TPC-H SF0.1 and on random data.
//
// For each TPC-H table (largest last):
//   1. zstd -dc T | csv2col | col2csv is the CSV again, byte for byte (the
//      stdin path, which samples only the start), and so is
//      csv2col T.csv | col2csv (the regular-file path, which samples from
//      several points of the file);
//   2. csv2col T.csv | col2csv --format jsonl, value by value, against
//      DuckDB's read_csv of the same file: integers exactly, money as
//      decimals at a fixed scale (DuckDB reads it as DOUBLE and the value
//      is formatted at colpipe's scale), dates and strings as text;
//   3. aggregates computed by DuckDB over the file (row count, sum of every
//      numeric column at exact precision, min/max of every date, count and
//      byte length of every string column) against the same aggregates of
//      colpipe's output, plus the published sum(l_quantity) of lineitem.
// Then a random differential: a CSV of ints, decimals, floats, dates,
// timestamps, bools and strings with quotes, delimiters, newlines, spaces
// and NULLs, made from a fixed seed in two dialects, read by colpipe with
// sniffing and by DuckDB with the dialect and types spelt out.
//
// Environment: COLPIPE_BIN (directory of csv2col/col2csv), TPCH_DIR,
// WORK (a scratch directory the caller removes), MODE (asan drops the
// heavy parts).  Prints TAP.

import { DuckDBInstance } from '@duckdb/node-api';
import { existsSync, readdirSync, statSync, writeFileSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import {
	Tap, sh, shDiag, parseFlatLine, fileLines, scaleOf, decimalToScaled,
	scaledToText, sameValue, prng,
} from './lib.mjs';

const BIN = process.env.COLPIPE_BIN;
const TPCH = process.env.TPCH_DIR;
const WORK = process.env.WORK;
const ASAN = process.env.MODE === 'asan';
const tap = new Tap();
const env = { ...process.env, PATH: `${BIN}:${process.env.PATH}` };
const q = (s) => `'${s.replace(/'/g, `'\\''`)}'`;
const run = (cmd) => sh(cmd, { env });

const instance = await DuckDBInstance.create(':memory:', { threads: '2' });
const con = await instance.connect();

// Reads colpipe's jsonl and DuckDB's result side by side.  hints: column
// name -> 'float' where colpipe is expected to print a float64 (other
// DOUBLE columns must be decimals at one fixed scale).  Returns
// {rows, names, errors[], stats[]} where stats[i] holds colpipe's
// aggregates of column i.
async function compareStream(sql, jsonlPath, hints = {}) {
	const res = await con.stream(sql);
	const names = res.columnNames();
	const types = res.columnTypes().map(String);
	const errors = [];
	const err = (m) => { if (errors.length < 12) errors.push(m); else errors.more = (errors.more ?? 0) + 1; };
	const stats = names.map(() => ({
		scale: null, count: 0, sum: 0n, bytes: 0, min: null, max: null,
	}));
	const lines = fileLines(jsonlPath)[Symbol.asyncIterator]();
	let rows = 0;
	for (;;) {
		const chunk = await res.fetchChunk();
		if (!chunk || chunk.rowCount === 0)
			break;
		const cols = chunk.getColumns();
		for (let r = 0; r < chunk.rowCount; r++, rows++) {
			const nx = await lines.next();
			if (nx.done) {
				err(`colpipe ended after ${rows} rows; DuckDB has more`);
				return { rows, names, types, errors, stats };
			}
			let vals;
			try {
				vals = parseFlatLine(nx.value);
			} catch (e) {
				err(`row ${rows + 1}: not a flat JSON object: ${e.message}`);
				continue;
			}
			if (vals.length !== names.length) {
				err(`row ${rows + 1}: ${vals.length} fields, DuckDB ${names.length}`);
				continue;
			}
			for (let c = 0; c < names.length; c++) {
				const cp = vals[c], st = stats[c], ty = types[c];
				if (rows === 0 && cp.key !== names[c])
					err(`column ${c + 1} is '${cp.key}', DuckDB '${names[c]}'`);
				let scale = -1;
				if (cp.kind === 'n' && hints[names[c]] !== 'float' &&
				    (ty === 'DOUBLE' || ty.startsWith('DECIMAL'))) {
					// A decimal prints every value at its one scale.
					const s = scaleOf(cp.v);
					if (st.scale === null)
						st.scale = s;
					if (s !== st.scale || s < 0)
						err(`row ${rows + 1} ${names[c]}: '${cp.v}' is not at the column's decimal scale ${st.scale}`);
					scale = st.scale;
				}
				const d = sameValue(cp, cols[c][r], ty, scale);
				if (d)
					err(`row ${rows + 1} ${names[c]}: ${d}`);
				if (cp.kind === 'z')
					continue;
				st.count++;
				if (cp.kind === 'n' && scale >= 0)
					st.sum += decimalToScaled(cp.v, scale);
				else if (cp.kind === 'n' && scaleOf(cp.v) === -1)
					st.sum += BigInt(cp.v);
				else if (cp.kind === 's') {
					st.bytes += Buffer.byteLength(cp.v);
					if (st.min === null || cp.v < st.min) st.min = cp.v;
					if (st.max === null || cp.v > st.max) st.max = cp.v;
				}
			}
		}
	}
	const nx = await lines.next();
	if (!nx.done)
		err(`colpipe has more than DuckDB's ${rows} rows`);
	return { rows, names, types, errors, stats };
}

function errorDiag(cmp) {
	const d = [...cmp.errors];
	if (cmp.errors.more)
		d.push(`... and ${cmp.errors.more} more differences`);
	return d;
}

// DuckDB's aggregates of a CSV against colpipe's (from compareStream).
async function compareAggregates(from, cmp) {
	const exprs = ['count(*)::VARCHAR'];
	const want = [String(cmp.rows)];
	const what = ['count(*)'];
	cmp.names.forEach((n, i) => {
		const c = `"${n.replace(/"/g, '""')}"`, ty = cmp.types[i], st = cmp.stats[i];
		exprs.push(`count(${c})::VARCHAR`);
		want.push(String(st.count));
		what.push(`count(${n})`);
		if (/INT(EGER)?$/.test(ty)) {
			exprs.push(`coalesce(sum(${c}), 0)::VARCHAR`);
			want.push(st.sum.toString());
			what.push(`sum(${n})`);
		} else if ((ty === 'DOUBLE' || ty.startsWith('DECIMAL')) && st.scale !== null && st.scale >= 0) {
			exprs.push(`coalesce(sum(${c}::DECIMAL(38,${st.scale})), 0)::VARCHAR`);
			want.push(scaledToText(st.sum, st.scale));
			what.push(`sum(${n})`);
		} else if (ty === 'DATE' || ty.startsWith('TIMESTAMP')) {
			exprs.push(`min(${c})::VARCHAR`, `max(${c})::VARCHAR`);
			want.push(st.min, st.max);
			what.push(`min(${n})`, `max(${n})`);
		} else if (ty === 'VARCHAR') {
			exprs.push(`coalesce(sum(strlen(${c})), 0)::VARCHAR`);
			want.push(String(st.bytes));
			what.push(`bytes(${n})`);
		}
	});
	const reader = await con.runAndReadAll(`SELECT ${exprs.join(', ')} FROM ${from}`);
	const got = reader.getRowsJson()[0];
	const diffs = [];
	got.forEach((g, i) => {
		const w = want[i];
		const norm = (x) => (x === null ? null : String(x).replace('T', ' ').replace(/(\.\d*?)0+$/, '$1').replace(/\.$/, ''));
		if (norm(g) !== norm(w))
			diffs.push(`${what[i]}: DuckDB ${g}, colpipe ${w}`);
	});
	return { diffs, agg: Object.fromEntries(what.map((w, i) => [w, want[i]])) };
}

// ---- TPC-H ----

// Diagnostics of a failed `... | cmp - FILE`: the first differing line of
// both sides.
function cmpDiag(r, produce, csv) {
	const d = [...shDiag(r), r.stdout.trim()];
	const m = /line (\d+)/.exec(r.stdout);
	if (m) {
		d.push(`want: ${JSON.stringify(run(`sed -n '${m[1]}p' ${q(csv)}`).stdout.replace(/\n$/, ''))}`);
		d.push(`got:  ${JSON.stringify(run(`${produce} | sed -n '${m[1]}p'`).stdout.replace(/\n$/, ''))}`);
	}
	return d;
}

async function tpchTable(zst) {
	const name = zst.replace(/.*\//, '').replace(/\.csv\.zst$/, '');
	const csv = join(WORK, `${name}.csv`);
	const jsonl = join(WORK, `${name}.jsonl`);
	let r = run(`zstd -qdc ${q(zst)} > ${q(csv)}`);
	if (r.status !== 0) {
		tap.ok(false, `${name}: zstd -dc`, shDiag(r));
		return;
	}
	const size = statSync(csv).size;
	const heavy = ASAN && size > 8e6;

	if (ASAN && size > 40e6) {
		tap.skip(`${name}: zstd -dc | csv2col | col2csv is byte for byte`, 'MODE=asan');
	} else {
		const produce = `zstd -qdc ${q(zst)} | csv2col | col2csv`;
		r = run(`${produce} | cmp - ${q(csv)}`);
		tap.ok(r.status === 0, `${name}: zstd -dc | csv2col | col2csv is byte for byte`,
		    r.status === 0 ? [] : cmpDiag(r, produce, csv));
	}
	const produce = `csv2col ${q(csv)} | col2csv`;
	r = run(`${produce} | cmp - ${q(csv)}`);
	tap.ok(r.status === 0, `${name}: csv2col ${name}.csv | col2csv is byte for byte`,
	    r.status === 0 ? [] : cmpDiag(r, produce, csv));

	if (heavy) {
		tap.skip(`${name}: typed values equal DuckDB's`, 'MODE=asan');
		tap.skip(`${name}: aggregates equal DuckDB's`, 'MODE=asan');
		unlinkSync(csv);
		return;
	}
	r = run(`csv2col ${q(csv)} | col2csv --format jsonl > ${q(jsonl)}`);
	if (!tap.ok(r.status === 0, `${name}: csv2col | col2csv --format jsonl`, shDiag(r))) {
		unlinkSync(csv);
		return;
	}
	const from = `read_csv(${q(csv)})`;
	const cmp = await compareStream(`SELECT * FROM ${from}`, jsonl);
	tap.ok(cmp.errors.length === 0, `${name}: ${cmp.rows} rows of typed values equal DuckDB's`, errorDiag(cmp));
	const agg = await compareAggregates(from, cmp);
	tap.ok(agg.diffs.length === 0, `${name}: aggregates equal DuckDB's`, agg.diffs);
	if (name === 'lineitem') {
		const s = agg.agg['sum(l_quantity)'];
		tap.ok(s === '15334802', 'lineitem: sum(l_quantity) = 15334802', [`colpipe: ${s}`]);
	}
	unlinkSync(csv);
	unlinkSync(jsonl);
}

// ---- random differential ----

function daysToDate(days) {
	return new Date(days * 86400000).toISOString().slice(0, 10);
}

const STRINGS = [
	'plain', 'comma, inside', 'quote " inside', '""', 'two\nlines',
	'crlf\r\ninside', ' lead', 'trail ', 'tab\there', 'ünïcödé', '中文字',
	'😀 emoji', 'back\\slash', 'semi;colon', 'pipe|bar', "'single'",
	'', '123', '1.5', 'true', '2020-01-01', 'NULL', 'N/A', ',', '"',
	'\n', 'x'.repeat(300),
];

// Returns {rows, spec}: rows of text fields (null = NULL), spec the
// DuckDB type of each column.
function randomTable(nrows, seed) {
	const R = prng(seed);
	const spec = {
		id: 'BIGINT', i: 'BIGINT', d2: 'DECIMAL(18,2)', d4: 'DECIMAL(18,4)',
		f: 'DOUBLE', dt: 'DATE', ts: 'TIMESTAMP', b: 'BOOLEAN', s: 'VARCHAR',
		s2: 'VARCHAR',
	};
	const digits = (n) => {
		let t = String(R.int(1, 9));
		for (let k = 1; k < n; k++) t += R.int(0, 9);
		return t;
	};
	const dec = (maxInt, maxFrac) => {
		const ip = R.next() < 0.2 ? '0' : digits(R.int(1, maxInt));
		let fp = '';
		for (let k = R.int(1, maxFrac); k > 0; k--) fp += R.int(0, 9);
		return (R.next() < 0.3 ? '-' : '') + `${ip}.${fp}`;
	};
	const rows = [];
	// Row 1 shows every column's widest form, so that a sample of the
	// first rows infers the types the whole file needs.
	rows.push(['1', '-9223372036854775808', '9999999999999999.99',
	    '-99999999999999.9999', '1.5e-7', '1900-01-01',
	    '2024-02-29 23:59:59.123456', 'true', 'a "first" row, with\nall',
	    'x']);
	rows.push(['2', '9223372036854775807', '-0.01', '0.0001', '-3E+20',
	    '2100-12-31', '1970-01-01 00:00:00', 'FALSE', '', 'y']);
	for (let k = 3; k <= nrows; k++) {
		const nul = () => R.next() < 0.05;
		const ts = () => {
			let t = `${daysToDate(R.int(-25000, 40000))} ${String(R.int(0, 23)).padStart(2, '0')}:${String(R.int(0, 59)).padStart(2, '0')}:${String(R.int(0, 59)).padStart(2, '0')}`;
			const f = R.pick([0, 0, 3, 6]);
			if (f) t += '.' + String(R.int(0, 10 ** f - 1)).padStart(f, '0');
			return t;
		};
		const flt = () => {
			const m = (R.next() * 10 - 5).toPrecision(R.int(1, 17));
			return R.next() < 0.5 ? m : `${m}e${R.int(-300, 300)}`;
		};
		rows.push([
			String(k),
			nul() ? null : String(BigInt(R.int(-(2 ** 30), 2 ** 30)) * BigInt(R.int(0, 2 ** 30)) * BigInt(R.pick([1, 1, 7]))),
			nul() ? null : dec(16, 2),
			nul() ? null : dec(14, 4),
			nul() ? null : flt(),
			nul() ? null : daysToDate(R.int(-25567, 47482)),
			nul() ? null : ts(),
			nul() ? null : R.pick(['true', 'false', 'TRUE', 'False']),
			nul() ? null : R.pick(STRINGS) + (R.next() < 0.5 ? '' : R.pick(STRINGS)),
			nul() ? null : R.pick(STRINGS),
		]);
	}
	return { rows, spec, R };
}

function writeCsv(path, table, delim, eol, bom) {
	const R = table.R;
	const names = Object.keys(table.spec);
	const needs = (v) => v === '' || v.includes(delim) || /["\r\n]/.test(v) ||
	    /^\s|\s$/.test(v);
	const field = (v, c) => {
		if (v === null)
			return '';
		const str = table.spec[names[c]] === 'VARCHAR';
		// Quoting is transparent: numbers and dates sometimes come quoted.
		if (needs(v) || R.next() < (str ? 0.2 : 0.03))
			return `"${v.replace(/"/g, '""')}"`;
		return v;
	};
	const out = [(bom ? '\ufeff' : '') + names.join(delim)];
	for (const row of table.rows)
		out.push(row.map(field).join(delim));
	writeFileSync(path, out.join(eol) + eol);
}

async function randomDiff(label, nrows, seed, delim, eol, bom) {
	const t = randomTable(nrows, seed);
	const csv = join(WORK, `random-${seed}.csv`);
	const jsonl = join(WORK, `random-${seed}.jsonl`);
	writeCsv(csv, t, delim, eol, bom);
	const r = run(`csv2col ${q(csv)} | col2csv --format jsonl > ${q(jsonl)}`);
	if (!tap.ok(r.status === 0, `random ${label}: csv2col | col2csv --format jsonl`, shDiag(r)))
		return;
	const cols = Object.entries(t.spec).map(([n, ty]) => `'${n}': '${ty}'`).join(', ');
	const from = `read_csv(${q(csv)}, auto_detect=false, header=true, ` +
	    `delim=${q(delim)}, quote='"', escape='"', new_line=${q(eol === '\n' ? '\\n' : '\\r\\n')}, ` +
	    `allow_quoted_nulls=false, columns={${cols}})`;
	const cmp = await compareStream(`SELECT * FROM ${from}`, jsonl, { f: 'float' });
	const d = errorDiag(cmp);
	if (cmp.rows !== nrows)
		d.push(`DuckDB read ${cmp.rows} rows of ${nrows}`);
	tap.ok(d.length === 0, `random ${label}: ${nrows} rows of typed values equal DuckDB's`, d);
	const agg = await compareAggregates(from, cmp);
	tap.ok(agg.diffs.length === 0, `random ${label}: aggregates equal DuckDB's`, agg.diffs);
	// Every line must also be strict JSON.
	let bad = null, n = 0;
	for await (const l of fileLines(jsonl)) {
		n++;
		try { JSON.parse(l); } catch (e) { bad = `line ${n}: ${e.message}`; break; }
	}
	tap.ok(bad === null, `random ${label}: every jsonl line is strict JSON`, [bad]);
	unlinkSync(csv);
	unlinkSync(jsonl);
}

// ---- main ----

if (TPCH && existsSync(TPCH)) {
	const files = readdirSync(TPCH).filter((f) => f.endsWith('.csv.zst'))
	    .map((f) => join(TPCH, f))
	    .sort((a, b) => statSync(a).size - statSync(b).size);
	for (const f of files)
		await tpchTable(f);
	if (files.length === 0)
		tap.ok(false, `no TPC-H tables in ${TPCH}`);
} else {
	tap.skip('TPC-H differential', `no TPC-H data at ${TPCH}`);
}

const n = ASAN ? 6000 : 40000;
await randomDiff('comma/LF', n, 20240601, ',', '\n', false);
await randomDiff('semicolon/CRLF/BOM', n, 7, ';', '\r\n', true);
await randomDiff('tab/LF', ASAN ? 2000 : 12000, 99, '\t', '\n', false);

process.exitCode = tap.done();
