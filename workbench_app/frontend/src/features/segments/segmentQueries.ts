// Saved segments, keyed once: the segment editor and the dashboards' segment filter read the same
// list, and saving or deleting a segment invalidates SEGMENTS_KEY.
import { queryOptions } from "@tanstack/react-query";
import { api, data } from "../../api/client";
import type { components } from "../../api/schema";

export type Segment = components["schemas"]["Segment"];
export const SEGMENTS_KEY = ["segments"] as const;

export const segmentsQuery = () => queryOptions({
  queryKey: SEGMENTS_KEY,
  queryFn: async () => (await data(api.GET("/segments", { params: { query: {} } }))).segments,
  staleTime: 60_000,
});
