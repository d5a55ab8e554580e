// parquet.mjs - col2parquet's files read back by DuckDB (and by hyparquet
// and by parquet-wasm, the Rust parquet crate compiled to WebAssembly,
// when they are installed), value by value.
//
// 1. A random table of every colpipe type, from a fixed seed: NULL
//    patterns none, some and all; empty and long strings; quotes, commas,
//    newlines and UTF-8; integer extremes.  csv2col --schema turns it into
//    MLSPILL3, col2csv --format jsonl of that stream is the truth, and
//    every file col2parquet writes from it (each codec, dictionary auto,
//    on and off, tiny pages and many row groups, no statistics) must read
//    back in DuckDB as exactly those values, with the Parquet types
//    colpipe promises.  hyparquet and parquet-wasm read the same files
//    against the same truth; parquet-wasm's Arrow table is checked
//    exactly (decimals as 128-bit unscaled integers, timestamps in
//    microseconds, dates in days) and with the Arrow types colpipe's
//    Parquet types map to.  Point queries on the many-row-group file check
//    that DuckDB's use of the min/max statistics loses no row, and in
//    every file written with statistics each column chunk's min, max and
//    NULL count, as parquet_metadata() shows them, are those of its row
//    group's rows in the truth (strings over 4096 bytes: the bounds
//    the man page defines; a chunk of NULLs only: no min or max); with
//    --no-statistics no chunk has any.  Zero rows
//    make a valid file with the schema.  Files with per-column
//    dictionary modes mixed with the global one read back the same, and
//    each column chunk is dictionary-encoded or not as its mode says.
// 1b. Strings longer than 4096 bytes (ASCII, 2-, 3- and 4-byte UTF-8
//    across the cut, U+10FFFF, U+007F at it): DuckDB's parquet_metadata()
//    shows min/max bounds of at most 4096 bytes that still bound every
//    value of their row group, flagged inexact exactly when cut; every
//    value reads back equal, and equality and range filters, which
//    DuckDB prunes by those bounds, find every row they should.
// 2. TPC-H SF0.1: each table `csv2col T.csv | col2parquet`, read back by
//    DuckDB, equals DuckDB's own reading of the CSV with the same column
//    types (so decimals compare exactly): same row count and an empty
//    EXCEPT ALL both ways.
//
// Environment: COLPIPE_BIN, TPCH_DIR, WORK (scratch, removed by the
// caller), MODE (asan: smaller tables, TPC-H's two largest skipped),
// PARQUET_SEED (the random table's seed instead of 20261129, for sweeps
// over other tables; a failure is replayed with the same seed).

import { DuckDBInstance } from '@duckdb/node-api';
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Tap, sh, shDiag, parseFlatLine, fileLines, sameValue, prng, decimalToScaled } from './lib.mjs';

const BIN = process.env.COLPIPE_BIN;
const TPCH = process.env.TPCH_DIR;
const WORK = process.env.WORK;
const ASAN = process.env.MODE === 'asan';
const tap = new Tap();
const env = { ...process.env, PATH: `${BIN}:${process.env.PATH}` };
const q = (s) => `'${s.replace(/'/g, `'\\''`)}'`;
const sqlq = (s) => `'${s.replace(/'/g, "''")}'`;
const run = (cmd) => sh(cmd, { env });
const SEED = process.env.PARQUET_SEED === undefined || process.env.PARQUET_SEED === '' ?
	20261129 : Number(process.env.PARQUET_SEED);
if (!Number.isSafeInteger(SEED)) {
	console.log(`Bail out! PARQUET_SEED=${process.env.PARQUET_SEED} is not an integer`);
	process.exit(1);
}

const instance = await DuckDBInstance.create(':memory:', { threads: '2' });
const con = await instance.connect();

let hyparquet = null;
try {
	const hp = await import('hyparquet');
	const hc = await import('hyparquet-compressors');
	hyparquet = { ...hp, compressors: hc.compressors };
} catch {
	hyparquet = null;
}

// parquet-wasm hands back its table as an Arrow IPC stream, which
// apache-arrow decodes.
let pwasm = null;
try {
	const pw = await import('parquet-wasm');
	const arrow = await import('apache-arrow');
	pwasm = { readParquet: pw.readParquet, tableFromIPC: arrow.tableFromIPC, Type: arrow.Type };
} catch {
	pwasm = null;
}

// ---- 1. the random table ----

const SCHEMA = [
	['b', 'bool'], ['i32', 'int32'], ['i64', 'int64'], ['f', 'float64'],
	['d9', 'decimal(9,2)'], ['d18', 'decimal(18,4)'], ['dt', 'date'],
	['ts', 'timestamp'], ['s', 'string'], ['sd', 'string'],
	['sl', 'string'], ['n_all', 'int64'], ['n_none', 'int64'],
	['n_some', 'string'],
];
// The Parquet physical type and DuckDB type each column must come back as.
const WANT_TYPES = {
	b: ['BOOLEAN', 'BOOLEAN'], i32: ['INT32', 'INTEGER'],
	i64: ['INT64', 'BIGINT'], f: ['DOUBLE', 'DOUBLE'],
	d9: ['INT32', 'DECIMAL(9,2)'], d18: ['INT64', 'DECIMAL(18,4)'],
	dt: ['INT32', 'DATE'], ts: ['INT64', 'TIMESTAMP'],
	s: ['BYTE_ARRAY', 'VARCHAR'], sd: ['BYTE_ARRAY', 'VARCHAR'],
	sl: ['BYTE_ARRAY', 'VARCHAR'], n_all: ['INT64', 'BIGINT'],
	n_none: ['INT64', 'BIGINT'], n_some: ['BYTE_ARRAY', 'VARCHAR'],
};

