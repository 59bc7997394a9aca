// The administration screens' reads, each keyed once: a screen, the mutations that change what it
// shows and the other screens reading the same address name one key, and get one shape under it.
import { queryOptions } from "@tanstack/react-query";
import { api, data } from "../../api/client";

export const settingsQuery = () => queryOptions({
  queryKey: ["admin", "settings"] as const,
  queryFn: () => data(api.GET("/settings")),
});

// Under the settings' key: changing them reads the instance settings again (the sign-in offer).
export const signOnSettingsQuery = () => queryOptions({
  queryKey: [...settingsQuery().queryKey, "sso"] as const,
  queryFn: () => data(api.GET("/settings/sso")),
});

export const groupsQuery = () => queryOptions({
  queryKey: ["admin", "groups"] as const,
  queryFn: async () => (await data(api.GET("/groups"))).groups,
});

export const groupPermissionsQuery = (groupId: number) => queryOptions({
  queryKey: ["admin", "group-permissions", groupId] as const,
  queryFn: () => data(api.GET("/groups/{group_id}/permissions", { params: { path: { group_id: groupId } } })),
});

export const sourcesQuery = () => queryOptions({
  queryKey: ["admin", "sources"] as const,
  queryFn: async () => (await data(api.GET("/sources"))).sources,
});

/** Everyone's accounts; invalidating it reaches each person's too (`personQuery`). */
export const peopleQuery = () => queryOptions({
  queryKey: ["admin", "people"] as const,
  queryFn: async () => (await data(api.GET("/users"))).users,
});

export const personQuery = (userId: number) => queryOptions({
  queryKey: [...peopleQuery().queryKey, userId] as const,
  queryFn: () => data(api.GET("/users/{user_id}", { params: { path: { user_id: userId } } })),
});

/** Invalidating it reaches the person's own tokens and everyone's. */
export const TOKENS_KEY = ["tokens"] as const;

export const tokensQuery = (everyone: boolean) => queryOptions({
  queryKey: [...TOKENS_KEY, everyone ? "all" : "mine"] as const,
  queryFn: async () => (await data(api.GET("/tokens", { params: { query: everyone ? { all: "true" } : {} } }))).tokens,
});

export const dashboardCacheQuery = () => queryOptions({
  queryKey: ["admin", "dashboard-cache"] as const,
  queryFn: () => data(api.GET("/dashboard-cache")),
});
