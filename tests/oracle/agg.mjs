// agg.mjs - colagg against DuckDB's GROUP BY, for tests/oracle/agg.sh.
//
// Each case is written once, as keys and aggregate calls in the
// expression language both share, and becomes a colpipe pipeline
// ([colscan --where |] colagg --by ... | colsort -k ...) and the SQL
// query DuckDB runs (... GROUP BY ... ORDER BY ... NULLS LAST) over the
// same rows, loaded with the types csv2col gave them.  Compared, at each
// budget: the output's column names and result types (colscan --schema
// of colagg's output against DuckDB's column types), the number of
// groups, and every value: floats (avg, var_*, stddev_*) within a
// relative 1e-9, everything else exactly (integers as BigInt, decimals as
// scaled integers at the scale of colagg's type, which every value must
// print at, dates and strings as text).
//
// Differences that are deliberate, for now, are listed in PENDING with
// the reason, and noted in the TAP output; any other difference in a
// type or a value fails.  DuckDB runs on one thread so that any_value is
// the first non-NULL value in the table's order, as colagg's is.
//
// Environment: COLPIPE_BIN, WORK (holding lineitem.col/.csv/.parquet
// and orders.col/.csv; the caller removes it), MODE (asan: one budget),
// AGG_CASES (a regular expression: only the cases it matches).

import { DuckDBInstance } from '@duckdb/node-api';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Tap, sh, shDiag, parseFlatLine, scaleOf, sameValue } from './lib.mjs';