function csvField(v) {
	if (v === null)
		return '';
	if (v === '' || /[",\r\n]/.test(v))
		return `"${v.replace(/"/g, '""')}"`;
	return v;
}

function makeTable(path, nrows, seed) {
	const R = prng(seed);
	const pad = (n, w) => String(n).padStart(w, '0');
	const big = (digits) => {
		let t = String(R.int(1, 9));
		for (let i = 1; i < digits; i++) t += String(R.int(0, 9));
		return t;
	};
	const dec = (ip, fp) => `${R.next() < 0.5 ? '-' : ''}${R.int(0, 10 ** ip - 1)}.${pad(R.int(0, 10 ** fp - 1), fp)}`;
	const day = (ms) => new Date(ms).toISOString().slice(0, 10);
	const alphabet = ['a', 'b', 'Z', ' ', ',', '"', '\n', 'é', '中', '🙂', ';', '\'', '\\', 'x'];
	const lines = [SCHEMA.map(([n]) => n).join(',')];
	for (let r = 0; r < nrows; r++) {
		const nul = (p) => R.next() < p;
		const row = [];
		row.push(nul(0.1) ? null : R.next() < 0.5 ? 'true' : 'false');
		row.push(nul(0.1) ? null : String(R.pick([-2147483648, 2147483647, 0, R.int(-1e9, 1e9), R.int(-100, 100)])));
		row.push(nul(0.1) ? null : R.pick(['-9223372036854775807', '9223372036854775807', '0',
			`${R.next() < 0.5 ? '-' : ''}${big(R.int(1, 18))}`, String(R.int(-5, 5))]));
		row.push(nul(0.1) ? null : String(R.pick([R.next() * 1e6 - 5e5, (R.next() - 0.5) * 1e-300, 1.5e300, R.int(-9, 9), 0.1])));
		row.push(nul(0.1) ? null : dec(7, 2));
		row.push(nul(0.1) ? null : dec(14, 4));
		row.push(nul(0.1) ? null : day(R.int(-2208988800, 4102444800) * 1000));
		if (nul(0.1)) {
			row.push(null);
		} else {
			const sec = R.int(-2208988800, 4102444800);
			const us = R.next() < 0.5 ? 0 : R.int(0, 999999);
			const t = new Date(sec * 1000).toISOString().slice(0, 19).replace('T', ' ');
			row.push(us ? `${t}.${pad(us, 6)}` : t);
		}
		if (nul(0.1)) {
			row.push(null);
		} else {
			let s = '';
			const n = R.next() < 0.1 ? 0 : R.int(1, 30);
			for (let i = 0; i < n; i++) s += R.pick(alphabet);
			row.push(s);
		}
		row.push(nul(0.2) ? null : R.pick(['DELIVER IN PERSON', 'COLLECT COD', 'NONE', 'TAKE BACK RETURN', '']));
		if (nul(0.05)) {
			row.push(null);
		} else {
			const n = R.next() < 0.01 ? R.int(20000, 70000) : R.next() < 0.2 ? 0 : R.int(1, 300);
			row.push('long text '.repeat(Math.ceil(n / 10)).slice(0, n));
		}
		row.push(null);
		row.push(String(R.int(-1e6, 1e6)));
		row.push(nul(0.5) ? null : `v${R.int(0, 1000)}`);
		lines.push(row.map(csvField).join(','));
	}
	writeFileSync(path, `${lines.join('\n')}\n`);
}

// Reads the DuckDB result of sql and the truth jsonl side by side;
// returns {rows, errors[]}.
async function compareParquet(sql, jsonlPath) {
	const res = await con.stream(sql);
	const names = res.columnNames();
	const types = res.columnTypes().map(String);
	const errors = [];
	const err = (m) => { if (errors.length < 10) errors.push(m); };
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
				err(`DuckDB has more than colpipe's ${rows} rows`);
				return { rows, errors };
			}
			const vals = parseFlatLine(nx.value);
			for (let c = 0; c < names.length; c++) {
				const cp = vals[c];
				if (cp.key !== names[c]) {
					err(`row ${rows + 1}: column ${cp.key} vs ${names[c]}`);
					continue;
				}
				const scale = types[c].startsWith('DECIMAL') ? 0 : -1;
				const d = sameValue(cp, cols[c][r], types[c], scale);
				if (d)
					err(`row ${rows + 1} ${names[c]}: ${d}`);
			}
		}
	}
	if (!(await lines.next()).done)
		err(`colpipe has more than DuckDB's ${rows} rows`);
	return { rows, errors };
}

async function one(sql) {
	const r = await con.runAndReadAll(sql);
	return r.getRowsJson();
}

