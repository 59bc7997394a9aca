import { PostgreSQL, SQLDialect } from "@codemirror/lang-sql";

// DuckDB's SQL is PostgreSQL's plus a few words of its own (the engine's dialect everywhere).
export const DuckDB = SQLDialect.define({
  ...PostgreSQL.spec,
  keywords: `${PostgreSQL.spec.keywords ?? ""} qualify pivot unpivot asof positional exclude replace columns struct map list
    summarize describe using sample tablesample semi anti`,
  types: `${PostgreSQL.spec.types ?? ""} hugeint uhugeint utinyint usmallint uinteger ubigint varchar blob struct map union`,
});
