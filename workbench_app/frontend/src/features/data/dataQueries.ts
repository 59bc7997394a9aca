// The schema as the person may read it, keyed once for the Data screen, the question builder and
// the rule editor (a source added or changed invalidates every search of it: SCHEMA_KEY).
import { queryOptions } from "@tanstack/react-query";
import { api, data } from "../../api/client";

export const SCHEMA_KEY = ["schema"] as const;

export const schemaQuery = (search: string) => queryOptions({
  queryKey: [...SCHEMA_KEY, search] as const,
  queryFn: async () => (await data(api.GET("/schema", { params: { query: search.trim() ? { search: search.trim() } : {} } }))).tables,
});