async function randomTable() {
	const n = ASAN ? 3000 : 20000;
	const csv = join(WORK, 'rand.csv');
	const col = join(WORK, 'rand.col');
	const truth = join(WORK, 'rand.jsonl');
	tap.note(`random table: seed ${SEED}`);
	makeTable(csv, n, SEED);
	const spec = SCHEMA.map(([a, t]) => `${a}:${t}`).join(',');
	let r = run(`csv2col --schema ${q(spec)} ${q(csv)} > ${q(col)} && col2csv --format jsonl ${q(col)} > ${q(truth)}`);
	if (!tap.ok(r.status === 0, 'random table: csv2col | col2csv --format jsonl (the truth)', shDiag(r)))
		return;

	const cases = [];
	for (const c of ['none', 'snappy', 'zstd', 'gzip'])
		for (const d of ['auto', 'on', 'off'])
			cases.push([`${c}, dictionary ${d}`, `-c ${c} --dictionary ${d}`]);
	cases.push(['zstd:19, 777-row row groups, 2K pages', '-c zstd:19 --row-group-rows 777 --page-bytes 2K']);
	cases.push(['snappy, 64K row groups, dictionary on', '--row-group-bytes 64K --dictionary on']);
	cases.push(['no statistics', '--no-statistics --row-group-rows 5000']);
	// Per-column modes over the global one (the bool and the all-NULL
	// column never get a dictionary, whatever they are given).
	const MIXED = [
		['dictionary off, on for 6 columns', 'off', { s: 'on', sd: 'on', i32: 'on', dt: 'on', b: 'on', n_all: 'on' }, '--row-group-rows 7000'],
		['dictionary on, off for 4 columns, auto for 2', 'on', { i64: 'off', sl: 'off', d18: 'off', n_some: 'off', sd: 'auto', f: 'auto' }, '-c zstd'],
	];
	const mixedStart = cases.length;
	for (const [what, g, per, extra] of MIXED)
		cases.push([what, `${extra} --dictionary ${g} ${Object.entries(per).map(([c, m]) => `--dictionary ${c}=${m}`).join(' ')}`]);

	let keys = null;
	try {
		keys = await truthKeys(truth, n);
	} catch (e) {
		tap.ok(false, 'random table: the truth read column by column for the statistics', [String(e)]);
	}

	let many = null;
	for (const [i, [what, opts]] of cases.entries()) {
		const pq = join(WORK, `rand-${i}.parquet`);
		r = run(`col2parquet ${opts} -o ${q(pq)} ${q(col)}`);
		if (!tap.ok(r.status === 0 && existsSync(pq), `random table, ${what}: col2parquet`, shDiag(r)))
			continue;
		const cmp = await compareParquet(
			`SELECT * REPLACE (make_timestamp(epoch_us(ts)) AS ts) FROM read_parquet(${sqlq(pq)})`, truth);
		tap.ok(cmp.errors.length === 0 && cmp.rows === n,
			`random table, ${what}: DuckDB reads ${n} rows, every value equal`,
			[`${cmp.rows} rows`, ...cmp.errors]);
		if (opts.includes('777'))
			many = pq;
		if (i >= mixedStart)
			await dictModesCheck(pq, MIXED[i - mixedStart], what);
		if (keys)
			await statsCheck(pq, keys, n, what, opts.includes('--no-statistics'));
		if (hyparquet)
			await hyparquetCheck(pq, truth, n, what);
		if (pwasm)
			await parquetWasmCheck(pq, truth, n, what);
	}

	// Types as promised, both in the Parquet schema and in DuckDB.
	const pq0 = join(WORK, 'rand-3.parquet');	/* snappy, auto */
	const schema = await one(`SELECT name, type FROM parquet_schema(${sqlq(pq0)}) WHERE type IS NOT NULL`);
	const desc = await one(`DESCRIBE SELECT * FROM read_parquet(${sqlq(pq0)})`);
	const bad = [];
	for (const [name, [pt, dt]] of Object.entries(WANT_TYPES)) {
		const s = schema.find((x) => x[0] === name);
		const d = desc.find((x) => x[0] === name);
		if (!s || s[1] !== pt) bad.push(`${name}: Parquet ${s ? s[1] : 'missing'}, want ${pt}`);
		if (!d || d[1] !== dt) bad.push(`${name}: DuckDB ${d ? d[1] : 'missing'}, want ${dt}`);
	}
	tap.ok(bad.length === 0, 'random table: Parquet and DuckDB types of every column', bad);

	const meta = await one(`SELECT created_by FROM parquet_file_metadata(${sqlq(pq0)})`);
	tap.ok(/^colpipe version \S+ \(build \S+\)$/.test(meta[0][0]), 'created_by is "colpipe version X (build Y)"', [meta[0][0]]);

	if (many) {
		const rg = await one(`SELECT count(DISTINCT row_group_id) FROM parquet_metadata(${sqlq(many)})`);
		tap.ok(Number(rg[0][0]) === Math.ceil(n / 777), `777-row row groups: ${Math.ceil(n / 777)} of them`, [`${rg[0][0]} row groups`]);
		// Point lookups that DuckDB prunes by min/max: a wrong
		// statistic drops rows.
		const diffs = [];
		for (const col of ['i32', 'i64', 'd9', 'dt', 'sd', 's']) {
			const vals = await one(`SELECT DISTINCT ${col}::VARCHAR FROM read_parquet(${sqlq(many)}) WHERE ${col} IS NOT NULL USING SAMPLE 5 ROWS`);
			for (const [v] of vals) {
				const a = await one(`SELECT count(*) FROM read_parquet(${sqlq(many)}) WHERE ${col} = ${sqlq(v)}`);
				const b = await one(`SELECT count(*) FROM (SELECT ${col}::VARCHAR AS x FROM read_parquet(${sqlq(many)})) WHERE x = ${sqlq(v)}`);
				if (a[0][0] !== b[0][0])
					diffs.push(`${col} = ${JSON.stringify(v)}: ${a[0][0]} with pruning, ${b[0][0]} without`);
			}
		}
		tap.ok(diffs.length === 0, 'point lookups pruned by the statistics find every row', diffs);
		const st = await one(`SELECT path_in_schema, stats_null_count, num_values FROM parquet_metadata(${sqlq(many)}) WHERE path_in_schema = 'n_all' AND stats_null_count <> num_values`);
		tap.ok(st.length === 0, 'an all-NULL column: null_count = num_values in every row group', st.map(String));
	}

	// Zero rows.
	const ecsv = join(WORK, 'empty.csv');
	const epq = join(WORK, 'empty.parquet');
	r = run(`head -n 1 ${q(csv)} > ${q(ecsv)} && csv2col --schema ${q(spec)} ${q(ecsv)} | col2parquet -o ${q(epq)}`);
	if (tap.ok(r.status === 0, 'zero rows: col2parquet succeeds', shDiag(r))) {
		const c = await one(`SELECT count(*) FROM read_parquet(${sqlq(epq)})`);
		const d = await one(`DESCRIBE SELECT * FROM read_parquet(${sqlq(epq)})`);
		tap.ok(Number(c[0][0]) === 0 && d.length === SCHEMA.length && d.every((x, i) => x[0] === SCHEMA[i][0]),
			'zero rows: DuckDB reads 0 rows and every column name', [JSON.stringify(c), JSON.stringify(d)]);
		if (hyparquet) {
			let ok = false, why = '';
			try {
				const buf = await readAll(epq);
				const md = hyparquet.parquetMetadata(buf);
				ok = Number(md.num_rows) === 0 && md.schema.length === SCHEMA.length + 1;
			} catch (e) { why = String(e); }
			tap.ok(ok, 'zero rows: hyparquet reads the footer', [why]);
		}
		if (pwasm) {
			const bad = [];
			try {
				const t = await pwasmRead(epq);
				if (t.numRows !== 0)
					bad.push(`${t.numRows} rows`);
				bad.push(...arrowTypeErrors(t.schema));
			} catch (e) { bad.push(String(e)); }
			tap.ok(bad.length === 0, 'zero rows: parquet-wasm reads 0 rows, every column with its Arrow type', bad);
		}
	}
}

// Each column chunk of pq is dictionary-encoded exactly when its mode is
// on (auto: either), except bools and chunks of NULLs only, never.
async function dictModesCheck(pq, [, global, per], what) {
	const md = await one(`SELECT row_group_id, path_in_schema, encodings, dictionary_page_offset, stats_null_count, num_values FROM parquet_metadata(${sqlq(pq)})`);
	const bad = [];
	for (const [rg, col, enc, doff, nulls, nvals] of md) {
		const mode = per[col] ?? global;
		const has = String(enc).includes('RLE_DICTIONARY');
		if (has !== (doff !== null))
			bad.push(`rg ${rg} ${col}: encodings ${enc} but dictionary_page_offset ${doff}`);
		if (mode === 'auto')
			continue;
		const want = mode === 'on' && col !== 'b' && nulls !== nvals;
		if (has !== want)
			bad.push(`rg ${rg} ${col} (${mode}): encodings ${enc}`);
	}
	tap.ok(bad.length === 0 && md.length === SCHEMA.length * Math.max(1, new Set(md.map((x) => x[0])).size),
		`random table, ${what}: each column chunk dictionary-encoded as its mode says`, bad.slice(0, 10));
}

