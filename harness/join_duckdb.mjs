// join_duckdb.mjs - the DuckDB side of harness/join.sh: lineitem joined
// with orders on the order key, under a memory limit.
//
//	node harness/join_duckdb.mjs tables LI.csv O.csv count|write LIMIT RUNS
//	node harness/join_duckdb.mjs csv LI.csv O.csv OUT LIMIT
//	node harness/join_duckdb.mjs parquet LI.csv O.csv LI.parquet O.parquet
//	node harness/join_duckdb.mjs pq LI.parquet O.parquet count|OUT LIMIT
//
// tables: loads both CSVs into tables of a database file beside the
// temporary directory (untimed, so the base tables may be evicted under
// the limit), then runs the join RUNS times after one warm-up and prints
// one JSON line in harness/timer's fields: best and median wall time of
// the query alone, and the process's peak RSS; count is SELECT count(*),
// write materializes every column of every joined row into a temporary
// table (the counterpart of coljoin writing its output), dropped after
// each run.
// It also prints rows=N, the join's row count.
// csv: the whole thing end to end, timed from outside: COPY (SELECT *
// FROM read_csv(LI) JOIN read_csv(O) ...) TO OUT as CSV.
// parquet: writes both CSVs as Parquet files with DuckDB's own writer
// (untimed preparation).  pq: a whole process over those files, timed
// from outside: count prints the join's count(*); else COPY (SELECT *
// of the join) TO OUT as Parquet, the join written out.
// Both use 2 threads.  Exits non-zero (with DuckDB's message) when the
// limit is too small, which is how join.sh finds the smallest one that
// works.  @duckdb/node-api is resolved from tests/oracle ("make deps").

import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const top = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(path.join(top, 'tests/oracle/package.json'));
const { DuckDBInstance } = require('@duckdb/node-api');

const args = process.argv.slice(2);
const usage = () => {
	process.stderr.write('usage: join_duckdb.mjs tables LI O count|write ' +
	    'LIMIT RUNS | csv LI O OUT LIMIT | parquet LI O LIP OP | ' +
	    'pq LIP OP count|OUT LIMIT\n');
	process.exit(2);
};
if ((args[0] !== 'tables' || args.length !== 6) &&
    (args[0] !== 'csv' || args.length !== 5) &&
    (args[0] !== 'parquet' || args.length !== 5) &&
    (args[0] !== 'pq' || args.length !== 5))
	usage();
const [mode, li, o] = args;
const lit = (s) => "'" + s.replaceAll("'", "''") + "'";
const dir = path.dirname(args[0] === 'csv' ? args[3] : li);
const pq = (f) => `read_parquet(${lit(f)})`;
const limit = args[4];
const join = 'lineitem JOIN orders ON l_orderkey = o_orderkey';
const src = (f) => `read_csv(${lit(f)}, buffer_size = 262144)`;

try {
	if (mode === 'parquet') {
		const instance = await DuckDBInstance.create(':memory:', {
			threads: '2' });
		const con = await instance.connect();
		await con.run(`COPY (SELECT * FROM ${src(li)}) TO
		    ${lit(args[3])} (FORMAT parquet)`);
		await con.run(`COPY (SELECT * FROM ${src(o)}) TO
		    ${lit(args[4])} (FORMAT parquet)`);
	} else if (mode === 'pq') {
		const instance = await DuckDBInstance.create(':memory:', {
			threads: '2',
			memory_limit: limit,
			temp_directory: path.join(dir, 'duckdb.tmp'),
		});
		const con = await instance.connect();
		const from = `${pq(li)} lineitem JOIN ${pq(o)} orders
		    ON l_orderkey = o_orderkey`;
		if (args[3] === 'count') {
			const r = await con.runAndReadAll(
			    `SELECT count(*) FROM ${from}`);
			console.log(String(r.getRows()[0][0]));
		} else {
			await con.run(`COPY (SELECT * FROM ${from})
			    TO ${lit(args[3])} (FORMAT parquet)`);
		}
	} else if (mode === 'csv') {
		const instance = await DuckDBInstance.create(':memory:', {
			threads: '2',
			memory_limit: limit,
			temp_directory: path.join(dir, 'duckdb.tmp'),
		});
		const con = await instance.connect();
		await con.run(`COPY (SELECT * FROM ${src(li)} lineitem JOIN
		    ${src(o)} orders ON l_orderkey = o_orderkey)
		    TO ${lit(args[3])} (FORMAT csv, HEADER false)`);
	} else {
		const what = args[3], runs = Number(args[5]);
		const db = path.join(dir, `duckdb-join-${process.pid}.db`);
		const instance = await DuckDBInstance.create(db, {
			threads: '2',
			memory_limit: limit,
			temp_directory: path.join(dir, 'duckdb.tmp'),
		});
		const con = await instance.connect();
		await con.run(`CREATE OR REPLACE TABLE lineitem AS
		    SELECT * FROM ${src(li)}`);
		await con.run(`CREATE OR REPLACE TABLE orders AS
		    SELECT * FROM ${src(o)}`);
		const r = await con.runAndReadAll(`SELECT count(*) FROM ${join}`);
		const rows = String(r.getRows()[0][0]);
		const once = async () => {
			const t0 = process.hrtime.bigint();
			if (what === 'count') {
				await con.runAndReadAll(
				    `SELECT count(*) FROM ${join}`);
			} else {
				await con.run(`CREATE OR REPLACE TEMP TABLE r AS
				    SELECT * FROM ${join}`);
			}
			const ms = Number(process.hrtime.bigint() - t0) / 1e6;
			if (what !== 'count')
				await con.run('DROP TABLE r');
			return ms;
		};
		await once();
		const t = [];
		for (let i = 0; i < runs; i++)
			t.push(await once());
		t.sort((a, b) => a - b);
		const rss = process.resourceUsage().maxRSS / 1024;
		console.log(`rows=${rows}`);
		console.log(JSON.stringify({
			best_wall_ms: Math.round(t[0]),
			median_wall_ms: Math.round(t[t.length >> 1]),
			best_cpu_ms: 0,
			peak_rss_mb: Math.round(rss),
		}));
		con.closeSync?.();
		instance.closeSync?.();
		const { rmSync } = await import('node:fs');
		rmSync(db, { force: true });
		rmSync(`${db}.wal`, { force: true });
	}
} catch (e) {
	process.stderr.write(`duckdb: ${String(e.message).split('\n')[0]}\n`);
	process.exit(1);
}
