// tpch_queries.mjs - the TPC-H query scripts against DuckDB, for
// tests/oracle/tpch_queries.sh.
//
// DuckDB loads the eight CSVs into tables of the official TPC-H column
// types (identifiers INTEGER, money DECIMAL(15,2), dates DATE, text
// VARCHAR), so that its answers are exact, and runs each
// harness/tpch/sql/qNN.sql.  Every harness/tpch/qNN.sh there is (found by
// glob) runs on WORK/col, the tables converted once to .col; those named
// in CSV_QUERIES run on the CSVs as well.  Compared: the header (names in
// order), the number of rows, and the rows in order where the query has
// an ORDER BY: the sort keys row for row, and the rows of a run of equal
// keys as a multiset (an ORDER BY decides nothing between them).
// Values: integers and DuckDB's DECIMALs exactly (decimal text as a
// scaled integer, whatever the scale each side prints), DOUBLEs within a
// relative 1e-9, dates and strings as text.
//
// Environment: COLPIPE_BIN, TPCH (the directory of the query scripts),
// WORK (csv/ with NAME.csv, col/ with NAME.col; the caller removes it),
// CSV_DIR (the directory the CSV runs read), TPCH_QUERIES (optional: the
// query numbers to run, as "3 5").

import { DuckDBInstance } from '@duckdb/node-api';
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { Tap, sh, shDiag, decimalToScaled, scaleOf } from './lib.mjs';

const BIN = process.env.COLPIPE_BIN;
const TPCH = process.env.TPCH;
const WORK = process.env.WORK;
const CSV_DIR = process.env.CSV_DIR;
const ONLY = (process.env.TPCH_QUERIES ?? '').split(/\s+/).filter(Boolean)
	.map((n) => String(Number(n)).padStart(2, '0'));