// ---- the statistics of each column chunk ----

// A value's text, from the truth or from parquet_metadata(), as a key of
// its column type that compares exactly: booleans as 0/1, integers,
// decimals (unscaled at the column's scale) and timestamps (microseconds)
// as BigInt, dates as days, floats as the double, strings as their UTF-8
// bytes.
function statKey(type, text) {
	if (type === 'bool') {
		if (text !== 'true' && text !== 'false')
			throw new Error(`bool ${text}`);
		return text === 'true' ? 1 : 0;
	}
	if (type === 'int32' || type === 'int64')
		return BigInt(text);
	if (type.startsWith('decimal('))
		return decimalToScaled(text, Number(/,(\d+)\)/.exec(type)[1]));
	if (type === 'float64') {
		const d = Number(text);
		if (Number.isNaN(d))
			throw new Error(`float64 ${text}`);
		return d;
	}
	if (type === 'date') {
		if (!/^\d{4}-\d{2}-\d{2}$/.test(text))
			throw new Error(`date ${text}`);
		return Date.parse(`${text}T00:00:00Z`) / 86400000;
	}
	if (type === 'timestamp') {
		if (!/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{1,6})?$/.test(text))
			throw new Error(`timestamp ${text}`);
		return textMicros(text);
	}
	return utf8(text);
}

// Order of two keys of one type; equal floats include 0 and -0 (the sign
// of a zero bound is not colpipe's to promise: parquet.thrift asks for
// -0.0 as a zero minimum and +0.0 as a zero maximum).
const keyCmp = (type, a, b) => type === 'string' ? Buffer.compare(a, b) : a < b ? -1 : a > b ? 1 : 0;

// The truth as one array of keys per column of SCHEMA, null for NULL.
// (No NaN or infinity is in the table, nor could the jsonl show one.)
async function truthKeys(jsonlPath, n) {
	const keys = SCHEMA.map(() => []);
	let rows = 0;
	for await (const l of fileLines(jsonlPath)) {
		const vals = parseFlatLine(l);
		if (vals.length !== SCHEMA.length)
			throw new Error(`row ${rows + 1}: ${vals.length} columns`);
		for (const [c, cp] of vals.entries()) {
			const [name, type] = SCHEMA[c];
			if (cp.key !== name)
				throw new Error(`row ${rows + 1}: column ${cp.key}, want ${name}`);
			keys[c].push(cp.kind === 'z' ? null : statKey(type, cp.v));
		}
		rows++;
	}
	if (rows !== n)
		throw new Error(`${rows} rows in the truth`);
	return keys;
}

const STATS_LIMIT = 4096;

// The lower bound col2parquet documents for a string minimum: itself
// within the limit, else its first 4096 bytes cut before a character
// that straddles byte 4096.
function lowerBound(b) {
	if (b.length <= STATS_LIMIT)
		return b;
	let k = STATS_LIMIT;
	while (k > 0 && (b[k] & 0xc0) === 0x80)
		k--;
	return b.subarray(0, k);
}

// The upper bound documented for a string maximum: itself within the
// limit, else that prefix with its last character replaced by the next
// one in Unicode (U+D7FF's is U+E000) and the rest dropped, walking back
// past U+10FFFF and past a successor that would not end within 4096
// bytes; null where no character has one (no maximum).
function upperBound(b) {
	if (b.length <= STATS_LIMIT)
		return b;
	const cps = [...lowerBound(b).toString('utf8')];
	for (let i = cps.length - 1; i >= 0; i--) {
		const cp = cps[i].codePointAt(0);
		if (cp === 0x10ffff)
			continue;
		const head = utf8(cps.slice(0, i).join(''));
		const next = utf8(String.fromCodePoint(cp === 0xd7ff ? 0xe000 : cp + 1));
		if (head.length + next.length <= STATS_LIMIT)
			return Buffer.concat([head, next]);
	}
	return null;
}

// A key (or parquet_metadata()'s text) shown in a diagnostic; long
// strings by their length and ends.
function showKey(type, k) {
	if (k === null || k === undefined)
		return 'none';
	if (type !== 'string')
		return typeof k === 'bigint' ? `${k}` : JSON.stringify(k);
	const s = k.toString('utf8');
	return s.length <= 60 ? JSON.stringify(s) :
		`${k.length} bytes ${JSON.stringify(s.slice(0, 20))}...${JSON.stringify(s.slice(-20))}`;
}

// Every column chunk of pq against its row group's rows of the truth
// (keys from truthKeys): the NULL count, and min and max exactly, flagged
// exact, but for strings over the limit (the documented bounds, flagged
// inexact); none for a chunk of NULLs only.  Row groups are the truth's
// rows in order, cut at the cumulative row_group_num_rows.  With
// noStats, no chunk may have any statistic.
let metaHasExact = null;	// parquet_metadata() has min/max_is_exact

