// join_duckdb.mjs - the DuckDB side of bench.sh's join cases: lineitem
// joined with orders on the order key, under a memory limit.
//
//	node harness/join_duckdb.mjs csv LI.csv O.csv OUT LIMIT
//	node harness/join_duckdb.mjs pq LI.parquet O.parquet OUT LIMIT
//	node harness/join_duckdb.mjs count LI.parquet O.parquet OUT LIMIT
//
// csv: the whole thing end to end: COPY (SELECT * FROM read_csv(LI) JOIN
// read_csv(O) ...) TO OUT as CSV.  pq: the same over Parquet files of the
// same rows (bench.sh writes them with DuckDB's own writer, untimed), the
// join written out: COPY (SELECT * ...) TO OUT as Parquet, so that DuckDB,
// like coljoin over .col files, reads a columnar file and makes every
// joined row.  count: SELECT count(*) of the same join over the Parquet
// files, printed on the standard output (OUT names only where the
// temporary directory goes); coljoin --count is its peer.  Both use 2 threads, and their temporary directory next to
// OUT, never beside the inputs.  Exits non-zero (with DuckDB's message)
// when the limit is too small.  @duckdb/node-api is resolved from
// tests/oracle ("make deps").

import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const top = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(path.join(top, 'tests/oracle/package.json'));
const { DuckDBInstance } = require('@duckdb/node-api');

const args = process.argv.slice(2);
if (!['csv', 'pq', 'count'].includes(args[0]) || args.length !== 5) {
	process.stderr.write('usage: join_duckdb.mjs csv LI O OUT LIMIT | ' +
	    'pq|count LIP OP OUT LIMIT\n');
	process.exit(2);
}
const [mode, li, o, out, limit] = args;
const lit = (s) => "'" + s.replaceAll("'", "''") + "'";
const src = (f) => mode !== 'csv' ? `read_parquet(${lit(f)})` :
    `read_csv(${lit(f)}, buffer_size = 262144)`;

try {
	const instance = await DuckDBInstance.create(':memory:', {
		threads: '2',
		memory_limit: limit,
		temp_directory: path.join(path.dirname(out), 'duckdb.tmp'),
	});
	const con = await instance.connect();
	if (mode === 'count') {
		const r = await con.runAndReadAll(`SELECT count(*) FROM
		    ${src(li)} lineitem JOIN ${src(o)} orders
		    ON l_orderkey = o_orderkey`);
		process.stdout.write(`${r.getRows()[0][0]}\n`);
		process.exit(0);
	}
	const fmt = mode === 'pq' ? 'parquet' : 'csv, HEADER false';
	await con.run(`COPY (SELECT * FROM ${src(li)} lineitem JOIN
	    ${src(o)} orders ON l_orderkey = o_orderkey)
	    TO ${lit(out)} (FORMAT ${fmt})`);
} catch (e) {
	process.stderr.write(`duckdb: ${String(e.message).split('\n')[0]}\n`);
	process.exit(1);
}