const BIN = process.env.COLPIPE_BIN;
const WORK = process.env.WORK;
const ASAN = process.env.MODE === 'asan';
// AGG_CASES: a regular expression; only the cases whose name it matches.
const ONLY = process.env.AGG_CASES ? new RegExp(process.env.AGG_CASES) : null;
const BUDGETS = ASAN ? ['256M'] : ['256M', '1M'];
// A case whose one group holds more than -m 1M lets it take (colagg is
// exit 4 there, naming the budget that does) spills at its own small.
const small = (c) => c.small ?? '1M';
const tap = new Tap();
const env = { ...process.env, PATH: `${BIN}:${process.env.PATH}` };
const q = (s) => `'${s.replace(/'/g, `'\\''`)}'`;
const run = (cmd) => sh(cmd, { env, cwd: WORK });

// Result types colagg gives today where DuckDB's differ, and why; a
// difference not matched here is a failure.
const PENDING = [];
// DuckDB's types that colpipe carries in another of the same values:
// HUGEINT (sums of integers) as decimal(38,0), its 128-bit integer.
const SAME = [{ fn: 'sum', duck: 'HUGEINT', cp: 'decimal(38,0)' }];
// DuckDB names count(*) "count_star()"; colagg names it as written.
const NAME_PENDING = { 'count(*)': 'count_star()' };

// colpipe's type names as DuckDB spells them.
function duckOf(t) {
	const m = /^decimal\((\d+),(\d+)\)$/.exec(t);
	if (m)
		return `DECIMAL(${m[1]},${m[2]})`;
	return {
		int64: 'BIGINT', int32: 'INTEGER', float64: 'DOUBLE',
		date: 'DATE', timestamp: 'TIMESTAMP', string: 'VARCHAR',
		bool: 'BOOLEAN',
	}[t] ?? `?${t}`;
}

// A column's values with some NULLs (every row whose line number is 1),
// for count(x) against count(*) and NULLs in every function.
const nl = (x) => `CASE WHEN l_linenumber = 1 THEN NULL ELSE ${x} END`;

// Every function of colagg over lineitem's types: integers, decimals,
// dates, strings, booleans (computed), with and without NULLs.
const EVERY = [
	['count', '*', 'n'],
	['count', nl('l_quantity'), 'cnt_q'],
	['count', 'l_comment', 'cnt_c'],
	['sum', 'l_quantity', 'sum_q'],
	['sum', nl('l_quantity'), 'sum_qn'],
	['sum', 'l_orderkey', 'sum_ok'],
	['sum', 'l_extendedprice', 'sum_p'],
	['sum', nl('l_discount'), 'sum_dn'],
	['sum', 'l_tax', 'sum_t'],
	// Integers sum in 128 bits: past int64 (BIGINT), int32, booleans.
	['sum', 'l_orderkey * 10000000000000', 'sum_okbig'],
	['sum', nl('l_linenumber'), 'sum_lnn'],
	['sum', "l_returnflag = 'R'", 'sum_b'],
	['avg', 'l_quantity', 'avg_q'],
	['avg', nl('l_extendedprice'), 'avg_pn'],
	['avg', 'l_discount', 'avg_d'],
	['min', 'l_quantity', 'min_q'],
	['max', nl('l_orderkey'), 'max_okn'],
	['min', 'l_extendedprice', 'min_p'],
	['max', 'l_discount', 'max_d'],
	['min', 'l_shipdate', 'min_sd'],
	['max', nl('l_receiptdate'), 'max_rdn'],
	['min', 'l_comment', 'min_c'],
	['max', nl('l_shipinstruct'), 'max_sin'],
	['min', "l_returnflag = 'R'", 'min_b'],
	['max', "l_discount > 0.05", 'max_b'],
	['any_value', nl('l_comment'), 'any_cn'],
	['any_value', 'l_extendedprice', 'any_p'],
	['any_value', 'l_shipdate', 'any_sd'],
	['any_value', nl('l_quantity'), 'any_qn'],
	['var_samp', 'l_quantity', 'vs_q'],
	['var_pop', nl('l_extendedprice'), 'vp_pn'],
	['var_samp', 'l_discount', 'vs_d'],
	['stddev_samp', 'l_extendedprice', 'ss_p'],
	['stddev_pop', nl('l_quantity'), 'sp_qn'],
	['stddev', 'l_tax', 'sd_t'],
	['var_pop', 'l_orderkey', 'vp_ok'],
	['bool_and', "l_returnflag = 'R'", 'band_r'],
	['bool_or', nl("l_shipmode = 'AIR'"), 'bor_airn'],
	['bool_and', "l_quantity > 0", 'band_q'],
	['bool_or', "l_discount > 0.11", 'bor_d'],
].map(([fn, arg, as]) => ({ fn, arg, as }));

const agg = (fn, arg, as) => ({ fn, arg, as });

// median and the quantiles over every type they take: integers,
// decimals, dates, doubles and timestamps (cast), with NULLs.
const QUANT = [
	['median', 'l_quantity', 'med_q'],
	['median', nl('l_orderkey'), 'med_okn'],
	['median', 'l_shipdate', 'med_sd'],
	['median', 'CAST(l_discount AS DOUBLE)', 'med_df'],
	['quantile_cont', 'l_extendedprice, 0.9', 'qc_p'],
	['quantile_cont', nl('l_linenumber') + ', 0.25', 'qc_lnn'],
	['quantile_cont', 'CAST(l_tax AS DOUBLE), 0.3', 'qc_tf'],
	['quantile_cont', nl('l_receiptdate') + ', 0.7', 'qc_rdn'],
	['quantile_cont', 'CAST(l_commitdate AS TIMESTAMP), 0.5', 'qc_cts'],
	['quantile_disc', 'l_discount, 0.5', 'qd_d'],
	['quantile_disc', nl('l_partkey') + ', 0.1', 'qd_pkn'],
	['quantile_disc', 'l_shipdate, 1', 'qd_sd'],
	['quantile_disc', 'CAST(l_quantity AS DOUBLE), 0', 'qd_qf'],
	['quantile_disc', 'CAST(l_shipdate AS TIMESTAMP), 0.33', 'qd_sts'],
].map(([fn, arg, as]) => ({ fn, arg, as }));

// string_agg (input order within a group, also when it spills) and the
// quantiles that hold strings and decimal(p > 18) values.
const WIDE = 'CAST(l_extendedprice AS DECIMAL(30,2))';
const SQUANT = [
	['string_agg', "l_comment, ' | '", 'sa_c'],
	['string_agg', 'l_shipmode', 'sa_m'],
	['string_agg', nl('l_shipinstruct') + ", ''", 'sa_in'],
	['median', 'l_shipmode', 'med_m'],
	['median', nl('l_comment'), 'med_cn'],
	['quantile_disc', 'l_comment, 0.3', 'qd_c'],
	['median', WIDE, 'med_w'],
	['median', nl(WIDE), 'med_wn'],
	['quantile_cont', WIDE + ', 0.3', 'qc_w'],
	['quantile_disc', 'CAST(l_quantity AS DECIMAL(20,0)) * ' +
	    'CAST(-1 AS DECIMAL(20,0)), 0.7', 'qd_w'],
].map(([fn, arg, as]) => ({ fn, arg, as }));

const CASES = [
	{
		name: 'Q1',
		from: 'lineitem',
		where: "l_shipdate <= DATE '1998-09-02'",
		by: [{ expr: 'l_returnflag' }, { expr: 'l_linestatus' }],
		aggs: [
			agg('sum', 'l_quantity', 'sum_qty'),
			agg('sum', 'l_extendedprice', 'sum_base_price'),
			agg('sum', 'l_extendedprice * (1 - l_discount)',
			    'sum_disc_price'),
			agg('sum', 'l_extendedprice * (1 - l_discount) * ' +
			    '(1 + l_tax)', 'sum_charge'),
			agg('avg', 'l_quantity', 'avg_qty'),
			agg('avg', 'l_extendedprice', 'avg_price'),
			agg('avg', 'l_discount', 'avg_disc'),
			agg('count', '*', 'count_order'),
		],
	},
	{
		name: 'Q6',
		from: 'lineitem',
		where: "l_shipdate >= DATE '1994-01-01' AND " +
		    "l_shipdate < DATE '1995-01-01' AND " +
		    'l_discount BETWEEN 0.05 AND 0.07 AND l_quantity < 24',
		by: [],
		aggs: [agg('sum', 'l_extendedprice * l_discount', 'revenue')],
	},
	{
		name: 'lineitem by l_orderkey (150000 groups)',
		from: 'lineitem',
		by: [{ expr: 'l_orderkey' }],
		aggs: [
			agg('count', '*', 'n'),
			agg('sum', 'l_quantity', 'q'),
			agg('sum', 'l_extendedprice', 'price'),
			agg('min', 'l_shipdate', 'first_ship'),
			agg('max', 'l_shipdate', 'last_ship'),
			agg('min', 'l_extendedprice', 'min_price'),
			agg('max', 'l_comment', 'max_comment'),
			agg('any_value', 'l_comment', 'any_comment'),
			agg('avg', 'l_discount', 'avg_disc'),
		],
		spills: true,
	},
	{
		name: 'lineitem.parquet by l_returnflag, l_shipmode, year',
		from: 'lineitem',
		file: 'lineitem.parquet',
		by: [{ expr: 'l_returnflag' }, { expr: 'l_shipmode' },
		    { expr: 'year(l_receiptdate)', as: 'y' }],
		aggs: [
			agg('count', '*', 'n'),
			agg('sum', 'l_extendedprice', 'price'),
			agg('avg', 'l_quantity', 'avg_q'),
			agg('max', 'l_comment', 'max_comment'),
			agg('min', 'l_commitdate', 'first_commit'),
			agg('bool_or', "l_shipinstruct = 'NONE'", 'any_none'),
		],
	},
	{
		name: 'lineitem by l_partkey, l_suppkey (two integer keys)',
		from: 'lineitem',
		by: [{ expr: 'l_partkey' }, { expr: 'l_suppkey' }],
		aggs: [
			agg('count', '*', 'n'),
			agg('sum', 'l_quantity', 'q'),
			agg('max', 'l_tax', 'max_tax'),
			agg('stddev_pop', 'l_quantity', 'sd_q'),
		],
		spills: true,
	},
	{
		name: 'orders by o_custkey',
		from: 'orders',
		by: [{ expr: 'o_custkey' }],
		aggs: [
			agg('count', '*', 'n'),
			agg('sum', 'o_totalprice', 'total'),
			agg('avg', 'o_totalprice', 'mean'),
			agg('min', 'o_orderdate', 'first'),
			agg('max', 'o_orderdate', 'last'),
			agg('max', 'o_orderpriority', 'max_pri'),
			agg('min', 'o_clerk', 'min_clerk'),
			agg('bool_or', "o_orderstatus = 'F'", 'any_f'),
			agg('var_samp', 'o_totalprice', 'var_total'),
		],
		spills: true,
	},
	{
		name: 'median and quantiles over lineitem by a NULL-able key and a year',
		from: 'lineitem',
		by: [
			{ expr: "nullif(l_shipmode, 'AIR')", as: 'mode' },
			{ expr: 'year(l_shipdate)', as: 'y' },
		],
		aggs: QUANT,
		// A group holds about 10,000 rows' values of 14 aggregates.
		small: '24M',
		spills: true,
	},
	{
		name: 'median and quantiles by l_orderkey',
		from: 'lineitem',
		by: [{ expr: 'l_orderkey' }],
		aggs: QUANT.slice(0, 6),
		spills: true,
	},
	{
		// Without keys the values must fit: the budgets that hold them.
		name: 'median and quantiles over lineitem, one group',
		from: 'lineitem',
		by: [],
		aggs: QUANT,
		budgets: ['512M'],
	},
	{
		name: 'string_agg and string and wide quantiles by l_suppkey',
		from: 'lineitem',
		by: [{ expr: 'l_suppkey' }],
		aggs: SQUANT,
		// A group holds 600 rows' strings and decimals of 10 aggregates.
		small: '4M',
		spills: true,
	},
	{
		name: 'string_agg and string and wide quantiles by l_orderkey',
		from: 'lineitem',
		by: [{ expr: 'l_orderkey' }],
		aggs: SQUANT,
		spills: true,
	},
	{
		// Each string held costs 20 bytes beside its own.
		name: 'string_agg and string and wide quantiles, one group',
		from: 'lineitem',
		by: [],
		aggs: SQUANT.filter((a) => /^(sa_c|sa_m|med_m|qd_c|qc_w)$/.test(
		    a.as)),
		budgets: ['512M'],
	},
	{
		name: 'decimal(30,2) keys and DISTINCT arguments (spills)',
		from: 'lineitem',
		by: [{ expr: nl(WIDE), as: 'w' }],
		aggs: [
			agg('count', '*', 'n'),
			agg('count', 'DISTINCT CAST(l_quantity AS DECIMAL(25,2))',
			    'nq'),
			agg('sum', 'DISTINCT CAST(l_quantity AS DECIMAL(25,2))',
			    'sq'),
		],
		spills: true,
	},
	{
		name: 'every function over lineitem, one group',
		from: 'lineitem',
		by: [],
		aggs: EVERY,
	},
	{
		name: 'every function over lineitem by a NULL-able key and a year',
		from: 'lineitem',
		by: [
			{ expr: "nullif(l_shipmode, 'AIR')", as: 'mode' },
			{ expr: 'year(l_shipdate)', as: 'y' },
		],
		aggs: EVERY,
	},
	{
		name: 'every function with a filter that leaves no row',
		from: 'lineitem',
		where: 'l_quantity > 1000',
		by: [],
		aggs: EVERY,
	},
	{
		name: 'DISTINCT by l_returnflag, l_linestatus (Q16-shaped)',
		from: 'lineitem',
		by: [{ expr: 'l_returnflag' }, { expr: 'l_linestatus' }],
		aggs: [
			agg('count', 'DISTINCT l_suppkey'),
			agg('sum', 'DISTINCT l_suppkey', 'sum_s'),
			agg('avg', 'DISTINCT l_suppkey', 'avg_s'),
			agg('min', 'DISTINCT l_suppkey', 'min_s'),
			agg('var_pop', 'DISTINCT l_suppkey', 'vp_s'),
			agg('count', '*', 'n'),
			agg('count', 'l_suppkey', 'cnt'),
			agg('sum', 'l_quantity', 'q'),
			agg('avg', 'l_discount', 'avg_d'),
		],
	},
	{
		name: 'DISTINCT of a decimal with NULLs, by l_suppkey (spills)',
		from: 'lineitem',
		by: [{ expr: 'l_suppkey' }],
		aggs: [
			agg('count', `DISTINCT ${nl('l_extendedprice')}`, 'np'),
			agg('sum', `DISTINCT ${nl('l_extendedprice')}`, 'sp'),
			agg('avg', `DISTINCT ${nl('l_extendedprice')}`, 'ap'),
			agg('max', `DISTINCT ${nl('l_extendedprice')}`, 'mp'),
			agg('count', '*', 'n'),
			agg('min', 'l_comment', 'min_c'),
			agg('stddev_samp', 'l_quantity', 'sd_q'),
		],
		spills: true,
	},
	{
		name: 'DISTINCT of an expression and strings, no keys',
		from: 'lineitem',
		by: [],
		aggs: [
			agg('count', 'DISTINCT substring(l_comment, 1, 4)', 'nc'),
			agg('min', 'DISTINCT substring(l_comment, 1, 4)', 'mc'),
			agg('count', '*', 'n'),
			agg('sum', 'l_extendedprice', 'p'),
		],
	},
	{
		name: 'DISTINCT over l_orderkey by a date (many pairs, spills)',
		from: 'lineitem',
		where: "l_shipdate < DATE '1993-06-01'",
		by: [{ expr: 'l_shipdate' }],
		aggs: [
			agg('count', 'DISTINCT l_orderkey', 'orders'),
			agg('count', '*', 'n'),
			agg('max', 'l_tax', 'max_tax'),
		],
		spills: true,
	},
	{
		name: 'decimal(30,2) and (38,4): min, max, any_value, sum, avg, var_pop',
		from: 'lineitem',
		by: [{ expr: 'l_shipmode' }],
		aggs: [
			agg('min', 'CAST(l_extendedprice AS decimal(30,2))', 'mn'),
			agg('max', nl('CAST(l_extendedprice AS decimal(30,2))'), 'mx'),
			agg('any_value', 'CAST(l_quantity AS decimal(38,4))', 'av'),
			agg('sum', 'CAST(l_extendedprice AS decimal(30,2))', 'sm'),
			agg('avg', 'CAST(l_extendedprice AS decimal(30,2))', 'ag'),
			agg('var_pop', 'CAST(l_discount AS decimal(38,4))', 'vp'),
		],
	},
	{
		name: 'canonical names, a --having',
		from: 'lineitem',
		by: [{ expr: 'l_shipmode' }],
		aggs: [
			agg('sum', 'l_quantity'),
			agg('min', 'l_shipdate'),
			agg('avg', 'l_discount'),
			agg('count', 'l_comment'),
			agg('count', '*'),
		],
		having: 'sum(l_quantity) > 2188000',
		havingCp: '"sum(l_quantity)" > 2188000',
	},
	{
		name: '--having with aggregate calls: in the output and not',
		from: 'lineitem',
		by: [{ expr: 'l_orderkey' }],
		aggs: [agg('count', '*', 'n'), agg('max', 'l_shipdate', 'last')],
		having: 'sum(l_quantity) > 250 AND count(*) >= 6 AND ' +
		    "min(l_shipmode) <> 'AIR' AND count(DISTINCT l_suppkey) > 5",
		spills: true,
	},
	{
		name: '--having over a hidden avg and stddev, no keys',
		from: 'lineitem',
		by: [],
		aggs: [agg('count', '*', 'n')],
		having: 'avg(l_discount) > 0.04 AND stddev(l_quantity) < 15',
	},
];

const call = (a) => `${a.fn}(${a.arg})${a.as ? ` AS ${a.as}` : ''}`;
const keyName = (k) => k.as ?? k.expr;

function pipeline(c, m) {
	let cmd = '';
	let input = c.file ?? `${c.from}.col`;
	if (c.where) {
		cmd = `colscan --where ${q(c.where)} ${input} | `;
		input = '-';
	}
	cmd += `colagg --stats -m ${m}`;
	if (c.by.length)
		cmd += ` --by ${q(c.by.map((k) => k.as ? `${k.expr} AS ${k.as}` : k.expr).join(', '))}`;
	cmd += ` ${q(c.aggs.map(call).join(', '))}`;
	if (c.having)
		cmd += ` --having ${q(c.havingCp ?? c.having)}`;
	cmd += ` ${input}`;
	if (c.by.length)
		cmd += ` | colsort ${c.by.map((k) => `-k ${q(keyName(k))}`).join(' ')}`;
	return `${cmd} > out.col`;
}

function sql(c) {
	const sel = [...c.by.map((k) => k.as ? `${k.expr} AS ${k.as}` : k.expr),
	    ...c.aggs.map(call)];
	let s = `SELECT ${sel.join(', ')} FROM ${c.from}`;
	if (c.where)
		s += ` WHERE ${c.where}`;
	if (c.by.length)
		s += ` GROUP BY ${c.by.map((k, i) => i + 1).join(', ')}`;
	if (c.having)
		s += ` HAVING ${c.having}`;
	if (c.by.length)
		s += ` ORDER BY ${c.by.map((k, i) => `${i + 1} NULLS LAST`).join(', ')}`;
	return s;
}

function closeTo(a, b, tol) {
	if (a === b)
		return true;
	if (!Number.isFinite(a) || !Number.isFinite(b))
		return false;
	return Math.abs(a - b) <= tol * Math.max(Math.abs(a), Math.abs(b));
}

// The function of output column i of case c (null for a key).
function fnOf(c, i) {
	return i < c.by.length ? null : c.aggs[i - c.by.length].fn;
}

// Compares names and types; returns {errors, notes}.
function compareSchema(c, cpSchema, names, types) {
	const errors = [], notes = [], pending = new Map();
	if (cpSchema.length !== names.length) {
		errors.push(`colagg has ${cpSchema.length} columns, DuckDB ${names.length}`);
		return { errors, notes };
	}
	cpSchema.forEach(({ name, type }, i) => {
		if (name !== names[i]) {
			if (NAME_PENDING[name] === names[i])
				notes.push(`name ${name}: DuckDB calls it ${names[i]}`);
			else
				errors.push(`column ${i + 1}: colagg names it '${name}', DuckDB '${names[i]}'`);
		}
		const dt = types[i];
		if (duckOf(type) === dt)
			return;
		const fn = fnOf(c, i);
		if (SAME.some((r) => r.fn === fn && r.duck === dt &&
		    r.cp === type))
			return;
		const p = PENDING.find((r) => r.fn === fn && r.duck.test(dt) &&
		    r.cp.test(type) && (!r.sameScale ||
		    r.duck.exec(dt)[1] === r.cp.exec(type)[1]));
		if (p)
			(pending.get(p) ?? pending.set(p, []).get(p)).push(
			    `${name} (${type}, DuckDB ${dt})`);
		else
			errors.push(`${name}: colagg type ${type}, DuckDB ${dt}`);
	});
	for (const [p, cols] of pending)
		notes.push(`pending: ${cols.join(', ')}: ${p.why}`);
	return { errors, notes };
}

function compareRows(c, cpSchema, lines, rows, types) {
	// median and the quantiles pick and interpolate, adding nothing up:
	// 1e-12, where sums of doubles in another order get 1e-9.
	const tols = types.map((t, i) => /^(median|quantile)/.test(fnOf(c, i) ?? '') ?
	    1e-12 : 1e-9);
	const errors = [];
	const err = (m) => {
		if (errors.length < 12)
			errors.push(m);
		else
			errors.more = (errors.more ?? 0) + 1;
	};
	if (lines.length !== rows.length)
		err(`colagg wrote ${lines.length} groups, DuckDB ${rows.length}`);
	const n = Math.min(lines.length, rows.length);
	const scales = cpSchema.map(({ type }) => {
		const m = /^decimal\(\d+,(\d+)\)$/.exec(type);
		return m ? Number(m[1]) : -1;
	});
	for (let r = 0; r < n; r++) {
		let vals;
		try {
			vals = parseFlatLine(lines[r]);
		} catch (e) {
			err(`row ${r + 1}: ${e.message}`);
			continue;
		}
		if (vals.length !== types.length) {
			err(`row ${r + 1}: ${vals.length} fields, DuckDB ${types.length}`);
			continue;
		}
		for (let i = 0; i < types.length; i++) {
			const cp = vals[i], dv = rows[r][i], ty = types[i];
			const where = `row ${r + 1} ${cpSchema[i].name}`;
			if (scales[i] >= 0 && cp.kind === 'n' &&
			    Math.max(scaleOf(cp.v), 0) !== scales[i])
				err(`${where}: '${cp.v}' is not at its type's scale ${scales[i]}`);
			if (ty === 'DOUBLE' && cp.kind === 'n' && dv !== null) {
				if (!closeTo(Number(cp.v), Number(dv), tols[i]))
					err(`${where}: colagg ${cp.v}, DuckDB ${dv}`);
				continue;
			}
			const d = sameValue(cp, dv, ty, scales[i]);
			if (d)
				err(`${where}: ${d}`);
		}
	}
	return errors;
}