async function statsCheck(pq, keys, n, what, noStats) {
	if (metaHasExact === null) {
		const cols = (await one(`DESCRIBE SELECT * FROM parquet_metadata(${sqlq(pq)})`)).map((c) => c[0]);
		metaHasExact = cols.includes('min_is_exact') && cols.includes('max_is_exact');
	}
	const hasExact = metaHasExact;
	const md = await one(`SELECT row_group_id, row_group_num_rows, path_in_schema, num_values,
		stats_null_count, coalesce(stats_min_value, stats_min), coalesce(stats_max_value, stats_max),
		${hasExact ? 'min_is_exact, max_is_exact' : 'NULL, NULL'}
		FROM parquet_metadata(${sqlq(pq)}) ORDER BY row_group_id, column_id`);
	const bad = [];
	const err = (m) => { if (bad.length < 20) bad.push(m); };
	if (noStats) {
		for (const [rg, , col, , nulls, min, max] of md)
			if (nulls !== null || min !== null || max !== null)
				err(`row group ${rg} ${col}: null_count ${nulls}, min ${min}, max ${max}, want none`);
		tap.ok(bad.length === 0 && md.length > 0, `random table, ${what}: no column chunk has statistics`, bad);
		return;
	}
	const groups = new Map();
	for (const m of md) {
		if (!groups.has(m[0]))
			groups.set(m[0], []);
		groups.get(m[0]).push(m);
	}
	let start = 0, checked = 0;
	for (const [rg, chunks] of groups) {
		const nrows = Number(chunks[0][1]);
		if (chunks.length !== SCHEMA.length)
			err(`row group ${rg}: ${chunks.length} column chunks`);
		for (const [, , col, nvals, nulls, gmin, gmax, minExact, maxExact] of chunks) {
			const c = SCHEMA.findIndex(([name]) => name === col);
			if (c < 0) {
				err(`row group ${rg}: column ${col} is not in the table`);
				continue;
			}
			const type = SCHEMA[c][1];
			const where = `row group ${rg} (rows ${start + 1}-${start + nrows}) ${col}`;
			let tnull = 0, tmin = null, tmax = null;
			for (let r = start; r < start + nrows && r < n; r++) {
				const k = keys[c][r];
				if (k === null) {
					tnull++;
				} else {
					if (tmin === null || keyCmp(type, k, tmin) < 0)
						tmin = k;
					if (tmax === null || keyCmp(type, k, tmax) > 0)
						tmax = k;
				}
			}
			checked++;
			if (Number(nvals) !== nrows)
				err(`${where}: num_values ${nvals}, want ${nrows}`);
			if (nulls === null || Number(nulls) !== tnull)
				err(`${where}: null_count want ${tnull} got ${nulls ?? 'none'}`);
			let wmin = tmin, wmax = tmax, wminExact = true, wmaxExact = true;
			if (type === 'string' && tmin !== null) {
				wmin = lowerBound(tmin);
				wminExact = wmin.length === tmin.length;
				wmax = upperBound(tmax);
				wmaxExact = tmax.length <= STATS_LIMIT;
			}
			for (const [which, want, got, wantExact, gotExact] of [
				['min', wmin, gmin, wminExact, minExact], ['max', wmax, gmax, wmaxExact, maxExact]]) {
				let k;
				try {
					k = got === null ? null : statKey(type, got);
				} catch (e) {
					err(`${where}: ${which} want ${showKey(type, want)} got unreadable ${JSON.stringify(got)}`);
					continue;
				}
				if (want === null || k === null) {
					if (want !== k)
						err(`${where}: ${which} want ${showKey(type, want)} got ${showKey(type, k)}`);
					continue;
				}
				if (keyCmp(type, want, k) !== 0)
					err(`${where}: ${which} want ${showKey(type, want)} got ${showKey(type, k)}`);
				else if (hasExact && gotExact !== wantExact)
					err(`${where}: ${which} ${showKey(type, k)} flagged exact ${gotExact}, want ${wantExact}`);
			}
		}
		start += nrows;
	}
	if (start !== n)
		err(`row groups hold ${start} rows, want ${n}`);
	tap.ok(bad.length === 0 && checked > 0,
		`random table, ${what}: each column chunk's min, max and NULL count are its row group's (${groups.size} row groups)`,
		[`seed ${SEED}`, ...bad]);
	if (!hasExact)
		tap.note('this DuckDB has no min_is_exact/max_is_exact in parquet_metadata(): flags not checked');
}

// ---- 1b. strings over the 4096-byte statistics limit ----

const utf8 = (s) => Buffer.from(s, 'utf8');

