// The reads of the pages before signing in: a password link's check and the single sign-on offer.
import { queryOptions } from "@tanstack/react-query";
import { api, data } from "../../api/client";

export const passwordLinkQuery = (token: string) => queryOptions({
  queryKey: ["password-link", token] as const,
  queryFn: () => data(api.POST("/password-link/check", { body: { token } })),
  retry: false,
});

export const signOnOfferQuery = () => queryOptions({
  queryKey: ["sso-offer"] as const,
  queryFn: () => data(api.GET("/sso")),
  retry: false,
});
