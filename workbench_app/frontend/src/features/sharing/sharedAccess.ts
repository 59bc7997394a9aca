// How a shared page reaches its dashboard: a public link (its secret in the path) or a signed embed
// (the token in X-Embed-Token on every call). The server checks either on every call.
import { api, data } from "../../api/client";
import type { components } from "../../api/schema";
import type { FilterValues } from "../dashboards/OneOfFilter";
import type { Result } from "../results/types";

/** Each filter marked `settable`: a public link opens only the filters chosen when it was made. */
export type SharedDashboard = components["schemas"]["SharedDashboard"];

export interface SharedAccess {
  /** Changes when the credential changes (a renewed token runs the cards again). */
  key: string;
  dashboard: () => Promise<SharedDashboard>;
  run: (cardId: number, filters: Record<string, string | string[]>) => Promise<Result>;
  csv: (cardId: number, filters: Record<string, string | string[]>) => Promise<Blob>;
  /** The PDF with these `f.<filter id>` parameters (when the share offers it: `share.allow_pdf`). */
  pdf: (filters: URLSearchParams) => Promise<Blob>;
  /** A one-of filter's values, read under the share's rights. */
  filterValues: (filterId: number, search: string | undefined) => Promise<FilterValues>;
}

export function publicLinkAccess(linkToken: string): SharedAccess {
  const path = { link_token: linkToken };
  return {
    key: linkToken,
    dashboard: async () => data(api.GET("/public/{link_token}", { params: { path } })),
    run: async (cardId, filters) => (await data(api.POST("/public/{link_token}/cards/{card_id}/run", {
      params: { path: { ...path, card_id: cardId } }, body: { filters } }))) as Result,
    csv: (cardId, filters) => data(api.POST("/public/{link_token}/cards/{card_id}/csv", {
      params: { path: { ...path, card_id: cardId } }, body: { filters }, parseAs: "blob" })) as Promise<Blob>,
    pdf: (filters) => data(api.GET("/public/{link_token}/pdf", {
      params: { path }, querySerializer: () => filters.toString(), parseAs: "blob" })) as Promise<Blob>,
    filterValues: (filterId, search) => data(api.GET("/public/{link_token}/filters/{filter_id}/values", {
      params: { path: { ...path, filter_id: filterId }, query: search ? { search } : {} } })),
  };
}

export function embedAccess(token: string): SharedAccess {
  const header = { "X-Embed-Token": token };
  return {
    key: token,
    dashboard: async () => data(api.GET("/embed/dashboard", { params: { header } })),
    run: async (cardId, filters) => (await data(api.POST("/embed/cards/{card_id}/run", {
      params: { header, path: { card_id: cardId } }, body: { filters } }))) as Result,
    csv: (cardId, filters) => data(api.POST("/embed/cards/{card_id}/csv", {
      params: { header, path: { card_id: cardId } }, body: { filters }, parseAs: "blob" })) as Promise<Blob>,
    pdf: (filters) => data(api.GET("/embed/pdf", {
      params: { header }, querySerializer: () => filters.toString(), parseAs: "blob" })) as Promise<Blob>,
    filterValues: (filterId, search) => data(api.GET("/embed/filters/{filter_id}/values", {
      params: { header, path: { filter_id: filterId }, query: search ? { search } : {} } })),
  };
}