async function longStrings() {
	const x = (n) => 'x'.repeat(n);
	const zh = '\u4e2d', smile = '\u{1f642}', e = '\u00e9', top = '\u{10ffff}';
	// One row group each (4 rows).
	const groups = [
		[`${x(5000)}1`, `${x(5000)}2`, x(4096), `${x(4095)}w`],
		[`ab${zh.repeat(2000)}`, `ab${zh.repeat(1999)}\u4e01`, `ab${zh.repeat(3000)}`, 'ab'],
		[smile.repeat(1500), `${smile.repeat(1500)}a`, e.repeat(2500), e.repeat(2048)],
		[top.repeat(1100), 'q', `q${top.repeat(1100)}`, 'qq'],
		[`${'a'.repeat(4095)}\x7f${'b'.repeat(10)}`, `${'a'.repeat(4095)}\x7f`, 'a', `a${e.repeat(3000)}`],
	];
	const vals = groups.flat();
	const csv = join(WORK, 'long.csv');
	const pq = join(WORK, 'long.parquet');
	writeFileSync(csv, `id,s\n${vals.map((v, i) => `${i},${v}`).join('\n')}\n`);
	let r = run(`csv2col --schema id:int64,s:string ${q(csv)} | col2parquet --row-group-rows 4 -o ${q(pq)}`);
	if (!tap.ok(r.status === 0, 'long strings: csv2col | col2parquet', shDiag(r)))
		return;

	const got = await one(`SELECT id, s FROM read_parquet(${sqlq(pq)}) ORDER BY id`);
	const diff = got.length !== vals.length ? [`${got.length} rows`] :
		got.filter(([id, v]) => v !== vals[Number(id)]).map(([id]) => `row ${id} differs`);
	tap.ok(diff.length === 0, `long strings: DuckDB reads ${vals.length} rows, every value equal`, diff);

	// The bounds, against each row group's true minimum and maximum.
	const cols = (await one(`DESCRIBE SELECT * FROM parquet_metadata(${sqlq(pq)})`)).map((c) => c[0]);
	const hasExact = cols.includes('min_is_exact') && cols.includes('max_is_exact');
	const md = await one(`SELECT row_group_id, stats_min_value, stats_max_value${hasExact ? ', min_is_exact, max_is_exact' : ''} FROM parquet_metadata(${sqlq(pq)}) WHERE path_in_schema = 's' ORDER BY row_group_id`);
	const bad = [];
	if (md.length !== groups.length)
		bad.push(`${md.length} row groups`);
	for (const [rg, smin, smax, minExact, maxExact] of md) {
		const g = groups[Number(rg)].map(utf8).sort(Buffer.compare);
		const tmin = g[0], tmax = g[g.length - 1];
		const where = `row group ${rg}`;
		if (smin === null) {
			bad.push(`${where}: no min`);
		} else {
			const b = utf8(smin);
			if (b.length > 4096 || !tmin.subarray(0, b.length).equals(b) || b.length < Math.min(tmin.length, 4093))
				bad.push(`${where}: min of ${b.length} bytes is not a long prefix of the minimum`);
			if (hasExact && minExact !== (tmin.length <= 4096))
				bad.push(`${where}: min_is_exact ${minExact} for a ${tmin.length}-byte minimum`);
		}
		if (smax === null) {
			// Only where no UTF-8 bound exists: a U+10FFFF prefix.
			if (!tmax.subarray(0, 4096).equals(utf8(top.repeat(1024))))
				bad.push(`${where}: no max`);
		} else {
			const b = utf8(smax);
			if (b.length > 4096 || Buffer.compare(b, tmax) < (tmax.length > 4096 ? 1 : 0))
				bad.push(`${where}: max of ${b.length} bytes does not bound the maximum`);
			if (tmax.length <= 4096 && !b.equals(tmax))
				bad.push(`${where}: a short maximum not kept exactly`);
			if (hasExact && maxExact !== (tmax.length <= 4096))
				bad.push(`${where}: max_is_exact ${maxExact} for a ${tmax.length}-byte maximum`);
		}
	}
	const rg0 = md.find((m) => Number(m[0]) === 0);
	if (rg0 && rg0[2] !== `${x(4095)}y`)
		bad.push(`row group 0: max ${String(rg0[2]).slice(4090)}..., want x*4095 then y`);
	tap.ok(bad.length === 0, 'long strings: parquet_metadata() min/max bound each row group within 4096 bytes, exact only when not cut', bad);
	if (!hasExact)
		tap.note('this DuckDB has no min_is_exact/max_is_exact in parquet_metadata(): flags not checked');

	// Filters DuckDB prunes with those bounds, against counts from the
	// values themselves.
	const miss = [];
	const bv = vals.map(utf8);
	for (const [i, v] of vals.entries()) {
		const want = {
			'=': bv.filter((b) => b.equals(bv[i])).length,
			'>=': bv.filter((b) => Buffer.compare(b, bv[i]) >= 0).length,
			'<': bv.filter((b) => Buffer.compare(b, bv[i]) < 0).length,
		};
		for (const [op, n] of Object.entries(want)) {
			const c = await one(`SELECT count(*) FROM read_parquet(${sqlq(pq)}) WHERE s ${op} ${sqlq(v)}`);
			if (Number(c[0][0]) !== n)
				miss.push(`row ${i} (${bv[i].length} bytes): s ${op} it counts ${c[0][0]}, want ${n}`);
		}
	}
	tap.ok(miss.length === 0, 'long strings: =, >= and < filters on every value find every row', miss);

	if (hyparquet) {
		let why = [];
		try {
			const data = await hyparquet.parquetReadObjects({ file: await readAll(pq), compressors: hyparquet.compressors });
			why = data.length !== vals.length ? [`${data.length} rows`] :
				data.filter((row) => row.s !== vals[Number(row.id)]).map((row) => `row ${row.id} differs`);
		} catch (err) { why = [String(err)]; }
		tap.ok(why.length === 0, 'long strings: hyparquet reads every value equal', why);
	}
	if (pwasm) {
		let why = [];
		try {
			const t = await pwasmRead(pq);
			const ids = t.getChild('id'), ss = t.getChild('s');
			for (let k = 0; k < t.numRows; k++)
				if (ss.get(k) !== vals[Number(ids.get(k))])
					why.push(`row ${ids.get(k)} differs`);
			if (t.numRows !== vals.length)
				why.push(`${t.numRows} rows`);
		} catch (err) { why = [String(err)]; }
		tap.ok(why.length === 0, 'long strings: parquet-wasm reads every value equal', why);
	}
}

// ---- 1c. decimals of 19 to 38 digits ----
// col2parquet writes them as FIXED_LEN_BYTE_ARRAY(16); DuckDB must read
// every value exactly with the declared type, and colscan must read the
// file back, and DuckDB's own DECIMAL(38,s) file, to the same text.

async function wideDecimals() {
	const R = prng(38);
	const digits = (n) => {
		let t = String(R.int(1, 9));
		for (let i = 1; i < n; i++) t += String(R.int(0, 9));
		return t;
	};
	const val = (p, sc) => {
		const x = R.next();
		if (x < 0.1) return null;
		if (x < 0.15) return `${'9'.repeat(p - sc)}.${'9'.repeat(sc)}`;
		if (x < 0.2) return `-${'9'.repeat(p - sc)}.${'9'.repeat(sc)}`;
		if (x < 0.25) return `0.${'0'.repeat(sc - 1)}1`;
		const ip = digits(R.int(1, p - sc));
		return `${R.next() < 0.5 ? '-' : ''}${ip}.${digits(sc)}`;
	};
	const rows = [];
	for (let r = 0; r < 3000; r++)
		rows.push([r, val(38, 2), val(19, 1), val(30, 10)]);
	const csv = join(WORK, 'wide.csv');
	const pq = join(WORK, 'wide.parquet');
	writeFileSync(csv, `id,a,b,c\n${rows.map((x) => x.map((v) => v ?? '').join(',')).join('\n')}\n`);
	let r = run(`csv2col --schema 'id:int64,a:decimal(38,2),b:decimal(19,1),c:decimal(30,10)' ${q(csv)} | col2parquet --row-group-rows 1000 --page-bytes 4096 -c zstd -o ${q(pq)}`);
	if (!tap.ok(r.status === 0, 'wide decimals: csv2col | col2parquet', shDiag(r)))
		return;
	const types = await one(`SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM read_parquet(${sqlq(pq)}))`);
	tap.ok(JSON.stringify(types) === JSON.stringify([['id', 'BIGINT'], ['a', 'DECIMAL(38,2)'], ['b', 'DECIMAL(19,1)'], ['c', 'DECIMAL(30,10)']]),
		'wide decimals: DuckDB sees DECIMAL(38,2), (19,1), (30,10)', [JSON.stringify(types)]);
	const got = await one(`SELECT id, a::VARCHAR, b::VARCHAR, c::VARCHAR FROM read_parquet(${sqlq(pq)}) ORDER BY id`);
	const norm = (v) => v === null ? null : v.replace(/^(-?)0+(?=\d)/, '$1').replace(/^-(0\.0*)$/, '$1');
	const diff = [];
	if (got.length !== rows.length)
		diff.push(`${got.length} rows`);
	for (const g of got) {
		const want = rows[Number(g[0])];
		for (let k = 1; k < 4; k++)
			if (norm(g[k]) !== norm(want[k]) && diff.length < 5)
				diff.push(`row ${g[0]} col ${k}: ${g[k]} != ${want[k]}`);
	}
	tap.ok(diff.length === 0, `wide decimals: DuckDB reads ${rows.length} rows, every value exact`, diff);
	// colscan over both files: col2parquet's, and DuckDB's rewrite of it.
	const pq2 = join(WORK, 'wide_duckdb.parquet');
	await one(`COPY (SELECT * FROM read_parquet(${sqlq(pq)}) ORDER BY id) TO ${sqlq(pq2)} (FORMAT parquet)`);
	const truth = run(`csv2col --schema 'id:int64,a:decimal(38,2),b:decimal(19,1),c:decimal(30,10)' ${q(csv)} | col2csv`);
	for (const [f, who] of [[pq, 'col2parquet'], [pq2, 'DuckDB']]) {
		r = run(`colscan ${q(f)} | col2csv`);
		tap.ok(r.status === 0 && truth.status === 0 && r.stdout === truth.stdout,
			`wide decimals: colscan reads ${who}'s file to the same text`, shDiag(r));
	}
}

