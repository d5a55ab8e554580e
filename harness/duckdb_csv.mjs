// duckdb_csv.mjs - the DuckDB side of the benchmark: read a CSV file into a
// fully materialized table, as csv2col does, and report what it read.
//
//	node harness/duckdb_csv.mjs FILE        CREATE TABLE t AS read_csv(FILE)
//	node harness/duckdb_csv.mjs --count FILE  SELECT count(*) FROM read_csv
//	node harness/duckdb_csv.mjs --startup   load DuckDB, connect, nothing else
//
// The whole node process is timed by harness/timer; nothing is subtracted,
// and --startup is timed as its own case so a reader can see how much of
// the figure is start-up.  DuckDB runs with 2 threads, the cores of the
// reference machine.  Prints one line that harness/bench.sh checks before
// it records any time: "rows=N sum_l_quantity=S" ("rows=N" for --count,
// "duckdb=VERSION" for --startup).
//
// @duckdb/node-api is resolved from tests/oracle, where "make deps"
// installs it with npm ci from the committed package-lock.json.

import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const top = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(path.join(top, 'tests/oracle/package.json'));
const { DuckDBInstance } = require('@duckdb/node-api');

const args = process.argv.slice(2);
const count = args[0] === '--count';
if (count)
	args.shift();
if (args.length !== 1) {
	process.stderr.write(
	    'usage: duckdb_csv.mjs [--count] FILE | --startup\n');
	process.exit(2);
}

const instance = await DuckDBInstance.create(':memory:', { threads: '2' });
const con = await instance.connect();

if (args[0] === '--startup') {
	const r = await con.runAndReadAll('SELECT version()');
	process.stdout.write(`duckdb=${r.getRows()[0][0]}\n`);
} else if (count) {
	const lit = "'" + args[0].replaceAll("'", "''") + "'";
	const r = await con.runAndReadAll(
	    `SELECT count(*)::BIGINT FROM read_csv(${lit})`);
	process.stdout.write(`rows=${r.getRows()[0][0]}\n`);
} else {
	// A SQL string literal: double any single quote in the path.
	const lit = "'" + args[0].replaceAll("'", "''") + "'";
	await con.run(`CREATE TABLE t AS SELECT * FROM read_csv(${lit})`);
	const r = await con.runAndReadAll(
	    'SELECT count(*)::BIGINT, sum(l_quantity)::DOUBLE FROM t');
	const [n, q] = r.getRows()[0];
	process.stdout.write(`rows=${n} sum_l_quantity=${q}\n`);
}
con.closeSync?.();
instance.closeSync?.();
