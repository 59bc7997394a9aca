// The first-run setup link's check (its token is the credential: workbench_app/api/setup_routes.py).
import { queryOptions } from "@tanstack/react-query";
import { api, data } from "../../api/client";

export const setupLinkQuery = (token: string) => queryOptions({
  queryKey: ["setup", token] as const,
  queryFn: () => data(api.GET("/setup", { params: { query: { token } } })),
  retry: false,
});