// ---- hyparquet, an independent reader ----

async function readAll(path) {
	const { readFile } = await import('node:fs/promises');
	const b = await readFile(path);
	return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength);
}

// hyparquet's value against the truth's {kind, v}.
function hyEqual(cp, v, name) {
	if (v === null || v === undefined)
		return cp.kind === 'z';
	if (cp.kind === 'z')
		return false;
	switch (name) {
	case 'b': return cp.kind === 'b' && String(v) === cp.v;
	case 'i32': case 'i64': case 'n_none': case 'n_all':
		return BigInt(v) === BigInt(cp.v);
	case 'f': return Number(cp.v) === v;
	case 'd9': case 'd18': {
		// hyparquet turns decimals into doubles; DuckDB checks them
		// exactly, here they must agree to double precision.
		const a = Number(cp.v), b = Number(v);
		return Math.abs(a - b) <= 1e-15 * Math.max(1, Math.abs(a));
	}
	case 'dt': return v instanceof Date && v.toISOString().slice(0, 10) === cp.v;
	case 'ts': {
		// hyparquet gives a Date, whole milliseconds: compare with the
		// text's microseconds cut to milliseconds either way.
		if (!(v instanceof Date)) return false;
		const sec = Date.parse(`${cp.v.slice(0, 19).replace(' ', 'T')}Z`);
		const us = BigInt(sec) * 1000n + BigInt((cp.v.slice(20) || '0').padEnd(6, '0'));
		const floor = us >= 0n ? us / 1000n : -((-us + 999n) / 1000n);
		const trunc = us / 1000n;
		return BigInt(v.getTime()) === floor || BigInt(v.getTime()) === trunc;
	}
	default: return cp.kind === 's' && v === cp.v;
	}
}

async function hyparquetCheck(pq, truth, n, what) {
	const errors = [];
	let rows = 0;
	try {
		const file = await readAll(pq);
		const data = await hyparquet.parquetReadObjects({ file, compressors: hyparquet.compressors });
		const it = fileLines(truth)[Symbol.asyncIterator]();
		for (const row of data) {
			const nx = await it.next();
			if (nx.done) { errors.push('hyparquet has more rows'); break; }
			const vals = parseFlatLine(nx.value);
			for (const cp of vals)
				if (!hyEqual(cp, row[cp.key], cp.key) && errors.length < 8)
					errors.push(`row ${rows + 1} ${cp.key}: colpipe ${cp.v} vs hyparquet ${String(row[cp.key])}`);
			rows++;
		}
	} catch (e) {
		errors.push(`hyparquet: ${e.stack ?? e}`);
	}
	tap.ok(errors.length === 0 && rows === n, `random table, ${what}: hyparquet reads ${n} rows, every value equal`, [`${rows} rows`, ...errors]);
}

// ---- parquet-wasm, a third reader (Rust's parquet crate) ----

// The Arrow type (as apache-arrow prints it) each column must come back
// as: what the Parquet logical types colpipe writes map to.
const WANT_ARROW = {
	b: 'Bool', i32: 'Int32', i64: 'Int64', f: 'Float64',
	d9: 'Decimal[9e+2]', d18: 'Decimal[18e+4]', dt: 'Date32<DAY>',
	ts: 'Timestamp<MICROSECOND>', s: 'Utf8', sd: 'Utf8', sl: 'Utf8',
	n_all: 'Int64', n_none: 'Int64', n_some: 'Utf8',
};

async function pwasmRead(path) {
	const { readFile } = await import('node:fs/promises');
	const b = await readFile(path);
	const wt = pwasm.readParquet(new Uint8Array(b.buffer, b.byteOffset, b.byteLength));
	return pwasm.tableFromIPC(wt.intoIPCStream());
}

function arrowTypeErrors(schema) {
	const bad = [];
	const names = schema.fields.map((f) => f.name);
	if (names.join() !== SCHEMA.map(([c]) => c).join())
		bad.push(`columns ${names.join()}`);
	for (const f of schema.fields)
		if (String(f.type) !== WANT_ARROW[f.name])
			bad.push(`${f.name}: Arrow ${f.type}, want ${WANT_ARROW[f.name]}`);
	return bad;
}

// The truth's text of a timestamp, "YYYY-MM-DD HH:MM:SS[.ffffff]", as
// microseconds since the epoch.
function textMicros(t) {
	const ms = Date.parse(`${t.slice(0, 19).replace(' ', 'T')}Z`);
	return BigInt(ms) * 1000n + BigInt((t.slice(20) || '0').padEnd(6, '0'));
}

// Row r of Arrow vector vec as exact text or BigInt: decimals from
// their four little-endian 32-bit words, timestamps and dates from the
// raw stored integers (apache-arrow's get() turns both into float
// milliseconds, which would hide a lost microsecond).
function arrowExact(vec, r) {
	if (!vec.isValid(r))
		return null;
	const T = pwasm.Type;
	const type = vec.type;
	const d = vec.data[0];
	switch (type.typeId) {
	case T.Decimal: {
		const w = d.values;
		let u = 0n;
		for (let k = 3; k >= 0; k--)
			u = (u << 32n) | BigInt(w[4 * r + k]);
		u = BigInt.asIntN(128, u);
		const neg = u < 0n;
		const digits = (neg ? -u : u).toString().padStart(type.scale + 1, '0');
		const cut = digits.length - type.scale;
		return `${neg ? '-' : ''}${digits.slice(0, cut)}${type.scale ? `.${digits.slice(cut)}` : ''}`;
	}
	case T.Timestamp:
		return d.values[r];
	case T.Date:
		return new Date(d.values[r] * 86400000).toISOString().slice(0, 10);
	default:
		return vec.get(r);
	}
}

