// The question builder's run, keyed by its definition (a definition seen before answers from the cache).
import { queryOptions } from "@tanstack/react-query";
import { runBuilder } from "../../api/statementRun";
import type { Definition } from "./builderDefinition";

export const builderRunQuery = (definition: Definition | null, rowLimit: number) => queryOptions({
  queryKey: ["builder-run", definition] as const,
  // The signal stops a run the screen no longer waits for (a newer definition, leaving the page).
  queryFn: ({ signal }) => runBuilder({ builder: definition!, row_limit: rowLimit }, signal),
  enabled: definition !== null,
});
