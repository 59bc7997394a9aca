// The embed page (/embed?token=<JWT>) inside a customer's inline frame. Every call sends the token;
// the host hands in a new one with a renewal message (renewalMessage.ts), accepted only from the
// origins its embedding secret allows, and the cards run again without a reload.
import { useEffect, useMemo, useState } from "react";
import { useSearchParams } from "react-router";
import { ApiError } from "../../api/client";
import { ACCEPTED_TYPE, renewedToken } from "./renewalMessage";
import { embedAccess } from "./sharedAccess";
import { SharedDashboardPage, useSharedDashboard } from "./SharedDashboardView";

export default function EmbedPage() {
  const [params] = useSearchParams();
  const [token, setToken] = useState(() => params.get("token") ?? "");
  const access = useMemo(() => embedAccess(token), [token]);
  const dashboard = useSharedDashboard(access);
  // The last origins known: an expired token's answer carries none, and its renewal must still be heard.
  const [origins, setOrigins] = useState<readonly string[]>([]);
  const refusedFor = dashboard.error instanceof ApiError ? dashboard.error.details.allowed_origins : undefined;
  const known = dashboard.data?.share.allowed_origins ?? (Array.isArray(refusedFor) ? (refusedFor as string[]) : undefined);
  if (known && known !== origins) setOrigins(known);

  useEffect(() => {
    function onMessage(event: MessageEvent) {
      const renewed = renewedToken(event.origin, event.data, origins);
      if (renewed === null) return;
      setToken(renewed);
      (event.source as Window | null)?.postMessage({ type: ACCEPTED_TYPE }, event.origin);
    }
    window.addEventListener("message", onMessage);
    return () => window.removeEventListener("message", onMessage);
  }, [origins]);

  return <SharedDashboardPage access={access} />;
}