// parquet-wasm's value (from arrowExact) against the truth's {kind, v}.
function pwEqual(cp, v, vec) {
	if (v === null)
		return cp.kind === 'z';
	if (cp.kind === 'z')
		return false;
	const T = pwasm.Type;
	switch (vec.type.typeId) {
	case T.Bool: return cp.kind === 'b' && String(v) === cp.v;
	case T.Int: return cp.kind === 'n' && BigInt(v) === BigInt(cp.v);
	case T.Float: return cp.kind === 'n' && Number(cp.v) === v;
	case T.Decimal: return cp.kind === 'n' && v === cp.v;
	case T.Date: return cp.kind === 's' && v === cp.v;
	case T.Timestamp: return cp.kind === 's' && v === textMicros(cp.v);
	case T.Utf8: return cp.kind === 's' && v === cp.v;
	default: return false;
	}
}

async function parquetWasmCheck(pq, truth, n, what) {
	const errors = [];
	const err = (m) => { if (errors.length < 8) errors.push(m); };
	let rows = 0, extra = false;
	try {
		const table = await pwasmRead(pq);
		// With a wrong type the values cannot be compared.
		errors.push(...arrowTypeErrors(table.schema));
		const typeBad = errors.length > 0;
		const it = fileLines(truth)[Symbol.asyncIterator]();
		for (const batch of typeBad ? [] : table.batches) {
			const names = batch.schema.fields.map((f) => f.name);
			const cols = names.map((_, i) => batch.getChildAt(i));
			for (let r = 0; r < batch.numRows; r++, rows++) {
				const nx = await it.next();
				if (nx.done) {
					err(`parquet-wasm has more than colpipe's ${rows} rows`);
					extra = true;
					break;
				}
				const vals = parseFlatLine(nx.value);
				for (const [c, cp] of vals.entries()) {
					if (cp.key !== names[c]) {
						err(`row ${rows + 1}: column ${cp.key} vs ${names[c]}`);
						continue;
					}
					const v = arrowExact(cols[c], r);
					if (!pwEqual(cp, v, cols[c]))
						err(`row ${rows + 1} ${cp.key}: colpipe ${cp.v} vs parquet-wasm ${typeof v === 'bigint' ? `${v} us` : String(v)}`);
				}
			}
			if (extra)
				break;
		}
		if (!extra && !typeBad && !(await it.next()).done)
			err(`colpipe has more than parquet-wasm's ${rows} rows`);
	} catch (e) {
		errors.push(`parquet-wasm: ${e.stack ?? e}`);
	}
	tap.ok(errors.length === 0 && rows === n, `random table, ${what}: parquet-wasm reads ${n} rows, every value equal`, [`${rows} rows`, ...errors]);
}

// ---- 2. TPC-H ----

async function tpchTable(zst) {
	const name = zst.replace(/.*\//, '').replace(/\.csv\.zst$/, '');
	const csv = join(WORK, `${name}.csv`);
	let r = run(`zstd -qdc ${q(zst)} > ${q(csv)}`);
	if (!tap.ok(r.status === 0, `${name}: zstd -dc`, shDiag(r)))
		return;
	const variants = [['snappy', '']];
	if (name === 'lineitem')
		variants.push(['zstd, 100000-row row groups', '-c zstd --row-group-rows 100000']);
	for (const [what, opts] of variants) {
		const pq = join(WORK, `${name}.parquet`);
		r = run(`csv2col ${q(csv)} | col2parquet ${opts} -o ${q(pq)}`);
		if (!tap.ok(r.status === 0, `${name} (${what}): csv2col | col2parquet`, shDiag(r)))
			continue;
		const desc = await one(`DESCRIBE SELECT * FROM read_parquet(${sqlq(pq)})`);
		const cols = desc.map(([n, t]) => `${sqlq(n)}: ${sqlq(t.startsWith('TIMESTAMP') ? 'TIMESTAMP' : t)}`).join(', ');
		const fromCsv = `read_csv(${sqlq(csv)}, header = true, delim = ',', quote = '"', auto_detect = false, columns = {${cols}})`;
		const fromPq = `read_parquet(${sqlq(pq)})`;
		const res = await one(`SELECT
			(SELECT count(*) FROM ${fromPq}),
			(SELECT count(*) FROM ${fromCsv}),
			(SELECT count(*) FROM (FROM ${fromPq} EXCEPT ALL FROM ${fromCsv})),
			(SELECT count(*) FROM (FROM ${fromCsv} EXCEPT ALL FROM ${fromPq}))`);
		const [np, nc, a, b] = res[0].map(Number);
		tap.ok(np === nc && a === 0 && b === 0 && np > 0,
			`${name} (${what}): DuckDB reads the Parquet file as it reads the CSV (${nc} rows, types ${desc.map((x) => x[1]).filter((t, i, s) => s.indexOf(t) === i).join(' ')})`,
			[`parquet ${np} rows, csv ${nc} rows, ${a} rows only in parquet, ${b} only in csv`]);
	}
}

await randomTable();
await longStrings();
await wideDecimals();
if (!hyparquet)
	tap.note('hyparquet not installed in tests/oracle: only DuckDB reads the files');
if (!pwasm)
	tap.skip('random table: parquet-wasm reads every file', 'parquet-wasm or apache-arrow not installed in tests/oracle: run make deps');

if (TPCH && existsSync(TPCH)) {
	const tables = readdirSync(TPCH).filter((f) => f.endsWith('.csv.zst'))
		.map((f) => join(TPCH, f))
		.sort((a, b) => statSync(a).size - statSync(b).size);
	for (const t of tables) {
		if (ASAN && statSync(t).size > 8e6) {
			tap.skip(`${t.replace(/.*\//, '')}: TPC-H round trip`, 'MODE=asan');
			continue;
		}
		await tpchTable(t);
	}
} else {
	tap.skip('TPC-H SF0.1 round trips', `no data in ${TPCH}`);
}

process.exitCode = tap.done();