const diag = (errors) => errors.more ? [...errors, `... and ${errors.more} more`] : errors;

// ---- DuckDB, with colpipe's types ----

const instance = await DuckDBInstance.create(':memory:', { threads: '1' });
const con = await instance.connect();
for (const t of ['lineitem', 'orders']) {
	const r = run(`colscan --schema ${t}.col`);
	if (!tap.ok(r.status === 0, `colscan --schema ${t}.col`, shDiag(r)))
		continue;
	const cols = r.stdout.trim().split('\n').map((l) => {
		const i = l.lastIndexOf(':');
		return `'${l.slice(0, i)}': '${duckOf(l.slice(i + 1))}'`;
	});
	await con.run(`CREATE TABLE ${t} AS SELECT * FROM read_csv(
	    '${join(WORK, `${t}.csv`)}', header = true, columns = {${cols.join(', ')}})`);
}

for (const c of CASES) {
	if (ONLY !== null && !ONLY.test(c.name))
		continue;
	const s = sql(c);
	let duck;
	try {
		duck = await con.runAndReadAll(s);
	} catch (e) {
		tap.ok(false, `${c.name}: DuckDB runs it`, [s, String(e)]);
		continue;
	}
	const names = duck.columnNames();
	const types = duck.columnTypes().map(String);
	const rows = duck.getRows();
	let schemaDone = false;
	for (const m of c.budgets ?? (ASAN ? BUDGETS : ['256M', small(c)])) {
		const cmd = pipeline(c, m);
		const r = run(cmd);
		if (!tap.ok(r.status === 0, `${c.name} -m ${m}: runs`, [cmd, ...shDiag(r)]))
			continue;
		const sc = run('colscan --schema out.col');
		const j = run('col2csv -f jsonl out.col > out.jsonl');
		if (!tap.ok(sc.status === 0 && j.status === 0,
		    `${c.name} -m ${m}: colscan --schema, col2csv -f jsonl`,
		    [...shDiag(sc), ...shDiag(j)]))
			continue;
		const cpSchema = sc.stdout.trim().split('\n').map((l) => {
			const i = l.lastIndexOf(':');
			return { name: l.slice(0, i), type: l.slice(i + 1) };
		});
		if (!schemaDone) {
			const { errors, notes } = compareSchema(c, cpSchema, names, types);
			tap.ok(errors.length === 0, `${c.name}: names and result types as DuckDB's`,
			    [...errors, `colagg: ${cpSchema.map((x) => `${x.name}:${x.type}`).join(', ')}`,
			     `DuckDB: ${names.map((x, i) => `${x}:${types[i]}`).join(', ')}`]);
			for (const n of notes)
				tap.note(n);
			schemaDone = true;
		}
		const text = readFileSync(join(WORK, 'out.jsonl'), 'utf8');
		const lines = text.split('\n').filter((l) => l);
		const errors = compareRows(c, cpSchema, lines, rows, types);
		const part = /(\d+) partitions/.exec(r.stderr);
		const parts = part ? Number(part[1]) : -1;
		if (c.spills && m === small(c) && parts <= 0)
			errors.push(`-m ${m} did not spill: ${r.stderr}`);
		tap.ok(errors.length === 0,
		    `${c.name} -m ${m}: DuckDB's ${rows.length} groups, every value (${parts} partitions)`,
		    [cmd, s, ...diag(errors)]);
	}
}

process.exitCode = tap.done();