const CSV_QUERIES = ['01', '03'];
const tap = new Tap();
const env = { ...process.env, PATH: `${BIN}:${process.env.PATH}` };
const q = (s) => `'${s.replace(/'/g, `'\\''`)}'`;

const TABLES = {
	region: `r_regionkey INTEGER, r_name VARCHAR, r_comment VARCHAR`,
	nation: `n_nationkey INTEGER, n_name VARCHAR, n_regionkey INTEGER,
		n_comment VARCHAR`,
	supplier: `s_suppkey INTEGER, s_name VARCHAR, s_address VARCHAR,
		s_nationkey INTEGER, s_phone VARCHAR, s_acctbal DECIMAL(15,2),
		s_comment VARCHAR`,
	customer: `c_custkey INTEGER, c_name VARCHAR, c_address VARCHAR,
		c_nationkey INTEGER, c_phone VARCHAR, c_acctbal DECIMAL(15,2),
		c_mktsegment VARCHAR, c_comment VARCHAR`,
	part: `p_partkey INTEGER, p_name VARCHAR, p_mfgr VARCHAR,
		p_brand VARCHAR, p_type VARCHAR, p_size INTEGER,
		p_container VARCHAR, p_retailprice DECIMAL(15,2),
		p_comment VARCHAR`,
	partsupp: `ps_partkey INTEGER, ps_suppkey INTEGER,
		ps_availqty INTEGER, ps_supplycost DECIMAL(15,2),
		ps_comment VARCHAR`,
	orders: `o_orderkey INTEGER, o_custkey INTEGER,
		o_orderstatus VARCHAR, o_totalprice DECIMAL(15,2),
		o_orderdate DATE, o_orderpriority VARCHAR, o_clerk VARCHAR,
		o_shippriority INTEGER, o_comment VARCHAR`,
	lineitem: `l_orderkey INTEGER, l_partkey INTEGER, l_suppkey INTEGER,
		l_linenumber INTEGER, l_quantity DECIMAL(15,2),
		l_extendedprice DECIMAL(15,2), l_discount DECIMAL(15,2),
		l_tax DECIMAL(15,2), l_returnflag VARCHAR, l_linestatus VARCHAR,
		l_shipdate DATE, l_commitdate DATE, l_receiptdate DATE,
		l_shipinstruct VARCHAR, l_shipmode VARCHAR, l_comment VARCHAR`,
};

// RFC 4180 as col2csv writes it: a field is NULL when empty and
// unquoted, '""' is the empty string.
function parseCsv(text) {
	const rows = [];
	let row = [], i = 0;
	const n = text.length;
	while (i < n) {
		let v;
		if (text[i] === '"') {
			let j = i + 1, s = '';
			for (;;) {
				const k = text.indexOf('"', j);
				if (k < 0)
					throw new Error('unterminated quoted field');
				s += text.slice(j, k);
				if (text[k + 1] === '"') {
					s += '"';
					j = k + 2;
				} else {
					i = k + 1;
					break;
				}
			}
			v = s;
		} else {
			let j = i;
			while (j < n && text[j] !== ',' && text[j] !== '\n' &&
			    text[j] !== '\r')
				j++;
			v = j === i ? null : text.slice(i, j);
			i = j;
		}
		row.push(v);
		if (text[i] === ',') {
			i++;
			if (i === n || text[i] === '\n')
				row.push(null);
			else
				continue;
		}
		if (text[i] === '\r')
			i++;
		if (text[i] === '\n' || i >= n) {
			i++;
			rows.push(row);
			row = [];
		} else if (text[i] !== ',') {
			throw new Error(`bad CSV after field ${row.length} of ` +
			    `row ${rows.length + 1}`);
		}
	}
	return rows;
}

// DuckDB's value as text: decimals and dates by their own toString.
const duckText = (v) => (v === null || v === undefined ? null : String(v));

const EXACT_INT = /^(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT)$/;

// null when colpipe's text cp equals DuckDB's value dv of type ty, else
// why not.
function differ(cp, dv, ty) {
	const d = duckText(dv);
	const show = () => `colpipe ${cp === null ? 'NULL' : JSON.stringify(cp)}` +
	    ` vs DuckDB ${ty} ${d === null ? 'NULL' : JSON.stringify(d)}`;
	if (d === null || cp === null)
		return d === cp ? null : show();
	if (EXACT_INT.test(ty) || ty.startsWith('DECIMAL')) {
		if (!/^-?[0-9]+(\.[0-9]+)?$/.test(cp))
			return show() + ' (not an exact number)';
		const s = Math.max(scaleOf(cp), scaleOf(d), 0);
		return decimalToScaled(cp, s) === decimalToScaled(d, s) ?
		    null : show();
	}
	if (ty === 'DOUBLE' || ty === 'FLOAT') {
		const a = Number(cp), b = Number(d);
		if (Number.isNaN(a) || !/^[-+0-9.eEinfa]+$/.test(cp))
			return show();
		if (a === b)
			return null;
		return Math.abs(a - b) <= 1e-9 * Math.max(Math.abs(a),
		    Math.abs(b)) ? null : show();
	}
	if (ty === 'BOOLEAN')
		return cp === d ? null : show();
	return cp === d ? null : show();
}

// The columns of the query's outermost ORDER BY (the last one in the
// text, as every TPC-H query has it), or null.
function orderKeys(sql, names) {
	const text = sql.replace(/--[^\n]*/g, '');
	const re = /\border\s+by\b/gi;
	let m, last = -1;
	while ((m = re.exec(text)) !== null)
		last = re.lastIndex;
	if (last < 0)
		return null;
	const tail = text.slice(last).split(/\blimit\b|;/i)[0];
	return tail.split(',').map((k) => {
		const c = k.trim().replace(/\s+(asc|desc)$/i, '').trim();
		const i = names.indexOf(c);
		if (i < 0)
			throw new Error(`ORDER BY ${c} is not an output column`);
		return i;
	});
}

// The statements of a query's text, comments dropped: a query may
// create a view, select from it and drop it (Q15 as the specification
// writes it); its answer is its SELECT's.
function statements(sql) {
	return sql.replace(/--[^\n]*/g, '').split(/;\s*(?:\n|$)/)
		.map((st) => st.trim()).filter(Boolean);
}

function rowDiffer(cp, dk, types, cols) {
	for (const c of cols) {
		const why = differ(cp[c], dk[c], types[c]);
		if (why !== null)
			return why;
	}
	return null;
}

// null when the answers agree, else a list of diagnostics.
function compare(cpRows, dkRows, names, types, keys) {
	const all = names.map((_, i) => i);
	if (cpRows.length !== dkRows.length)
		return [`${cpRows.length} rows, DuckDB ${dkRows.length}`];
	const n = dkRows.length;
	let lo = 0;
	while (lo < n) {
		let hi = lo + 1;
		if (keys === null) {
			hi = n;
		} else {
			const why = rowDiffer(cpRows[lo], dkRows[lo], types, keys);
			if (why !== null)
				return [`row ${lo + 1}: sort key: ${why}`];
			while (hi < n && keys.every((c) => differ(
			    duckText(dkRows[hi][c]), dkRows[lo][c],
			    types[c]) === null)) {
				const w = rowDiffer(cpRows[hi], dkRows[hi], types,
				    keys);
				if (w !== null)
					return [`row ${hi + 1}: sort key: ${w}`];
				hi++;
			}
		}
		// The rows lo..hi-1 tie on the keys: match them as a multiset.
		const used = new Array(hi - lo).fill(false);
		for (let i = lo; i < hi; i++) {
			let found = -1, first = null;
			for (let j = lo; j < hi && found < 0; j++) {
				if (used[j - lo])
					continue;
				const why = rowDiffer(cpRows[i], dkRows[j], types,
				    all);
				if (why === null)
					found = j;
				else if (first === null)
					first = why;
			}
			if (found < 0)
				return [`row ${i + 1} has no equal in DuckDB's ` +
				    `answer${keys === null ? '' : ` among rows ` +
				    `${lo + 1}-${hi}`}: ${first}`,
				    `colpipe: ${JSON.stringify(cpRows[i])}`,
				    `DuckDB:  ${dkRows[i].map(duckText)
				    .join(',')}`];
			used[found - lo] = true;
		}
		lo = hi;
	}
	return null;
}

