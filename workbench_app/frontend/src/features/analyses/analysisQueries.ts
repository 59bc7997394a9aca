// The analysis screen's reads, keyed once: the sites the person may read, and a definition's run.
import { queryOptions } from "@tanstack/react-query";
import { runAnalysis, runSql } from "../../api/statementRun";
import type { Definition } from "./analysisDefinition";

// The sites of the visits the person may read (a site they may not read is not listed: the statement path decides).
const SITES_SQL = 'SELECT DISTINCT CAST(site_id AS VARCHAR) AS site_id FROM "warehouse"."analytics"."visits" ORDER BY 1 LIMIT 100';

export const analysisSitesQuery = () => queryOptions({
  queryKey: ["analysis-sites"] as const,
  queryFn: ({ signal }) => runSql({ sql: SITES_SQL, row_limit: 100 }, signal),
  retry: false, staleTime: 60_000,
});

export const analysisRunQuery = (definition: Definition | null) => queryOptions({
  queryKey: ["analysis-run", definition] as const,
  queryFn: ({ signal }) => runAnalysis({ analysis: definition!, row_limit: 10_000 }, signal),
  enabled: definition !== null, retry: false,
});
