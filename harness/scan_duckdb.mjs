// scan_duckdb.mjs - the DuckDB side of bench.sh's scan and filter cases:
// one statement over lineitem as CSV or Parquet, in a fresh in-memory database with 2
// threads.  Every mode but check is one whole process timed from outside
// by harness/timer, start-up included, as a user runs it.
//
//	node harness/scan_duckdb.mjs startup
//		load DuckDB and connect, nothing else: context for the rest
//	node harness/scan_duckdb.mjs q6 FILE COND
//		SELECT sum(l_extendedprice * l_discount) FROM FILE WHERE COND,
//		printing the sum (DuckDB does the sum colscan leaves undone)
//	node harness/scan_duckdb.mjs wide FILE COND OUT
//		COPY (SELECT * FROM FILE WHERE COND) TO OUT as CSV with a
//		header
//	node harness/scan_duckdb.mjs count FILE
//		SELECT count(*) FROM FILE
//	node harness/scan_duckdb.mjs sum FILE
//		SELECT sum(l_quantity) FROM FILE
//	node harness/scan_duckdb.mjs copy CSV OUT
//		COPY (FROM read_csv(CSV)) TO OUT (FORMAT parquet): DuckDB's
//		own Parquet file of the rows, written once, untimed
//	node harness/scan_duckdb.mjs check FILE COND
//		"rows=N sum=S" for the rows passing COND, the sum of
//		l_extendedprice * l_discount taken exactly in decimals: what
//		bench.sh holds colscan's answers against
//
// FILE is read with read_csv when its name ends in .csv, else with
// read_parquet.  COND is the shell's text, the same colscan is given, so
// each predicate is spelt once.  @duckdb/node-api is resolved from
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
const arity = { startup: 0, q6: 2, wide: 3, count: 1, sum: 1, copy: 2,
    check: 2 };
const [mode, ...args] = process.argv.slice(2);
if (!(mode in arity) || args.length !== arity[mode]) {
	process.stderr.write('usage: scan_duckdb.mjs startup | q6 FILE COND | ' +
	    'wide FILE COND OUT | count FILE | sum FILE | copy CSV OUT | ' +
	    'check FILE COND\n');
	process.exit(2);
}

try {
	const instance = await DuckDBInstance.create(':memory:',
	    { threads: '2' });
	const con = await instance.connect();
	const one = async (sql) => {
		const r = await con.runAndReadAll(sql);
		return r.getRowsJson()[0];
	};
	const [f, cond] = args;
	if (mode === 'q6') {
		const [s] = await one(`SELECT sum(l_extendedprice * l_discount)
		    FROM ${from(f)} WHERE ${cond}`);
		process.stdout.write(`${s}\n`);
	} else if (mode === 'wide') {
		await con.run(`COPY (SELECT * FROM ${from(f)} WHERE ${cond})
		    TO ${lit(args[2])} (FORMAT csv, HEADER true)`);
	} else if (mode === 'count') {
		const [n] = await one(`SELECT count(*) FROM ${from(f)}`);
		process.stdout.write(`${n}\n`);
	} else if (mode === 'sum') {
		const [s] = await one(`SELECT sum(l_quantity) FROM ${from(f)}`);
		process.stdout.write(`${s}\n`);
	} else if (mode === 'copy') {
		await con.run(`COPY (FROM read_csv(${lit(f)})) TO
		    ${lit(args[1])} (FORMAT parquet)`);
	} else if (mode === 'check') {
		// The CSV reads as DOUBLE; the casts make the sum exact and
		// independent of the order the threads add in.
		const [n, s] = await one(`SELECT count(*)::VARCHAR,
		    coalesce(sum(l_extendedprice::DECIMAL(18,2) *
		    l_discount::DECIMAL(18,2)), 0)::VARCHAR
		    FROM ${from(f)} WHERE ${cond}`);
		process.stdout.write(`rows=${n} sum=${s}\n`);
	}
} catch (e) {
	process.stderr.write(`duckdb: ${String(e.message).split('\n')[0]}\n`);
	process.exit(1);
}