const inst = await DuckDBInstance.create(':memory:');
const con = await inst.connect();
for (const [t, cols] of Object.entries(TABLES)) {
	await con.run(`CREATE TABLE ${t} (${cols})`);
	await con.run(`COPY ${t} FROM '${join(WORK, 'csv', `${t}.csv`)}' ` +
	    `(HEADER, DELIMITER ',', QUOTE '"')`);
}

const scripts = readdirSync(TPCH).filter((f) => /^q[0-9]{2}\.sh$/.test(f))
	.sort().filter((f) => ONLY.length === 0 || ONLY.includes(f.slice(1, 3)));
if (scripts.length === 0)
	tap.ok(false, `no query scripts harness/tpch/qNN.sh in ${TPCH}`);

for (const f of scripts) {
	const nn = f.slice(1, 3);
	const sqlPath = join(TPCH, 'sql', `q${nn}.sql`);
	if (!existsSync(sqlPath)) {
		tap.ok(false, `Q${nn}: ${sqlPath} is missing`);
		continue;
	}
	const sql = readFileSync(sqlPath, 'utf8');
	let names, types, dkRows, keys;
	try {
		let r = null;
		for (const st of statements(sql)) {
			const x = await con.runAndReadAll(st);
			if (/^(select|with)\b/i.test(st))
				r = x;
		}
		if (r === null)
			throw new Error('no SELECT statement');
		names = r.columnNames();
		types = r.columnTypes().map((t) => t.toString());
		dkRows = r.getRows();
		keys = orderKeys(sql, names);
	} catch (e) {
		tap.ok(false, `Q${nn}: DuckDB runs ${sqlPath}`, String(e.message));
		continue;
	}
	const dirs = [['col', join(WORK, 'col')]];
	if (CSV_QUERIES.includes(nn))
		dirs.push(['csv', CSV_DIR]);
	for (const [what, dir] of dirs) {
		const desc = `Q${nn} from ${what}: ${dkRows.length} rows equal ` +
		    `to DuckDB's${keys === null ? ' (as a multiset)' : ''}`;
		const t0 = Date.now();
		const r = sh(`${q(join(TPCH, f))} ${q(dir)}`, { env });
		const secs = ((Date.now() - t0) / 1000).toFixed(2);
		if (r.status !== 0 || r.signal) {
			tap.ok(false, desc, [`${f} ${dir}`, ...shDiag(r)]);
			continue;
		}
		let rows;
		try {
			rows = parseCsv(r.stdout);
		} catch (e) {
			tap.ok(false, desc, [`output is not CSV: ${e.message}`,
			    r.stdout.slice(0, 1000)]);
			continue;
		}
		const head = rows.shift() ?? [];
		if (head.join(',') !== names.join(',')) {
			tap.ok(false, desc, [`header ${head.join(',')}`,
			    `DuckDB  ${names.join(',')}`]);
			continue;
		}
		const why = compare(rows, dkRows, names, types, keys);
		if (tap.ok(why === null, desc, why ?? []))
			tap.note(`Q${nn} ${what} ${secs} s`);
	}
}
process.exit(tap.done());
