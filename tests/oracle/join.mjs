// join.mjs - DuckDB's joins for tests/oracle/join.sh.
//
// Usage: node join.mjs DIR SPEC
// Loads each DIR/<table>.csv that SPEC's queries name (every column as
// VARCHAR, so that values come back as the very text they were, and an
// empty field is NULL), then for each SPEC line "NAME<TAB>SELECT ..."
// writes the query's rows to DIR/NAME.duck.tsv: tab-separated, no
// header, nothing quoted, NULL as \N (what col2csv -f tsv writes for
// them).  Keys compare as text, which for TPC-H's canonical integers is
// comparing them as numbers.

import { readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';

const [dir, spec] = process.argv.slice(2);
const q = (s) => `'${s.replace(/'/g, "''")}'`;
const queries = readFileSync(spec, 'utf8').split('\n').filter((l) => l)
    .map((l) => {
	const tab = l.indexOf('\t');
	return { name: l.slice(0, tab), sql: l.slice(tab + 1) };
});
const instance = await DuckDBInstance.create(':memory:', { threads: '2' });
const con = await instance.connect();
const loaded = new Set();
for (const { name, sql } of queries) {
	for (const m of sql.matchAll(/\b(?:FROM|JOIN)\s+([a-z_]+)/g)) {
		const t = m[1];
		const csv = path.join(dir, `${t}.csv`);
		if (loaded.has(t) || !existsSync(csv))
			continue;
		await con.run(`CREATE TABLE ${t} AS SELECT * FROM
		    read_csv(${q(csv)}, header = true, all_varchar = true)`);
		loaded.add(t);
	}
	const out = path.join(dir, `${name}.duck.tsv`);
	await con.run(`COPY (${sql}) TO ${q(out)} (FORMAT csv, HEADER false,
	    DELIMITER '\t', QUOTE '', ESCAPE '', NULLSTR '\\N')`);
}
