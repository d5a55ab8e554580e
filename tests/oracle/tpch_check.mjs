// tpch_check.mjs - TPC-H answers from DuckDB and the comparison of a
// colpipe answer (CSV text) with one, shared by tests/oracle/tpch_queries.mjs
// (make check) and harness/tpch_duckdb.mjs (make bench-tpch).
//
// TABLES: the eight tables with the official TPC-H column types
// (identifiers INTEGER, money DECIMAL(15,2), dates DATE, text VARCHAR), so
// that DuckDB's answers are exact.  duckAnswer runs a query's text
// (harness/tpch/sql/qNN.sql) and keeps its SELECT's names, types, rows and
// ORDER BY columns; checkCsv holds colpipe's CSV against it: the header
// (names in order), the number of rows, and the rows in order where the
// query has an ORDER BY: the sort keys row for row, and the rows of a run
// of equal keys as a multiset (an ORDER BY decides nothing between them).
// Values: integers and DuckDB's DECIMALs exactly (decimal text as a
// scaled integer, whatever the scale each side prints), DOUBLEs within a
// relative 1e-9, dates and strings as text.

import { decimalToScaled, scaleOf } from './lib.mjs';

export const TABLES = {
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
export function parseCsv(text) {
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
export const duckText = (v) => (v === null || v === undefined ? null : String(v));

const EXACT_INT = /^(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT)$/;

// null when colpipe's text cp equals DuckDB's value dv of type ty, else
// why not.
export function differ(cp, dv, ty) {
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
export function orderKeys(sql, names) {
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
export function statements(sql) {
	return sql.replace(/--[^\n]*/g, '').split(/;\s*(?:\n|$)/)
		.map((st) => st.trim()).filter(Boolean);
}

export function rowDiffer(cp, dk, types, cols) {
	for (const c of cols) {
		const why = differ(cp[c], dk[c], types[c]);
		if (why !== null)
			return why;
	}
	return null;
}

// null when the answers agree, else a list of diagnostics.
export function compare(cpRows, dkRows, names, types, keys) {
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

// The answer of a query's text on connection con: { names, types, rows,
// keys }.  Throws DuckDB's error.
export async function duckAnswer(con, sql) {
	let r = null;
	for (const st of statements(sql)) {
		const x = await con.runAndReadAll(st);
		if (/^(select|with)\b/i.test(st))
			r = x;
	}
	if (r === null)
		throw new Error('no SELECT statement');
	const names = r.columnNames();
	return { names, types: r.columnTypes().map((t) => t.toString()),
	    rows: r.getRows(), keys: orderKeys(sql, names) };
}

// null when colpipe's CSV text (a header row, then the rows) is answer
// ans, else a list of diagnostics.
export function checkCsv(text, ans) {
	let rows;
	try {
		rows = parseCsv(text);
	} catch (e) {
		return [`output is not CSV: ${e.message}`, text.slice(0, 1000)];
	}
	const head = rows.shift() ?? [];
	if (head.join(',') !== ans.names.join(','))
		return [`header ${head.join(',')}`, `DuckDB  ${ans.names.join(',')}`];
	return compare(rows, ans.rows, ans.names, ans.types, ans.keys);
}

