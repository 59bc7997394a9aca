// The analysis screen's reads, keyed once: the sites the person may read, and a definition's run.
import { queryOptions } from "@tanstack/react-query";
import { runAnalysis, runSql } from "../../api/statementRun";
import type { Definition } from "./analysisDefinition";

// The sites of the visits the person may read, with their names where the person may read the sites'
// view too (else their ids): a site they may not read is not listed, the statement path decides.
const VISITED = 'SELECT DISTINCT site_id FROM "warehouse"."analytics"."visits"';
const NAMED_SITES_SQL = 'SELECT CAST(site_id AS VARCHAR) AS site_id, site_name FROM "warehouse"."analytics"."sites" '
  + `WHERE site_id IN (${VISITED}) ORDER BY site_name, site_id LIMIT 100`;
const SITES_SQL = `SELECT CAST(site_id AS VARCHAR) AS site_id, NULL AS site_name FROM (${VISITED}) ORDER BY 1 LIMIT 100`;

export const analysisSitesQuery = () => queryOptions({
  queryKey: ["analysis-sites"] as const,
  queryFn: async ({ signal }) => {
    const result = await runSql({ sql: NAMED_SITES_SQL, row_limit: 100 }, signal)
      .catch(() => runSql({ sql: SITES_SQL, row_limit: 100 }, signal));
    return result.rows.map(([id, name]) => ({ value: String(id), label: name == null ? String(id) : String(name) }));
  },
  retry: false, staleTime: 60_000,
});

export const analysisRunQuery = (definition: Definition | null) => queryOptions({
  queryKey: ["analysis-run", definition] as const,
  queryFn: ({ signal }) => runAnalysis({ analysis: definition!, row_limit: 10_000 }, signal),
  enabled: definition !== null, retry: false,
});
