// agg_duckdb.mjs - the DuckDB side of bench.sh's agg cases: one aggregation
// over lineitem as CSV or Parquet, in a fresh in-memory database with 2
// threads.  Every mode but check is one whole process timed from outside
// by harness/timer, start-up included, as a user runs it; the groups are
// materialized in a table (CREATE TABLE ... AS), which costs DuckDB about
// what writing them costs colagg.
//
//	node harness/agg_duckdb.mjs startup
//		load DuckDB and connect, nothing else
//	node harness/agg_duckdb.mjs run CASE FILE
//		CASE's query over FILE
//	node harness/agg_duckdb.mjs check CASE FILE
//		the answer as bench.sh compares it: Q1's rows in key order,
//		or the groups' count and the sums of their columns, every
//		number with 4 decimals
//	node harness/agg_duckdb.mjs copy CSV OUT
//		COPY (FROM read_csv(CSV)) TO OUT (FORMAT parquet), untimed
//
// CASE is q1 (TPC-H Q1), hc (lineitem by l_orderkey: the
// high-cardinality aggregate) or cd (count(DISTINCT l_partkey) by
// l_suppkey).  Prices are cast to the decimals colpipe reads them as, so
// that sums are exact on both sides.  @duckdb/node-api is resolved from
// tests/oracle ("make deps").

import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const top = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(path.join(top, 'tests/oracle/package.json'));
const { DuckDBInstance } = require('@duckdb/node-api');

const lit = (s) => "'" + s.replaceAll("'", "''") + "'";
const from = (f) => f.endsWith('.csv') ? `read_csv(${lit(f)})` :
    `read_parquet(${lit(f)})`;
const d = (c) => `${c}::DECIMAL(15,2)`;

const CASES = {
	q1: (f) => `SELECT l_returnflag, l_linestatus,
	    sum(${d('l_quantity')}) AS sum_qty,
	    sum(${d('l_extendedprice')}) AS sum_base_price,
	    sum(${d('l_extendedprice')} * (1 - ${d('l_discount')})) AS sum_disc_price,
	    sum(${d('l_extendedprice')} * (1 - ${d('l_discount')}) *
	        (1 + ${d('l_tax')})) AS sum_charge,
	    avg(${d('l_quantity')}) AS avg_qty,
	    avg(${d('l_extendedprice')}) AS avg_price,
	    avg(${d('l_discount')}) AS avg_disc,
	    count(*) AS count_order
	    FROM ${from(f)} WHERE l_shipdate <= DATE '1998-09-02'
	    GROUP BY l_returnflag, l_linestatus`,
	hc: (f) => `SELECT l_orderkey, count(*) AS n,
	    sum(${d('l_quantity')}) AS q, sum(${d('l_extendedprice')}) AS p,
	    max(l_shipdate) AS last
	    FROM ${from(f)} GROUP BY l_orderkey`,
	cd: (f) => `SELECT l_suppkey, count(DISTINCT l_partkey) AS parts,
	    count(*) AS n FROM ${from(f)} GROUP BY l_suppkey`,
};
// What check sums over the groups of hc and cd.
const SUMS = { hc: ['n', 'q', 'p'], cd: ['parts', 'n'] };

const [mode, ...args] = process.argv.slice(2);
const ok = mode === 'startup' ? args.length === 0 :
    mode === 'copy' ? args.length === 2 :
    (mode === 'run' || mode === 'check') && args.length === 2 &&
    args[0] in CASES;
if (!ok) {
	process.stderr.write('usage: agg_duckdb.mjs startup | run CASE FILE | ' +
	    'check CASE FILE | copy CSV OUT   (CASE: q1, hc, cd)\n');
	process.exit(2);
}
const fix = (v) => v === null ? '' : typeof v === 'string' &&
    !/^-?[0-9.]+(e[-+]?[0-9]+)?$/.test(v) ? v : Number(v).toFixed(4);

try {
	const instance = await DuckDBInstance.create(':memory:',
	    { threads: '2' });
	const con = await instance.connect();
	if (mode === 'copy') {
		await con.run(`COPY (FROM read_csv(${lit(args[0])})) TO
		    ${lit(args[1])} (FORMAT parquet)`);
	} else if (mode === 'run') {
		await con.run(`CREATE TABLE r AS ${CASES[args[0]](args[1])}`);
	} else if (mode === 'check') {
		const [c, f] = args;
		const sql = c === 'q1' ? `${CASES.q1(f)} ORDER BY 1, 2` :
		    `SELECT count(*), ${SUMS[c].map((x) => `sum(${x})`).join(', ')}
		    FROM (${CASES[c](f)})`;
		const r = await con.runAndReadAll(sql);
		for (const row of r.getRowsJson())
			process.stdout.write(row.map(fix).join(',') + '\n');
	}
} catch (e) {
	process.stderr.write(`duckdb: ${String(e.message).split('\n')[0]}\n`);
	process.exit(1);
}
